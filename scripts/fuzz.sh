#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fuzz.sh [--runs N] [--jobs J] [SECONDS] [TARGET...]: builds the libFuzzer targets (the fuzz
# preset: clang, ASan + UBSan, build/fuzz) and runs each for SECONDS (default 60), or until N
# executions when --runs is given (SECONDS then the longest it may take), one target after
# the other, niced. --jobs J runs J processes of each target side by side on one corpus (each
# takes in what the others find), N/J executions each: J=2 uses both cores of a 2-core
# machine. Each target starts from its seed corpus (made at build time) and keeps what it
# learns in build/fuzz/corpus/TARGET; a crash is saved in build/fuzz/artifacts/TARGET and
# ends the run with a failure. Prints the executions reached (all jobs together) and the rate
# per target (docs/testing.md).
# Targets: hunk_fuzzer debug_info_fuzzer adf_fuzzer state_fuzzer uss_fuzzer json_rpc_fuzzer
# gdb_packet_fuzzer dap_message_fuzzer sampler_fuzzer coverage_fuzzer capture_fuzzer
# unwind_table_fuzzer lcov_fuzzer (default all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
usage() {
    echo "usage: scripts/fuzz.sh [--runs N] [--jobs J] [SECONDS] [TARGET...]" >&2
    exit 2
}
total_runs=
jobs=1
while [ $# -gt 0 ]; do
    case "$1" in
    --runs)
        case "${2:-}" in '' | *[!0-9]*) usage ;; esac
        total_runs=$2
        shift 2
        ;;
    --jobs)
        case "${2:-}" in '' | 0 | *[!0-9]*) usage ;; esac
        jobs=$2
        shift 2
        ;;
    *) break ;;
    esac
done
limit=()
[ -n "$total_runs" ] && limit=(-runs=$(((total_runs + jobs - 1) / jobs)))
seconds=${1:-60}
[ $# -gt 0 ] && shift
case "$seconds" in '' | *[!0-9]*) usage ;; esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hunk_fuzzer debug_info_fuzzer adf_fuzzer state_fuzzer uss_fuzzer json_rpc_fuzzer gdb_packet_fuzzer dap_message_fuzzer sampler_fuzzer coverage_fuzzer capture_fuzzer unwind_table_fuzzer lcov_fuzzer)

scripts/setup.sh --fuzz
cmake --preset fuzz
cmake --build --preset fuzz

bin=build/fuzz/fuzz/bin
seeds=build/fuzz/fuzz/seeds
status=0
summary=()
for t in "${targets[@]}"; do
    [ -x "$bin/$t" ] || { echo "fuzz: no target $t in $bin" >&2; exit 2; }
    corpus=build/fuzz/corpus/$t
    artifacts=build/fuzz/artifacts/$t
    mkdir -p "$corpus" "$artifacts" build/fuzz/logs
    echo "fuzz: $t for ${seconds}s, $jobs job(s) (logs build/fuzz/logs/$t.*.log)"
    # capture_fuzzer writes each input's files under TMPDIR: a tmpfs when there is one.
    tmp=${TMPDIR:-/tmp}
    [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
    pids=()
    for j in $(seq 1 "$jobs"); do
        TMPDIR=$tmp ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            nice -n 15 "$bin/$t" -max_total_time="$seconds" "${limit[@]}" -timeout=60 -rss_limit_mb=4096 \
            -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$seeds/$t" \
            >"build/fuzz/logs/$t.$j.log" 2>&1 &
        pids+=($!)
    done
    failed=()
    for j in $(seq 1 "$jobs"); do
        wait "${pids[$((j - 1))]}" || failed+=("build/fuzz/logs/$t.$j.log (exit $?)")
    done
    runs=0
    rate=0
    for j in $(seq 1 "$jobs"); do
        log=build/fuzz/logs/$t.$j.log
        r=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        e=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        runs=$((runs + ${r:-0}))
        rate=$((rate + ${e:-0}))
    done
    if [ ${#failed[@]} -gt 0 ]; then
        status=1
        summary+=("$t: FAILED after $runs executions: see ${failed[*]} and $artifacts")
    else
        summary+=("$t: $runs executions in at most ${seconds}s, $rate exec/s, no crash")
    fi
done
printf '%s\n' "${summary[@]}"
exit $status
