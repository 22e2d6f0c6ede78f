#!/usr/bin/env bash
# Grammar-constrained vs unconstrained decode speed, LocalLM next to llama.cpp's grammar sampler, on
# SmolLM2 with the same prompt and the same tool-call JSON Schema (the `grammar` benchmark's first).
#
# Each tool is run as a whole process (`locallm generate --raw --json`, `ref.py generate`), greedy,
# once with --max-tokens 1 and once with N; the per-token decode time is the difference of the wall
# times over the difference of the token counts, which cancels model load and prefill. Runs
# alternate (LocalLM free, LocalLM constrained, llama.cpp free, llama.cpp constrained) for
# --rounds rounds; medians are printed with the constrained/unconstrained speed ratio of each.
#
#   scripts/bench-grammar-vs-llama.sh [--rounds 3] [--n 48] [--threads 2]
#
# Needs the reference (../shared/reference/setup.sh, run here when needed) and a release build
# (made here, or given as LOCALLM_BIN=path/to/locallm).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 n=48 threads=2
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

shared=${LOCALLM_SHARED:-../shared}
model=${LOCALLM_MODELS:-$HOME/.cache/locallm/models}/SmolLM2-135M-Instruct.Q4_1.gguf
[[ -f $model ]] || { echo "missing $model: run scripts/fetch-models.sh" >&2; exit 1; }
python3 -c "import llama_cpp" 2>/dev/null || "$shared/reference/setup.sh" >/dev/null
if [[ -n ${LOCALLM_BIN:-} ]]; then
  locallm=$LOCALLM_BIN  # an existing release build, e.g. one made with -enable-testing for the tests
else
  swift build -c release --product locallm >&2
  locallm=$(swift build -c release --product locallm --show-bin-path)/locallm
fi

schema=$(mktemp --suffix .json)
trap 'rm -f "$schema"' EXIT
# Same schema as GrammarBenchmarkSupport.schemas[0] (Benchmarks/LocalLMBenchmarks/GrammarBenchmark.swift).
cat > "$schema" <<'JSON'
{"type":"object","properties":{"name":{"const":"get_weather"},"arguments":{"type":"object","properties":{"location":{"type":"string","minLength":1,"maxLength":40},"unit":{"enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["location","unit"],"additionalProperties":false}},"required":["name","arguments"],"additionalProperties":false}
JSON

python3 - "$locallm" "$shared/reference/ref.py" "$model" "$schema" "$rounds" "$n" "$threads" <<'PY'
import json, resource, statistics, subprocess, sys, time
locallm, ref, model, schema, rounds, n, threads = sys.argv[1:4] + [sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]]
prompt = ("<|im_start|>user\nWhat is the weather in Paris for the next 3 days? "
          "Answer with the get_weather tool call as JSON.<|im_end|>\n<|im_start|>assistant\n")

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def run(cmd):
    t0, c0 = time.perf_counter(), cpu()
    done = subprocess.run(cmd, capture_output=True, text=True)
    dt = (time.perf_counter() - t0, cpu() - c0)
    # locallm exits 2 when --max-tokens cuts the grammar short (the 1-token runs): expected here.
    lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
    if done.returncode not in (0, 2) or not lines:
        sys.exit(f"{cmd[0]} failed ({done.returncode}): {done.stderr}")
    return dt, json.loads(lines[-1])

def command(tool, constrained, tokens):
    if tool == "locallm":
        cmd = [locallm, "generate", "--model", model, "--raw", "--prompt", prompt, "--temperature", "0",
               "--max-tokens", str(tokens), "--threads", threads, "--json"]
        return cmd + (["--json-schema", schema] if constrained else [])
    cmd = ["python3", ref, "generate", "--model", model, "--prompt", prompt, "--n", str(tokens)]
    return cmd + (["--json-schema-file", schema] if constrained else [])

per_token = {}
texts = {}
for r in range(rounds):
    for tool in ("locallm", "llama.cpp"):
        for constrained in (False, True):
            t1, o1 = run(command(tool, constrained, 1))
            tn, on = run(command(tool, constrained, n))
            steps = len(on["ids"]) - len(o1["ids"])
            if steps <= 0:
                continue
            per_token.setdefault((tool, constrained, "wall"), []).append((tn[0] - t1[0]) / steps)
            per_token.setdefault((tool, constrained, "cpu"), []).append((tn[1] - t1[1]) / steps)
            texts[(tool, constrained)] = (len(on["ids"]), on["text"])
    print(f"round {r + 1}/{rounds} done", file=sys.stderr)

med = statistics.median
print(f"SmolLM2 Q4_1, greedy, tool-call schema, {threads} threads, median of {rounds} rounds, per token after the first")
print("(CPU = user+sys of the process, the steadier figure on a shared machine; wall as measured)")
print(f"{'':10} {'CPU ms/tok free':>16} {'constrained':>12} {'ratio':>6} {'wall tok/s free':>16} {'constrained':>12} {'ratio':>6}   tokens: free / constrained output")
for tool in ("locallm", "llama.cpp"):
    fc, cc = med(per_token[(tool, False, "cpu")]), med(per_token[(tool, True, "cpu")])
    fw, cw = med(per_token[(tool, False, "wall")]), med(per_token[(tool, True, "wall")])
    count, text = texts[(tool, True)]
    print(f"{tool:10} {fc * 1000:16.1f} {cc * 1000:12.1f} {fc / cc:6.3f} {1 / fw:16.2f} {1 / cw:12.2f} {fw / cw:6.3f}   "
          f"{texts[(tool, False)][0]} / {count}: {text}")
print("ratio = constrained speed / unconstrained speed (1 = no overhead)")
PY
