#!/usr/bin/env python3
"""Makes the quantization goldens in Tests/Fixtures/quants/ from gguf-py's numpy reference.

For every ggml type the kernels dequantize, random blocks (with valid, finite f16 scales) are written
as `<TYPE>.blocks` (raw ggml bytes) and gguf-py's dequantization of them as `<TYPE>.f32` (little-endian
float32). For the formats gguf-py can quantize to (Q8_0, F16, BF16), random float rows (plus rows with
exact rounding ties) go to `quantize_input.f32` and gguf-py's output to `quantize_<TYPE>.bin`.
`manifest.json` lists the files with their block and element counts.

Rerun: python3 scripts/goldens/quant_fixtures.py [path/to/gguf-py]
(default gguf-py: ~/.cache/locallm/reference/llama.cpp/gguf-py, or the `gguf` PyPI package).
"""
import json
import os
import sys

import numpy as np

default_gguf = os.path.expanduser("~/.cache/locallm/reference/llama.cpp/gguf-py")
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else default_gguf)
from gguf import quants  # noqa: E402
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Fixtures", "quants")
rng = np.random.default_rng(20261122)

# Byte offsets of the f16 scale fields inside each block (ggml-common.h).
HALF_FIELDS = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
}
HALF_FIELDS.update({T.IQ4_NL: [0], T.IQ4_XS: [0]})
BLOCKS = {T.F16: 512, T.BF16: 512, T.Q4_0: 64, T.Q4_1: 64, T.Q5_0: 64, T.Q5_1: 64, T.Q8_0: 64,
          T.Q2_K: 8, T.Q3_K: 8, T.Q4_K: 8, T.Q5_K: 8, T.Q6_K: 8}
# Added later; drawn after the quantization inputs so that the earlier files stay as they were.
LATER_BLOCKS = {T.IQ4_NL: 64, T.IQ4_XS: 16}


def random_halves(n):
    """Finite halves of mixed sign over a realistic range of scales (1e-4 … 4), plus a few zeros."""
    mags = np.exp(rng.uniform(np.log(1e-4), np.log(4.0), n)).astype(np.float32)
    signs = rng.choice([-1.0, 1.0], n).astype(np.float32)
    h = (mags * signs).astype(np.float16)
    h[rng.random(n) < 0.02] = 0
    return h.view(np.uint8).reshape(n, 2)


def make_blocks(t):
    block_size, type_size = GGML_QUANT_SIZES[t]
    n = {**BLOCKS, **LATER_BLOCKS}[t]
    if t == T.F16:
        return random_halves(n).reshape(-1)
    if t == T.BF16:
        vals = (rng.standard_normal(n) * 3).astype(np.float32)
        return (vals.view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
    raw = rng.integers(0, 256, size=(n, type_size), dtype=np.uint8)
    for off in HALF_FIELDS[t]:
        raw[:, off:off + 2] = random_halves(n)
    return raw.reshape(-1)


def main():
    os.makedirs(OUT, exist_ok=True)
    manifest = {"dequantize": [], "quantize": []}

    def dequantized(types):
        for t, n in types.items():
            raw = make_blocks(t)
            block_size, type_size = GGML_QUANT_SIZES[t]
            elements = n * block_size
            deq = quants.dequantize(raw.reshape(1, -1), t).reshape(-1).astype(np.float32)
            assert deq.size == elements
            raw.tofile(os.path.join(OUT, f"{t.name}.blocks"))
            deq.astype("<f4").tofile(os.path.join(OUT, f"{t.name}.f32"))
            manifest["dequantize"].append({"type": t.name, "id": int(t), "blocks": n, "elements": elements})

    dequantized(BLOCKS)

    # Quantization inputs: 32 random rows of 256 (normal, heavy-tailed, tiny) and 4 rows of exact ties.
    rows = [rng.standard_normal(256).astype(np.float32) * rng.choice([1e-3, 0.1, 1, 30]) for _ in range(24)]
    rows += [(rng.standard_t(2, 256) * 0.5).astype(np.float32) for _ in range(4)]
    for _ in range(4):  # multiples of 1/2 with amax 127 in every block: q = x·1 lands on .5 ties
        r = rng.integers(-254, 255, 256).astype(np.float32) / 2
        r[::32] = 127
        rows.append(r)
    rows.append(np.zeros(256, dtype=np.float32))
    x = np.stack(rows).astype(np.float32)
    x.astype("<f4").tofile(os.path.join(OUT, "quantize_input.f32"))
    for t in (T.Q8_0, T.F16, T.BF16):
        q = quants.quantize(x, t)
        np.ascontiguousarray(q).view(np.uint8).tofile(os.path.join(OUT, f"quantize_{t.name}.bin"))
        manifest["quantize"].append({"type": t.name, "id": int(t), "rows": int(x.shape[0]), "columns": 256})
    dequantized(LATER_BLOCKS)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
