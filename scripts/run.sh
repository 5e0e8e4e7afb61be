#!/usr/bin/env bash
# run.sh: the README's first command. Sets up, builds Release, and runs Copperline's main
# job: the A500 booting the AROS ROM, headless and unpaced, with its picture written to
# build/aros-boot.png and its serial log to build/aros-serial.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake --preset release
cmake --build --preset release
build/release/app/copperline --factory --noaudio --speed \
    --serial-out build/aros-serial.txt --screenshot-after 40 build/aros-boot.png
echo "run.sh: the AROS boot screen after 40 emulated seconds is in build/aros-boot.png"
