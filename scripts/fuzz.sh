#!/usr/bin/env bash
# libFuzzer targets for every parser of untrusted input (Fuzz/*Fuzzer.swift), under AddressSanitizer.
#
#   scripts/fuzz.sh build                  build the instrumented modules and the fuzzers
#   scripts/fuzz.sh run TARGET [SECONDS]   run one target (default: 600 s or 10^6 runs, whichever first)
#   scripts/fuzz.sh all [SECONDS]          run every target in turn
#   scripts/fuzz.sh smoke                  CI: build, then each target for a few seconds
#   scripts/fuzz.sh repro TARGET FILE...   run a target on saved inputs (crash-*, timeout-*)
#
# Targets: gguf, tokenizer, jinja, grammar, partialjson, request (the server's body decoder). Corpora grow in .build-fuzz/corpus/TARGET, seeded
# from Tests/Fixtures; findings land in .build-fuzz/findings/TARGET; each run's log is
# .build-fuzz/logs/TARGET.log (smoke-TARGET.log for the smoke runs).
#
# Why not a SwiftPM target: an executable target renames `main`, which then clashes with libFuzzer's
# own. So SwiftPM builds the library modules the fuzzers need (only the low ones: JSON, GGUF,
# Tokenizers, Jinja, Grammar, the lock, the wire types; no swift-syntax) with `-sanitize=fuzzer,address` into a scratch path of
# their own, and swiftc links each Fuzz/*Fuzzer.swift, which defines `LLVMFuzzerTestOneInput`, with
# those objects and libFuzzer's `main`.
#
# Limits every run states: 1 s per input (-timeout=1, a slower input is a finding), no single malloc
# over 256 MB (-malloc_limit_mb), 2 GB of RSS (-rss_limit_mb). libFuzzer's timeout is wall-clock time,
# so on a loaded machine FUZZ_TIMEOUT=10 avoids false alarms; inputs slower than 1 s are then still
# reported (-report_slow_units=1, "Slowest unit") and `repro` times them alone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$root/.build-fuzz
bin=$scratch/fuzzers
targets=(gguf tokenizer jinja grammar partialjson request)
flags=(-sanitize=fuzzer,address -parse-as-library -enable-testing)

source_of() {
    case $1 in
        gguf) echo "GGUFFuzzer.swift FuzzContext.swift" ;;
        tokenizer) echo TokenizerFuzzer.swift ;;
        jinja) echo "JinjaFuzzer.swift FuzzContext.swift" ;;
        grammar) echo GrammarFuzzer.swift ;;
        partialjson) echo PartialJSONFuzzer.swift ;;
        request) echo RequestFuzzer.swift ;;
        *) echo "unknown target '$1' (${targets[*]})" >&2; exit 2 ;;
    esac
}

# Longest input libFuzzer makes: large enough for the seeds that matter (templates, GGUF headers).
max_len_of() {
    case $1 in
        gguf) echo 65536 ;;
        jinja) echo 16384 ;;
        *) echo 4096 ;;
    esac
}

build() {
    local xflags=()
    for f in "${flags[@]}"; do xflags+=(-Xswiftc "$f"); done
    # SwiftPM builds one --target per invocation; Grammar brings Tokenizers, GGUF and JSON with it.
    for target in LocalLMGrammar LocalLMJinja LocalLMOpenAIWire; do
        swift build -c release --scratch-path "$scratch" "${xflags[@]}" --target "$target"
    done
    local products
    products=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
    local objects=()
    # The objects of each module's current sources (a file deleted since an earlier build leaves its .o).
    for module in LocalLMJSON LocalLMSync LocalLMGGUF LocalLMTokenizers LocalLMJinja LocalLMGrammar LocalLMOpenAIWire; do
        while read -r source; do
            objects+=("$products/$module.build/$(basename "$source").o")
        done < "$products/$module.build/sources"
    done
    mkdir -p "$bin"
    for target in "${targets[@]}"; do
        local sources=()
        for s in $(source_of "$target"); do sources+=("Fuzz/$s"); done
        swiftc -O "${flags[@]}" -swift-version 6 -I "$products/Modules" "${sources[@]}" "${objects[@]}" \
            -module-name "Fuzz_$target" -o "$bin/$target"
    done
}

