"""The pi package's tests always run pi (real or fake) in an isolated config home.

Set before any endpoint exists, so no test ever reads or writes a developer's ``~/.pi``.
"""

from __future__ import annotations

import os

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
