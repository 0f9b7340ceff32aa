"""The pytest plugin's fixtures a provider author uses, exercised the way a provider test would."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lionagi.service.agentic import CONFIG_HOME_ENV
from lionagi.service_testing.pytest_plugin import RecordingFakeCli
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint


async def test_recording_fake_cli_logs_what_the_adapter_sent(
    recording_fake_cli: RecordingFakeCli, isolated_cli_home: Path
) -> None:
    events = [{"type": "text", "content": "hi"}, {"type": "result"}]
    endpoint = ReferenceCliEndpoint(argv=recording_fake_cli.argv(events))
    chunks = [c async for c in endpoint.stream({"prompt": "-n hello"})]
    assert [c.type for c in chunks] == ["text", "result"]
    (record,) = recording_fake_cli.records()
    assert record["argv"][-2:] == ["--", "-n hello"]
    # Isolated mode: the CLI ran in a throwaway home of its own, neither the developer's nor the
    # test's temporary HOME.
    home = record["env"]["HOME"]
    assert Path(home).name.startswith("lionagi-home-"), home
    assert home != str(isolated_cli_home)


def test_isolated_cli_home_sets_the_policy_and_a_temporary_home(
    isolated_cli_home: Path,
) -> None:
    assert os.environ[CONFIG_HOME_ENV] == "isolated"
    assert os.environ["HOME"] == str(isolated_cli_home)
    assert isolated_cli_home.is_dir()


def test_records_are_empty_before_any_launch(recording_fake_cli: RecordingFakeCli) -> None:
    assert recording_fake_cli.records() == []


@pytest.mark.parametrize("exit_code", [0, 3])
def test_plan_keys_reach_the_replay(recording_fake_cli: RecordingFakeCli, exit_code: int) -> None:
    argv = recording_fake_cli.argv([], exit_code=exit_code)
    plan = json.loads(Path(argv[-1]).read_text())
    assert plan == {"exit_code": exit_code, "events": []}
