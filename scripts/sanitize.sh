#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sanitize.sh [ci|asan|tsan|all]: builds the sanitizer presets out of tree and runs the suite
# under them (docs/testing.md).
#   ci    build/sanitize: the part of the suite that CI runs under AddressSanitizer + UBSan
#         after the ordinary suite (scripts/test.sh): the tests labelled unit, vectors and
#         sanitized, building only what they need
#   asan  build/sanitize: everything under AddressSanitizer + UBSan (any undefined behaviour
#         aborts), the whole suite
#   tsan  build/tsan: the threaded tests under ThreadSanitizer, with only the reports
#         tests/tsan.supp lists (each with its reason) ignored
#   all   both (the default)
# Extra arguments go to ctest (e.g. -R test_control). Installs what is missing first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
which=${1:-all}
[ $# -gt 0 ] && shift
case "$which" in
ci | asan | tsan | all) ;;
*)
    echo "usage: scripts/sanitize.sh [ci|asan|tsan|all] [ctest arguments]" >&2
    exit 2
    ;;
esac
scripts/setup.sh

# CI's sanitized part: every test labelled unit or vectors (the readers, the CPU and its
# vectors, the chipset's units, the protocols, the fuzz targets' replays) and those labelled
# sanitized (COPPERLINE_CI_SANITIZED_EXTRA in cmake/Sanitizers.cmake: the capture's writers
# and readers run in-process on a small guest program). The target ci_sanitized builds what
# they run. Left out: the tests that boot AROS or start copperline (labels integration and
# ui without sanitized); docs/testing.md says why.
if [ "$which" = ci ]; then
    cmake --preset sanitize
    cmake --build --preset sanitize --target ci_sanitized
    ctest --preset sanitize -L '^(unit|vectors|sanitized)$' "$@"
    exit 0
fi

# The threaded tests: the emulator thread, the control server, the window, --run.
threaded=(test_emulator test_control test_control_hostile test_main_window test_run)

if [ "$which" != tsan ]; then
    cmake --preset sanitize
    cmake --build --preset sanitize
    ctest --preset sanitize "$@"
fi
if [ "$which" != asan ]; then
    cmake --preset tsan
    # The executables the threaded tests start, and the tests themselves.
    cmake --build --preset tsan --target copperline copperline-ctl "${threaded[@]}"
    ctest --preset tsan "$@"
fi
