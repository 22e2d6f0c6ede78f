#!/usr/bin/env bash
# Side-by-side speed of LocalLM and llama.cpp on the same GGUF files, in one run, as ratios.
#
# Builds LocalLM in release with the native-ISA kernels, sets up the reference (llama-cpp-python built
# for this CPU, through ../shared/reference/setup.sh) when needed, then runs `locallm bench` and
# `ref.py bench` alternately (A B A B …) on both test models under the same protocol (prefill P tokens
# into an empty cache in one batch, then decode G tokens one at a time; median of reps after a warm-up)
# and prints a table of tok/s and LocalLM/llama.cpp ratios.
#
#   scripts/bench-vs-llama.sh [--rounds 2] [--threads 2] [--prompt-tokens 512] [--gen-tokens 128] [--portable]
#
# --portable measures a plain `swift build -c release` (no target CPU) instead of the native build.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=2 threads=2 pp=512 tg=128 portable=0
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --prompt-tokens) pp=$2; shift 2 ;;
    --gen-tokens) tg=$2; shift 2 ;;
    --portable) portable=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
mapfile -t models < <(scripts/fetch-models.sh)
shared=${LOCALLM_SHARED:-../shared}
"$shared/reference/setup.sh" >/dev/null

if ((portable)); then
  flags=(); scratch=.build
else
  flags=(-Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLOCALLM_NATIVE); scratch=.build-native
fi
swift build -c release --product locallm --scratch-path "$scratch" "${flags[@]}" >&2
locallm=$(swift build -c release --product locallm --scratch-path "$scratch" "${flags[@]}" --show-bin-path)/locallm

out=$(mktemp)
for model in "${models[@]}"; do
  for ((r = 0; r < rounds; r++)); do
    echo "round $((r + 1))/$rounds $(basename "$model")" >&2
    a=$("$locallm" bench --model "$model" --prompt-tokens "$pp" --gen-tokens "$tg" --threads "$threads" --json)
    b=$(python3 "$shared/reference/ref.py" bench --model "$model" --prompt-tokens "$pp" --gen-tokens "$tg" --threads "$threads")
    printf '%s\t%s\t%s\n' "$(basename "$model")" "$a" "$b" >> "$out"
  done
done

python3 - "$out" "$pp" "$tg" "$threads" <<'PY'
import json, statistics, sys, platform, os
rows = {}
for line in open(sys.argv[1]):
    name, a, b = line.rstrip("\n").split("\t")
    a, b = json.loads(a), json.loads(b)
    r = rows.setdefault(name, {"pa": [], "pb": [], "da": [], "db": []})
    r["pa"].append(a["prefill_tokens_per_s"]); r["pb"].append(b["prefill_tokens_per_s"])
    r["da"].append(a["decode_tokens_per_s"]); r["db"].append(b["decode_tokens_per_s"])
med = statistics.median
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
print(f"prefill {sys.argv[2]} tokens, decode {sys.argv[3]}, {sys.argv[4]} threads; {cpu}; {os.cpu_count()} cores")
print(f"| model | LocalLM prefill | llama.cpp prefill | ratio | LocalLM decode | llama.cpp decode | ratio |")
print(f"|---|---:|---:|---:|---:|---:|---:|")
for name, r in rows.items():
    pa, pb, da, db = med(r["pa"]), med(r["pb"]), med(r["da"]), med(r["db"])
    print(f"| {name} | {pa:.0f} | {pb:.0f} | {pa/pb:.2f}x | {da:.1f} | {db:.1f} | {da/db:.2f}x |")
PY
rm -f "$out"
