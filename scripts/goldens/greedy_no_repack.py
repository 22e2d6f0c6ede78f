#!/usr/bin/env python3
"""Adds llama.cpp's greedy generations without weight repacking to the runtime goldens.

llama.cpp's CPU backend "repacks" some weight types at load (on AVX2: Q4_0 and Q4_K into 8-row
interleaved blocks) and multiplies them with other kernels whose float sums are ordered differently
from its plain dot products; `--no-repack` (use_extra_bufts = false) turns that off. LocalLM reproduces
the plain kernels' order of operations bit for bit, so its greedy generations are compared with these.

For every case of Tests/Fixtures/runtime/<model>_goldens.json, evaluates the prompt ids in one batch
(as ref.py generate does: n_ctx 4096, n_batch 512, no flash attention, 2 threads), then appends the
argmax token one at a time, 64 tokens or until an end-of-generation token, and stores the tokens as
"generated_no_repack". With --check, also generates with repacking on and asserts that this equals the
existing "generated" (ref.py's), which validates the loop.

  python3 scripts/goldens/greedy_no_repack.py [--check] [smollm2 gemma3 qwen05 qwen2 qwen3]

Needs llama-cpp-python from ../shared/reference/setup.sh and the models from scripts/fetch-models.sh.
"""
import ctypes, json, os, sys
import numpy as np
import llama_cpp as L

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "runtime")
MODELS = os.path.expanduser(os.environ.get("LOCALLM_MODELS", "~/.cache/locallm/models"))
FILES = {"smollm2": os.path.join(MODELS, "SmolLM2-135M-Instruct.Q4_1.gguf"),
         "gemma3": os.path.join(MODELS, "gemma-3-270m-q4_k_m.gguf"),
         "qwen05": os.path.join(MODELS, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
         "qwen2": os.path.join(OUT, "tiny-qwen2.gguf"), "qwen3": os.path.join(OUT, "tiny-qwen3.gguf"),
         "qwen2-iq4": os.path.join(OUT, "tiny-qwen2-iq4.gguf"),
         **{a: os.path.join(OUT, f"tiny-{a}.gguf") for a in ["gemma2", "granite", "olmo2", "smollm3", "phi3", "qwen3moe", "lfm2", "gemma4"]}}


@L.llama_log_callback
def _quiet(level, text, user_data):
    pass


def greedy(path, prompts, repack, n=64):
    mp = L.llama_model_default_params()
    mp.use_extra_bufts = repack
    model = L.llama_model_load_from_file(path.encode(), mp)
    vocab = L.llama_model_get_vocab(model)
    n_vocab = L.llama_vocab_n_tokens(vocab)
    results = []
    for ids in prompts:
        cp = L.llama_context_default_params()
        cp.n_ctx, cp.n_batch, cp.n_ubatch = 4096, 512, 512
        cp.n_threads = cp.n_threads_batch = 2
        cp.flash_attn_type = L.LLAMA_FLASH_ATTN_TYPE_DISABLED
        ctx = L.llama_init_from_model(model, cp)
        batch = (L.llama_token * len(ids))(*ids)
        assert L.llama_decode(ctx, L.llama_batch_get_one(batch, len(ids))) == 0
        out = []
        one = (L.llama_token * 1)()
        while len(out) < n:
            logits = np.ctypeslib.as_array(L.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))
            tok = int(np.argmax(logits))
            if L.llama_vocab_is_eog(vocab, tok):
                break
            out.append(tok)
            one[0] = tok
            assert L.llama_decode(ctx, L.llama_batch_get_one(one, 1)) == 0
        L.llama_free(ctx)
        results.append(out)
    L.llama_model_free(model)
    return results


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check = "--check" in sys.argv
    L.llama_backend_init()
    L.llama_log_set(_quiet, ctypes.c_void_p(0))
    for name in args or ["smollm2", "gemma3", "qwen05", "qwen2", "qwen3"]:
        path = os.path.join(OUT, f"{name}_goldens.json")
        data = json.load(open(path))
        prompts = [c["ids"] for c in data["cases"]]
        if check:
            again = greedy(FILES[name], prompts, repack=True)
            same = sum(a == c["generated"] for a, c in zip(again, data["cases"]))
            print(f"{name}: with repacking, {same}/{len(prompts)} equal ref.py's goldens", file=sys.stderr)
            assert same == len(prompts)
        plain = greedy(FILES[name], prompts, repack=False)
        for c, g in zip(data["cases"], plain):
            c["generated_no_repack"] = g
        differ = sum(c["generated"] != c["generated_no_repack"] for c in data["cases"])
        print(f"{name}: {differ}/{len(prompts)} generations change without repacking", file=sys.stderr)
        data["generator"] = ("scripts/goldens/runtime_goldens.py (llama.cpp via ../shared/reference/ref.py); "
                             "generated_no_repack: scripts/goldens/greedy_no_repack.py")
        with open(path, "w") as f:
            json.dump(data, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
