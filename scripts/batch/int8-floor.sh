#!/usr/bin/env bash
# The instruction-throughput floor of decode batches on this CPU (see scripts/batch/int8-floor.c):
# nanoseconds per 32-weight block and sequence, and with --model-macs M (multiply-adds per token of a
# model's weight matrices) and --single TOKS (one sequence's decode speed, tok/s) the best aggregate
# speed-up over one sequence that this floor allows for 4 and 8 sequences on --threads cores.
#
#   scripts/batch/int8-floor.sh [--model-macs 494e6 --single 40 --threads 2]
set -euo pipefail
cd "$(dirname "$0")"
macs= single= threads=2
while (($#)); do
  case $1 in
    --model-macs) macs=$2; shift 2 ;;
    --single) single=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
"${CC:-clang}" -O2 -o "$bin" int8-floor.c
line=$("$bin")
echo "$line"
if [[ -n $macs && -n $single ]]; then
  python3 - "$line" "$macs" "$single" "$threads" <<'PY'
import json, sys
floor = json.loads(sys.argv[1])["ns_per_block_and_sequence"]["exact"] * 1e-9
macs, single, threads = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
for n in (4, 8):
    # A pass of n sequences costs at least n · macs/32 blocks at the floor, spread over the threads.
    seconds = n * macs / 32 * floor / threads
    print(json.dumps({"sequences": n, "pass_floor_ms": round(seconds * 1e3, 2),
                      "max_aggregate_tok_s": round(n / seconds, 1),
                      "max_speedup_over_one": round(n / seconds / single, 2)}))
PY
fi
