"""Package test policy: no developer CLI config is read, and no real key leaks into a test.

The kit passes its own key to every endpoint; a ``GEMINI_API_KEY`` exported in the developer's
shell must not be what an offline test sends (live tests read it themselves).
"""

from __future__ import annotations

import os

from lionagi.service.agentic import CONFIG_HOME_ENV

os.environ[CONFIG_HOME_ENV] = "isolated"
LIVE_KEY = os.environ.pop("GEMINI_API_KEY", None)
if LIVE_KEY is not None:
    os.environ["LIONAGI_TEST_GEMINI_API_KEY"] = LIVE_KEY
