"""``python -m desktop``: the same as ``hearth-desktop``."""

import sys

from desktop.app import main

sys.exit(main())
