#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# window-screenshot.sh [OUT.png]: the picture of the window in the README. Runs the
# desktop debugger under Xvfb on the AROS boot, stops it at 40 emulated seconds (frame
# 2000, the "Waiting for bootable media" screen) through the control socket, and grabs
# the screen. Needs Debian's xvfb, xauth, x11-apps (xwd) and netpbm.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/images/copperline-window.png}
for tool in xvfb-run xwd xwdtopnm pnmtopng; do
    command -v "$tool" >/dev/null || { echo "window-screenshot: $tool is missing (apt-get install xvfb xauth x11-apps netpbm)" >&2; exit 1; }
done
# COPPERLINE_BUILD picks the build folder (default build/release).
build=${COPPERLINE_BUILD:-$root/build/release}
exe=$build/app/copperline
ctl=$build/app/copperline-ctl
name=readme-shot-$$
export OUT=$out EXE=$exe CTL=$ctl NAME=$name
xvfb-run -a -s "-screen 0 1440x900x24" bash -c '
    "$EXE" --factory --noaudio --control-gui "$NAME" &
    pid=$!
    for _ in $(seq 50); do "$CTL" --socket "$NAME" status >/dev/null 2>&1 && break; sleep 0.2; done
    "$CTL" --socket "$NAME" pause >/dev/null
    "$CTL" --socket "$NAME" run_until "{\"frame\": 2000}" >/dev/null
    sleep 1
    xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > "$OUT"
    "$CTL" --socket "$NAME" quit >/dev/null 2>&1 || kill "$pid"
    wait "$pid" 2>/dev/null || true'
echo "window-screenshot: wrote $out"
