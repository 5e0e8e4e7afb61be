#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# setup.sh: installs every Debian package Copperline needs and extracts the free AROS ROMs.
# Idempotent: a second run installs nothing and re-checks the ROMs. Run as root (or with
# sudo available) on Debian 12. `--fuzz` adds clang and its libFuzzer runtime
# (scripts/fuzz.sh).
set -euo pipefail
fuzz=0
[ "${1:-}" = --fuzz ] && fuzz=1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

packages=(
    # build
    cmake ninja-build pkg-config g++ git
    # libraries
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev
    nlohmann-json3-dev libpng-dev libdw-dev libelf-dev zlib1g-dev
    # 68000 guest toolchain
    gcc-m68k-linux-gnu binutils-m68k-linux-gnu
    # the peer emulator (and the source of the AROS ROM), and a display for desktop tests
    fs-uae xvfb xauth
    # gdb, the reference the debugger's values are checked against (test_debugger)
    gdb-multiarch
    # the README's screenshots (scripts/window-screenshot.sh, scripts/debugger-screenshot.sh)
    x11-apps netpbm xdotool
    # ROM extraction
    unzip
    # the Debian package (cpack -G DEB) and its checks (tests/packaging): dpkg-shlibdeps and
    # file for its Depends, help2man for the man pages, the validators and lintian
    dpkg-dev file help2man desktop-file-utils appstream lintian
    # the browser the report tests open .cpuprofile files in (speedscope, headless)
    chromium
    # genhtml and lcov --summary, which the coverage tests read the .info files with
    lcov
)
if [ "$fuzz" = 1 ]; then
    packages+=(clang libclang-rt-14-dev)
fi
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

# The viewers the report tests load .cpuprofile files into, from npm into build/npm (never
# committed): speedscope, run in headless Chromium; Chrome DevTools' own profile model (from
# chrome-devtools-frontend, TypeScript bundled for Node by esbuild). Pinned, so a second run
# installs nothing.
npm_dir="$root/build/npm"
npm_packages=(speedscope@1.25.0 chrome-devtools-frontend@1.0.1705227 esbuild@0.28.2 @vscode/debugadapter-testsupport@1.68.0)
npm_missing=()
for spec in "${npm_packages[@]}"; do
    name=${spec%@*} version=${spec##*@}
    have=$(node -p "try { require('$npm_dir/node_modules/$name/package.json').version } catch (e) { '' }" 2>/dev/null || true)
    [ "$have" = "$version" ] || npm_missing+=("$spec")
done
if [ ${#npm_missing[@]} -gt 0 ]; then
    echo "setup: installing ${npm_missing[*]} into $npm_dir"
    mkdir -p "$npm_dir"
    [ -f "$npm_dir/package.json" ] || echo '{"name": "copperline-test-viewers", "private": true}' >"$npm_dir/package.json"
    # npm keeps its own list of certificate authorities; point it at the system's, so a
    # machine whose network goes through a proxy with its own CA (installed in the system
    # store) reaches the registry too.
    cafile=()
    [ -f /etc/ssl/certs/ca-certificates.crt ] && cafile=(--cafile /etc/ssl/certs/ca-certificates.crt)
    npm install --prefix "$npm_dir" --no-audit --no-fund --save-exact "${cafile[@]}" "${npm_missing[@]}"
else
    echo "setup: npm packages ${npm_packages[*]} are installed"
fi
