#!/usr/bin/env python3
"""llama.cpp's batched decode under the protocol of `locallm bench --sequences N`, for side-by-side ratios.

N sequences are each prefilled with the synthetic prompt ((i*7919) mod (vocab-300) + 256, shifted by the
sequence's index) and then decode G tokens together: one llama_decode per step holding one token of every
sequence (llama.cpp's own way of batching sequences). Each run first decodes sequence 0 alone the same
way, so the speed-up is a ratio of two measurements taken moments apart. Medians of --reps runs after a
warm-up; one JSON line. Needs llama-cpp-python (../shared/reference/setup.sh).

  llama_batch_bench.py --model M --sequences 4 [--prompt-tokens 32] [--gen-tokens 32] [--threads 2] [--reps 3]
"""
import argparse
import ctypes
import json
import statistics
import sys
import time

import llama_cpp as L


@L.llama_log_callback
def _quiet(level, text, user_data):
    pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--sequences", type=int, required=True)
    p.add_argument("--prompt-tokens", type=int, default=32)
    p.add_argument("--gen-tokens", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    n, pt, gt = a.sequences, a.prompt_tokens, a.gen_tokens

    L.llama_backend_init()
    L.llama_log_set(_quiet, ctypes.c_void_p(0))
    model = L.llama_model_load_from_file(a.model.encode(), L.llama_model_default_params())
    cp = L.llama_context_default_params()
    cp.n_ctx = n * (pt + gt + 16)
    cp.n_batch = cp.n_ubatch = max(pt, n)
    cp.n_seq_max = n
    cp.n_threads = cp.n_threads_batch = a.threads
    ctx = L.llama_init_from_model(model, cp)
    if not ctx:
        sys.exit("llama_init_from_model failed")
    vocab = L.llama_vocab_n_tokens(L.llama_model_get_vocab(model))
    mem = L.llama_get_memory(ctx)
    batch = L.llama_batch_init(max(pt, n), 0, n)

    def submit(entries):
        """entries: (token, position, sequence, wants logits)."""
        batch.n_tokens = len(entries)
        for i, (tok, pos, seq, logits) in enumerate(entries):
            batch.token[i] = tok
            batch.pos[i] = pos
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = 1 if logits else 0
        if L.llama_decode(ctx, batch) != 0:
            sys.exit("llama_decode failed")

    prompt = [(i * 7919) % (vocab - 300) + 256 for i in range(pt)]

    def decode(members):
        """Seconds for the sequences in `members` to decode gt tokens together after their prompts."""
        for s in members:
            L.llama_memory_seq_rm(mem, s, pt, -1)
        tokens = {s: (prompt[-1] + s) % (vocab - 300) + 256 for s in members}
        t0 = time.perf_counter()
        for step in range(gt):
            submit([(tokens[s], pt + step, s, True) for s in members])
            for s in members:
                tokens[s] = (tokens[s] * 31 + 7) % (vocab - 300) + 256
        L.llama_synchronize(ctx)
        return time.perf_counter() - t0

    for s in range(n):
        submit([((t + s) % (vocab - 300) + 256, i, s, i == pt - 1) for i, t in enumerate(prompt)])
    agg, alone, speedup = [], [], []
    for _ in range(a.reps + 1):
        one = gt / decode([0])
        together = n * gt / decode(list(range(n)))
        alone.append(one)
        agg.append(together)
        speedup.append(together / one)
    med = lambda xs: statistics.median(xs[1:])
    print(json.dumps({"engine": "llama.cpp", "threads": a.threads, "sequences": n, "prompt_tokens": pt,
                      "gen_tokens": gt, "aggregate_decode_tokens_per_s": med(agg),
                      "per_sequence_decode_tokens_per_s": med(agg) / n,
                      "one_sequence_decode_tokens_per_s": med(alone), "aggregate_speedup": med(speedup)}))
    L.llama_batch_free(batch)


if __name__ == "__main__":
    main()
