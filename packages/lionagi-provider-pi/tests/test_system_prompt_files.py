"""System prompts reach pi as run-owned files holding the caller's text, never as a path to read.

pi 0.73.1 reads a ``--system-prompt`` / ``--append-system-prompt`` value as a file whenever that
path exists (``resolvePromptInput``), so the adapter writes each text to a private file and
passes its path. The fake CLI here stands in for pi's resolver: it reads every file it is given
under those flags (as pi would), records what it found, then replays pi's events. Each test then
checks that the recorded content is exactly the caller's text and that the run's prompt directory
is gone, whatever ended the run.
"""

from __future__ import annotations

import json
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._prompt_files import PROMPT_DIR_PREFIX, PromptFiles
from lionagi.service import (
    AgenticRequestValidationError,
    EventStatus,
    ProviderError,
    ProviderExecutableNotFound,
    iModel,
)
from lionagi.service_testing.fake_clis import script_path

pytestmark = pytest.mark.anyio

PROMPT_FLAGS = ("--system-prompt", "--append-system-prompt")
SESSION = {"type": "session", "version": 3, "id": "01a2-prompt-files", "cwd": "/w"}
USER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
ANSWER = {
    "role": "assistant",
    "content": [{"type": "text", "text": "done"}],
    "api": "openai-completions",
    "provider": "fake",
    "model": "fake-model",
    "stopReason": "stop",
}
EVENTS: list[dict[str, Any]] = [
    SESSION,
    {"type": "agent_start"},
    {"type": "message_start", "message": USER},
    {"type": "message_end", "message": USER},
    {"type": "turn_start"},
    {"type": "message_end", "message": ANSWER},
    {"type": "turn_end", "message": ANSWER, "toolResults": []},
    {"type": "agent_end", "messages": [USER]},
]

# The fake pi: for each value after a system-prompt flag, read it the way pi's resolver does
# (the file's content when the path exists, else the value itself), record it with the file's
# and directory's modes, then become ``replay`` on the plan (same pid, pi's events).
FAKE_PI = """\
import json, os, stat, sys
record, replay, plan, *args = sys.argv[1:]
seen = []
for flag, value in zip(args, args[1:]):
    if flag in {flags!r}:
        entry = {{"flag": flag, "value": value}}
        if os.path.exists(value):
            with open(value, encoding="utf-8") as handle:
                entry["read"] = handle.read()
            entry["mode"] = stat.S_IMODE(os.lstat(value).st_mode)
            folder = os.path.dirname(os.path.abspath(value))
            entry["dir_mode"] = stat.S_IMODE(os.stat(folder).st_mode)
        else:
            entry["read"] = value
        seen.append(entry)
with open(record, "a", encoding="utf-8") as handle:
    handle.write(json.dumps({{"args": args, "prompts": seen}}) + "\\n")
os.execv(sys.executable, [sys.executable, "-I", "-S", replay, plan, *args])
"""


