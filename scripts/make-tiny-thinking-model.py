#!/usr/bin/env python3
"""Writes a tiny random-weight qwen3 GGUF with Qwen3's real chat template, one that reasons.

The reasoning tests need a model that writes `<think>…</think>` and then an answer, with the
template's `enable_thinking` switch. No real Qwen3 model is on this machine, so this script makes
one the way scripts/make-tiny-models.py makes the others (its vocabulary and weight writers), adds
`<think>`/`</think>` to the vocabulary, embeds Tests/Fixtures/templates/Qwen-Qwen3-0.6B.jinja as
`tokenizer.chat_template`, and gives the marker tokens' output rows a larger norm so that they come
up often (and the other bytes' rows a smaller one, so the text is printable). It then tries seeds until llama.cpp's greedy reply to the test prompt has the shape the
tests need: `<think>`, some reasoning, `</think>`, some answer.

  PYTHONPATH=<llama.cpp>/gguf-py python3 scripts/make-tiny-thinking-model.py

Needs numpy, gguf-py, jinja2 and llama-cpp-python (../shared/reference/setup.sh installs it).
Writes Tests/Fixtures/runtime/tiny-qwen3-thinking.gguf and
Tests/Fixtures/runtime/tiny-qwen3-thinking.json: the prompts rendered by Python's jinja2 (thinking
on, thinking off, and a second turn with the first turn's reasoning in its history), llama.cpp's
greedy tokens and text, and the reasoning and answer parts as the template's own rule splits them
(`content.split('</think>')`).
"""
import importlib.util
import json
import os
import sys

import gguf
import jinja2
import jinja2.ext
import numpy as np
from gguf import GGMLQuantizationType as T
from jinja2.sandbox import ImmutableSandboxedEnvironment
from llama_cpp import Llama

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "runtime")
TEMPLATE = os.path.join(ROOT, "Tests", "Fixtures", "templates", "Qwen-Qwen3-0.6B.jinja")
MODEL = os.path.join(OUT, "tiny-qwen3-thinking.gguf")
GOLDEN = os.path.join(OUT, "tiny-qwen3-thinking.json")
MAX_TOKENS = 40

spec = importlib.util.spec_from_file_location("tiny", os.path.join(ROOT, "scripts", "make-tiny-models.py"))
tiny = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tiny)

FIRST_TURN = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "the answer"}]


