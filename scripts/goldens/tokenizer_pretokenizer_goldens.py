#!/usr/bin/env python3
"""Writes Tests/Fixtures/tokenizers/goldens-pre.json: llama.cpp's ids for the corpus under every
BPE pre-tokenizer this package implements, so each hand-written scanner is checked against
llama.cpp's regexes, not only the ones the shipped vocab files use.

For each pre-tokenizer name, the GPT-2 vocab file (Tests/Fixtures/tokenizers/vocab/ggml-vocab-gpt-2.gguf,
which has no tensors) is copied with its `tokenizer.ggml.pre` value replaced, loaded by llama-cpp-python
(vocab_only) and used to tokenize Tests/Fixtures/tokenizers/corpus.json with add_special = false,
parse_special = false. The Swift test builds the same vocabulary in memory with the name replaced.

  python3 scripts/goldens/tokenizer_pretokenizer_goldens.py
"""
import json
import os
import struct
import tempfile

from llama_cpp import Llama

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "tokenizers")
NAMES = [
    "default", "gpt-2", "llama-bpe", "dbrx", "chatglm-bpe", "qwen2", "qwen35", "seed-coder", "ufakzeka",
    "minicpm5", "laguna", "starcoder", "smollm", "deepseek-coder", "deepseek-llm", "falcon", "mpt",
    "command-r", "refact", "poro-chat", "viking", "tekken", "gpt-4o", "chameleon", "superbpe", "bailingmoe",
    "stablelm2", "olmo",
]


def with_pre(data, name):
    key = b"tokenizer.ggml.pre"
    at = data.find(struct.pack("<Q", len(key)) + key)
    assert at > 0 and struct.unpack("<I", data[at + 8 + len(key):at + 12 + len(key)])[0] == 8  # STRING
    value_at = at + 12 + len(key)
    (n,) = struct.unpack("<Q", data[value_at:value_at + 8])
    new = name.encode()
    return data[:value_at] + struct.pack("<Q", len(new)) + new + data[value_at + 8 + n:]


source = open(os.path.join(FIXTURES, "vocab", "ggml-vocab-gpt-2.gguf"), "rb").read()
assert struct.unpack("<Q", source[8:16])[0] == 0, "the vocab file must have no tensors"
corpus = json.load(open(os.path.join(FIXTURES, "corpus.json"), encoding="utf-8"))
result = {}
with tempfile.TemporaryDirectory() as tmp:
    for name in NAMES:
        path = os.path.join(tmp, f"{name}.gguf")
        open(path, "wb").write(with_pre(source, name))
        llm = Llama(model_path=path, vocab_only=True, verbose=False)
        result[name] = [llm.tokenize(text.encode("utf-8"), add_bos=False, special=False) for text in corpus]
        del llm
out = os.path.join(FIXTURES, "goldens-pre.json")
with open(out, "w", encoding="utf-8") as f:
    json.dump(result, f, separators=(",", ":"))
    f.write("\n")
print(f"{len(NAMES)} pre-tokenizers x {len(corpus)} strings -> {os.path.relpath(out)}")
