"""Find an agentic CLI's executable the way the child's exec would, before spawning it.

Resolution uses the PATH the *child* will receive, so a binary visible to the parent but absent
from the child's minimal environment is reported up front as
:class:`~lionagi.service._base.errors.ProviderExecutableNotFound` instead of failing inside exec.
Only successful lookups are cached (per binary and PATH): a CLI installed mid-session is found on
the next call, and a cached path that disappears is dropped when the spawn fails.

:func:`probe_cli` adds the version: it runs ``<binary> --version`` with a timeout and reads the
first version-looking token from stdout or, failing that, stderr (some CLIs, pi among them,
print their version on stderr). Versions are cached per resolved binary path, so a probe costs
one process per binary per session; a failed probe is not cached and says why it failed.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..._base.errors import ProviderExecutableNotFound

__all__ = [
    "VERSION_PROBE_TIMEOUT",
    "CliProbe",
    "discover_cli",
    "forget_executable",
    "probe_cli",
    "require_executable",
    "resolve_executable",
]

_CACHE: dict[tuple[str, str, str], str] = {}
_VERSIONS: dict[tuple[str, tuple[str, ...]], str] = {}
# Node-based CLIs take several seconds to print a version on a busy machine (pi: 7-11 s seen at
# load 12 on 2 cores); a probe that gives up early would report an installed CLI as broken.
VERSION_PROBE_TIMEOUT = 15.0
_VERSION = re.compile(r"\bv?(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?)")
# What a version probe may see of this environment: enough to find a config and a runtime.
_PROBE_ENV = ("PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR")
# After the kill, how long the probe's output may still take to reach EOF (see `_release`).
_AFTER_KILL = 1.0


def _default_hint(binary: str) -> str:
    return f"install {binary!r} and make sure its directory is on PATH"


def resolve_executable(
    binary: str, *, path: str | None = None, cwd: str | os.PathLike[str] | None = None
) -> str | None:
    """Return the absolute path exec would run for ``binary``, or None.

    Args:
        binary: A bare name searched on ``path``, or a path (containing a separator) checked
            directly; a relative path is taken relative to ``cwd`` as exec does.
        path: The child's PATH; None means this process's PATH (or ``os.defpath``).
        cwd: The child's working directory, for relative binary paths.
    """
    if not binary:
        return None
    search = os.environ.get("PATH", os.defpath) if path is None else path
    base = os.fspath(cwd) if cwd is not None else ""
    key = (binary, search, base)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    if os.sep in binary or (os.altsep and os.altsep in binary):
        candidate = Path(binary)
        if not candidate.is_absolute() and base:
            candidate = Path(base) / candidate
        found = str(candidate.absolute()) if _is_executable(candidate) else None
    else:
        hit = shutil.which(binary, path=search)
        found = os.path.abspath(hit) if hit else None
    if found is not None:
        _CACHE[key] = found
    return found


def forget_executable(binary: str) -> None:
    """Drop cached lookups of ``binary`` (called when a cached path fails to spawn)."""
    for key in [k for k in _CACHE if k[0] == binary]:
        _CACHE.pop(key, None)


def require_executable(
    binary: str,
    *,
    install_hint: str = "",
    path: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> str:
    """Return the absolute path exec would run for `binary`; raise when there is none.

    Args:
        binary: A bare name searched on `path`, or a path (containing a separator) checked
            directly; a relative path is taken relative to `cwd` as exec does.
        install_hint: Advice for the error message; a generic hint when empty.
        path: The child's PATH; None means this process's PATH (or `os.defpath`).
        cwd: The child's working directory, for relative binary paths.

    Raises:
        ProviderExecutableNotFound: `binary` resolves to no executable file.
    """
    found = resolve_executable(binary, path=path, cwd=cwd)
    if found is None:
        raise ProviderExecutableNotFound(binary, install_hint or _default_hint(binary))
    return found


def discover_cli(binary: str) -> tuple[bool, str | None]:
    """Availability probe for diagnostics: `(found, absolute path or None)` on this PATH."""
    found = resolve_executable(binary)
    return found is not None, found


def _is_executable(candidate: Path) -> bool:
    return candidate.is_file() and os.access(candidate, os.X_OK)


@dataclass(frozen=True, slots=True)
class CliProbe:
    """What `probe_cli` learned about one binary.

    Attributes:
        binary: The name or path asked about.
        path: Absolute path exec would run, or None when not found.
        version: The version token (`"1.2.3"`), or None with the reason in `detail`.
        detail: Empty on success; otherwise why no version was read (timeout, exit status,
            no version-looking text), for diagnostics output.
    """

    binary: str
    path: str | None
    version: str | None
    detail: str = ""

    @property
    def found(self) -> bool:
        """True when the binary exists on PATH (whether or not its version was read)."""
        return self.path is not None


def probe_cli(
    binary: str,
    *,
    version_args: Sequence[str] = ("--version",),
    timeout: float = VERSION_PROBE_TIMEOUT,
    path: str | None = None,
) -> CliProbe:
    """Find `binary` and read its version (blocking; use a worker thread from async code).

    The probe runs in its own session with stdin closed and is killed, with anything it
    started in its process group, when `timeout` seconds pass.

    Raises:
        ValueError: `timeout` is not a positive number.
    """
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    found = resolve_executable(binary, path=path)
    if found is None:
        return CliProbe(binary, None, None, "not found on PATH")
    key = (found, tuple(version_args))
    cached = _VERSIONS.get(key)
    if cached is not None:
        return CliProbe(binary, found, cached)
    env = {name: os.environ[name] for name in _PROBE_ENV if name in os.environ}
    if path is not None:
        env["PATH"] = path
    try:
        child = subprocess.Popen(
            [found, *version_args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        return CliProbe(binary, found, None, f"could not run: {exc.strerror or exc}")
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(child.pid)
        _release(child)
        return CliProbe(binary, found, None, f"no answer to --version within {timeout:g} s")
    for stream in (out, err):
        match = _VERSION.search(stream.decode("utf-8", "replace"))
        if match:
            _VERSIONS[key] = match.group(1)
            return CliProbe(binary, found, match.group(1))
    return CliProbe(
        binary, found, None, f"no version in its output (exit status {child.returncode})"
    )


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _release(child: subprocess.Popen[bytes]) -> None:
    """Reap a probe killed at its timeout, without waiting on its pipes beyond `_AFTER_KILL`.

    A descendant that left the process group (``setsid()``, as a detached update checker
    does) survives the group kill and can hold the pipes open for as long as it runs; reading
    them to EOF made a 1 s probe take as long as that descendant lived. So the pipes are
    closed after the short bound, and the child itself (killed directly too, in case it left
    its own group) is reaped.
    """
    with contextlib.suppress(ProcessLookupError):
        child.kill()
    try:
        child.communicate(timeout=_AFTER_KILL)
    except subprocess.TimeoutExpired:
        for pipe in (child.stdout, child.stderr):
            if pipe is not None:
                pipe.close()
        child.wait()
