#!/usr/bin/env bash
# run.sh: the README's first command. Sets up, builds Release, and runs Copperline's main job.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake --preset release
cmake --build --preset release
build/release/tests/bench/cpu/copperline-cpubench
