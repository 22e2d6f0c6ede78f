#!/usr/bin/env python3
"""Dumps SmolLM2-135M-Instruct's vocabulary as raw token bytes for the grammar tests and benchmark.

Makes Tests/Fixtures/grammar/smollm2_tokens.bin:
  u32 count, u32 eos_id, then per token: u8 ggml token type, u16 length (little endian), bytes.
GPT-2 byte-level BPE strings are mapped back to raw bytes through the GPT-2 bytes<->unicode table;
control tokens (type 3) keep their text. Reads the GGUF with gguf-py (pip install gguf).

Rerun: python3 scripts/goldens/grammar_token_table.py [path/to/SmolLM2-135M-Instruct.Q4_1.gguf]
"""
import os, struct, sys
from gguf import GGUFReader

MODEL = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/locallm/models/SmolLM2-135M-Instruct.Q4_1.gguf")
OUT = os.path.join(os.path.dirname(__file__), "../../Tests/Fixtures/grammar/smollm2_tokens.bin")


def gpt2_unicode_to_bytes():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b); cs.append(256 + n); n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def field(r, name):
    f = r.fields[name]
    return [f.parts[i] for i in f.data]


r = GGUFReader(MODEL)
tokens = [bytes(p).decode("utf-8") for p in field(r, "tokenizer.ggml.tokens")]
types = [int(p[0]) for p in field(r, "tokenizer.ggml.token_type")]
eos = int(field(r, "tokenizer.ggml.eos_token_id")[0][0])
table = gpt2_unicode_to_bytes()
with open(OUT, "wb") as f:
    f.write(struct.pack("<II", len(tokens), eos))
    for t, ty in zip(tokens, types):
        raw = t.encode("utf-8") if ty == 3 else bytes(table[c] for c in t)
        f.write(struct.pack("<BH", ty, len(raw)) + raw)
print(f"{len(tokens)} tokens, eos {eos}, control {sum(1 for t in types if t == 3)} -> {OUT} ({os.path.getsize(OUT)} bytes)")
