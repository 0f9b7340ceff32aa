"""``python -m lionagi.service.cli``: the ``lionagi-service`` command line, same exit codes.

For an environment without the console script on ``PATH`` (a venv that is not activated, a
container that runs ``python -m``). It runs the same ``main`` the console script's wrapper runs,
so every command, flag, output and exit code is the same. What only the wrapper can do happens
before this module exists: Python has already imported ``lionagi.service`` to find it, so a
broken installation is Python's own error (exit 1) rather than the one-line report (exit 2),
and a signal during that import has its default effect. From ``main``'s first line on, SIGTERM
and Ctrl-C are handled as under the console script, up to the process's exit: the process is
the command line here, so SIGTERM and Ctrl-C stay held once the outcome is written
(``_program_main``, which the console script's wrapper calls too).
"""

import sys

from . import _program_main

if __name__ == "__main__":
    sys.exit(_program_main())
