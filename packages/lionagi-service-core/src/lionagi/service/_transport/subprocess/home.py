"""Where a CLI keeps its login and config: the user's home, or a throwaway one we own.

A CLI launched with no ``HOME`` does not fail: it falls back to the password database and
writes its config into the home directory of whoever runs the process (a test run then edits
the developer's own Claude or Codex config). So ``HOME`` is always set explicitly here.

:class:`IsolatedHome` is one endpoint's private home: created on first use with mode 0700,
seeded once by the adapter, removed by :meth:`IsolatedHome.remove` (the endpoint's ``aclose``)
or, as a backstop, when the owner is garbage collected or the interpreter exits.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import stat
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["IsolatedHome", "isolated_home_env", "user_home"]


def user_home() -> str:
    """This user's home: ``$HOME`` when set and non-empty, else the password database entry."""
    home = os.environ.get("HOME")
    if home:
        return home
    return pwd.getpwuid(os.getuid()).pw_dir


def isolated_home_env(home: Path) -> dict[str, str]:
    """``HOME``, the XDG base directories and the temporary directory, all inside ``home``.

    ``TMPDIR`` too: a CLI writes crash and error reports there (Gemini CLI dumps the whole
    conversation and the API's error body, mode 0644, on every API error), and in the shared
    ``/tmp`` they outlived the run and were readable by every user.
    """
    return {
        "TMPDIR": os.fspath(home / "tmp"),
        "HOME": os.fspath(home),
        "XDG_CONFIG_HOME": os.fspath(home / ".config"),
        "XDG_CACHE_HOME": os.fspath(home / ".cache"),
        "XDG_DATA_HOME": os.fspath(home / ".local" / "share"),
        "XDG_STATE_HOME": os.fspath(home / ".local" / "state"),
    }


def _remove_tree(path: Path) -> None:
    """Delete the home, including directories the CLI left read-only.

    Tools a CLI runs write read-only trees into ``HOME`` (Go's module cache makes every
    directory 0555): an unprivileged ``rmtree`` cannot unlink inside them, and with errors
    ignored the home (sessions, tokens, conversation dumps) silently stayed in ``/tmp``. So
    on a first failure every directory of the tree gets its owner bits back, then it is
    removed again. The tree is ours; its processes are gone by now; symlinks are not followed.
    """
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return
    except OSError:
        _make_removable(path)
        shutil.rmtree(path, ignore_errors=True)


def _make_removable(path: Path) -> None:
    """Give the owner rwx on ``path`` and every directory below it (links left alone)."""
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IRWXU)
    for top, dirs, _files in os.walk(path):  # top-down, so each is fixed before it is listed
        for name in dirs:
            child = os.path.join(top, name)
            if not os.path.islink(child):
                with contextlib.suppress(OSError):
                    os.chmod(child, stat.S_IMODE(os.lstat(child).st_mode) | stat.S_IRWXU)


class IsolatedHome:
    """A lazily created private home directory; see the module docstring."""

    __slots__ = ("__weakref__", "_finalizer", "_holders", "_path", "_prefix", "_removed")

    def __init__(self, prefix: str = "lionagi-home-") -> None:
        self._prefix = prefix
        self._path: Path | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._removed = False
        self._holders = 1

    @property
    def removed(self) -> bool:
        """True once the last holder removed it."""
        return self._removed

    def share(self) -> IsolatedHome:
        """One more holder (an endpoint sharing a session): :meth:`remove` deletes at the last.

        A CLI keeps its sessions in its home, so a copy that resumes the original's session
        must run in the same one.
        """
        self._holders += 1
        return self

    @property
    def path(self) -> Path | None:
        """The directory, once created; None before first use and after removal."""
        return self._path

    def ensure(self, seed: Callable[[Path], None]) -> Path:
        """The directory, created and passed to ``seed`` on the first call.

        Raises:
            RuntimeError: the home was already removed (its endpoint is closed).
        """
        if self._path is not None:
            return self._path
        if self._removed:
            raise RuntimeError("the isolated config home was removed: its endpoint is closed")
        path = Path(tempfile.mkdtemp(prefix=self._prefix))
        self._finalizer = weakref.finalize(self, _remove_tree, path)
        try:
            for sub in (".config", ".cache", ".local/share", ".local/state", "tmp"):
                (path / sub).mkdir(parents=True, exist_ok=True)
            seed(path)
        except BaseException:
            self._finalizer()
            raise
        self._path = path
        return path

    def remove(self) -> None:
        """One holder is done; the last one deletes the directory, and later ensures refuse.

        Each holder calls it once (an endpoint's ``aclose`` drops its reference after it).
        """
        if self._removed:
            return
        self._holders -= 1
        if self._holders > 0:
            return
        self._removed = True
        self._path = None
        if self._finalizer is not None:
            self._finalizer()
