#!/usr/bin/env bash
# Installs Debian's Chromium at /usr/bin/chromium for the report's browser check
# (test/report/browser.test.ts). Idempotent: does nothing when it is already there.
# Exit 0 when /usr/bin/chromium is there afterwards, 1 when it could not be installed
# (the browser check then skips, saying why).
set -uo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: already installed ($(/usr/bin/chromium --version 2>/dev/null | head -n 1))"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: apt-get not available; install Chromium at /usr/bin/chromium by hand" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "chromium: not root and no sudo; install the Debian package chromium by hand" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
for attempt in 1 2; do
  if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null; then break; fi
  echo "chromium: install attempt $attempt failed" >&2
  sleep 5
done
if [ -x /usr/bin/chromium ]; then
  echo "chromium: installed ($(/usr/bin/chromium --version 2>/dev/null | head -n 1))"
  exit 0
fi
echo "chromium: could not be installed; the browser check will skip" >&2
exit 1
