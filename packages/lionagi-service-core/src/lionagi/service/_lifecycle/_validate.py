"""Shared field checks for lifecycle settings; each failure names the field it rejects."""

from __future__ import annotations

import math

from .._base.errors import AdmissionConfigError

__all__ = [
    "check_fraction",
    "check_optional_positive_int",
    "check_positive_int",
    "check_positive_seconds",
    "is_finite",
    "shown",
]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite(value: int | float) -> bool:
    """`math.isfinite`, false (not `OverflowError`) for an int beyond the float range."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def shown(value: object) -> str:
    """``repr(value)`` for an error message; an int beyond the float range is only named.

    Its digits say nothing to a reader, and past 4,300 of them ``repr`` raises ``ValueError``.
    """
    if isinstance(value, int) and not isinstance(value, bool) and not is_finite(value):
        return f"{'a negative' if value < 0 else 'an'} int beyond the float range"
    return repr(value)


def check_positive_int(field: str, value: object) -> None:
    """Require an int >= 1 (bools are refused: ``True`` is not a count)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise AdmissionConfigError(field, f"must be a positive int, got {value!r}")
    if value < 1:
        raise AdmissionConfigError(field, f"must be a positive int, got {shown(value)}")


def check_optional_positive_int(field: str, value: object) -> None:
    """Require None (the only spelling of unlimited) or an int >= 1."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        # The legacy spelling of "no limit" was 0; say so only to the caller who wrote it.
        hint = "; 0 is not unlimited" if value == 0 and not isinstance(value, bool) else ""
        raise AdmissionConfigError(
            field, f"must be None (unlimited) or a positive int, got {shown(value)}{hint}"
        )


def check_positive_seconds(field: str, value: object, *, allow_zero: bool = False) -> None:
    """Require a finite number of seconds > 0 (or >= 0 when ``allow_zero``)."""
    if not _is_number(value) or not is_finite(value):  # type: ignore[arg-type]
        raise AdmissionConfigError(field, f"must be a finite number of seconds, got {shown(value)}")
    if value < 0 or (value == 0 and not allow_zero):  # type: ignore[operator]
        bound = ">= 0" if allow_zero else "> 0"
        raise AdmissionConfigError(field, f"must be {bound} seconds, got {value!r}")


def check_fraction(field: str, value: object) -> None:
    """Require a finite number in [0, 1]."""
    if not _is_number(value) or not is_finite(value) or not 0 <= value <= 1:  # type: ignore[arg-type, operator]
        raise AdmissionConfigError(field, f"must be a number between 0 and 1, got {shown(value)}")
