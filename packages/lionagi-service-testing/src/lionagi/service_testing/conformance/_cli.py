"""SubprocessCliConformance: the subprocess kit wired to a ``SubprocessCliEndpoint`` adapter.

Every CLI adapter's conformance module wrote the same four hooks: build the adapter with the
kit's argv prefix, grace, settings and local cap; a prompt-only valid request; the same request
with ``repo`` and ``workspace``; the resume flag followed by the id. An adapter built on core's
:class:`~lionagi.service.agentic.SubprocessCliEndpoint` takes those through its constructor and
its request model's ``prompt``/``repo``/``workspace`` fields, so this class implements the hooks
once: a vendor module sets ``cli_endpoint_type`` (and ``resume_flag`` when it resumes) and keeps
only its grammar, ``cli_events(scenario)`` and, if the CLI exits non-zero after a failure,
``cli_exit_code(scenario)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from lionagi.service import AgenticSettings
from lionagi.service.agentic import SubprocessCliEndpoint

from ._subprocess import SubprocessAgenticConformance

__all__ = ["SubprocessCliConformance"]


class SubprocessCliConformance(SubprocessAgenticConformance):
    """:class:`SubprocessAgenticConformance` with the adapter hooks of a CLI adapter filled in.

    Knobs:
        cli_endpoint_type: the adapter class (required).
        conformance_prompt: the prompt of :meth:`valid_request` (default ``"hello conformance"``).
        resume_flag: the flag preceding a session id in the resumed run's argv (e.g.
            ``"--resume"``); None leaves the kit's default (the id anywhere in argv or stdin).
    """

    cli_endpoint_type: ClassVar[type[SubprocessCliEndpoint]]
    conformance_prompt: ClassVar[str] = "hello conformance"
    resume_flag: ClassVar[str | None] = None

    def make_cli_endpoint(
        self,
        argv_prefix: Sequence[str],
        *,
        terminate_grace: float,
        settings: AgenticSettings | None = None,
        timeout: float | None = None,
    ) -> SubprocessCliEndpoint:
        """``cli_endpoint_type`` running ``argv_prefix``, with the grace, settings and cap."""
        config: dict[str, Any] = {"timeout": timeout} if timeout is not None else {}
        return self.cli_endpoint_type(
            argv=argv_prefix, terminate_grace=terminate_grace, settings=settings, **config
        )

    def valid_request(self) -> dict[str, Any]:
        """``{"prompt": conformance_prompt}``, a new dict per call."""
        return {"prompt": self.conformance_prompt}

    def workspace_request(self, repo: Path, workspace: str) -> dict[str, Any]:
        """The valid request run in ``repo`` with ``workspace`` (the shared request fields)."""
        return {**self.valid_request(), "repo": str(repo), "workspace": workspace}

    def resume_argv(self, session_id: str) -> Sequence[str] | None:
        """``[resume_flag, session_id]``, or None when no flag is declared."""
        return None if self.resume_flag is None else [self.resume_flag, session_id]