def render(messages, enable_thinking=None):
    # As Hugging Face renders chat templates (and scripts/goldens/template_goldens.py).
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda v, ensure_ascii=False, indent=None, separators=None, sort_keys=False: json.dumps(
        v, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
    context = {"messages": messages, "add_generation_prompt": True, "bos_token": "", "eos_token": "<|im_end|>"}
    if enable_thinking is not None:
        context["enable_thinking"] = enable_thinking
    return env.from_string(open(TEMPLATE, encoding="utf-8").read()).render(**context)


def split(text):
    # The template's own rule for an assistant message's reasoning and content.
    content = text.split("</think>")[-1].lstrip("\n")
    reasoning = text.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
    return reasoning, content


def write_model(seed, template):
    rng = np.random.default_rng(seed)
    tokens, ttypes, merges = tiny.vocabulary()
    tokens = tokens + ["<think>", "</think>"]
    ttypes = ttypes + [gguf.TokenType.USER_DEFINED] * 2
    n_vocab = len(tokens)
    width, heads, kv_heads, head_k, ff, layers = 256, 4, 2, 64, 512, 2
    w = gguf.GGUFWriter(MODEL, "qwen3")
    w.add_name("tiny-random-qwen3-thinking")
    w.add_context_length(512)
    w.add_embedding_length(width)
    w.add_block_count(layers)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_key_length(head_k)
    w.add_value_length(head_k)
    w.add_rope_freq_base(1000000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(ttypes)
    w.add_token_merges(merges)
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_add_bos_token(False)
    w.add_chat_template(template)
    tiny.add_weight(w, rng, "token_embd.weight", n_vocab, width, T.F16, 1.0)
    for i in range(layers):
        p = f"blk.{i}."
        tiny.add_vector(w, rng, p + "attn_norm.weight", width, 1.0, 0.1)
        tiny.add_weight(w, rng, p + "attn_q.weight", heads * head_k, width, T.Q8_0, 0.08)
        tiny.add_weight(w, rng, p + "attn_k.weight", kv_heads * head_k, width, T.Q8_0, 0.08)
        tiny.add_weight(w, rng, p + "attn_v.weight", kv_heads * head_k, width, T.Q8_0, 0.08)
        tiny.add_vector(w, rng, p + "attn_q_norm.weight", head_k, 1.0, 0.1)
        tiny.add_vector(w, rng, p + "attn_k_norm.weight", head_k, 1.0, 0.1)
        tiny.add_weight(w, rng, p + "attn_output.weight", width, heads * head_k, T.Q8_0, 0.08)
        tiny.add_vector(w, rng, p + "ffn_norm.weight", width, 1.0, 0.1)
        tiny.add_weight(w, rng, p + "ffn_gate.weight", ff, width, T.Q8_0, 0.08)
        tiny.add_weight(w, rng, p + "ffn_up.weight", ff, width, T.Q8_0, 0.08)
        tiny.add_weight(w, rng, p + "ffn_down.weight", width, ff, T.Q8_0, 0.08)
    tiny.add_vector(w, rng, "output_norm.weight", width, 1.0, 0.1)
    out = (rng.standard_normal((n_vocab, width)) * 0.3).astype(np.float32)
    for marker in ("<think>", "</think>", "<|im_end|>"):
        out[tokens.index(marker)] *= 2.2
    # Bytes that are not printable ASCII rarely come up, so the text is readable and whole UTF-8.
    for byte in range(256):
        if not 0x20 <= byte <= 0x7E:
            out[byte] *= 0.1
    w.add_tensor("output.weight", out.astype(np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def greedy(llm, prompt):
    ids = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
    llm.reset()
    out = []
    for token in llm.generate(ids, temp=0.0, top_k=1):
        if token == llm.token_eos() or len(out) == MAX_TOKENS:
            break
        out.append(token)
    text = llm.detokenize(out, special=True).decode("utf-8", errors="replace")
    return ids, out, text


def wanted(text):
    if not text.startswith("<think>") or text.count("<think>") != 1 or text.count("</think>") != 1:
        return False
    if any(not (0x20 <= ord(c) <= 0x7E or c == "\n") for c in text):
        return False
    reasoning, answer = split(text)
    return len(reasoning.strip()) >= 3 and len(answer.strip()) >= 3


def main():
    template = open(TEMPLATE, encoding="utf-8").read()
    prompt = render(FIRST_TURN)
    for seed in range(1, 5000):
        write_model(seed, template)
        llm = Llama(model_path=MODEL, n_ctx=512, n_threads=2, verbose=False, seed=0)
        ids, out, text = greedy(llm, prompt)
        if not wanted(text):
            del llm
            continue
        reasoning, answer = split(text)
        second = FIRST_TURN + [
            {"role": "assistant", "content": answer, "reasoning_content": reasoning},
            {"role": "user", "content": "and again"},
        ]
        golden = {
            "_generated_by": "scripts/make-tiny-thinking-model.py",
            "seed": seed,
            "maxTokens": MAX_TOKENS,
            "system": FIRST_TURN[0]["content"],
            "prompt": FIRST_TURN[1]["content"],
            "renderedThinkingDefault": prompt,
            "renderedThinkingOff": render(FIRST_TURN, enable_thinking=False),
            "renderedThinkingOn": render(FIRST_TURN, enable_thinking=True),
            "promptIDs": ids,
            "greedyIDs": out,
            "greedyText": text,
            "reasoning": reasoning,
            "answer": answer,
            "secondPrompt": second[-1]["content"],
            "renderedSecondTurn": render(second),
            "renderedSecondTurnThinkingOff": render(second, enable_thinking=False),
        }
        with open(GOLDEN, "w", encoding="utf-8") as f:
            json.dump(golden, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"seed {seed}: {text!r}", file=sys.stderr)
        print(MODEL, os.path.getsize(MODEL), "bytes", file=sys.stderr)
        return
    sys.exit("no seed gave a reply with reasoning and an answer")


if __name__ == "__main__":
    main()
