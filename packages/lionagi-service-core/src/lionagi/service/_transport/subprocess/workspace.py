"""Keep a CLI's working directory and file arguments inside the repository it was given.

Agentic CLIs read and write files relative to their working directory, so a request field that
names a directory or file is an escape route unless it is contained. Checks run before launch:

* an absolute value is rejected (it ignores the repository entirely), and so is a leading
  ``~`` (a CLI may expand it to the home directory);
* any ``..`` component is rejected lexically, even when it would land back inside;
* after resolving symlinks the path must still be inside the resolved repository;
* a working directory must be one this process may enter (else the child's ``chdir`` fails).

A deployment may also pin the repository itself (``AgenticSettings.root``): then
:func:`resolve_within` resolves the repository inside that root, and every path contained in the
repository is inside the root too.

Symlinks are resolved at check time; a symlink swapped between the check and the CLI's own use
is outside what a parent process can prevent.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from ..._base.errors import AgenticRequestValidationError

__all__ = [
    "contained_path",
    "require_enterable",
    "resolve_repo",
    "resolve_within",
    "resolve_workspace",
]


def resolve_repo(repo: str | os.PathLike[str] | None, *, field: str = "repo") -> Path:
    """Resolve the repository root: ``None`` means the current directory; it must exist."""
    base = Path.cwd() if repo is None else Path(repo)
    try:
        resolved = base.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise AgenticRequestValidationError(
            field, f"{base} does not exist or cannot be resolved ({exc})"
        ) from None
    if not resolved.is_dir():
        raise AgenticRequestValidationError(field, f"{base} is not a directory")
    require_enterable(resolved, field, os.fspath(base))
    return resolved


def require_enterable(path: Path, field: str, shown: str) -> None:
    """Raise unless this process may enter ``path`` (search permission), as the CLI must.

    A directory that exists but cannot be entered passed every check and failed only at
    spawn, inside the child's ``chdir``: that ``PermissionError`` was read as the program
    being missing (``ProviderExecutableNotFound`` naming the interpreter), with no field.
    """
    if not os.access(path, os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise AgenticRequestValidationError(
            field, f"{shown} cannot be entered (permission denied); the CLI could not run there"
        )


def contained_path(
    repo: str | os.PathLike[str] | None,
    value: str | os.PathLike[str],
    *,
    field: str,
    must_exist: bool = False,
    repo_field: str = "repo",
    boundary: str = "the repository",
) -> Path:
    """Resolve `value` relative to `repo` and prove it stays inside.

    Args:
        repo: Repository root; None means the current directory.
        value: The relative path from a request field.
        field: Request field name, used in the error so the caller knows what to fix.
        must_exist: Also require the path to exist.
        repo_field: The name an error about `repo` itself carries (where `repo` came from).
        boundary: What `repo` is, in an error's words ("the repository").

    Raises:
        AgenticRequestValidationError: `value` is empty, absolute, contains `..`, escapes
            through a symlink, or (with `must_exist`) does not exist. `.field` is `field`.
    """
    root = resolve_repo(repo, field=repo_field)
    text = os.fspath(value)
    if not isinstance(text, str):
        raise AgenticRequestValidationError(field, "must be a text path")
    if not text:
        raise AgenticRequestValidationError(field, "must not be empty")
    if "\x00" in text:
        raise AgenticRequestValidationError(field, "contains a NUL byte")
    if (
        PurePosixPath(text).is_absolute()
        or PureWindowsPath(text).is_absolute()
        or PureWindowsPath(text).drive
        or text.startswith(("\\", "~"))
    ):
        raise AgenticRequestValidationError(
            field, f"{text!r} is absolute; give a path relative to {boundary} {root}"
        )
    parts = text.replace("\\", "/").split("/")
    if ".." in parts:
        raise AgenticRequestValidationError(
            field, f"{text!r} contains '..'; give a path inside {boundary} {root}"
        )
    try:
        resolved = _resolve_refusing_loops(root / text)
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise AgenticRequestValidationError(field, f"{text!r} cannot be resolved ({exc})") from None
    if not resolved.is_relative_to(root):
        raise AgenticRequestValidationError(
            field, f"{text!r} resolves to {resolved}, outside {boundary} {root} (symlink)"
        )
    if must_exist and not resolved.exists():
        raise AgenticRequestValidationError(field, f"{text!r} does not exist under {root}")
    return resolved


def resolve_within(
    root: str | os.PathLike[str],
    repo: str | os.PathLike[str] | None,
    *,
    field: str = "repo",
    root_field: str = "root",
) -> Path:
    """The repository of a run confined to a deployment's `root`: an existing directory inside.

    None is `root` itself. A relative `repo` is taken relative to `root` under the rules of
    `contained_path` (no `..` component, no leading `~`, symlinks followed). An absolute one
    must resolve, symlinks followed, inside `root`. Containment is checked before existence,
    so an error does not tell whether a path outside `root` exists (nor, for an absolute
    path, where it resolves to).

    Args:
        root: The deployment's boundary (`AgenticSettings.root`).
        repo: The repository asked for (a request's `repo`, or the settings' `cwd`).
        field: The name an error about `repo` carries (`repo`, or `cwd`).
        root_field: The name an error about `root` itself carries.

    Raises:
        AgenticRequestValidationError: `root` does not exist or is not a directory (`.field`
            is `root_field`); `repo` is empty, escapes `root`, does not exist there or is not a
            directory (`.field` is `field`).
    """
    base = resolve_repo(root, field=root_field)
    if repo is None:
        return base
    text = os.fspath(repo)
    if not isinstance(text, str):
        raise AgenticRequestValidationError(field, "must be a text path")
    if "\x00" not in text and Path(text).is_absolute():
        try:
            resolved = _resolve_refusing_loops(Path(text))
        except (OSError, RuntimeError) as exc:  # a symlink loop
            raise AgenticRequestValidationError(
                field, f"{text!r} cannot be resolved ({exc})"
            ) from None
        if not resolved.is_relative_to(base):
            # Checked before existence and without the resolved path: an error must not tell
            # a request what exists outside the root, or where a symlink there points.
            raise AgenticRequestValidationError(
                field, f"{text!r} is outside the deployment's root {base}"
            )
        if not resolved.exists():
            raise AgenticRequestValidationError(field, f"{text!r} does not exist under {base}")
    else:
        resolved = contained_path(
            base,
            text,
            field=field,
            must_exist=True,
            repo_field=root_field,
            boundary="the deployment's root",
        )
    if not resolved.is_dir():
        raise AgenticRequestValidationError(field, f"{text!r} is not a directory")
    require_enterable(resolved, field, repr(text))
    return resolved


def _resolve_refusing_loops(path: Path) -> Path:
    """``path.resolve(strict=False)``, except that a symlink loop raises on every Python.

    A path that does not exist yet is allowed (a file the CLI is to create), so resolution is
    not strict. But Python 3.13 stopped raising on a symlink loop in non-strict mode: it
    returns a path with the loop left in, which then passed the containment check and failed
    only when the CLI opened it. Strict resolution still reports the loop (``ELOOP``;
    ``RuntimeError`` before 3.13), so it is tried first; any other failure (a component missing
    or not a directory) falls back to the non-strict result, as before.
    """
    try:
        return path.resolve(strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise
        return path.resolve(strict=False)


def resolve_workspace(
    repo: str | os.PathLike[str] | None,
    workspace: str | None,
    *,
    field: str = "workspace",
    repo_field: str = "repo",
) -> Path:
    """The CLI's working directory: `repo` (or the cwd) itself, or a contained subdirectory.

    An absent or empty `workspace` returns the resolved repository. Otherwise the rules of
    `contained_path` apply and the result must be an existing directory. An error about
    `repo` names `repo_field` (`cwd` when the directory came from the deployment's
    settings rather than the request).
    """
    if not workspace:
        return resolve_repo(repo, field=repo_field)
    path = contained_path(repo, workspace, field=field, must_exist=True, repo_field=repo_field)
    if not path.is_dir():
        raise AgenticRequestValidationError(field, f"{workspace!r} is not a directory")
    require_enterable(path, field, repr(workspace))
    return path
