"""Suite-wide policy: every agentic CLI a test launches gets an isolated config home.

The deployment default of ``AgenticSettings.config_home`` is the user's own home (a person
expects their logged-in CLI). A test run must never read or write the developer's CLI config,
so the whole suite, and every ``lionagi-service`` subprocess it starts (they inherit this
environment), runs with ``LIONAGI_SERVICE_CONFIG_HOME=isolated``. Tests of the ``user`` mode
set ``config_home="user"`` explicitly and point ``HOME`` at a temporary directory.
"""

from __future__ import annotations

import os

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
