"""The kits' leak check finds a process the adapter's own code started and detached.

A helper started with ``setsid ... &`` (or any double fork) is reparented to PID 1, so no
parent link leads back to the test process; the check finds it by the environment tag every
process started during the case inherits. An auditor's adapter that started such a helper in
``prepare_launch`` passed the whole kit while leaving one ``sleep`` per case behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import anyio
import pytest

from lionagi.service_testing.conformance import LeakCheck
from lionagi.service_testing.conformance._leaks import alive, proc_available

pytestmark = pytest.mark.skipif(not proc_available(), reason="needs /proc (Linux)")

# The parent prints the pid of a sleep in its own session and exits: the sleep is an orphan.
DETACH = (
    "import subprocess, sys\n"
    "p = subprocess.Popen(['sleep', '30'], start_new_session=True,\n"
    "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "sys.stdout.write(str(p.pid))\n"
)


def detached_sleep() -> int:
    done = subprocess.run([sys.executable, "-c", DETACH], check=True, capture_output=True)
    return int(done.stdout)


async def test_a_detached_process_started_during_the_case_is_named_and_stopped() -> None:
    check = LeakCheck(settle=0.3)
    check.start()
    pid = detached_sleep()
    assert alive(pid)
    with pytest.raises(AssertionError, match="still running") as info:
        await check.verify()
    assert str(pid) in str(info.value)
    with anyio.fail_after(5):
        while alive(pid):  # noqa: ASYNC110 - polling another process's state
            await anyio.sleep(0.01)


async def test_a_case_that_stops_its_helpers_passes() -> None:
    check = LeakCheck(settle=2.0)
    check.start()
    pid = detached_sleep()
    os.kill(pid, signal.SIGTERM)
    await check.verify()


async def test_processes_started_before_the_case_are_not_its_own() -> None:
    pid = detached_sleep()
    try:
        check = LeakCheck(settle=0.3)
        check.start()
        await check.verify()
    finally:
        os.kill(pid, signal.SIGKILL)
