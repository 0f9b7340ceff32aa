"""Every gemini this package's tests start gets an isolated config home (never the user's)."""

from __future__ import annotations

import os

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
