#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh: the README's first command. Sets up, builds Release, and runs Copperline's main
# job: the A500 booting the AROS ROM. With a display, in the desktop debugger (the
# display, the Frame Analyzer, registers and disassembly); without one, headless and
# unpaced, with the picture after 40 emulated seconds written to build/aros-boot.png and
# the serial log to build/aros-serial.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake --preset release
cmake --build --preset release
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/release/app/copperline
fi
build/release/app/copperline --factory --noaudio --speed --force \
    --serial-out build/aros-serial.txt --screenshot-after 40 build/aros-boot.png
echo "run.sh: no display; the AROS boot screen after 40 emulated seconds is in build/aros-boot.png"
