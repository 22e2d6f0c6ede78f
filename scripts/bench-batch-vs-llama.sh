#!/usr/bin/env bash
# Batched decode side by side: several sequences decoding at once on one model, LocalLM against
# llama.cpp, in one run, engines alternating (A B A B …).
#
# LocalLM: `locallm bench --sequences N` (each sequence on its own thread, stepped together in shared
# passes). llama.cpp: scripts/batch/llama_batch_bench.py (llama-cpp-python 0.3.36; one llama_decode
# per step holding a token of every sequence). Same protocol on both: 32-token prompts, 32 decoded
# tokens per sequence, 2 threads; each run also decodes one sequence alone, and the speed-up is the
# ratio of the two (medians of 3 runs after a warm-up).
#
#   scripts/bench-batch-vs-llama.sh [--rounds 2] [--sequences 4,8] [--models qwen2.5-coder-0.5b]
#
# The plain `swift build -c release` (no flags), in .build-plain as scripts/bench-vs-llama.sh builds it.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=2 counts=4,8 only=qwen2.5-coder-0.5b threads=2 tokens=32
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --sequences) counts=$2; shift 2 ;;
    --models) only=$2; shift 2 ;;
    --tokens) tokens=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
mapfile -t fetched < <(scripts/fetch-models.sh --with-1.5b)
"${LOCALLM_SHARED:-../shared}/reference/setup.sh" >/dev/null
swift build -c release --product locallm --scratch-path .build-plain >&2
locallm=$(swift build -c release --product locallm --scratch-path .build-plain --show-bin-path)/locallm

out=$(mktemp)
IFS=, read -ra wanted <<< "$only"
IFS=, read -ra sizes <<< "$counts"
for model in "${fetched[@]}"; do
  keep=0
  for w in "${wanted[@]}"; do [[ $(basename "$model") == *"$w"* ]] && keep=1; done
  ((keep)) || continue
  for n in "${sizes[@]}"; do
    for ((r = 0; r < rounds; r++)); do
      echo "round $((r + 1))/$rounds $(basename "$model") x$n" >&2
      "$locallm" bench --model "$model" --prompt-tokens 32 --gen-tokens "$tokens" --reps 3 --threads "$threads" --sequences "$n" \
        | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d['model']='$(basename "$model")'; print(json.dumps(d))" >> "$out"
      python3 scripts/batch/llama_batch_bench.py --model "$model" --sequences "$n" --gen-tokens "$tokens" --threads "$threads" \
        | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d['model']='$(basename "$model")'; print(json.dumps(d))" >> "$out"
    done
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = sorted({(r["model"], r["sequences"]) for r in rows})
print("| model | sequences | LocalLM aggregate tok/s | × one sequence | llama.cpp aggregate tok/s | × one sequence | LocalLM / llama.cpp |")
print("|---|---:|---:|---:|---:|---:|---:|")
for model, n in keys:
    def med(engine, field):
        return statistics.median(r[field] for r in rows if r["model"] == model and r["sequences"] == n and r["engine"] == engine)
    a, b = med("LocalLM", "aggregate_decode_tokens_per_s"), med("llama.cpp", "aggregate_decode_tokens_per_s")
    print(f"| {model} | {n} | {a:.1f} | {med('LocalLM', 'aggregate_speedup'):.2f}× | {b:.1f} | {med('llama.cpp', 'aggregate_speedup'):.2f}× | {a / b:.2f}× |")
PY
