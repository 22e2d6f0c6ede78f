#!/usr/bin/env python3
"""Writes tiny random-weight qwen2 and qwen3 GGUF files for the runtime's fidelity tests, and (with
--families) one tinier GGUF per tool-call family with that family's real chat template embedded.

There is no real qwen2/qwen3 model on this machine, so these files exercise the two architectures'
code paths (Q/K/V biases; per-head Q/K RMSNorm; key_length != width/heads; NeoX RoPE) against
llama.cpp. They are small (a few hundred KB) and deterministic (fixed seeds).

  python3 scripts/make-tiny-models.py      # needs `pip install gguf numpy`

Writes Tests/Fixtures/runtime/tiny-qwen2.gguf and tiny-qwen3.gguf. Goldens for them come from
scripts/goldens/runtime_goldens.py (run it after this script).

  python3 scripts/make-tiny-models.py --iq4

writes only Tests/Fixtures/runtime/tiny-qwen2-iq4.gguf: the qwen2 shape with every matrix in IQ4_NL or
IQ4_XS (random blocks with small scales, as for the K-quants: gguf-py has no quantizer for them).

  python3 scripts/make-tiny-models.py --archs [ARCH ...]

writes only Tests/Fixtures/runtime/tiny-<arch>.gguf for the architectures beyond qwen2/qwen3 (gemma2,
granite, olmo2, smollm3, phi3, qwen3moe, lfm2; or only the ones named): each at width 256, 4 layers (lfm2 5), with the keys and tensors that make the
architecture what it is (soft-capping and sliding windows; granite's four multipliers; olmo2's
output norms and projection-wide Q/K norms with a sliding window; smollm3's RoPE-less fourth layer;
phi3's fused QKV and gate-up, partial rotary and LongRoPE factors; qwen3moe's routed experts; lfm2's
short-convolution layers between attention layers), so that a mistake in any of them
moves the logits away from llama.cpp's.

  python3 scripts/make-tiny-models.py --families

writes only Tests/Fixtures/tools/tiny-<family>.gguf (about 100 KB each): the qwen2 architecture at
width 64, one layer, F16/Q8_0 weights, and the vocabulary below plus the family's own special tokens
(its turn markers and call markers, typed CONTROL as the real models type them), its BOS/EOS, and
its template from Tests/Fixtures/templates/ as `tokenizer.chat_template`. The engine tests load them
as a user loads a model: the format comes from the embedded template, and a call must be
constrained and parsed through the marker tokens.

The vocabulary is a byte-level GPT-2 style one of our own (256 byte tokens, a few merges, ChatML
specials) so that llama.cpp's tokenizer loads it; the tests feed token ids directly.
Quantized weights use several ggml types: Q8_0/Q4_0/Q4_1/Q5_0/Q5_1/F16/BF16/F32 through gguf-py's
quantizer, and K-quant blocks (Q2_K..Q6_K) written as random blocks with sane scales, because
gguf-py has no K-quant quantizer. Any valid block is a valid weight, so that is enough here.
"""
import os
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "runtime")


def byte_tokens():
    # GPT-2's byte <-> printable-unicode mapping, so every byte is one token.
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs))]


def vocabulary(specials=("<|endoftext|>", "<|im_start|>", "<|im_end|>")):
    tokens = byte_tokens()
    merges = ["Ġ t", "h e", "Ġ a", "i n", "Ġt he", "e r", "o n", "Ġ s", "r e", "Ġ w"]
    for m in merges:
        tokens.append(m.replace(" ", ""))
    specials = list(specials)
    types = [gguf.TokenType.NORMAL] * len(tokens) + [gguf.TokenType.CONTROL] * len(specials)
    tokens += specials
    return tokens, types, merges


