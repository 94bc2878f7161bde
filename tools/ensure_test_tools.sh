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
bash "$(dirname "$0")/install_debian_packages.sh" "test tools" "${missing[@]}"