# Seeds from the test fixtures, one file per input (python3 reads the JSON fixtures).
seed() {
    rm -rf "$scratch/seeds"
    mkdir -p "$scratch/seeds"
    python3 - "$root/Tests/Fixtures" "$scratch/seeds" <<'PY'
import json, os, struct, sys
fixtures, out = sys.argv[1], sys.argv[2]
counts = {}
def put(target, data):
    if isinstance(data, str): data = data.encode()
    d = os.path.join(out, target); os.makedirs(d, exist_ok=True)
    n = counts.get(target, 0); counts[target] = n + 1
    open(os.path.join(d, "%05d" % n), "wb").write(data)
def load(path): return json.load(open(os.path.join(fixtures, path)))

# GGUF: the all-types file, and the tiny models' headers and metadata with the tensor table dropped
# (the tensor data would make every input a megabyte).
def metadata_only(b):
    version, tensors, kvs = struct.unpack_from("<IQQ", b, 4)
    p = 24
    def string(p): n, = struct.unpack_from("<Q", b, p); return p + 8 + n
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    def value(p, t):
        if t == 8: return string(p)
        if t == 9:
            et, n = struct.unpack_from("<IQ", b, p); p += 12
            for _ in range(n): p = value(p, et)
            return p
        return p + sizes[t]
    for _ in range(kvs):
        p = string(p); t, = struct.unpack_from("<I", b, p); p = value(p + 4, t)
    return b[:8] + struct.pack("<Q", 0) + b[16:p]
put("gguf", open(os.path.join(fixtures, "gguf/all_types.gguf"), "rb").read())
for name in ["tiny-qwen2", "tiny-qwen3"]:
    put("gguf", metadata_only(open(os.path.join(fixtures, "runtime/%s.gguf" % name), "rb").read()))

# Tokenizer: llama.cpp's vocab test strings and the corpus, over the 7 vocabularies and flag sets.
texts = list(load("tokenizers/corpus.json"))
vocab = os.path.join(fixtures, "tokenizers/vocab")
for f in sorted(os.listdir(vocab)):
    if f.endswith(".inp"):
        texts += open(os.path.join(vocab, f), encoding="utf-8").read().split("\n__ggml_vocab_test__\n")
for i, t in enumerate(dict.fromkeys(texts)):
    put("tokenizer", bytes([i % 256]) + t.encode())
put("tokenizer", bytes([0x80]) + b"<s>Hello<|im_start|>user\n</s>")

# Jinja: every real template, and the snippets.
templates = os.path.join(fixtures, "templates")
for f in sorted(os.listdir(templates)):
    if f.endswith(".jinja"): put("jinja", open(os.path.join(templates, f), "rb").read())
for s in load("templates/snippets.json"): put("jinja", s["source"])

# Grammar (first byte: 0 GBNF, 1 regex, 2 schema, 3 schema in any property order) and partial JSON.
def patterns(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "pattern" and isinstance(x, str): yield x
            else: yield from patterns(x)
    elif isinstance(v, list):
        for x in v: yield from patterns(x)
gbnf = os.path.join(fixtures, "grammar/gbnf")
for f in sorted(os.listdir(gbnf)): put("grammar", b"\0" + open(os.path.join(gbnf, f), "rb").read())
schemas = []
for c in load("grammar/integration_cases.json"):
    if c["kind"] == "gbnf": put("grammar", "\0" + c["source"])
    else: schemas.append(json.loads(c["source"]) if isinstance(c["source"], str) else c["source"])
    for doc in c["pass"] + c["fail"]: put("partialjson", doc)
for f in ["schema_cases.json", "property_schemas.json", "model_schemas.json"]:
    schemas += [c["schema"] for c in load("grammar/" + f)]
for i, s in enumerate(schemas):
    text = json.dumps(s)
    put("grammar", bytes([2 + i % 2]) + text.encode())
    put("partialjson", text)
for p in dict.fromkeys(p for s in schemas for p in patterns(s)): put("grammar", "\1" + p)
for c in load("grammar/schema_cases.json"):
    for inst in c.get("instances", []):
        put("partialjson", json.dumps(inst) if not isinstance(inst, str) else inst)

# Server request bodies: the shapes the wire tests send, with the fixture schemas as tool parameters
# and response formats.
messages = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18 C"},
]
put("request", json.dumps({"model": "m", "messages": messages[:2]}))
put("request", json.dumps({"model": "m", "messages": messages, "stream": True, "stream_options": {"include_usage": True},
    "temperature": 0.7, "top_p": 0.9, "seed": 7, "max_tokens": 64, "stop": ["\n\n", "END"], "n": 1, "user": "u"}))
put("request", json.dumps({"model": "m", "messages": messages[:2], "stop": "x", "max_completion_tokens": 8,
    "response_format": {"type": "json_object"}}))
for i, s in enumerate(schemas[:48]):
    tool = {"type": "function", "function": {"name": "f%d" % i, "description": "d", "parameters": s}}
    choice = ["auto", "none", "required", {"type": "function", "function": {"name": "f%d" % i}}][i % 4]
    put("request", json.dumps({"model": "m", "messages": messages, "tools": [tool], "tool_choice": choice,
        "parallel_tool_calls": i % 2 == 0}))
    put("request", json.dumps({"model": "m", "messages": messages[:2],
        "response_format": {"type": "json_schema", "json_schema": {"name": "r", "strict": True, "schema": s}}}))
print(" ".join("%s:%d" % kv for kv in sorted(counts.items())))
PY
}

