#!/usr/bin/env bash
# The test suites under sanitizers, each a full build in a scratch path of its own (heavy: about as
# long as a first build of the package).
#
#   scripts/sanitizers.sh thread [FILTER]    ThreadSanitizer on the concurrency suites (default filter below)
#   scripts/sanitizers.sh address [FILTER]   AddressSanitizer on the whole suite (or FILTER)
#   scripts/sanitizers.sh                    both
#
# The concurrency suites: sequences and sessions sharing one model, concurrent respond and tool calls,
# cancellation, agents with parallel workers, the thread pool and the serial model executor.
# Logs: .build-tsan-release/sanitizers.log (or -debug), likewise .build-asan-*. A sanitizer report fails the run
# (halt_on_error), so a clean exit means none was found.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/fetch-models.sh >/dev/null

# GenerationTests: its cancellation and stop tests. Its greedy test (64 tokens on each golden model,
# single sequences) is the fidelity check; the threads it uses are the pool's, which ThreadPoolTests and
# DecodeBatchTests cover, and in a debug ThreadSanitizer build it alone runs for hours.
concurrency='GenerationTests/cancellation|GenerationTests/stops|KVCacheTests|DecodeBatchTests|SessionBatchingTests|TokenizerConcurrencyTests|ThreadPoolTests|ModelWorkExecutorTests|LanguageModelSessionTests|ToolLoopTests|AgentCallGraphTests|AgentProgramTests|LazyToolCallTests|SessionObservabilityTests'

# The whole suite, one test module per `swift test` (so each verdict is logged as it ends).
modules=$(cd Tests && ls -d *Tests | paste -sd '|')

# SANITIZER_CONFIG=debug builds without optimization: far quicker to build (swift-syntax with
# ThreadSanitizer in release did not finish in an hour on 2 cores), far slower to run real models.
config=${SANITIZER_CONFIG:-release}

sanitize() {
    local sanitizer=$1 scratch=$2-$config filter=$3
    local flags=(-Xswiftc -enable-testing)
    # ThreadSanitizer does not see Synchronization.Mutex on Linux (a futex inside the uninstrumented
    # standard library): the project's lock becomes a pthread mutex, which it does see.
    [[ $sanitizer == thread ]] && flags+=(-Xswiftc -DLOCALLM_TSAN)
    swift build -c "$config" --scratch-path "$scratch" --sanitize="$sanitizer" "${flags[@]}" --build-tests
    # Serially, as scripts/test.sh runs them (the real-model suites use every core), and one suite
    # per `swift test`: swift test holds its child's output until it exits, so a long run otherwise
    # shows nothing until the end, and a stopped one loses the results of the suites it finished.
    # The log records each suite's verdict as it ends.
    local log=$scratch/sanitizers.log status=0
    : > "$log"
    local suites=()
    if [[ -n $filter ]]; then IFS='|' read -r -a suites <<< "$filter"; else suites=(""); fi
    for suite in "${suites[@]}"; do
        local args=(--no-parallel)
        [[ -n $suite ]] && args+=(--filter "$suite")
        echo "== ${suite:-whole suite} $(date -u +%H:%M:%S)" | tee -a "$log"
        if ! TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 \
            swift test -c "$config" --scratch-path "$scratch" --sanitize="$sanitizer" "${flags[@]}" --skip-build \
            "${args[@]}" 2>&1 | tee -a "$log" \
            | { grep -E "Test run with|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY" || true; }; then
            status=1
        fi
    done
    if grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" "$log"; then
        echo "$sanitizer sanitizer reported problems: $log" >&2
        return 1
    fi
    return "$status"
}

case ${1:-both} in
    thread) sanitize thread .build-tsan "${2:-$concurrency}" ;;
    address) sanitize address .build-asan "${2:-$modules}" ;;
    both) sanitize thread .build-tsan "$concurrency" && sanitize address .build-asan "$modules" ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
esac
