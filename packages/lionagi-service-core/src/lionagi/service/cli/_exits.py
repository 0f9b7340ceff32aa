"""The parser's own endings, raised while parsing and written afterwards as the outcome.

argparse writes as it parses: its error line, ``--help``'s text, ``--version``'s lines, each
followed by ``sys.exit``. The process that is the command line holds SIGTERM and Ctrl-C from
the moment its outcome is written until it exits (``_signals.written_held``); text written by
the parser itself came before those holds, so a signal in the few bytecodes between the write
and the holds turned a finished ``--version`` (0) or a decided usage error (2) into
``terminated`` / ``interrupted`` (143 / 130). Raising these instead lets ``_run`` write the text
the way every other outcome is written.
"""

from __future__ import annotations

__all__ = ["ParserOutput", "UsageExit"]


class UsageExit(SystemExit):
    """argparse's usage exit (code 2): its redacted message (``--json``) and its stderr line."""

    def __init__(self, message: str, line: str) -> None:
        super().__init__(2)
        self.message = message
        self.line = line


class ParserOutput(SystemExit):
    """``--help`` or ``--version``: the text for stdout, and then exit 0."""

    def __init__(self, text: str) -> None:
        super().__init__(0)
        self.text = text
