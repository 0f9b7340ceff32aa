"""Package test policy: no developer CLI config is read, and no real key leaks into a test.

The kit passes its own key to every endpoint; a ``GEMINI_API_KEY`` exported in the developer's
shell must not be what an offline test sends (live tests read it themselves).

Under ``--import-mode=importlib`` nothing puts this folder on ``sys.path``; this file does, so
the test files can import the shared helper module (``gemini_loopback``, named so no other
package's helper can shadow it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
LIVE_KEY = os.environ.pop("GEMINI_API_KEY", None)
if LIVE_KEY is not None:
    os.environ["LIONAGI_TEST_GEMINI_API_KEY"] = LIVE_KEY

# Unguarded: pytest imports a conftest once per session, and a repeated entry would be harmless.
sys.path.insert(0, str(Path(__file__).parent))
