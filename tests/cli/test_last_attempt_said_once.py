"""The command line names a deadline's last attempt once, whoever wrote it into the message.

The retry loop ends `RequestDeadlineExceeded`'s own message with `(last attempt: ...)`, and the
text renderer used to append the `__cause__` again, so the error line said it twice.
"""

from __future__ import annotations

from lionagi.service_testing import FakeProviderServer

from .test_cli_defects_flags import behaviour, lines, run, server, via

__all__ = ["server"]  # the module-scoped fake server fixture, shared


def test_a_deadline_after_http_500s_names_its_last_attempt_once(
    server: FakeProviderServer,
) -> None:
    flags = [*behaviour("500"), "--endpoint-setting", "max_retries=50", "--timeout", "1"]
    done = run(*via(server, *flags))
    assert done.returncode == 3, done.stderr
    (line,) = lines(done.stderr)
    assert line.count("(last attempt: ") == 1, line
    assert "ProviderServerError" in line and "HTTP 500" in line
