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


def run_marked_block(page: Path, pattern: re.Pattern[str], tmp_path: Path) -> list[str]:
    """Run ``page``'s marked python block in a fresh interpreter; its stdout lines."""
    match = pattern.search(page.read_text(encoding="utf-8"))
    assert match, f"docs/{page.name} lost its marked python block"
    script = tmp_path / "example.py"
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
    return done.stdout.splitlines()


def test_the_quickstart_block_runs_and_prints_what_the_page_says(tmp_path):
    lines = run_marked_block(PAGE, BLOCK, tmp_path)
    assert lines[0].startswith("You said: hello.")
    assert lines[-1] == "completed"


CONCEPTS = PAGE.with_name("concepts.md")
HOOKS = re.compile(r"<!-- hooks:begin -->\s*```python\n(?P<code>.*?)```\s*<!-- hooks:end -->", re.S)


def test_the_hooks_example_runs_and_prints_what_the_page_says(tmp_path):
    answer, seen = run_marked_block(CONCEPTS, HOOKS, tmp_path)
    assert answer.startswith("YOU SAID: HELLO.") and answer == answer.upper()
    assert seen == "['calling APICalling']"
