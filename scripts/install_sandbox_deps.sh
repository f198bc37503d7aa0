#!/usr/bin/env bash
# What Claude Code's OS sandbox needs on Linux (bubblewrap, socat): the end-to-end test
# of the sandbox fails without them, as the CLI would run commands unconfined.
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0  # macOS uses Seatbelt, built in
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    exit 0
fi
echo "Claude Code's sandbox needs: ${missing[*]}. Install them (e.g. sudo apt-get install" \
     "${missing[*]}) and run make test again." >&2
exit 1
