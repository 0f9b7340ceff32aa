"""A version probe ends at its timeout even when a detached descendant holds its pipes.

``probe_cli`` promises to be "killed, with anything it started in its process group, when
`timeout` seconds pass" (docs/decisions.md, version probing). A helper that called ``setsid()``
(a detached update checker) is outside that group, survives the kill and keeps the probe's stdout
open; reading it to EOF after the kill made the probe last as long as the helper did.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
import time
from pathlib import Path

from lionagi.service._transport.subprocess import probe_cli

from .conftest import Clean, alive

HELPER_LIFETIME = 60  # seconds; far longer than the bound asserted below


def test_timeout_holds_with_a_setsid_descendant_on_the_pipe(tmp_path: Path, clean: Clean) -> None:
    pidfile = tmp_path / "helper.pid"
    binary = tmp_path / "cli-detached"
    binary.write_text(
        f"#!{sys.executable}\n"
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        f"    time.sleep({HELPER_LIFETIME})\n"
        "    os._exit(0)\n"
        f"time.sleep({HELPER_LIFETIME})\n"
    )
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    started = time.monotonic()
    try:
        probe = probe_cli(str(binary), timeout=0.5)
        elapsed = time.monotonic() - started
    finally:
        if pidfile.exists():
            helper = int(pidfile.read_text())
            clean.track(helper)
            if alive(helper):
                os.kill(helper, signal.SIGKILL)
    assert probe.version is None
    assert "no answer to --version within 0.5 s" in probe.detail
    assert elapsed < 10.0, f"the probe took {elapsed:.1f} s for a 0.5 s timeout"
