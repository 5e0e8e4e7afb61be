#!/usr/bin/env bash
# setup.sh: installs every Debian package Copperline needs and extracts the free AROS ROMs.
# Idempotent: a second run installs nothing and re-checks the ROMs. Run as root (or with
# sudo available) on Debian 12.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

packages=(
    # build
    cmake ninja-build pkg-config g++ git
    # libraries
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev
    nlohmann-json3-dev libpng-dev libdw-dev libelf-dev zlib1g-dev
    # 68000 guest toolchain
    gcc-m68k-linux-gnu binutils-m68k-linux-gnu
    # the peer emulator (and the source of the AROS ROM), and a display for desktop tests
    fs-uae xvfb xauth
    # ROM extraction
    unzip
    # the browser the report tests open .cpuprofile files in (speedscope, headless)
    chromium
)
# speedscope comes from npm; take Debian's Node.js and npm only when no npm is installed
# (a machine with another Node.js build already has its own npm).
if ! command -v npm >/dev/null; then
    packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "setup: run as root (or install sudo) to install packages" >&2; exit 1; }
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    echo "setup: all ${#packages[@]} packages are installed"
fi

"$here/extract-roms.sh" "${COPPERLINE_ROM_DIR:-$root/build/roms}"

# speedscope, the profile viewer the report tests load in headless Chromium, installed from
# npm into build/npm (never committed). Pinned, so a second run does nothing.
speedscope_version=1.25.0
npm_dir="$root/build/npm"
if [ "$(node -p "try { require('$npm_dir/node_modules/speedscope/package.json').version } catch (e) { '' }" 2>/dev/null)" != "$speedscope_version" ]; then
    echo "setup: installing speedscope $speedscope_version into $npm_dir"
    mkdir -p "$npm_dir"
    [ -f "$npm_dir/package.json" ] || echo '{"name": "copperline-test-viewers", "private": true}' >"$npm_dir/package.json"
    npm install --prefix "$npm_dir" --no-audit --no-fund --save-exact "speedscope@$speedscope_version"
else
    echo "setup: speedscope $speedscope_version is installed"
fi
