#!/usr/bin/env bash
# Side-by-side speed of LocalLM and llama.cpp on the same GGUF files, in one run, as ratios.
#
# Builds LocalLM in release, sets up the reference (llama-cpp-python built for this CPU, through
# ../shared/reference/setup.sh) when needed, then runs `locallm bench` and `ref.py bench` alternately
# (A B A B …) on the test models under the same protocol (prefill P tokens into an empty cache in one
# batch, then decode G tokens one at a time; median of reps after a warm-up) and prints a table of tok/s
# and LocalLM/llama.cpp ratios, with decode as a fraction of the read-bandwidth limit measured in the
# same run (in every round; the best is kept).
#
#   scripts/bench-vs-llama.sh [--rounds 2] [--threads 2] [--prompt-tokens 512] [--gen-tokens 128]
#                             [--native] [--with-1.5b] [--models SUBSTRING[,SUBSTRING]] [--binary PATH]
#
# By default it measures the build users get: a plain `swift build -c release`, no flags (in its own
# scratch folder, .build-plain, so the test build's flags do not mix in). --native measures
# `-Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLOCALLM_NATIVE` instead. (--portable is accepted as
# the old name of the default.) Models: SmolLM2-135M, Gemma 3 270M and Qwen2.5-Coder-0.5B; --with-1.5b
# adds Qwen2.5-Coder-1.5B (fetched on first use); --models keeps the files whose name contains one of
# the substrings. --binary measures an already built `locallm` instead of building one (it must be the
# build the table says it is: plain unless --native).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=2 threads=2 pp=512 tg=128 native=0 with15=() only="" binary=""
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --prompt-tokens) pp=$2; shift 2 ;;
    --gen-tokens) tg=$2; shift 2 ;;
    --portable) native=0; shift ;;
    --native) native=1; shift ;;
    --with-1.5b) with15=(--with-1.5b); shift ;;
    --models) only=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
mapfile -t fetched < <(scripts/fetch-models.sh "${with15[@]}")
models=()
for m in "${fetched[@]}"; do
  if [[ -z $only ]]; then models+=("$m"); continue; fi
  IFS=, read -ra wanted <<< "$only"
  for w in "${wanted[@]}"; do [[ $(basename "$m") == *"$w"* ]] && { models+=("$m"); break; }; done
done
shared=${LOCALLM_SHARED:-../shared}
"$shared/reference/setup.sh" >/dev/null

if ((native)); then
  flags=(-Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLOCALLM_NATIVE); scratch=.build-native; build=native
else
  flags=(); scratch=.build-plain; build="plain swift build -c release"
fi
if [[ -n $binary ]]; then
  locallm=$binary
else
  swift build -c release --product locallm --scratch-path "$scratch" "${flags[@]}" >&2
  locallm=$(swift build -c release --product locallm --scratch-path "$scratch" "${flags[@]}" --show-bin-path)/locallm
fi

out=$(mktemp)
for model in "${models[@]}"; do
  for ((r = 0; r < rounds; r++)); do
    echo "round $((r + 1))/$rounds $(basename "$model")" >&2
    # Read bandwidth in every round; the summary keeps the best (a shared host's neighbour can
    # halve one measurement, and the limit is what the memory can do, not what one moment allowed).
    a=$("$locallm" bench --model "$model" --prompt-tokens "$pp" --gen-tokens "$tg" --threads "$threads" --json --bandwidth)
    b=$(python3 "$shared/reference/ref.py" bench --model "$model" --prompt-tokens "$pp" --gen-tokens "$tg" --threads "$threads")
    printf '%s\t%s\t%s\n' "$(basename "$model")" "$a" "$b" >> "$out"
  done
done

python3 - "$out" "$pp" "$tg" "$threads" "$build" <<'PY'
import json, statistics, sys, platform, os
rows = {}
for line in open(sys.argv[1]):
    name, a, b = line.rstrip("\n").split("\t")
    a, b = json.loads(a), json.loads(b)
    r = rows.setdefault(name, {"pa": [], "pb": [], "da": [], "db": [], "bw": None, "bpt": None})
    if "read_bandwidth_bytes_per_s" in a and a["read_bandwidth_bytes_per_s"] > (r["bw"] or 0):
        r["bw"], r["bpt"] = a["read_bandwidth_bytes_per_s"], a["decode_bytes_per_token"]
    r["pa"].append(a["prefill_tokens_per_s"]); r["pb"].append(b["prefill_tokens_per_s"])
    r["da"].append(a["decode_tokens_per_s"]); r["db"].append(b["decode_tokens_per_s"])
med = statistics.median
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
print(f"LocalLM {sys.argv[5]}; prefill {sys.argv[2]} tokens, decode {sys.argv[3]}, {sys.argv[4]} threads; {cpu}; {os.cpu_count()} cores")
print(f"| model | LocalLM prefill | llama.cpp prefill | ratio | LocalLM decode | llama.cpp decode | ratio | decode / bandwidth limit |")
print(f"|---|---:|---:|---:|---:|---:|---:|---:|")
for name, r in rows.items():
    pa, pb, da, db = med(r["pa"]), med(r["pb"]), med(r["da"]), med(r["db"])
    limit = f"{100 * da * r['bpt'] / r['bw']:.0f}% of {r['bw'] / r['bpt']:.0f} tok/s ({r['bw'] / 1e9:.1f} GB/s)" if r["bw"] else "-"
    print(f"| {name} | {pa:.0f} | {pb:.0f} | {pa/pb:.2f}x | {da:.1f} | {db:.1f} | {da/db:.2f}x | {limit} |")
PY
rm -f "$out"
