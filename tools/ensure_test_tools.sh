#!/usr/bin/env bash
# Programs the test suite runs beside Hearth: strace watches every socket a command opens
# (tests/reliability/test_network.py). On a Debian machine that lacks one, install it from
# Debian's packages; otherwise say what to install.
set -euo pipefail

declare -A PACKAGE_OF=([strace]=strace)
missing=()
for program in "${!PACKAGE_OF[@]}"; do
  command -v "${program}" >/dev/null || missing+=("${PACKAGE_OF[$program]}")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "the tests need these programs: ${missing[*]} (install them with your package manager)" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing test tools: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
