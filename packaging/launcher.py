"""Entry script of the bundle: PyInstaller needs a file to start from, and running
``desktop/app.py`` itself would make it ``__main__`` instead of ``desktop.app``.

``freeze_support`` comes first: reflection and the dream cycle run in a child process
(``desktop.isolated``), which in a frozen build is this same executable started again; the
call turns that start into the child's work instead of a second window."""

import multiprocessing
import sys

multiprocessing.freeze_support()

from desktop.app import main  # noqa: E402

sys.exit(main())
