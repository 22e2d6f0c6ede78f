#!/usr/bin/env python3
"""Goldens for the runtime's fidelity tests: llama.cpp's logits and greedy generations.

For each model (SmolLM2, Gemma 3, Qwen2.5-Coder-0.5B-Instruct, and the tiny qwen2/qwen3 files from
scripts/make-tiny-models.py, default and --archs)
and each of its prompts, asks /work/shared/reference/ref.py (llama.cpp via llama-cpp-python) for
  * the prompt's token ids (llama.cpp's own tokenization, BOS by the model's rule),
  * at every position: the argmax, the top 16 logits and the log-sum-exp of the whole row
    (enough for argmax checks, logit differences on the top tokens and the KL divergence's
    dominant terms, without storing whole vocabulary rows),
  * the 64 greedy tokens generated after the prompt (stopping early at end-of-generation).

  python3 scripts/goldens/runtime_goldens.py [smollm2|gemma3|qwen05|qwen2|qwen3|qwen2-iq4|gemma2|granite|olmo2|smollm3|phi3|qwen3moe|lfm2|gemma4 ...]

Writes Tests/Fixtures/runtime/<model>_goldens.json. Needs ../shared/reference/setup.sh done first and
the models from scripts/fetch-models.sh. The tests read only the JSON files.
"""
import json
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "runtime")
REF = os.environ.get("LOCALLM_REF_PY", "/work/shared/reference/ref.py")
MODELS = os.environ.get("LOCALLM_MODELS", os.path.expanduser("~/.cache/locallm/models"))
TOP = 16
GEN = 64

TEXT_PROMPTS = [
    "The capital of France is",
    "Once upon a time, in a small village by the sea,",
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    "Water boils at 100 degrees Celsius at sea level. At higher altitudes,",
    "The three primary colors are",
    "Q: What is 17 + 25?\nA:",
    "import numpy as np\nx = np.arange(10)\nprint(",
    "In 1969, Neil Armstrong",
    "The quick brown fox jumps over the lazy dog. The quick brown fox",
    "Photosynthesis is the process by which plants",
    "Dear Sir or Madam,\n\nI am writing to",
    "1, 2, 3, 5, 8, 13,",
    "Les chats sont des animaux",
    "The best way to learn a new programming language is",
    "SELECT name, age FROM users WHERE",
    "A haiku about autumn:\n",
    "Machine learning models are trained by",
    "{\"name\": \"Alice\", \"age\":",
    "The mitochondria is the powerhouse of",
    "List of planets in the solar system: Mercury, Venus,",
    "Ein kurzer Satz auf Deutsch:",
    "To make a cup of tea, first",
]

CHAT_PROMPTS = [
    "<|im_start|>user\nWhat is the capital of Japan?<|im_end|>\n<|im_start|>assistant\n",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWrite a short poem about the sea.<|im_end|>\n<|im_start|>assistant\n",
]


def ref(*args):
    out = subprocess.run([sys.executable, REF, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def golden(model_path, prompts):
    cases = []
    for p in prompts:
        arg = ["--ids", ",".join(map(str, p))] if isinstance(p, list) else ["--prompt", p]
        logits = ref("logits", "--model", model_path, *arg, "--top", str(TOP), "--all-positions")
        gen = ref("generate", "--model", model_path, *arg, "--n", str(GEN))
        assert gen["prompt_ids"] == logits["ids"]
        cases.append({
            "prompt": p if isinstance(p, str) else None,
            "ids": logits["ids"],
            "positions": [{"argmax": q["argmax"], "logsumexp": q["logsumexp"], "top": q["top"]}
                          for q in logits["positions"]],
            "generated": gen["ids"],
        })
        print(f"  {len(logits['ids'])} ids, {len(gen['ids'])} generated", file=sys.stderr)
    return {"n_vocab": logits["n_vocab"], "top": TOP, "cases": cases}


def random_ids(seed, n_vocab, count):
    rng = random.Random(seed)
    return [[rng.randrange(n_vocab) for _ in range(rng.randrange(4, 40))] for _ in range(count)]


def main():
    which = sys.argv[1:] or ["qwen2", "qwen3", "smollm2", "gemma3", "qwen05"]
    specs = {
        "smollm2": (os.path.join(MODELS, "SmolLM2-135M-Instruct.Q4_1.gguf"), TEXT_PROMPTS[:18] + CHAT_PROMPTS),
        "gemma3": (os.path.join(MODELS, "gemma-3-270m-q4_k_m.gguf"), TEXT_PROMPTS[:20]),
        # the first real tool-calling model: 24 layers, so fewer prompts keep the exact-mode test short
        "qwen05": (os.path.join(MODELS, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"), TEXT_PROMPTS[:10] + CHAT_PROMPTS),
        # tiny files: random ids below the 266 normal tokens (the 3 specials are control tokens)
        "qwen2": (os.path.join(OUT, "tiny-qwen2.gguf"), random_ids(20, 266, 20)),
        "qwen3": (os.path.join(OUT, "tiny-qwen3.gguf"), random_ids(30, 266, 20)),
        "qwen2-iq4": (os.path.join(OUT, "tiny-qwen2-iq4.gguf"), random_ids(40, 266, 20)),
    }
    # the other architectures' tiny files (scripts/make-tiny-models.py --archs)
    for seed, arch in enumerate(["gemma2", "granite", "olmo2", "smollm3", "phi3", "qwen3moe", "lfm2", "gemma4"]):
        specs[arch] = (os.path.join(OUT, f"tiny-{arch}.gguf"), random_ids(50 + seed, 266, 20))
    for name in which:
        path, prompts = specs[name]
        print(name, file=sys.stderr)
        data = golden(path, prompts)
        data["generator"] = "scripts/goldens/runtime_goldens.py (llama.cpp via ../shared/reference/ref.py)"
        with open(os.path.join(OUT, f"{name}_goldens.json"), "w") as f:
            json.dump(data, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
