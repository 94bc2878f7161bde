"""Entry script of the bundle: PyInstaller needs a file to start from, and running
``desktop/app.py`` itself would make it ``__main__`` instead of ``desktop.app``."""

import sys

from desktop.app import main

sys.exit(main())
