"""Every codex this package's tests launch gets an isolated config home (never the user's)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
# Under `--import-mode=importlib` nothing puts this folder on `sys.path`; the shared helper
# module (`codex_runs`) is imported from it.
sys.path.insert(0, str(Path(__file__).parent))