def k_quant_blocks(rng, qtype, rows, cols):
    """Random K-quant blocks with small positive super-block scales (ggml block layouts)."""
    bsize, tsize = gguf.GGML_QUANT_SIZES[qtype]
    nblocks = rows * cols // bsize
    raw = rng.integers(0, 256, size=(nblocks, tsize), dtype=np.uint8)

    def put_f16(col, lo, hi):
        vals = rng.uniform(lo, hi, size=nblocks).astype(np.float16)
        raw[:, col:col + 2] = vals.view(np.uint8).reshape(nblocks, 2)

    if qtype == T.Q2_K:
        put_f16(80, 0.001, 0.004); put_f16(82, 0.0005, 0.002)
    elif qtype == T.Q3_K:
        put_f16(108, 0.0005, 0.002)
    elif qtype in (T.Q4_K, T.Q5_K):
        put_f16(0, 0.0003, 0.001); put_f16(2, 0.0003, 0.001)
    elif qtype == T.Q6_K:
        put_f16(208, 0.0001, 0.0004)
    else:
        raise ValueError(qtype)
    return raw.reshape(rows, cols // bsize * tsize)


def iq4_blocks(rng, qtype, rows, cols):
    """Random IQ4_NL/IQ4_XS blocks (gguf-py has no quantizer for them): random indices and sub-block
    scales, and a small f16 d chosen so that the weights come out about as large as the others'."""
    bsize, tsize = gguf.GGML_QUANT_SIZES[qtype]
    nblocks = rows * cols // bsize
    raw = rng.integers(0, 256, size=(nblocks, tsize), dtype=np.uint8)
    lo, hi = (0.0003, 0.0008) if qtype == T.IQ4_NL else (0.00002, 0.00005)
    d = (rng.uniform(lo, hi, size=nblocks) * rng.choice([-1.0, 1.0], size=nblocks)).astype(np.float16)
    raw[:, 0:2] = d.view(np.uint8).reshape(nblocks, 2)
    return raw.reshape(rows, cols // bsize * tsize)


def add_weight(w, rng, name, rows, cols, qtype, scale):
    if qtype in (T.IQ4_NL, T.IQ4_XS):
        w.add_tensor(name, iq4_blocks(rng, qtype, rows, cols), raw_dtype=qtype)
        return
    if qtype in (T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K):
        data = k_quant_blocks(rng, qtype, rows, cols)
        w.add_tensor(name, data, raw_dtype=qtype)
        return
    x = (rng.standard_normal((rows, cols)) * scale).astype(np.float32)
    if qtype == T.F32:
        w.add_tensor(name, x)
    elif qtype == T.F16:
        w.add_tensor(name, x.astype(np.float16))
    elif qtype == T.BF16:
        w.add_tensor(name, gguf.quants.quantize(x, qtype), raw_dtype=qtype)
    else:
        w.add_tensor(name, gguf.quants.quantize(x, qtype), raw_dtype=qtype)


def add_vector(w, rng, name, n, mean, scale):
    w.add_tensor(name, (mean + rng.standard_normal(n) * scale).astype(np.float32))


def add_shape(w, width, layers, ff, heads, kv_heads):
    w.add_embedding_length(width)
    w.add_block_count(layers)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)


def add_vocabulary(w, tokens, ttypes, merges):
    """The byte-level GPT-2 style vocabulary of vocabulary() (pre-tokenizer qwen2)."""
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(ttypes)
    w.add_token_merges(merges)


def finish(w, rng, path, n_vocab, width, types, norm="output_norm.weight"):
    """The output norm, the LM head unless tied, and the file."""
    add_vector(w, rng, norm, width, 1.0, 0.1)
    if types.get("output") is not None:
        add_weight(w, rng, "output.weight", n_vocab, width, types["output"], 0.3)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(path, os.path.getsize(path), "bytes", file=sys.stderr)


def write(arch, path, seed, width, heads, kv_heads, head_k, ff, layers, types, family=None):
    rng = np.random.default_rng(seed)
    tokens, ttypes, merges = vocabulary(family["specials"]) if family else vocabulary()
    n_vocab = len(tokens)
    w = gguf.GGUFWriter(path, arch)
    w.add_name(f"tiny-random-{family['name']}" if family else f"tiny-random-{arch}")
    # Family models read whole templated prompts with tools, about one token a byte here.
    w.add_context_length(8192 if family else 256)
    add_shape(w, width, layers, ff, heads, kv_heads)
    if head_k is not None:
        w.add_key_length(head_k)
        w.add_value_length(head_k)
    w.add_rope_freq_base(1000000.0)
    w.add_layer_norm_rms_eps(1e-6)
    add_vocabulary(w, tokens, ttypes, merges)
    if family:
        w.add_description("random weights, written by scripts/make-tiny-models.py --families")
        w.add_eos_token_id(tokens.index(family["eos"]))
        w.add_bos_token_id(tokens.index(family["bos"]))
        w.add_add_bos_token(False)
        with open(os.path.join(ROOT, "Tests", "Fixtures", "templates", family["template"]), encoding="utf-8") as f:
            w.add_chat_template(f.read())
    else:
        w.add_eos_token_id(tokens.index("<|im_end|>"))
        w.add_bos_token_id(tokens.index("<|endoftext|>"))
        w.add_add_bos_token(False)
    hk = head_k if head_k is not None else width // heads

    add_weight(w, rng, "token_embd.weight", n_vocab, width, types["embd"], 1.0)
    for i in range(layers):
        p = f"blk.{i}."
        add_vector(w, rng, p + "attn_norm.weight", width, 1.0, 0.1)
        add_weight(w, rng, p + "attn_q.weight", heads * hk, width, types["q"], 0.08)
        add_weight(w, rng, p + "attn_k.weight", kv_heads * hk, width, types["k"], 0.08)
        add_weight(w, rng, p + "attn_v.weight", kv_heads * hk, width, types["v"], 0.08)
        if arch == "qwen2":
            add_vector(w, rng, p + "attn_q.bias", heads * hk, 0.0, 0.2)
            add_vector(w, rng, p + "attn_k.bias", kv_heads * hk, 0.0, 0.2)
            add_vector(w, rng, p + "attn_v.bias", kv_heads * hk, 0.0, 0.2)
        else:
            add_vector(w, rng, p + "attn_q_norm.weight", hk, 1.0, 0.1)
            add_vector(w, rng, p + "attn_k_norm.weight", hk, 1.0, 0.1)
        add_weight(w, rng, p + "attn_output.weight", width, heads * hk, types["o"], 0.08)
        add_vector(w, rng, p + "ffn_norm.weight", width, 1.0, 0.1)
        add_weight(w, rng, p + "ffn_gate.weight", ff, width, types["gate"], 0.08)
        add_weight(w, rng, p + "ffn_up.weight", ff, width, types["up"], 0.08)
        add_weight(w, rng, p + "ffn_down.weight", width, ff, types["down"], 0.08)
    finish(w, rng, path, n_vocab, width, types)


# One model per tool-call family: its template (Tests/Fixtures/templates/) and the special tokens
# the template and the call format use, as the family's real vocabulary has them.
FAMILIES = [
    {"name": "hermes", "template": "Qwen-Qwen2.5-7B-Instruct.jinja", "bos": "<|endoftext|>", "eos": "<|im_end|>",
     "specials": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]},
    {"name": "llama3", "template": "meta-llama-Llama-3.1-8B-Instruct.jinja", "bos": "<|begin_of_text|>", "eos": "<|eot_id|>",
     "specials": ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                  "<|eom_id|>", "<|python_tag|>"]},
    {"name": "mistral", "template": "Mistral-Small-3.2-24B-Instruct-2506.jinja", "bos": "<s>", "eos": "</s>",
     "specials": ["<s>", "</s>", "[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[AVAILABLE_TOOLS]",
                  "[/AVAILABLE_TOOLS]", "[TOOL_CALLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[CALL_ID]", "[ARGS]"]},
    {"name": "granite", "template": "ibm-granite-granite-3.3-2B-Instruct.jinja", "bos": "<|end_of_text|>",
     "eos": "<|end_of_text|>", "specials": ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>"]},
    {"name": "lfm2", "template": "LFM2-8B-A1B.jinja", "bos": "<|startoftext|>", "eos": "<|im_end|>",
     "specials": ["<|startoftext|>", "<|im_start|>", "<|im_end|>", "<|tool_list_start|>", "<|tool_list_end|>",
                  "<|tool_call_start|>", "<|tool_call_end|>", "<|tool_response_start|>", "<|tool_response_end|>"]},
    {"name": "gemma", "template": "google-gemma-2-2b-it.jinja", "bos": "<bos>", "eos": "<end_of_turn>",
     "specials": ["<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>"]},
    # Phi-4-mini's vocabulary has these as added tokens (200019-200029 there).
    {"name": "phi4", "template": "microsoft-Phi-4-mini-instruct.jinja", "bos": "<|endoftext|>", "eos": "<|end|>",
     "specials": ["<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>", "<|tool|>", "<|/tool|>",
                  "<|tool_call|>", "<|/tool_call|>", "<|tool_response|>"]},
]


