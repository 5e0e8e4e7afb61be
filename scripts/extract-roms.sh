#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# extract-roms.sh DEST: copies the free AROS Kickstart replacement out of Debian's fs-uae
# package into DEST and checks both images' SHA-1. ROM images are never committed.
set -euo pipefail
dest=${1:?usage: extract-roms.sh DEST}
dat=${FS_UAE_DAT:-/usr/share/fs-uae/fs-uae.dat}

declare -A want=(
    [aros-amiga-m68k-rom.bin]=4623642671375e16f99bd3243c3b2a3c4ba92275
    [aros-amiga-m68k-ext.bin]=1e9473fb978d51196e4fe593932274a3743926c3
)

[ -f "$dat" ] || { echo "extract-roms: $dat is missing; install Debian's fs-uae package" >&2; exit 1; }
mkdir -p "$dest"
for name in "${!want[@]}"; do
    out="$dest/$name"
    if [ -f "$out" ] && [ "$(sha1sum "$out" | cut -d' ' -f1)" = "${want[$name]}" ]; then
        continue
    fi
    tmp="$out.tmp"
    if ! unzip -p "$dat" "share/fs-uae/$name" >"$tmp" 2>/dev/null || [ ! -s "$tmp" ]; then
        rm -f "$tmp"
        echo "extract-roms: $dat holds no share/fs-uae/$name" >&2
        exit 1
    fi
    got=$(sha1sum "$tmp" | cut -d' ' -f1)
    if [ "$got" != "${want[$name]}" ]; then
        rm -f "$tmp"
        echo "extract-roms: $name from $dat has SHA-1 $got, expected ${want[$name]}; refusing it" >&2
        exit 1
    fi
    mv "$tmp" "$out"
done
echo "extract-roms: AROS ROMs ready in $dest"