# run TARGET SECONDS [CORPUS SEEDS]
run() {
    local target=$1 seconds=${2:-600} runs=1000000
    local corpus=${3:-$scratch/corpus/$target} seeds=${4:-$scratch/seeds/$target}
    local log=$scratch/logs/${LOG_PREFIX:-}$target.log
    source_of "$target" >/dev/null
    mkdir -p "$corpus" "$scratch/findings/$target" "$scratch/logs"
    # ASan: leak reports off (the fuzzers keep process-wide state on purpose); a failed allocation
    # returns nil instead of aborting, so an oversized one shows as -malloc_limit_mb's report.
    # Swift's own crash backtracer reads memory ASan flags as a second, bogus report: off.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1} \
    "$bin/$target" -max_total_time="$seconds" -runs="$runs" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        -timeout="${FUZZ_TIMEOUT:-1}" -report_slow_units=1 \
        -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -max_len="$(max_len_of "$target")" -print_final_stats=1 \
        -artifact_prefix="$scratch/findings/$target/" "$corpus" "$seeds" \
        2>&1 | tee "$log" | grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|SUMMARY|Test unit written|Slowest unit|stat::" || true
    # A crash, timeout, leak of the limits or sanitizer report fails the run; a slow unit is only reported.
    ! grep -qE "^==[0-9]+== ?ERROR" "$log"
}

case ${1:-} in
    build) build ;;
    seed) seed ;;
    run) [[ -f "$bin/${2:?target}" ]] || build; [[ -d "$scratch/seeds" ]] || seed; run "$2" "${3:-600}" ;;
    all)
        [[ -d "$bin" ]] || build
        seed
        status=0
        for t in "${targets[@]}"; do echo "== $t"; run "$t" "${2:-600}" || status=1; done
        exit $status ;;
    smoke)
        build
        seed
        status=0
        # 8 s each from every 8th seed (reading all of them takes longer than that), into a fresh
        # corpus; a wall-clock timeout of 10 s so that a loaded CI machine does not fail spuriously.
        # A fixed random seed: CI repeats the mutations a local smoke run made (a slower machine makes
        # fewer of them), so a smoke run that passed here passes there; searching is the long runs' job.
        for t in "${targets[@]}"; do
            echo "== $t"
            rm -rf "$scratch/smoke/$t" && mkdir -p "$scratch/smoke/$t/seeds" "$scratch/smoke/$t/corpus"
            find "$scratch/seeds/$t" -type f | sort | awk 'NR % 8 == 1' | xargs cp -t "$scratch/smoke/$t/seeds"
            LOG_PREFIX=smoke- FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10} FUZZ_SEED=${FUZZ_SEED:-1} run "$t" 8 "$scratch/smoke/$t/corpus" "$scratch/smoke/$t/seeds" || status=1
        done
        exit $status ;;
    repro)
        target=${2:?target}; shift 2
        SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$target" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=256 "$@" ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
esac
