"""Every codex this package's tests launch gets an isolated config home (never the user's)."""

from __future__ import annotations

import os

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
