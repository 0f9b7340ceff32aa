"""The pages' marked examples stay runnable as written: each runs in a fresh interpreter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "quickstart.md"
BLOCK = re.compile(
    r"<!-- quickstart:begin -->\s*```python\n(?P<code>.*?)```\s*<!-- quickstart:end -->", re.S
)


def test_the_quickstart_block_runs_and_prints_what_the_page_says(tmp_path):
    match = BLOCK.search(PAGE.read_text(encoding="utf-8"))
    assert match, "docs/quickstart.md lost its marked python block"
    script = tmp_path / "quickstart.py"
    script.write_text(match.group("code"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("You said: hello.")
    assert lines[-1] == "completed"


CONCEPTS = PAGE.with_name("concepts.md")
HOOKS = re.compile(r"<!-- hooks:begin -->\s*```python\n(?P<code>.*?)```\s*<!-- hooks:end -->", re.S)


def test_the_hooks_example_runs_and_prints_what_the_page_says(tmp_path):
    match = HOOKS.search(CONCEPTS.read_text(encoding="utf-8"))
    assert match, "docs/concepts.md lost its marked hooks block"
    script = tmp_path / "hooks.py"
    script.write_text(match.group("code"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer, seen = done.stdout.splitlines()
    assert answer.startswith("YOU SAID: HELLO.") and answer == answer.upper()
    assert seen == "['calling APICalling']"
