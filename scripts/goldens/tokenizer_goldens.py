#!/usr/bin/env python3
"""Writes Tests/Fixtures/tokenizers/goldens-<model>.json: llama.cpp's token ids for every string of
Tests/Fixtures/tokenizers/corpus.json, for the two test models, in three modes:

  special     llama_tokenize(add_special=false, parse_special=true)   (ref.py tokenize)
  nospecial   llama_tokenize(add_special=false, parse_special=false)  (ref.py tokenize --no-special)
  bos         llama_tokenize(add_special=true,  parse_special=true)   (ref.py tokenize --add-bos)

and `detok`, llama.cpp's detokenization of the `special` ids: the concatenated
llama_token_to_piece(special=true) pieces, decoded with errors="replace". That is what ref.py detokenize
prints, except that llama-cpp-python's `detokenize` reads each piece into a 32-byte buffer and cuts
longer pieces (SmolLM2 has a 64-dash token), so the pieces are read here with a large buffer.

Each file also lists llama.cpp's end-of-generation ids (llama_vocab_is_eog over the whole vocabulary)
and a digest of every token's piece (FNV-1a 64 over, for each id, the piece length as 4 little-endian
bytes then the piece bytes), so the tests check all 49k / 262k pieces without storing them.

It makes exactly the calls /work/shared/reference/ref.py makes (llama-cpp-python, vocab_only), in one
process instead of one process per string. Needs llama-cpp-python (shared/reference/setup.sh) and the
models from scripts/fetch-models.sh.

  python3 scripts/goldens/tokenizer_goldens.py
"""
import ctypes
import json
import os
import sys

import llama_cpp
from llama_cpp import Llama

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "tokenizers")
MODELS = os.environ.get("LOCALLM_MODELS") or os.path.expanduser("~/.cache/locallm/models")
TARGETS = {
    "smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "gemma3": "gemma-3-270m-q4_k_m.gguf",
}

def detokenize(llm, ids):
    vocab = llm._model.vocab
    out = b""
    buffer = (ctypes.c_char * 4096)()
    for token in ids:
        n = llama_cpp.llama_token_to_piece(vocab, llama_cpp.llama_token(token), buffer, len(buffer), 0, True)
        assert 0 <= n <= len(buffer)
        out += bytes(buffer[:n])
    return out


corpus = json.load(open(os.path.join(FIXTURES, "corpus.json"), encoding="utf-8"))
for name, file in TARGETS.items():
    llm = Llama(model_path=os.path.join(MODELS, file), vocab_only=True, verbose=False)
    cases = []
    for text in corpus:
        data = text.encode("utf-8")
        special = llm.tokenize(data, add_bos=False, special=True)
        cases.append({
            "special": special,
            "nospecial": llm.tokenize(data, add_bos=False, special=False),
            "bos": llm.tokenize(data, add_bos=True, special=True),
            "detok": detokenize(llm, special).decode("utf-8", errors="replace"),
        })
    vocab = llm._model.vocab
    n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
    eog = [i for i in range(n_vocab) if llama_cpp.llama_vocab_is_eog(vocab, i)]
    digest = 0xcbf29ce484222325
    buffer = (ctypes.c_char * 4096)()
    for i in range(n_vocab):
        n = llama_cpp.llama_token_to_piece(vocab, i, buffer, len(buffer), 0, True)
        assert 0 <= n <= len(buffer)
        for b in n.to_bytes(4, "little") + bytes(buffer[:n]):
            digest = ((digest ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    out = os.path.join(FIXTURES, f"goldens-{name}.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"model": file, "eog": eog, "pieceDigest": "%016x" % digest, "cases": cases}, f, ensure_ascii=True, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {len(cases)} cases -> {os.path.relpath(out)}", file=sys.stderr)
