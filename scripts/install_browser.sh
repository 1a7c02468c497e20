#!/usr/bin/env bash
# Chromium and its driver from Debian's (or Ubuntu's) packages, for the browser tests of the owner's and the
# operators' pages. Nothing happens where both are installed. Needs root (or sudo) to install.
set -euo pipefail
if command -v chromedriver >/dev/null && { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; }; then
  exit 0
fi
run_as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    run_as_root=(sudo)
  else
    echo "install_browser: run as root: apt-get install chromium chromium-driver" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update -q
"${run_as_root[@]}" apt-get install -y -q --no-install-recommends chromium chromium-driver
