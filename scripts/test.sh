#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test.sh: the README's second command (and .ci/run). Sets up, builds with warnings as
# errors, and runs the whole CTest suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