def families():
    out = os.path.join(ROOT, "Tests", "Fixtures", "tools")
    os.makedirs(out, exist_ok=True)
    for n, family in enumerate(FAMILIES):
        write("qwen2", os.path.join(out, f"tiny-{family['name']}.gguf"), seed=10 + n, width=64, heads=2, kv_heads=1,
              head_k=None, ff=128, layers=1,
              types={"embd": T.F16, "q": T.Q8_0, "k": T.Q8_0, "v": T.Q8_0, "o": T.Q8_0, "gate": T.Q8_0,
                     "up": T.Q8_0, "down": T.Q8_0, "output": None},
              family=family)


def iq4():
    """tiny-qwen2-iq4.gguf: the qwen2 shape with every matrix in IQ4_NL or IQ4_XS."""
    write("qwen2", os.path.join(OUT, "tiny-qwen2-iq4.gguf"), seed=4, width=256, heads=4, kv_heads=2, head_k=None,
          ff=512, layers=2,
          types={"embd": T.Q8_0, "q": T.IQ4_NL, "k": T.IQ4_XS, "v": T.IQ4_NL, "o": T.IQ4_XS, "gate": T.IQ4_NL,
                 "up": T.IQ4_XS, "down": T.IQ4_NL, "output": T.IQ4_XS})


