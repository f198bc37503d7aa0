#!/usr/bin/env bash
# The README's promise for a fresh clone: with no ../shared beside it, every test module
# collects and the tests that need the shared transcripts skip, saying why. A clone of HEAD
# in a temp dir (nothing beside it) is collected with this checkout's venv; any collection
# error fails. Then a few quick tests run there: shared-data ones must skip with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$PWD/.venv"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
git clone -q --no-hardlinks . "$TMP/repo"
cd "$TMP/repo"
[ ! -e ../shared ] || { echo "fresh-clone: $TMP/shared exists" >&2; exit 1; }
# The clone's own packages, not the editable install's; nothing that points at ../shared.
run() {
  env -u MEM_REVIEW_REQUIRE_SHARED -u MEM_REVIEW_SHARED_DIR PYTHONPATH="$TMP/repo" \
    "$VENV/bin/pytest" -p no:cacheprovider "$@"
}
if ! out="$(run --collect-only -q 2>&1)"; then
  printf '%s\n' "$out" | tail -40 >&2
  echo "fresh-clone: collection failed in a clone with no ../shared beside it" >&2
  exit 1
fi
printf '%s\n' "$out" | tail -1 | sed 's/^/fresh-clone collect: /'
out="$(run -q -rs tests/test_bad_input.py tests/test_fit.py \
  -k "hook or real_transcript_sample or random or sessions_fit or big_tool" 2>&1)" || {
  printf '%s\n' "$out" | tail -40 >&2
  echo "fresh-clone: the sample failed in a clone with no ../shared beside it" >&2
  exit 1
}
printf '%s\n' "$out" | grep -q "a fresh clone has no ../shared beside it" || {
  printf '%s\n' "$out" | tail -40 >&2
  echo "fresh-clone: no test skipped with the missing-../shared reason" >&2
  exit 1
}
printf '%s\n' "$out" | tail -1 | sed 's/^/fresh-clone sample: /'
