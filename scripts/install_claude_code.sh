#!/usr/bin/env bash
# Install the pinned Claude Code CLI into <repo>/.cache/claude-code for the end-to-end tests,
# and print the path of its `claude` binary. Idempotent: does nothing when the pinned
# version is already there. Needs npm and the npm registry; nothing else.
set -euo pipefail

VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX="$(cd "$HERE/.." && pwd)/.cache/claude-code"
BIN="$PREFIX/node_modules/.bin/claude"
PKG="$PREFIX/node_modules/@anthropic-ai/claude-code"

installed_version() {
    # `claude --version` prints e.g. "2.1.332 (Claude Code)"; empty when absent or broken.
    [ -x "$BIN" ] || return 0
    "$BIN" --version 2>/dev/null | awk '{print $1}' || true
}

if [ "$(installed_version)" != "$VERSION" ]; then
    command -v npm >/dev/null || { echo "install_claude_code.sh: npm not found" >&2; exit 1; }
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/claude-code@$VERSION" >&2
    # The package's postinstall swaps a placeholder for the native binary. Should npm ever
    # skip install scripts, run it ourselves.
    if [ "$(installed_version)" != "$VERSION" ] && [ -f "$PKG/install.cjs" ]; then
        (cd "$PKG" && node install.cjs) >&2
    fi
    got="$(installed_version)"
    if [ "$got" != "$VERSION" ]; then
        echo "install_claude_code.sh: expected claude $VERSION at $BIN, got '${got}'" >&2
        exit 1
    fi
fi

echo "$BIN"