def write_arch(arch, seed, types, extra, layers=4, width=256, heads=4, kv_heads=2, ff=512):
    """One tiny model of `arch` (see --archs above); `extra(w)` adds the architecture's own keys."""
    rng = np.random.default_rng(seed)
    tokens, ttypes, merges = vocabulary()
    n_vocab = len(tokens)
    path = os.path.join(OUT, f"tiny-{arch}.gguf")
    w = gguf.GGUFWriter(path, arch)
    # llama.cpp gives special tokens of a model *named* phi3 extra attributes and then needs "</s>".
    w.add_name("tiny-random-model" if arch == "phi3" else f"tiny-random-{arch}")
    w.add_description("random weights, written by scripts/make-tiny-models.py --archs")
    w.add_context_length(4096)
    add_shape(w, width, layers, ff, heads, kv_heads)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    add_vocabulary(w, tokens, ttypes, merges)
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_add_bos_token(False)
    extra(w)
    hk = width // heads
    attention = [True] * layers if isinstance(kv_heads, int) else [k > 0 for k in kv_heads]
    kv = kv_heads if isinstance(kv_heads, int) else max(kv_heads)
    qw, kw = heads * hk, kv * hk
    add_weight(w, rng, "token_embd.weight", n_vocab, width, types["embd"],
               0.1 if arch == "gemma2" else 1.0)  # gemma2 scales its embeddings by 16 and soft-caps the logits
    if arch == "phi3":
        # LongRoPE: one divisor per rotated pair (24 of the 32 pairs of a 64-wide head).
        w.add_tensor("rope_factors_short.weight", rng.uniform(1.0, 1.6, 24).astype(np.float32))
        w.add_tensor("rope_factors_long.weight", rng.uniform(1.0, 40.0, 24).astype(np.float32))
    for i in range(layers):
        p = f"blk.{i}."
        if arch != "olmo2":
            add_vector(w, rng, p + "attn_norm.weight", width, 1.0, 0.1)
        if not attention[i]:
            # lfm2's short convolution: in_proj makes B, C, x; 3 taps per channel.
            add_weight(w, rng, p + "shortconv.in_proj.weight", 3 * width, width, types["q"], 0.08)
            w.add_tensor(p + "shortconv.conv.weight", (rng.standard_normal((width, 3)) * 0.4).astype(np.float32))
            add_weight(w, rng, p + "shortconv.out_proj.weight", width, width, types["o"], 0.08)
        elif arch == "phi3":
            add_weight(w, rng, p + "attn_qkv.weight", qw + 2 * kw, width, types["q"], 0.08)
        else:
            add_weight(w, rng, p + "attn_q.weight", qw, width, types["q"], 0.08)
            add_weight(w, rng, p + "attn_k.weight", kw, width, types["k"], 0.08)
            add_weight(w, rng, p + "attn_v.weight", kw, width, types["v"], 0.08)
        if arch == "olmo2":
            add_vector(w, rng, p + "attn_q_norm.weight", qw, 1.0, 0.1)
            add_vector(w, rng, p + "attn_k_norm.weight", kw, 1.0, 0.1)
        if arch == "qwen3moe" or (arch == "lfm2" and attention[i]):
            add_vector(w, rng, p + "attn_q_norm.weight", hk, 1.0, 0.1)
            add_vector(w, rng, p + "attn_k_norm.weight", hk, 1.0, 0.1)
        if attention[i]:
            add_weight(w, rng, p + "attn_output.weight", width, qw, types["o"], 0.08)
        if arch in ("gemma2", "olmo2"):
            add_vector(w, rng, p + "post_attention_norm.weight", width, 1.0, 0.1)
        if arch != "olmo2":
            add_vector(w, rng, p + "ffn_norm.weight", width, 1.0, 0.1)
        if arch == "phi3":
            add_weight(w, rng, p + "ffn_up.weight", 2 * ff, width, types["up"], 0.08)
        elif arch == "qwen3moe":
            # 8 experts of width 128, 2 used per token; the router is F32 and decisive enough that
            # tokens spread over the experts.
            n_exp, ff_exp = 8, 128
            w.add_tensor(p + "ffn_gate_inp.weight", (rng.standard_normal((n_exp, width)) * 0.3).astype(np.float32))
            for name, rows, cols in (("ffn_gate_exps", ff_exp, width), ("ffn_up_exps", ff_exp, width),
                                     ("ffn_down_exps", width, ff_exp)):
                x = (rng.standard_normal((n_exp, rows, cols)) * 0.08).astype(np.float32)
                w.add_tensor(p + name + ".weight", gguf.quants.quantize(x, types[name]), raw_dtype=types[name])
        else:
            add_weight(w, rng, p + "ffn_gate.weight", ff, width, types["gate"], 0.08)
            add_weight(w, rng, p + "ffn_up.weight", ff, width, types["up"], 0.08)
        if arch != "qwen3moe":
            add_weight(w, rng, p + "ffn_down.weight", width, ff, types["down"], 0.08)
        if arch in ("gemma2", "olmo2"):
            add_vector(w, rng, p + "post_ffw_norm.weight", width, 1.0, 0.1)
    finish(w, rng, path, n_vocab, width, types, "token_embd_norm.weight" if arch == "lfm2" else "output_norm.weight")


