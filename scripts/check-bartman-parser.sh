#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-bartman-parser.sh [-v] [--rebuild] CHECKOUT FILE...
#
# Reads frame profiles that Copperline wrote with vscode-amiga-debug's own TypeScript code and
# reports what the extension makes of them: each binary profile (*.profile,
# docs/formats/bartman-profile.md) goes through ProfileFile and Profiler.profileSavestate,
# each .amigaprofile (docs/formats/amigaprofile.md) is loaded as the webview loads it, and
# both end in the webview's buildModel (GetCopper, GetBlits). tests/tools/bartman_parser_check.js
# does the reading; this script prepares the extension and runs it on every FILE.
#
# CHECKOUT is a work tree of vscode-amiga-debug; the script never fetches it. On first use
# (and again when the checkout's sources change) it installs the checkout's npm packages if
# TypeScript, @types/node or base64-encoding is missing (npm ci --ignore-scripts, falling back
# to npm install --ignore-scripts), then compiles only the modules the driver needs with the
# checkout's tsc into CHECKOUT/.copperline-parser-check/ (ignored by git through its own
# .gitignore). A marker file there holds a hash of the sources, so later runs skip both steps.
#
# Needs node and npm. Exit status: 0 all files passed, 1 the extension's code threw on a file
# or a check failed, 2 bad arguments or the parser could not be prepared.
set -euo pipefail

prog=check-bartman-parser
root=$(cd "$(dirname "$0")/.." && pwd)
driver=$root/tests/tools/bartman_parser_check.js

usage() {
    cat >&2 <<EOF
usage: $0 [-v] [--rebuild] CHECKOUT FILE...
  CHECKOUT  a vscode-amiga-debug work tree (git clone of BartmanAbyss/vscode-amiga-debug)
  FILE      a binary profile (*.profile) or an .amigaprofile JSON written by Copperline
  -v        also show what the extension's code logs
  --rebuild compile the extension's modules again even if the cached build looks current
example: $0 ~/src/vscode-amiga-debug out/state.profile out/state.amigaprofile
EOF
    exit 2
}
die() { echo "$prog: $*" >&2; exit 2; }
info() { echo "$prog: $*" >&2; }

verbose=()
rebuild=0
while [ $# -gt 0 ]; do
    case $1 in
    -v | --verbose) verbose=(--verbose); shift ;;
    --rebuild) rebuild=1; shift ;;
    -h | --help) usage ;;
    --) shift; break ;;
    -*) echo "$prog: unknown option $1" >&2; usage ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || usage

checkout=$1
shift
[ -d "$checkout" ] || die "$checkout: no such directory (CHECKOUT must be a vscode-amiga-debug work tree)"
checkout=$(cd "$checkout" && pwd)
for f in package.json tsconfig.json src/backend/profile.ts src/client/dma.ts src/client/model.ts; do
    [ -f "$checkout/$f" ] || die "$checkout is not a vscode-amiga-debug work tree: $f is missing"
done
for f in "$@"; do
    [ -f "$f" ] || die "$f: no such file"
done
command -v node >/dev/null || die "node is not installed (needs Node.js and npm)"
command -v npm >/dev/null || die "npm is not installed (needs Node.js and npm)"
[ -f "$driver" ] || die "$driver is missing"

out=$checkout/.copperline-parser-check
js=$out/js
marker=$out/built
needed=(backend/profile.js client/dma.js client/model.js client/display.js)

