"""This package's tests run every CLI in an isolated config home, never the developer's."""

from __future__ import annotations

import os

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