def write_gemma4(seed=57, width=256, heads=4, layers=6, ple=32):
    """tiny-gemma4.gguf: Gemma 4's block (E2B-like): sliding layers with 64-wide heads and 2 KV heads,
    global layers with 128-wide heads, 1 KV head and "proportional" RoPE (rope_freqs: 16 of 64 pairs
    rotated, the rest divided by 1e30); V RMS-normalized without a weight; attention scale 1; the last
    2 layers reuse the KV of layers 2 (sliding) and 3 (global) and have a double-wide FFN; per-layer
    embeddings of 32 per layer; layer output scales; final logit soft-capping."""
    rng = np.random.default_rng(seed)
    tokens, ttypes, merges = vocabulary()
    n_vocab = len(tokens)
    path = os.path.join(OUT, "tiny-gemma4.gguf")
    swa = [True, False, True, False, True, False]
    hk_swa, hk_full, kv_swa, kv_full = 64, 128, 2, 1
    ff = [512, 512, 512, 512, 1024, 1024]
    w = gguf.GGUFWriter(path, "gemma4")
    w.add_name("tiny-random-gemma4")
    w.add_description("random weights, written by scripts/make-tiny-models.py --archs gemma4")
    w.add_context_length(4096)
    add_shape(w, width, layers, ff, heads, [kv_swa if s else kv_full for s in swa])
    w.add_key_length(hk_full)
    w.add_value_length(hk_full)
    w.add_key_length_swa(hk_swa)
    w.add_value_length_swa(hk_swa)
    w.add_rope_dimension_count(hk_full)
    w.add_rope_dimension_count_swa(hk_swa)
    w.add_rope_freq_base(20000.0)
    w.add_rope_freq_base_swa(5000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_sliding_window(8)
    w.add_sliding_window_pattern(swa)
    w.add_shared_kv_layers(2)
    w.add_embedding_length_per_layer_input(ple)
    w.add_final_logit_softcapping(30.0)
    add_vocabulary(w, tokens, ttypes, merges)
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_add_bos_token(False)
    add_weight(w, rng, "token_embd.weight", n_vocab, width, T.Q8_0, 0.1)
    add_weight(w, rng, "per_layer_token_embd.weight", n_vocab, ple * layers, T.Q8_0, 1.0)
    add_weight(w, rng, "per_layer_model_proj.weight", ple * layers, width, T.F16, 0.08)
    add_vector(w, rng, "per_layer_proj_norm.weight", ple, 1.0, 0.1)
    w.add_tensor("rope_freqs.weight", np.array([1.0] * 16 + [1e30] * 48, dtype=np.float32))
    for i in range(layers):
        p = f"blk.{i}."
        hk, kv = (hk_swa, kv_swa) if swa[i] else (hk_full, kv_full)
        add_vector(w, rng, p + "attn_norm.weight", width, 1.0, 0.1)
        add_weight(w, rng, p + "attn_q.weight", heads * hk, width, T.Q4_K, 0.08)
        add_vector(w, rng, p + "attn_q_norm.weight", hk, 1.0, 0.1)
        if i < layers - 2:
            add_weight(w, rng, p + "attn_k.weight", kv * hk, width, T.Q8_0, 0.08)
            add_weight(w, rng, p + "attn_v.weight", kv * hk, width, T.Q6_K, 0.08)
            add_vector(w, rng, p + "attn_k_norm.weight", hk, 1.0, 0.1)
        add_weight(w, rng, p + "attn_output.weight", width, heads * hk, T.Q5_K, 0.08)
        add_vector(w, rng, p + "post_attention_norm.weight", width, 1.0, 0.1)
        add_vector(w, rng, p + "ffn_norm.weight", width, 1.0, 0.1)
        # gate and up not in random K-quant blocks (their fixed scales saturate GELU and make the block
        # chaotic, as for smollm3); q, output and down are followed by norms, so any scale does.
        add_weight(w, rng, p + "ffn_gate.weight", ff[i], width, T.Q5_0, 0.08)
        add_weight(w, rng, p + "ffn_up.weight", ff[i], width, T.Q8_0, 0.08)
        add_weight(w, rng, p + "ffn_down.weight", width, ff[i], T.Q6_K, 0.08)
        add_vector(w, rng, p + "post_ffw_norm.weight", width, 1.0, 0.1)
        add_weight(w, rng, p + "inp_gate.weight", ple, width, T.Q8_0, 0.08)
        add_weight(w, rng, p + "proj.weight", width, ple, T.F16, 0.08)
        add_vector(w, rng, p + "post_norm.weight", width, 1.0, 0.1)
        w.add_tensor(p + "layer_output_scale.weight", np.array([rng.uniform(0.5, 1.0)], dtype=np.float32))
    # An untied head: tied to these random embeddings, the residual's copy of the input token wins.
    finish(w, rng, path, n_vocab, width, {"output": T.Q6_K})


def archs(only):
    """Writes tiny-<arch>.gguf for each architecture, or only those named in `only` when it is not empty."""
    def write_arch_if(arch, *args, **kwargs):
        if not only or arch in only:
            write_arch(arch, *args, **kwargs)

    def gemma2(w):
        w.add_sliding_window(8)                 # even layers slide over 8 positions
        w.add_attn_logit_softcapping(5.0)       # small enough that the tiny model's scores feel it
        w.add_final_logit_softcapping(60.0)
    write_arch_if("gemma2", 50, {"embd": T.Q8_0, "q": T.Q4_K, "k": T.Q8_0, "v": T.Q5_0, "o": T.Q6_K, "gate": T.Q4_K,
                                 "up": T.Q4_K, "down": T.Q6_K, "output": None}, gemma2)

    def granite(w):
        w.add_embedding_scale(12.0)
        w.add_residual_scale(0.22)
        w.add_attention_scale(0.1)              # instead of 1/sqrt(64) = 0.125
        w.add_logit_scale(8.0)
    write_arch_if("granite", 51, {"embd": T.F16, "q": T.Q8_0, "k": T.Q4_0, "v": T.Q8_0, "o": T.Q5_1, "gate": T.Q4_K,
                                  "up": T.Q5_K, "down": T.Q6_K, "output": None}, granite)

    def olmo2(w):
        w.add_sliding_window(8)                 # OLMo 3 style: layers 0-2 slide, layer 3 is global
        w.add_rope_freq_base_swa(5000.0)
    write_arch_if("olmo2", 52, {"embd": T.Q8_0, "q": T.Q5_K, "k": T.Q8_0, "v": T.Q4_1, "o": T.Q8_0, "gate": T.Q3_K,
                                "up": T.Q4_K, "down": T.Q6_K, "output": T.Q8_0}, olmo2)

    def smollm3(w):
        pass                                    # layer 3 has no RoPE by the architecture itself
    # Its gate and up are not random K-quant blocks: their fixed scales gave FFN gains that made this
    # 4-layer block without post norms chaotic (a 0.008 difference in one attention output grew to 92
    # in the residual two layers later, so the float-activation prefill left llama.cpp by 19 on one logit).
    write_arch_if("smollm3", 53, {"embd": T.Q8_0, "q": T.Q8_0, "k": T.Q8_0, "v": T.Q6_K, "o": T.Q4_K, "gate": T.Q5_0,
                                  "up": T.Q8_0, "down": T.Q4_K, "output": T.Q6_K}, smollm3)

    def phi3(w):
        w.add_rope_dimension_count(48)          # partial rotary: 48 of the 64 head dimensions
        w.add_rope_scaling_type(gguf.RopeScalingType.LONGROPE)
        w.add_rope_scaling_attn_factors(1.19)
        w.add_rope_scaling_orig_ctx_len(4096)
    def qwen3moe(w):
        w.add_expert_count(8)
        w.add_expert_used_count(2)
        w.add_expert_feed_forward_length(128)
    write_arch_if("qwen3moe", 55, {"embd": T.Q8_0, "q": T.Q4_K, "k": T.Q8_0, "v": T.Q5_1, "o": T.Q6_K,
                                   "ffn_gate_exps": T.Q8_0, "ffn_up_exps": T.Q4_0, "ffn_down_exps": T.Q8_0,
                                   "output": T.Q6_K}, qwen3moe)

    def lfm2(w):
        w.add_shortconv_l_cache(3)
    # Layers 0, 1 and 3 are short convolutions, 2 and 4 attention (head_count_kv 0 marks a convolution).
    write_arch_if("lfm2", 56, {"embd": T.Q8_0, "q": T.Q4_K, "k": T.Q8_0, "v": T.Q6_K, "o": T.Q5_K, "gate": T.Q4_K,
                               "up": T.Q8_0, "down": T.Q6_K, "output": None}, lfm2, layers=5, kv_heads=[0, 0, 2, 0, 2])

    if not only or "gemma4" in only:
        write_gemma4()

    write_arch_if("phi3", 54, {"embd": T.Q8_0, "q": T.Q5_K, "o": T.Q8_0, "up": T.Q4_K, "down": T.Q6_K,
                               "output": T.Q6_K}, phi3)


def main():
    if "--archs" in sys.argv[1:]:
        archs([a for a in sys.argv[1:] if not a.startswith("--")])
        return
    if "--families" in sys.argv[1:]:
        families()
        return
    if "--iq4" in sys.argv[1:]:
        iq4()
        return
    os.makedirs(OUT, exist_ok=True)
    # qwen2: width 256 (K-quants need multiples of 256 columns), tied output (no output.weight).
    write("qwen2", os.path.join(OUT, "tiny-qwen2.gguf"), seed=2, width=256, heads=4, kv_heads=2, head_k=None,
          ff=512, layers=2,
          types={"embd": T.Q8_0, "q": T.Q4_K, "k": T.Q5_0, "v": T.Q8_0, "o": T.Q4_1, "gate": T.Q5_K,
                 "up": T.Q3_K, "down": T.Q6_K, "output": None})
    # qwen3: key_length 48 ≠ 256/4, so Q is 192 wide and attn_output has 192 columns.
    write("qwen3", os.path.join(OUT, "tiny-qwen3.gguf"), seed=3, width=256, heads=4, kv_heads=2, head_k=48,
          ff=512, layers=2,
          types={"embd": T.F16, "q": T.Q2_K, "k": T.Q5_1, "v": T.Q4_0, "o": T.Q8_0, "gate": T.Q4_K,
                 "up": T.BF16, "down": T.Q5_K, "output": T.Q6_K})


if __name__ == "__main__":
    main()
