"""The caller's system-prompt text, handed to pi as files the run owns.

pi 0.73's ``--system-prompt`` and ``--append-system-prompt`` take text *or a path*: its
``resolvePromptInput`` reads the file when the value names one that exists (absolute, or relative
to pi's working directory) and sends that file's content to the model provider. Passing the
caller's text verbatim therefore let ``append_system_prompt=["/home/u/.ssh/id_rsa"]`` (or
``system_prompt="README.md"`` in a repository) upload a file instead of the text. pi has no flag
that takes literal text, so each value is written to a file of its own in a directory private to
one run (mode 0700, files 0600, created and removed by this process) and pi is given that path:
it then reads exactly the caller's text. The directory is removed when the run ends, whatever
ends it; a weak-reference finalizer (also run at interpreter exit) is the backstop.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Sequence
from pathlib import Path

__all__ = ["PROMPT_DIR_PREFIX", "PromptFiles"]

PROMPT_DIR_PREFIX = "lionagi-pi-prompt-"
"""Name prefix of a run's private prompt directory (under the system temporary directory)."""

_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class PromptFiles:
    """One run's prompt files; :meth:`remove` deletes them with their directory (idempotent).

    Attributes:
        directory: The private directory (0700) holding the files.
        system: The file holding ``system_prompt``, or None when none was given.
        append: One file per ``append_system_prompt`` item, in order.
    """

    __slots__ = ("__weakref__", "_finalizer", "append", "directory", "system")

    def __init__(self, directory: Path, system: Path | None, append: tuple[Path, ...]) -> None:
        """Take ownership of ``directory``: it is removed by :meth:`remove` or at collection."""
        self.directory = directory
        self.system = system
        self.append = append
        self._finalizer = weakref.finalize(self, shutil.rmtree, directory, ignore_errors=True)

    @classmethod
    def write(cls, system_prompt: str | None, append_system_prompt: Sequence[str]) -> PromptFiles:
        """Write each text to its own 0600 file in a new 0700 directory.

        Raises:
            OSError: the temporary directory cannot be written (nothing is left behind).
        """
        directory = Path(tempfile.mkdtemp(prefix=PROMPT_DIR_PREFIX))  # mode 0700
        try:
            system = None
            if system_prompt is not None:
                system = _write_private(directory / "system-prompt.md", system_prompt)
            append = tuple(
                _write_private(directory / f"append-system-prompt-{index}.md", text)
                for index, text in enumerate(append_system_prompt)
            )
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        return cls(directory, system, append)

    @property
    def removed(self) -> bool:
        """True once the directory was removed."""
        return not self._finalizer.alive

    def remove(self) -> None:
        """Delete the directory and its files; later calls do nothing."""
        self._finalizer()


def _write_private(path: Path, text: str) -> Path:
    """Create ``path`` (it must not exist, nor be a link) with mode 0600 and ``text`` as UTF-8."""
    fd = os.open(path, _CREATE, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(text.encode("utf-8"))
    return path