# Hash of everything the compiled modules depend on, plus this recipe's version.
recipe=1
key=$(
    cd "$checkout"
    {
        echo "recipe $recipe"
        find src -type f \( -name '*.ts' -o -name '*.tsx' \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
        sha256sum package.json tsconfig.json
        if [ -f package-lock.json ]; then sha256sum package-lock.json; fi
    } | sha256sum | cut -d' ' -f1
)

built_ok() {
    [ -f "$marker" ] && [ "$(cat "$marker")" = "$key" ] || return 1
    for m in "${needed[@]}"; do [ -f "$js/$m" ] || return 1; done
    [ -f "$checkout/node_modules/base64-encoding/package.json" ]
}

if [ "$rebuild" = 1 ] || ! built_ok; then
    mkdir -p "$out"
    echo '*' >"$out/.gitignore"
    rm -f "$marker"

    # 1. npm packages: TypeScript to compile, @types/node to type-check the backend,
    #    base64-encoding which model.ts loads at run time.
    if [ ! -f "$checkout/node_modules/typescript/bin/tsc" ] ||
        [ ! -d "$checkout/node_modules/@types/node" ] ||
        [ ! -f "$checkout/node_modules/base64-encoding/package.json" ]; then
        start=$SECONDS
        info "installing the checkout's npm packages (npm ci --ignore-scripts), once..."
        if ! (cd "$checkout" && npm ci --ignore-scripts --no-audit --no-fund) >"$out/npm.log" 2>&1; then
            info "npm ci failed (see $out/npm.log); trying npm install --ignore-scripts"
            (cd "$checkout" && npm install --ignore-scripts --no-audit --no-fund) >>"$out/npm.log" 2>&1 ||
                { tail -20 "$out/npm.log" >&2; die "npm install failed in $checkout (log: $out/npm.log)"; }
        fi
        info "npm packages installed in $((SECONDS - start)) s"
    fi
    [ -f "$checkout/node_modules/typescript/bin/tsc" ] || die "no TypeScript in $checkout/node_modules after npm install"

    # 2. Compile only profile.ts, dma.ts and model.ts (and what they import) to CommonJS,
    #    with the extension's own compiler options.
    node -e '
        const [out, checkout, js] = process.argv.slice(1);
        const src = (p) => checkout + "/src/" + p;
        const config = {
            extends: checkout + "/tsconfig.json",
            compilerOptions: {
                module: "commonjs",
                rootDir: checkout + "/src",
                outDir: js,
                sourceMap: false,
                declaration: false,
                incremental: false,
                noEmitOnError: false,
                typeRoots: [checkout + "/node_modules/@types"],
                types: ["node"],
            },
            files: [src("backend/profile.ts"), src("client/dma.ts"), src("client/model.ts"), src("client/display.ts")],
        };
        require("fs").writeFileSync(out + "/tsconfig.json", JSON.stringify(config, null, 2) + "\n");
    ' "$out" "$checkout" "$js"
    rm -rf "$js"
    start=$SECONDS
    info "compiling vscode-amiga-debug's profile.ts, dma.ts, model.ts with its tsc..."
    if ! node "$checkout/node_modules/typescript/bin/tsc" -p "$out/tsconfig.json" >"$out/tsc.log" 2>&1; then
        missing=0
        for m in "${needed[@]}"; do [ -f "$js/$m" ] || missing=1; done
        if [ "$missing" = 1 ]; then
            tail -20 "$out/tsc.log" >&2
            die "tsc failed (log: $out/tsc.log)"
        fi
        info "warning: tsc reported $(grep -c 'error TS' "$out/tsc.log" || true) type error(s), using the emitted JavaScript (log: $out/tsc.log)"
    fi
    info "compiled in $((SECONDS - start)) s into $js"
    echo "$key" >"$marker"
else
    info "using the compiled parser in $js"
fi

# 3. Run the driver on each file. A profile of many frames makes a large JSON string, as it
#    does in the extension, so give V8 room.
failed=0
status=0
for f in "$@"; do
    rc=0
    NODE_PATH=$checkout/node_modules node --max-old-space-size=8192 "$driver" --modules "$js" "${verbose[@]}" "$f" || rc=$?
    echo
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        if [ "$rc" -eq 2 ]; then status=2; elif [ "$status" -eq 0 ]; then status=1; fi
    fi
done
echo "$prog: $# file(s) checked, $failed failed"
exit "$status"
