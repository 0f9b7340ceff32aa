"""Compatibility import path for model-string parsing (ADR-0028 D5).

Legacy lionagi code imports `parse_model_spec` and `ModelSpec` from `lionagi.service.providers`,
and ADR-0028 keeps that path while the catalog takes over what it parses. The names are the
ones `lionagi.service` exports; new code imports them from there.
"""

from __future__ import annotations

from ._catalog.policy import EFFORT_LEVELS, ModelSpec
from ._catalog.registry import parse_model_spec

__all__ = ["EFFORT_LEVELS", "ModelSpec", "parse_model_spec"]
