"""This package's tests run every CLI in an isolated config home, never the developer's.

Under ``--import-mode=importlib`` nothing puts this folder on ``sys.path``; this file does, so
the test files can import the shared helper module (``claude_captures``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"

# Unguarded: pytest imports a conftest once per session, and a repeated entry is harmless.
sys.path.insert(0, str(Path(__file__).parent))
