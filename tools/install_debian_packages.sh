#!/usr/bin/env bash
# Install Debian packages the set-up needs (as root, or through sudo); where there is no
# apt-get, say what is missing and fail. Usage: install_debian_packages.sh WHAT PACKAGE...
# (WHAT names them in the messages: "Qt's system libraries", "test tools").
set -euo pipefail

what="$1"
shift
if ! command -v apt-get >/dev/null; then
  echo "Hearth needs these ${what}: $* (install them with your package manager)" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing ${what}: $*"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
