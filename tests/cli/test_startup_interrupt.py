"""A Ctrl-C while the console script imports the command line is one line and exit 130.

The console script's wrapper (``_lionagi_service_cli``) imports ``lionagi.service.cli`` before
the command line's own ``KeyboardInterrupt`` handler exists. A Ctrl-C in those first tens of
milliseconds escaped as a multi-line traceback (and death by SIGINT), against "every error is
one line on stderr". Delivering a real SIGINT inside that window is a race, so the import is
made to raise it, in a real interpreter running the wrapper's ``main``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# A finder ahead of the import system: the command line's import is interrupted, as a
# Ctrl-C during it would be.
_CHILD = """
import sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "lionagi.service.cli":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["lionagi-service", *sys.argv[1:]]
from _lionagi_service_cli import main
sys.exit(main())
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("command", ["demo", "chat", "providers"])
def test_an_interrupted_start_is_one_line_and_exit_130(command: str) -> None:
    done = _run(command)
    assert done.returncode == 130
    assert done.stderr == "interrupted\n"  # no traceback
    assert done.stdout == ""


@pytest.mark.parametrize("command", ["demo", "chat"])
def test_json_output_still_ends_with_the_interrupted_record(command: str) -> None:
    done = _run(command, "--json")
    assert done.returncode == 130
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"type": "interrupted", "exit_code": 130}
    ]
