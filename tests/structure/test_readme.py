"""The README's quickstart and commands are real: the code block runs, the commands are the CI's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_quickstart_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks, "README has no python quickstart"
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "You said: hello" in done.stdout
    assert "completed" in done.stdout


def test_readme_has_exactly_the_two_commands_ci_runs() -> None:
    commands = re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)
    assert commands == [
        "python3 -m pip install uv && python3 -m uv run lionagi-service demo",
        "python3 -m pip install uv && python3 -m uv run pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 -m pip install --quiet uv" in ci
    assert "python3 -m uv run pytest" in ci
