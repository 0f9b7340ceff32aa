"""docs/cli.md names every command and every long option the parser has."""

from __future__ import annotations

import argparse
from pathlib import Path

from lionagi.service.cli import _parser

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_every_command_and_option_is_on_the_page():
    text = PAGE.read_text(encoding="utf-8")
    parser = _parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    missing: list[str] = []
    for name, command in sub.choices.items():
        if f"## `{name}`" not in text:
            missing.append(f"section {name}")
        for action in command._actions:
            for option in action.option_strings:
                documented = f"`{option}" in text or f"[{option}" in text
                if option.startswith("--") and option != "--help" and not documented:
                    missing.append(f"{name} {option}")
    assert "--version" in text
    assert not missing, missing


def test_the_exit_code_table_matches_the_module_docstring():
    import lionagi.service.cli as cli

    text = PAGE.read_text(encoding="utf-8")
    for code in ("0", "1", "2", "3", "4", "5", "130", "143"):
        assert f"| {code} |" in text
        assert f"\n{code} " in (cli.__doc__ or "")
