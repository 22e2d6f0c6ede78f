#!/usr/bin/env python3
"""llama.cpp's tokenizer speed on the tokenizer benchmark text, for comparison with
`swift run -c release LocalLMBenchmarks tokenizer`.

Both build the same ~1 MB of mixed English, code and CJK text with the same generator (a 64-bit LCG
picking from fixed word lists; the byte count and FNV-1a digest printed by both must agree), then time
tokenization only (the model is loaded before timing; vocab_only, as ref.py tokenize).

  python3 scripts/goldens/tokenizer_speed_reference.py [--reps 5] [--write FILE]
"""
import argparse
import os
import statistics
import time

ENGLISH = ("the of and to in is that for it as was with be by on not he this are or his from at which "
           "but have an they you were her she there been one all we their has would when if so no what can "
           "more about time people will could model language token server request memory value function "
           "quickly however because between important different following without through during").split()
CODE = [
    "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }",
    "def tokenize(text: str) -> list[int]:",
    "    return [vocab[w] for w in text.split() if w in vocab]",
    "let ids = tokenizer.encode(text, addSpecial: true)",
    "if (err != 0) { fprintf(stderr, \"error: %d\\n\", err); return -1; }",
    "SELECT id, name FROM users WHERE age > 30 ORDER BY name;",
    "{\"role\": \"user\", \"content\": \"Hello, world!\", \"id\": 12345}",
    "const result = await fetch(url, { method: 'POST', body: JSON.stringify(data) });",
    "#include <stdio.h>",
    "    x = np.zeros((batch, seq_len, hidden), dtype=np.float32)",
]
CJK = [
    "今日は天気がとても良いので、公園を散歩しました。",
    "机器学习模型需要大量的数据来进行训练。",
    "这个函数返回一个整数列表。",
    "東京は日本の首都であり、世界有数の大都市です。",
    "한국어 문장도 포함되어 있습니다.",
    "人工知能の研究は急速に進んでいます。",
]
TARGET = 1_000_000
MASK = (1 << 64) - 1


def benchmark_text():
    state = 0x853C49E6748FEA9B
    out = []
    size = 0

    def pick(n):
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        return (state >> 33) % n

    while size < TARGET:
        kind = pick(10)
        if kind < 5:
            words = [ENGLISH[pick(len(ENGLISH))] for _ in range(5 + pick(15))]
            line = " ".join(words).capitalize() + ". " + str(pick(100000))
        elif kind < 8:
            line = CODE[pick(len(CODE))]
        else:
            line = CJK[pick(len(CJK))]
        piece = line + ("\n" if pick(4) == 0 else " ")
        out.append(piece)
        size += len(piece.encode("utf-8"))
    return "".join(out)


def fnv(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--write")
    args = parser.parse_args()
    text = benchmark_text()
    data = text.encode("utf-8")
    print(f"text: {len(data)} bytes, fnv1a {fnv(data):016x}")
    if args.write:
        open(args.write, "wb").write(data)
    from llama_cpp import Llama
    models = os.environ.get("LOCALLM_MODELS") or os.path.expanduser("~/.cache/locallm/models")
    for name in ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"]:
        llm = Llama(model_path=os.path.join(models, name), vocab_only=True, verbose=False)
        times = []
        for _ in range(args.reps):
            start = time.perf_counter()
            ids = llm.tokenize(data, add_bos=False, special=True)
            times.append(time.perf_counter() - start)
        t = statistics.median(times)
        print(f"llama.cpp {name}: {len(ids)} tokens, {t * 1000:.1f} ms, {len(data) / t / 1e6:.2f} MB/s (median of {args.reps})")
