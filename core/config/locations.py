"""Where Hearth's own files are: the checkout, or the internal folder of the one-folder
bundle (``PROJECT_ROOT``, which holds ``resources/``), and the models, which are never
bundled (``MODELS_DIR``). Decided once, at import."""

from __future__ import annotations

import os
import sys
from pathlib import Path

FROZEN = bool(getattr(sys, "frozen", False))
"""True inside the one-folder bundle built by ``packaging/hearth.spec``."""
PROJECT_ROOT = (Path(getattr(sys, "_MEIPASS", "")) if FROZEN
                else Path(__file__).resolve().parents[2])
"""Where ``resources/`` lives: the checkout, or the bundle's internal folder."""
MODELS_DIR = Path(os.environ.get(
    "HEARTH_MODELS_DIR",
    (Path(sys.executable).resolve().parent if FROZEN else PROJECT_ROOT) / "models"))
"""Models are never bundled: ``models/`` next to the checkout, or next to the bundle's
``hearth-desktop`` executable, unless ``HEARTH_MODELS_DIR`` points elsewhere."""
DEFAULT_EMBEDDING_MODEL_DIR = MODELS_DIR / "bge-small-en-v1.5-int8"
DEFAULT_EMBEDDED_LLM = MODELS_DIR / "smollm2-135m-instruct" / "SmolLM2-135M-Instruct.Q4_1.gguf"
