#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates scene.uss and scene-fsuae.png (tests/data/uss/README.md): FS-UAE (Debian's
# fs-uae, under xvfb-run) boots an A500 with the AROS ROM pair from a floppy whose boot
# block is uss_scene (tests/guest/uss/uss_scene.S), waits (40 s) until the program spins in its
# loop, saves state 1 (F9, mapped to FS-UAE's save-state action) and takes a screenshot.
#
#   tests/data/uss/make-state.sh BUILD_DIR ROM_DIR
#
# BUILD_DIR is a configured and built tree (build/ci); ROM_DIR holds
# aros-amiga-m68k-rom.bin and aros-amiga-m68k-ext.bin (scripts/extract-roms.sh).
set -euo pipefail
build=$(realpath "$1")
roms=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
guest="$build/tests/integration/amiga/uss_scene"
"$build/app/copperline-ctl" exe2adf "$guest" --bootblock "$guest.bin" --out "$work/scene.adf" --force
mkdir -p "$work/home" "$work/shots" "$work/states"
xvfb-run -a -s "-screen 0 1280x1024x24" bash -c "
  export HOME='$work/home' SDL_AUDIODRIVER=dummy
  fs-uae --amiga_model=A500 --uae_cpu_cycle_exact=true --fullscreen=0 \
    --automatic_input_grab=0 --initial_input_grab=0 --screenshots_output_dir='$work/shots' \
    --state_dir='$work/states' --keyboard_key_f9=action_save_state_1 \
    --kickstart_file='$roms/aros-amiga-m68k-rom.bin' --kickstart_ext_file='$roms/aros-amiga-m68k-ext.bin' \
    --floppy_drive_0='$work/scene.adf' > '$work/fs-uae.log' 2>&1 &
  pid=\$!
  sleep 40
  window=\$(xdotool search --name FS-UAE | head -1)
  xdotool key --window \"\$window\" F9
  sleep 2
  xdotool key --window \"\$window\" Print
  sleep 2
  kill \$pid"
cp "$work/states/Saved State 1.uss" "$here/scene.uss"
cp "$work"/shots/fs-uae-full-*.png "$here/scene-fsuae.png"
echo "wrote $here/scene.uss and $here/scene-fsuae.png"
