#!/usr/bin/env python3
"""Compares LocalLM's intermediate tensors with llama.cpp's, op by op, for the last token of a run.

llama.cpp's tensors come from its graph-evaluation callback (llama_dump.py, needs llama-cpp-python from
../shared/reference/setup.sh); LocalLM's from `locallm trace`. Both evaluate the prompt ids in one
batch (or --batch-size tokens per pass), then the --then ids one at a time. Prints, for every tensor
both name, the largest absolute difference and how many elements differ at all, in graph order.

  python3 scripts/fidelity/compare_trace.py --model M --ids 1,2,3 [--then 4,5] [--batch-size 512]
      [--locallm .build/release/locallm] [--layers 0-3]
"""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_dump import Dumper

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True)
    ap.add_argument("--then", default="")
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--locallm", default=".build/release/locallm")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--all", action="store_true", help="print identical tensors too")
    ap.add_argument("--llama-cpp-arithmetic", action="store_true", help="pass it to locallm trace")
    ap.add_argument("--no-repack", action="store_true", help="llama.cpp without weight repacking")
    a = ap.parse_args()
    ids = [int(x) for x in a.ids.split(",") if x]
    then = [int(x) for x in a.then.split(",") if x]

    d = Dumper(a.model, n_ctx=max(256, len(ids) + len(then)), threads=a.threads, repack=not a.no_repack)
    ctx = d.context(a.batch_size)
    for i in range(0, len(ids), a.batch_size):
        d.store.clear(); d.names.clear()
        d.decode(ctx, ids[i:i + a.batch_size])
    for t in then:
        d.store.clear(); d.names.clear()
        d.decode(ctx, [t])
    ref = {}
    for name, arrays in d.store.items():
        x = arrays[-1]  # the last op of that name: after reshapes and RoPE
        ref[name] = x
    import llama_cpp as L
    n_vocab = L.llama_vocab_n_tokens(L.llama_model_get_vocab(d.model))
    ref["result_output"] = d.logits(ctx, n_vocab)

    with tempfile.TemporaryDirectory() as out:
        cmd = [a.locallm, "trace", "--model", a.model, "--ids", a.ids, "--batch-size", str(a.batch_size),
               "--threads", str(a.threads), "--out", out]
        if then: cmd += ["--then", a.then]
        if a.llama_cpp_arithmetic: cmd += ["--llama-cpp-arithmetic"]
        subprocess.run(cmd, check=True)
        names = json.load(open(os.path.join(out, "index.json")))
        for name in names:
            ours = np.fromfile(os.path.join(out, name + ".f32"), dtype=np.float32)
            if name not in ref:
                continue
            r = ref[name]
            if name != "result_output":
                # the last token's row: llama.cpp's tensors are [.., tokens, width] or [heads, tokens, dim]
                r = r.reshape(-1, r.shape[-1]) if r.shape[-1] == ours.size else r
                if r.ndim == 4 and r.shape[-1] * r.shape[2] == ours.size:  # [1, tokens, heads, dim]
                    r = r[0, -1].reshape(-1)
                elif r.ndim == 4 and r.shape[-1] * r.shape[1] == ours.size:  # [1, heads, tokens, dim]
                    r = r[0, :, -1, :].reshape(-1)
                elif r.ndim == 2:
                    r = r[-1]
                r = r.reshape(-1)
            if r.size != ours.size:
                print(f"{name:16s} size {ours.size} vs {r.size} (llama.cpp shape {ref[name].shape})")
                continue
            diff = np.abs(ours - r)
            n = int((diff > 0).sum())
            if n or a.all:
                print(f"{name:16s} max|Δ| {diff.max():.3g}  differ {n}/{ours.size}  scale {np.abs(r).max():.3g}")

if __name__ == "__main__":
    main()
