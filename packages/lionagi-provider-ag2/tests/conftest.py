"""The AG2 package's tests run offline: AG2's own scripted models, reply functions, loopback.

Under ``--import-mode=importlib`` nothing puts this folder on ``sys.path``; the shared helper
modules (``ag2_fakes``, ``ag2_nlip_fixtures``, named so no other package's helper can shadow
them) are imported from here.
"""

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
