"""Test support for lionagi-service: a fake model-provider server on loopback, and more.

Applications and third-party provider packages use it to test against real HTTP without a
network or credentials; the benchmarks and the opt-in real-CLI tests use it too. A test that
needs an answer no scenario renders serves a handler of its own with :func:`serving`.
"""

from ._fake_embeddings import EMBEDDING_DIMENSIONS as EMBEDDING_DIMENSIONS
from ._fake_embeddings import embed as embed
from ._fake_record import REDACTED as REDACTED
from ._fake_record import RecordedRequest as RecordedRequest
from ._fake_script import BEHAVIOURS as BEHAVIOURS
from ._fake_script import DEFAULT_TEXT as DEFAULT_TEXT
from ._fake_script import OVERSIZED_BYTES as OVERSIZED_BYTES
from ._fake_script import THINKING_TEXT as THINKING_TEXT
from ._fake_script import TOOL_COMMAND as TOOL_COMMAND
from ._fake_script import TOOL_DESCRIPTION as TOOL_DESCRIPTION
from ._fake_wire import USAGE_INPUT as USAGE_INPUT
from ._fake_wire import USAGE_OUTPUT as USAGE_OUTPUT
from ._secret_check import assert_secret_hidden as assert_secret_hidden
from ._secret_check import plain_secret as plain_secret
from ._secret_check import secret_shown as secret_shown
from ._serving import ServingError as ServingError
from ._serving import serving as serving
from ._stream_script import ScriptedStream as ScriptedStream
from ._stream_script import scripted_replies_server as scripted_replies_server
from ._stream_script import scripted_stream_server as scripted_stream_server
from .fake_server import FakeProviderServer as FakeProviderServer
from .fake_server import main as main
from .fake_server import serve_forever as serve_forever

__all__ = [
    "BEHAVIOURS",
    "DEFAULT_TEXT",
    "EMBEDDING_DIMENSIONS",
    "OVERSIZED_BYTES",
    "REDACTED",
    "THINKING_TEXT",
    "TOOL_COMMAND",
    "TOOL_DESCRIPTION",
    "USAGE_INPUT",
    "USAGE_OUTPUT",
    "FakeProviderServer",
    "RecordedRequest",
    "ScriptedStream",
    "ServingError",
    "assert_secret_hidden",
    "embed",
    "main",
    "plain_secret",
    "scripted_replies_server",
    "scripted_stream_server",
    "secret_shown",
    "serve_forever",
    "serving",
]
