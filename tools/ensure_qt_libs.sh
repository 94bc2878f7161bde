#!/usr/bin/env bash
# The Qt wheels (PySide6) bring Qt itself but load a few system libraries: OpenGL/EGL,
# fontconfig, xkbcommon, D-Bus, GLib and X11's client library (even offscreen, which is all
# the tests need). With --window, also the XCB libraries Qt's X11 platform plugin loads to
# open a real window (`make run`). On a Debian machine that lacks any of them, install them
# from Debian's packages; otherwise do nothing.
set -euo pipefail

declare -A PACKAGE_OF=(
  [libEGL.so.1]=libegl1 [libGL.so.1]=libgl1 [libxkbcommon.so.0]=libxkbcommon0
  [libfontconfig.so.1]=libfontconfig1 [libdbus-1.so.3]=libdbus-1-3
  [libglib-2.0.so.0]=libglib2.0-0 [libX11.so.6]=libx11-6 [libX11-xcb.so.1]=libx11-xcb1
)
if [ "${1:-}" = "--window" ]; then
  PACKAGE_OF+=(
    [libxcb-cursor.so.0]=libxcb-cursor0 [libxcb-icccm.so.4]=libxcb-icccm4
    [libxcb-image.so.0]=libxcb-image0 [libxcb-keysyms.so.1]=libxcb-keysyms1
    [libxcb-randr.so.0]=libxcb-randr0 [libxcb-render-util.so.0]=libxcb-render-util0
    [libxcb-shape.so.0]=libxcb-shape0 [libxcb-xkb.so.1]=libxcb-xkb1
    [libxkbcommon-x11.so.0]=libxkbcommon-x11-0
  )
fi
known="$(/sbin/ldconfig -p)"
missing=()
for library in "${!PACKAGE_OF[@]}"; do
  if ! grep -qF "${library} " <<<"${known}"; then
    missing+=("${PACKAGE_OF[$library]}")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
bash "$(dirname "$0")/install_debian_packages.sh" "Qt system libraries" "${missing[@]}"
