"""A sub-agent's usage as its own calls reported it, read back from its stream's history.

AG2 runs a sub-agent (``Agent.as_tool``, the background and dynamic task tools) on a private
stream and puts one ``UsageEvent(kind="subtask")`` on the parent's: the field-wise sum of the
sub-agent's records, each as its vendor counted it, naming no vendor. The run's sum cannot
complete such a rollup (an Anthropic sub-agent's ``prompt_tokens`` leave its cache out, an
OpenAI one's include it), but each record it sums names its client, and they are in the
sub-agent stream's history: AG2 keeps it in the parent's storage unless the caller gave the
sub-agent a stream of its own, and the ``TaskCompleted`` that follows the rollup names it.

A rollup is replaced by those records only when they add up to it exactly (AG2's own sum, in
the same order), so a history that is missing, in other storage, or holds a later run's
records too leaves the rollup as sent: never a count twice, at worst one left uncompleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["expand_rollups"]


async def expand_rollups(storage: Any, events: Sequence[Any]) -> list[Any]:
    """The ``UsageEvent``s of ``events`` with each completed sub-agent rollup replaced.

    ``events`` are a stream's ``UsageEvent``s and ``TaskCompleted``s, in order; a rollup is
    paired with the ``TaskCompleted`` of the same sub-agent and usage that follows it, and
    replaced by the records of that task's stream (recursively: a sub-agent's own sub-agents
    too). An unpaired rollup is kept as it is.
    """
    return await _expand(storage, events, set())


async def _expand(storage: Any, events: Iterable[Any], seen: set[Any]) -> list[Any]:
    from autogen.beta.events import TaskCompleted, UsageEvent

    records: list[Any] = []
    pending: list[Any] = []
    for event in events:
        if isinstance(event, UsageEvent) and event.usage:
            (pending if event.kind == "subtask" else records).append(event)
        elif isinstance(event, TaskCompleted):
            rollup = next(
                (r for r in pending if r.label == event.agent_name and r.usage == event.usage),
                None,
            )
            if rollup is not None:
                pending.remove(rollup)
                records.extend(await _task_records(storage, rollup, event.task_stream, seen))
    records.extend(pending)
    return records


async def _task_records(storage: Any, rollup: Any, stream_id: Any, seen: set[Any]) -> list[Any]:
    """The records ``rollup`` sums, from the history of stream ``stream_id``; else ``[rollup]``."""
    from autogen.beta.events import Usage, UsageEvent

    if stream_id in seen:
        return [rollup]
    try:
        history = list(await storage.get_history(stream_id))
    except Exception:  # storage of the caller's: unreadable is "not there"
        return [rollup]
    own = [e.usage for e in history if isinstance(e, UsageEvent) and e.usage]
    if sum(own, Usage()) != rollup.usage:
        return [rollup]
    return await _expand(storage, history, seen | {stream_id})
