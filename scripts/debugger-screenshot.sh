#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# debugger-screenshot.sh [OUT_DIR]: the pictures of the source debugger in the README.
# Runs the desktop debugger under Xvfb on the debugger's C program (tests/guest/debugger/dbg.c
# built at -O0) with --run, which stops at the program's first instruction; through the
# control socket it sets a breakpoint at area()'s first line and runs there; a keypress on
# the window's "Next line" action (Ctrl+F10) brings the Source dock up a line further, so
# that Variables marks the value the line changed. That is debugger-source.png. Then the
# Copper dock is shown from the View menu (keys again) for debugger-copper.png.
# COPPERLINE_BUILD picks the build folder (default build/release; e.g. build/ui). Needs
# Debian's xvfb, xauth, x11-apps (xwd), netpbm and xdotool.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
outdir=${1:-$root/docs/images}
for tool in xvfb-run xwd xwdtopnm pnmtopng xdotool; do
    command -v "$tool" >/dev/null || { echo "debugger-screenshot: $tool is missing (apt-get install xvfb xauth x11-apps netpbm xdotool)" >&2; exit 1; }
done
build=${COPPERLINE_BUILD:-$root/build/release}
case $build in /*) ;; *) build=$root/$build ;; esac
exe=$build/app/copperline
ctl=$build/app/copperline-ctl
prog=$build/tests/integration/amiga/debugger_O0
for f in "$exe" "$ctl" "$prog"; do
    [ -e "$f" ] || { echo "debugger-screenshot: $f is missing (ninja -C $build copperline copperline-ctl debugger_O0)" >&2; exit 1; }
done
line=$(grep -n '/\* @area_w \*/' "$root/tests/guest/debugger/dbg.c" | cut -d: -f1)
mkdir -p "$outdir"
name=debugger-shot-$$
export OUTDIR=$outdir EXE=$exe CTL=$ctl PROG=$prog NAME=$name LINE=$line
xvfb-run -a -s "-screen 0 1440x900x24" bash -c '
    set -e
    grab() { xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > "$1"; }
    c() { "$CTL" --socket "$NAME" --timeout 120 "$@"; }
    "$EXE" --factory --noaudio --control-gui "$NAME" --run "$PROG" &
    pid=$!
    trap "kill $pid 2>/dev/null || true" EXIT
    for _ in $(seq 100); do c status >/dev/null 2>&1 && break; sleep 0.2; done
    # The boot runs unpaced until the program loads, and stops there (reason loadseg).
    for _ in $(seq 300); do c status | grep -q "\"state\": \"paused\"" && break; sleep 0.2; done
    c break.add "{\"kind\": \"line\", \"file\": \"dbg.c\", \"line\": $LINE}" >/dev/null
    c continue >/dev/null
    window=$(xdotool search --sync --name "^Copperline$" | head -1)
    xdotool windowfocus --sync "$window"
    xdotool key --window "$window" ctrl+F10
    sleep 2
    grab "$OUTDIR/debugger-source.png"
    # View is the menu bar'"'"'s third menu; its last three items are Copper, Custom
    # registers and Memory: Up from the first item wraps to the last.
    xdotool key --window "$window" alt+v
    sleep 0.5
    xdotool key --window "$window" Up Up Up Return
    sleep 2
    grab "$OUTDIR/debugger-copper.png"
    c quit >/dev/null 2>&1 || kill "$pid"
    wait "$pid" 2>/dev/null || true'
echo "debugger-screenshot: wrote $outdir/debugger-source.png and $outdir/debugger-copper.png"
