#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test.sh [--no-sanitized]: the README's second command (and .ci/run). Sets up, builds with
# warnings as errors and runs the whole CTest suite; then builds what the sanitized part of
# the suite needs under AddressSanitizer + UBSan and runs it (scripts/sanitize.sh ci:
# the tests labelled unit, vectors and sanitized; docs/testing.md). --no-sanitized stops
# after the ordinary suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sanitized=1
case "${1:-}" in
'') ;;
--no-sanitized) sanitized=0 ;;
*)
    echo "usage: scripts/test.sh [--no-sanitized]" >&2
    exit 2
    ;;
esac
scripts/setup.sh
started=$SECONDS
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
echo "test: the ordinary suite took $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s (build and tests)"
if [ "$sanitized" = 1 ]; then
    started=$SECONDS
    scripts/sanitize.sh ci
    echo "test: the sanitized suite took $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s (build and tests)"
fi
