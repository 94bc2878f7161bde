"""The compiled libraries load in an order that cannot crash, whatever a process does first
(``core.native_libraries``): usearch loaded before onnxruntime used to kill the process with
a segmentation fault at onnxruntime's import, as when the window checked its ANN index
before its first recall. Each case runs in a fresh process, as only a process's first
loads decide it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import DEFAULT_EMBEDDING_MODEL_DIR

ROOT = Path(__file__).resolve().parents[2]


def run_fresh(script: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=environment, timeout=120, check=False)


@pytest.mark.parametrize("first", ["open_index", "build_index", "text_index", "embed"])
def test_an_index_and_an_embedding_work_in_either_order(first: str, tmp_path: Path) -> None:
    index_file = tmp_path / "graph.usearch"
    script = f"""
from pathlib import Path
import numpy as np
from core.embedding import OnnxEmbedder
from core.storage.sqlite import ann, text_index

def build():
    graph = ann.new_graph(384)
    graph.add(np.arange(3), np.eye(3, 384, dtype=np.float32))
    graph.save({str(index_file)!r})

def open_index():
    assert ann.load_graph(Path({str(index_file)!r}), None, view=True) is not None

def embed():
    vector = OnnxEmbedder(Path({str(DEFAULT_EMBEDDING_MODEL_DIR)!r})).embed_query("hello")
    assert vector.shape == (384,)

first = {first!r}
if first == "open_index":
    import subprocess, sys
    subprocess.run([sys.executable, "-c", "from core.storage.sqlite import ann; import numpy"
                    " as np; g = ann.new_graph(384); g.add(np.arange(3), np.eye(3, 384,"
                    " dtype=np.float32)); g.save({str(index_file)!r})"], check=True)
    open_index(); embed()
elif first == "build_index":
    build(); embed()
elif first == "text_index":  # tantivy loaded first, then onnxruntime and usearch
    index = text_index._opened(Path({str(tmp_path)!r}), 1, create=True)
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    writer.commit()
    embed(); build(); open_index()
else:
    embed(); build(); open_index()
print("both worked")
"""
    done = run_fresh(script)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "both worked" in done.stdout


def test_telemetry_is_off_before_onnxruntime_is_loaded_by_any_path() -> None:
    done = run_fresh("import os; from core.storage.sqlite import ann; ann.new_graph(8);"
                     " print(os.environ.get('ORT_DISABLE_TELEMETRY'))")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "1"
