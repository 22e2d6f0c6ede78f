#!/usr/bin/env python3
"""Writes Tests/Fixtures/tokenizers/goldens-<model>.json: llama.cpp's token ids for every string of
Tests/Fixtures/tokenizers/corpus.json, for the two test models, in three modes:

  special     llama_tokenize(add_special=false, parse_special=true)   (ref.py tokenize)
  nospecial   llama_tokenize(add_special=false, parse_special=false)  (ref.py tokenize --no-special)
  bos         llama_tokenize(add_special=true,  parse_special=true)   (ref.py tokenize --add-bos)

and `detok`, llama.cpp's detokenization of the `special` ids (ref.py detokenize: the concatenated
token_to_piece(special=true) pieces, decoded with errors="replace").

It makes exactly the calls /work/shared/reference/ref.py makes (llama-cpp-python, vocab_only), in one
process instead of one process per string. Needs llama-cpp-python (shared/reference/setup.sh) and the
models from scripts/fetch-models.sh.

  python3 scripts/goldens/tokenizer_goldens.py
"""
import json
import os
import sys

from llama_cpp import Llama

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "tokenizers")
MODELS = os.environ.get("LOCALLM_MODELS") or os.path.expanduser("~/.cache/locallm/models")
TARGETS = {
    "smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "gemma3": "gemma-3-270m-q4_k_m.gguf",
}

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
            "detok": llm.detokenize(special, special=True).decode("utf-8", errors="replace"),
        })
    out = os.path.join(FIXTURES, f"goldens-{name}.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"model": file, "cases": cases}, f, ensure_ascii=True, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {len(cases)} cases -> {os.path.relpath(out)}", file=sys.stderr)
