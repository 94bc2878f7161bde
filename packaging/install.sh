#!/bin/sh
# Install the bundle built by `make package` for one user (or PREFIX=/usr/local as root):
#   PREFIX/lib/hearth/                      the one-folder bundle (and its models/)
#   PREFIX/bin/hearth-desktop               a link to the bundle's executable
#   PREFIX/share/applications/hearth.desktop, PREFIX/share/icons/.../hearth.svg
# Models are not part of the bundle: they are copied from MODELS (default: the checkout's
# models/, filled by `make models`) into the bundle's models/ folder, where the app looks.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${PREFIX:-$HOME/.local}
MODELS=${MODELS:-$ROOT/models}
BUNDLE=$ROOT/dist/hearth

if [ ! -x "$BUNDLE/hearth-desktop" ]; then
    echo "No bundle at $BUNDLE: run 'make package' first." >&2
    exit 1
fi
if [ ! -d "$MODELS" ]; then
    echo "No models at $MODELS: run 'make models', or set MODELS=/path/to/models." >&2
    exit 1
fi

rm -rf "$PREFIX/lib/hearth"
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/share/applications" \
         "$PREFIX/share/icons/hicolor/scalable/apps"
cp -a "$BUNDLE" "$PREFIX/lib/hearth"
cp -a "$MODELS" "$PREFIX/lib/hearth/models"
ln -sf "$PREFIX/lib/hearth/hearth-desktop" "$PREFIX/bin/hearth-desktop"
cp "$ROOT/packaging/hearth.desktop" "$PREFIX/share/applications/hearth.desktop"
cp "$ROOT/resources/icons/hearth.svg" "$PREFIX/share/icons/hicolor/scalable/apps/hearth.svg"
# The menu cache is refreshed when the tool is there; menus also rescan by themselves.
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database "$PREFIX/share/applications" \
        || echo "update-desktop-database failed; the menu entry appears after a re-login." >&2
fi
echo "Installed Hearth in $PREFIX (make sure $PREFIX/bin is on your PATH)."
