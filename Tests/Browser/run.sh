#!/usr/bin/env bash
# The console's real-browser test: installs headless Chromium (Debian) and Playwright for
# Python (PyPI) when missing, then runs console_test.py against the built `nimbus`.
# Usage: Tests/Browser/run.sh [path/to/nimbus] [screenshot folder]
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive
if ! command -v chromium >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
python3 -c 'import playwright' 2>/dev/null || pip install -q playwright
binary=${1:-$(swift build --show-bin-path)/nimbus}
shots=${2:-$(mktemp -d)}
timeout 600 python3 Tests/Browser/console_test.py "$binary" "$shots"
