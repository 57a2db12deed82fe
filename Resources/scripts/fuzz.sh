#!/usr/bin/env bash
# `make fuzz`: builds the fuzz targets with libFuzzer + AddressSanitizer into .build-fuzz, runs each
# for FUZZ_SECONDS (default 60), or for FUZZ_RUNS executions when that is set (libFuzzer's -runs; then
# FUZZ_SECONDS only bounds the time if given too), from its seed corpus (Resources/fuzz/<target>, never written to)
# plus a scratch corpus (.build-fuzz/corpus/<target>, kept between runs), and prints one table.
# Crash files land in .build-fuzz/findings/<target>/; replay one with the normal build's
# replayer, e.g. `.build/debug/FuzzEnvelope .build-fuzz/findings/FuzzEnvelope/crash-…`.
# Ends with one line `fuzz: N targets, E executions total, C crashes`; exits 1 when any target found a
# crash (or did not run).
# FUZZ_TARGETS narrows the run, e.g. FUZZ_TARGETS="FuzzEnvelope FuzzImport".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
swift=${SWIFT:-swift}
max_runs=${FUZZ_RUNS:-}
if [ -n "$max_runs" ]; then
    seconds=${FUZZ_SECONDS:-0}   # libFuzzer: 0 = no time limit
    limit=(-runs="$max_runs" -max_total_time="$seconds")
    budget="$max_runs executions"
else
    seconds=${FUZZ_SECONDS:-60}
    limit=(-max_total_time="$seconds")
    budget="$seconds s"
fi
targets=${FUZZ_TARGETS:-"FuzzRecords FuzzEnvelope FuzzItemJSON FuzzImport FuzzKintoResponses FuzzForeignImport FuzzDeviceMessages FuzzInvitations FuzzRoster FuzzSSHAgent FuzzConfig"}
scratch=.build-fuzz
# Only the comma form instruments for coverage and address errors together;
# COFFER_FUZZ swaps each target's replayer `main` for LLVMFuzzerTestOneInput. Release (overflow
# checks and preconditions stay): side by side, FuzzForeignImport ran 1,787 exec/s against debug's
# 874, and FuzzDeviceMessages ~5,500 against ~1,000 (debug builds swift-crypto's C at -O0).
flags=(-c release --scratch-path "$scratch" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DCOFFER_FUZZ)

for target in $targets; do
    echo "building $target (fuzzer + address sanitizer)"
    "$swift" build "${flags[@]}" --product "$target"
done
bin=$("$swift" build "${flags[@]}" --show-bin-path)

rows=()
status=0
total_runs=0
total_crashes=0
for target in $targets; do
    corpus="$scratch/corpus/$target"
    findings="$scratch/findings/$target"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$scratch/logs"
    rm -rf "$findings"
    mkdir -p "$findings"
    dict=()
    # Every target but the envelope and SSH ones reads JSON (or ISO-8601 text): give libFuzzer its tokens.
    if [ "$target" != FuzzEnvelope ] && [ "$target" != FuzzSSHAgent ]; then dict=(-dict=Resources/fuzz/json.dict); fi
    # The other managers' files include KeePass XML: libFuzzer takes one dictionary, so both in one.
    if [ "$target" = FuzzForeignImport ]; then
        cat Resources/fuzz/json.dict Resources/fuzz/xml.dict >"$scratch/foreign.dict"
        dict=(-dict="$scratch/foreign.dict")
    fi
    # Export files of 4 KB (libFuzzer's default bound) made each execution ~3x slower than 1 KB
    # ones for the same coverage (2,705 edges against 2,696): a few items reach every path. The
    # other managers' files too: 2,519 exec/s against 1,552 beside another fuzzer.
    length=()
    case $target in FuzzImport | FuzzForeignImport) length=(-max_len=1024) ;; esac
    echo "fuzzing $target for $budget (log: $log)"
    set +e
    # New inputs go to the first corpus directory (the scratch one), never into the repository.
    # malloc_context_size=0: no allocation stacks recorded (~10 % of every execution); a finding
    # replays with them under the default options.
    SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}" \
        ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:handle_abort=1:malloc_context_size=0}" \
        "$bin/$target" "$corpus" "Resources/fuzz/$target" \
        "${dict[@]}" "${length[@]}" "${limit[@]}" -timeout=10 -rss_limit_mb=3072 -print_final_stats=1 \
        -artifact_prefix="$findings/" >"$log" 2>&1
    code=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    size=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$' || true)
    crashes=$(find "$findings" -type f | wc -l)
    total_runs=$((total_runs + ${runs:-0}))
    total_crashes=$((total_crashes + crashes))
    if [ "$crashes" -gt 0 ] || [ "$code" -ne 0 ]; then
        status=1
        if [ "$crashes" -eq 0 ]; then crashes="exit $code"; fi
        grep -m 3 -E 'Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' "$log" | sed "s/^/  $target: /" || true
    fi
    rows+=("$(printf '%-20s %12s %8s %8s %10s' "$target" "${runs:-?}" "${speed:-?}" "${size:-?}" "$crashes")")
done

echo
printf '%-20s %12s %8s %8s %10s\n' target executions exec/s corpus findings
for row in "${rows[@]}"; do echo "$row"; done
echo "fuzz: $(echo $targets | wc -w) targets, $total_runs executions total, $total_crashes crashes"
if [ "$status" -ne 0 ]; then
    echo "crash files: $scratch/findings/<target>/ (logs: $scratch/logs/)"
fi
exit "$status"
