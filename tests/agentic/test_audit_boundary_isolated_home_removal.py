"""An isolated home is removed on close even when the CLI left read-only directories in it.

Tools a CLI runs write read-only trees into ``HOME`` (Go's module cache: every directory 0555).
An unprivileged ``rmtree`` cannot unlink inside them, and with errors ignored the whole home
(sessions, credentials, conversation dumps) stayed behind in ``/tmp`` after ``close()``, after
a crash of the CLI and after a cancelled stream alike.

Root ignores permission bits, so the run happens in a child interpreter: as this user when it
is not root, else as root without ``CAP_DAC_OVERRIDE``/``CAP_DAC_READ_SEARCH``/``CAP_FOWNER``
(``setpriv``).
"""

from __future__ import annotations

import os
import shutil
import stat
import textwrap
from pathlib import Path

import pytest

from ._unprivileged import unprivileged

# The CLI: leaves a read-only tree in its HOME (and a link to a read-only directory outside),
# prints one event, then exits, crashes or stalls.
_CLI = """
import json, os, signal, sys, time
home = os.environ["HOME"]
tree = os.path.join(home, "go", "pkg", "mod", "x@v1")
os.makedirs(tree)
with open(os.path.join(tree, "f.go"), "w") as handle:
    handle.write("package x")
os.chmod(os.path.join(tree, "f.go"), 0o444)
for folder in (tree, os.path.dirname(tree)):
    os.chmod(folder, 0o555)
os.symlink(sys.argv[1], os.path.join(home, "outside"))
print(json.dumps({"type": "text", "content": "ok"}), flush=True)
if sys.argv[2] == "crash":
    os.kill(os.getpid(), signal.SIGKILL)
if sys.argv[2] == "stall":
    time.sleep(60)
"""

_RUN = """
import asyncio, json, sys
import anyio
from lionagi.service import iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

cli, outside, how = sys.argv[1], sys.argv[2], sys.argv[3]

async def main():
    endpoint = ReferenceCliEndpoint(
        argv=[sys.executable, cli, outside, how], settings={"config_home": "isolated"}
    )
    model = iModel(endpoint=endpoint)
    if how == "stall":
        with anyio.move_on_after(1.0):
            async for _ in model.stream(prompt="hi"):
                pass
    else:
        await model.invoke(prompt="hi")
    home = endpoint.isolated_home
    await model.close()
    return {"home": str(home), "exists": home.exists()}

print(json.dumps(asyncio.run(main())))
"""


@pytest.mark.parametrize("how", ["exit", "crash", "stall"])
def test_a_home_with_read_only_directories_is_removed_on_close(tmp_path: Path, how: str) -> None:
    cli = tmp_path / "cli.py"
    cli.write_text(textwrap.dedent(_CLI), encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o500)
    try:
        outcome = unprivileged(_RUN, os.fspath(cli), os.fspath(outside), how)
        left = Path(outcome["home"])
        if left.exists():  # clean up for the next run, then fail
            for top, dirs, _ in os.walk(left):
                for name in dirs:
                    Path(top, name).chmod(0o700)
            shutil.rmtree(left, ignore_errors=True)
        assert outcome["exists"] is False, f"{left} was left behind"
        # The link out of the home was removed, not followed: its target keeps its mode.
        assert stat.S_IMODE(outside.stat().st_mode) == 0o500
    finally:
        outside.chmod(0o700)
