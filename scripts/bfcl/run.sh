#!/usr/bin/env bash
# Function-calling evaluation, LocalLM against llama.cpp on the same GGUF, in one run (Docs/tools.md).
#
#   scripts/bfcl/run.sh [--model qwen05|qwen15|PATH] [--per-category N] [--seed S] [--reuse-llama]
#
# Cases: BFCL v4's public simple / multiple / parallel / parallel_multiple / irrelevance categories
# (the bfcl-eval wheel from PyPI; scripts/bfcl/fetch.sh), a seeded sample of N per category.
# LocalLM answers through the public API (`LocalLMBenchmarks bfcl`: one `Tool` per function with
# `DynamicGenerationSchema` parameters, greedy, `.allowed`). llama.cpp (llama-cpp-python, see
# ../shared/reference/setup.sh) gets the GGUF's template rendered with the tools, greedy, and its calls
# are read leniently. Both are scored by BFCL's AST checker (score.py). Results go to
# .build/bfcl/<model>/ (outputs, table.md, table.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
models="${LOCALLM_MODELS:-$HOME/.cache/locallm/models}"
model=qwen05 per=20 seed=0 reuse=0 threads=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --model) model="$2"; shift 2 ;;
    --per-category) per="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --reuse-llama) reuse=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$model" in
  qwen05) path="$models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ;;
  qwen15) path="$models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ;;
  *) path="$model"; model="$(basename "$model" .gguf)" ;;
esac
[[ -f "$path" ]] || { echo "missing $path (scripts/fetch-models.sh, --with-1.5b for qwen15)" >&2; exit 1; }
python3 -c "import llama_cpp, jinja2, jsonschema" 2>/dev/null \
  || { echo "needs llama-cpp-python (../shared/reference/setup.sh), jinja2 and jsonschema" >&2; exit 1; }

data="$(scripts/bfcl/fetch.sh)"
out=".build/bfcl/$model"
mkdir -p "$out"
python3 scripts/bfcl/prepare.py --data "$data" --per-category "$per" --seed "$seed" --out "$out/cases.jsonl"

# The test build's flags (-enable-testing), so this build and the tests' share one .build/release.
swift build -c release -Xswiftc -enable-testing --product LocalLMBenchmarks > "$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; exit 1; }
bin="$(swift build -c release -Xswiftc -enable-testing --show-bin-path)"

echo "== LocalLM" >&2
"$bin/LocalLMBenchmarks" bfcl --cases "$out/cases.jsonl" --model "$path" --out "$out/locallm.jsonl"
if [[ $reuse == 1 && -f "$out/llama.jsonl" ]] && cmp -s "$out/cases.jsonl" "$out/llama-cases.jsonl"; then
  echo "== llama.cpp: reusing $out/llama.jsonl (same cases)" >&2
else
  echo "== llama.cpp" >&2
  python3 scripts/bfcl/llama_cpp_run.py --cases "$out/cases.jsonl" --model "$path" --threads "$threads" --out "$out/llama.jsonl"
  cp "$out/cases.jsonl" "$out/llama-cases.jsonl"
fi
python3 scripts/bfcl/score.py --data "$data" --cases "$out/cases.jsonl" --json "$out/table.json" --verdicts "$out/verdicts.jsonl" \
  LocalLM="$out/locallm.jsonl" llama.cpp="$out/llama.jsonl" | tee "$out/table.md"
