"""The one place that loads Hearth's compiled C++ libraries, in the one order that is safe.

usearch's extension (the ANN index, ``core.storage.sqlite.ann``) carries its own static copy
of the C++ standard library and exports it. Loaded before onnxruntime (the embedding model,
``core.embedding.onnx``), its copy of the locale machinery is the one onnxruntime's
initialisation binds to, and the process dies with a segmentation fault at that import
(usearch 2.26 with onnxruntime 1.32 on Linux: ``python -c "import usearch.index; import
onnxruntime"`` exits 139). Loaded the other way round, both work. Which of the two a process
needs first depends on what it does first (the window checks the index before its first
recall; a search embeds first), so nothing else in Hearth imports either library: both come
from here, and asking for usearch loads onnxruntime before it. A recall embeds its query
anyway, so onnxruntime is never loaded for nothing.

``ORT_DISABLE_TELEMETRY`` is set here too, before onnxruntime is ever loaded: its Linux
wheels (1.32 measured) carry Microsoft's 1DS telemetry client, which resolves
``mobile.events.data.microsoft.com`` a few seconds after the first inference and keeps a
device id under ``~/.cache/Microsoft``. ``disable_telemetry_events()`` does not stop it;
this variable, read by the native library when its environment is created, does, and
child processes inherit it. ``tests/reliability/test_network.py`` watches the sockets;
``tests/core/test_native_libraries.py`` proves the order in fresh processes.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

os.environ["ORT_DISABLE_TELEMETRY"] = "1"


def onnxruntime() -> ModuleType:
    """The ``onnxruntime`` module, loaded with its telemetry off."""
    return importlib.import_module("onnxruntime")


def usearch_index() -> ModuleType:
    """The ``usearch.index`` module, loaded only after onnxruntime (see the module
    docstring: the other order crashes the process at onnxruntime's import)."""
    onnxruntime()
    return importlib.import_module("usearch.index")