class FakePi:
    """The fake pi's argv prefix, its plan and what each launch recorded."""

    def __init__(self, root: Path, plan: dict[str, Any]) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.record = root / "launches.jsonl"
        self.plan = root / "plan.json"
        self.plan.write_text(json.dumps(plan), encoding="utf-8")
        script = root / "fake_pi.py"
        script.write_text(FAKE_PI.format(flags=PROMPT_FLAGS), encoding="utf-8")
        replay = str(script_path("replay"))
        self.argv = [sys.executable, "-I", "-S", str(script), str(self.record), replay]
        self.argv.append(str(self.plan))

    def launches(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line]

    def model(self) -> iModel:
        return iModel(endpoint=PiCliEndpoint(argv=self.argv, terminate_grace=1.0))


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's temporary directory, private to the test, so leftovers can be listed.

    Every ``PromptFiles`` a run writes is also kept alive until the test ends: the finalizer
    backstop would otherwise remove a directory as soon as the run dropped it, hiding a missing
    removal at the end of the run.
    """
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    kept: list[PromptFiles] = []
    write = PromptFiles.write

    def keep(system_prompt: str | None, append_system_prompt: Sequence[str]) -> PromptFiles:
        files = write(system_prompt, append_system_prompt)
        kept.append(files)
        return files

    monkeypatch.setattr(PromptFiles, "write", keep)
    yield root
    for files in kept:
        files.remove()


def prompt_dirs(root: Path) -> list[Path]:
    return sorted(root.glob(f"{PROMPT_DIR_PREFIX}*"))


async def test_file_names_given_as_prompts_are_sent_as_text_not_read(
    tmp_path: Path, temp_root: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- absolute", encoding="utf-8")
    (repo / "notes.md").write_text("relative file content", encoding="utf-8")
    texts = [str(secret), "notes.md", "  -literal, with spaces\nand a second line  "]
    fake = FakePi(tmp_path / "fake", {"events": EVENTS})
    model = fake.model()
    try:
        call = await model.invoke(
            prompt="hi", system_prompt=texts[0], append_system_prompt=texts[1:], repo=str(repo)
        )
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    (launch,) = fake.launches()
    prompts = launch["prompts"]
    assert [p["flag"] for p in prompts] == [
        "--system-prompt",
        "--append-system-prompt",
        "--append-system-prompt",
    ]
    assert [p["read"] for p in prompts] == texts  # exactly the caller's text, byte for byte
    assert not any(text in launch["args"] for text in texts)  # no caller text in argv
    for entry in prompts:
        assert Path(entry["value"]).parent.name.startswith(PROMPT_DIR_PREFIX)
        assert (entry["mode"], entry["dir_mode"]) == (0o600, 0o700)
    assert len({Path(p["value"]).parent for p in prompts}) == 1  # one directory per run
    assert prompt_dirs(temp_root) == []  # removed once the run ended


async def test_prompt_files_are_removed_after_a_failed_run(tmp_path: Path, temp_root: Path) -> None:
    fake = FakePi(tmp_path / "fake", {"events": EVENTS[:2], "stderr": "boom", "exit_code": 3})
    model = fake.model()
    try:
        call = await model.invoke(prompt="hi", system_prompt="be terse")
    finally:
        await model.close()
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderError)
    (launch,) = fake.launches()
    assert [p["read"] for p in launch["prompts"]] == ["be terse"]
    assert prompt_dirs(temp_root) == []


async def test_prompt_files_are_removed_when_the_run_is_cancelled(
    tmp_path: Path, temp_root: Path
) -> None:
    fake = FakePi(tmp_path / "fake", {"events": EVENTS[:2], "stall": True})
    model = fake.model()
    first = anyio.Event()
    seen_dirs: list[Path] = []

    async def consume() -> None:
        async for _chunk in model.stream(prompt="hi", append_system_prompt=["keep going"]):
            seen_dirs.extend(prompt_dirs(temp_root))
            first.set()

    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(consume)
                await first.wait()
                tg.cancel_scope.cancel()
    finally:
        await model.close()
    assert len(seen_dirs) == 1  # the files existed while pi ran
    assert not seen_dirs[0].exists()
    assert prompt_dirs(temp_root) == []


async def test_prompt_files_are_removed_when_the_launch_fails(
    tmp_path: Path, temp_root: Path
) -> None:
    model = iModel(endpoint=PiCliEndpoint(argv=[str(tmp_path / "missing" / "pi")]))
    try:
        call = await model.invoke(prompt="hi", system_prompt="x", append_system_prompt=["y"])
    finally:
        await model.close()
    assert isinstance(call.exception, ProviderExecutableNotFound)
    assert prompt_dirs(temp_root) == []


async def test_no_prompt_directory_without_system_prompts(tmp_path: Path, temp_root: Path) -> None:
    fake = FakePi(tmp_path / "fake", {"events": EVENTS})
    model = fake.model()
    seen: list[Path] = []
    try:
        async for _chunk in model.stream(prompt="hi", append_system_prompt=[]):
            seen.extend(prompt_dirs(temp_root))
    finally:
        await model.close()
    (launch,) = fake.launches()
    assert launch["prompts"] == []
    assert not any(flag in launch["args"] for flag in PROMPT_FLAGS)
    assert seen == []


def test_command_outside_a_run_never_puts_prompt_text_in_argv() -> None:
    payload, _ = PiCliEndpoint().create_payload({"prompt": "hi", "system_prompt": "/etc/hostname"})
    with pytest.raises(ValueError, match="run-owned files"):
        PiCliEndpoint().command(payload["request"])


@pytest.mark.parametrize(
    "fields", [{"system_prompt": "bad \ud800"}, {"append_system_prompt": ["ok", "bad \udc80"]}]
)
def test_text_utf8_cannot_encode_is_refused_naming_the_field(fields: dict[str, Any]) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        PiCliEndpoint().create_payload({"prompt": "hi", **fields})
    assert info.value.field.startswith(next(iter(fields)))
    assert not any("\ud800" <= char <= "\udfff" for char in str(info.value))  # no value echoed


def test_prompt_files_are_private_and_removed(tmp_path: Path, temp_root: Path) -> None:
    files = PromptFiles.write("sys", ["a", ""])
    assert files.system is not None
    assert [p.read_text() for p in (files.system, *files.append)] == ["sys", "a", ""]
    assert stat.S_IMODE(files.directory.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in (files.system, *files.append)} == {0o600}
    files.remove()
    files.remove()  # idempotent
    assert files.removed
    assert prompt_dirs(temp_root) == []
