#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-68000.sh ELF: fails if the ELF's code holds any instruction a 68000 cannot execute.
#
# Debian's m68k toolchain targets the 68020 by default, and its libgcc.a contains 68020
# code (BSR.L in __divsi3, for example). objdump decodes every code word twice, once as a
# 68000 and once as a 68020; a 68000-legal instruction decodes the same way on both, so any
# address where the two disagree holds a 68020-only opcode (BSR.L, for one, reads as a
# BSR.S to an odd address on a 68000; MULS.L reads as .short data).
set -euo pipefail
objdump=${M68K_OBJDUMP:-m68k-linux-gnu-objdump}
elf=${1:?usage: check-68000.sh FILE.elf}
[ -f "$elf" ] || { echo "check-68000: $elf: no such file" >&2; exit 2; }

a=$(mktemp) b=$(mktemp)
trap 'rm -f "$a" "$b"' EXIT
"$objdump" -d --architecture=m68k:68000 "$elf" >"$a"
"$objdump" -d --architecture=m68k:68020 "$elf" >"$b"

bad=$(awk -F'\t' '
    FNR == 1 { file++ }
    /^ *[0-9a-f]+:\t/ {
        addr = $1; sub(/^ */, "", addr); sub(/:$/, "", addr)
        text = $3
        if (file == 1) m000[addr] = $2 "\t" text
        else m020[addr] = $2 "\t" text
    }
    END {
        for (addr in m000)
            if ((addr in m020) && m000[addr] != m020[addr])
                printf "  %s: 68000 reads \"%s\", 68020 reads \"%s\"\n", addr, m000[addr], m020[addr]
    }' "$a" "$b" | sort)

if [ -n "$bad" ]; then
    echo "check-68000: $elf contains 68020-only instructions:" >&2
    echo "$bad" >&2
    exit 1
fi
exit 0
