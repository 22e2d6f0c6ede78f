#!/usr/bin/env python3
"""How reproducible is llama.cpp's own greedy generation across batch sizes?

For every prompt of the runtime goldens (Tests/Fixtures/runtime/<model>_goldens.json), generates 64
greedy tokens with llama.cpp (llama-cpp-python) twice: the prompt evaluated in one batch (as ref.py and
the goldens do), and the prompt evaluated one token at a time (n_batch = 1). Prints, per model, how many
prompts give identical token sequences, the largest logit difference at the last prompt position, and
the largest difference at any prompt position on the golden's top 16 tokens there (what
FidelityTests.logitsMatchLlamaCpp bounds).

This measures the noise floor of "64 greedy tokens identical": a different summation order inside
llama.cpp itself already changes some sequences. Not run by the tests (they must not need llama.cpp).

  python3 scripts/goldens/llama_self_consistency.py [smollm2 gemma3 ...]
"""
import json, os, sys
import numpy as np
import llama_cpp
from llama_cpp import Llama

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.expanduser(os.environ.get("LOCALLM_MODELS", "~/.cache/locallm/models"))
FILES = {"smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf", "gemma3": "gemma-3-270m-q4_k_m.gguf",
         "qwen2": None, "qwen3": None}


def model_path(name):
    if FILES.get(name):
        return os.path.join(MODELS, FILES[name])
    return os.path.join(ROOT, "Tests", "Fixtures", "runtime", f"tiny-{name}.gguf")


def generate(llm, ids, n=64):
    llm.reset()
    llm.eval(ids)
    prompt_rows = np.array(llm.scores[:len(ids)])
    last = prompt_rows[-1]
    out = []
    while len(out) < n:
        tok = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        if llama_cpp.llama_token_is_eog(llm._model.vocab, tok):
            break
        out.append(tok)
        llm.eval([tok])
    return out, last, prompt_rows


def main():
    names = sys.argv[1:] or ["smollm2", "gemma3", "qwen2", "qwen3"]
    for name in names:
        golden = json.load(open(os.path.join(ROOT, "Tests", "Fixtures", "runtime", f"{name}_goldens.json")))
        path = model_path(name)
        batched = Llama(model_path=path, n_ctx=512, n_batch=512, n_threads=2, logits_all=True, verbose=False)
        single = Llama(model_path=path, n_ctx=512, n_batch=1, n_ubatch=1, n_threads=2, logits_all=True,
                       verbose=False)
        same = same_as_golden = 0
        worst = worst_top = 0.0
        cases = golden["cases"]
        for case in cases:
            ids = case["ids"]
            a, la, ra = generate(batched, ids)
            b, lb, rb = generate(single, ids)
            for p, position in enumerate(case["positions"][:len(ids)]):
                top = [int(t[0]) for t in position["top"][:16]]
                worst_top = max(worst_top, float(np.abs(ra[p][top] - rb[p][top]).max()))
            same += a == b
            same_as_golden += a == case["generated"]
            worst = max(worst, float(np.abs(la - lb).max()))
        print(json.dumps({"model": name, "prompts": len(cases), "identical_batch_vs_single": same,
                          "batched_equals_golden": same_as_golden,
                          "max_abs_logit_diff_last_prompt_position": worst,
                          "max_abs_logit_diff_golden_top16_any_position": worst_top}), flush=True)


if __name__ == "__main__":
    main()
