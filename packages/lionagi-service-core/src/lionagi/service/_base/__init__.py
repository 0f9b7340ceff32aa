"""Private layer package.

Every module of core imports from here first, so this is where the co-installation guard runs:
whatever entry point a process uses (``lionagi.service``, a submodule, the command line or a
provider distribution), it fails with one clear error on an environment the published
``lionagi`` distribution has mixed into (see :mod:`.installation`).
"""

from .installation import check_installation as _check_installation

_check_installation()
