#!/usr/bin/env python3
"""The llama.cpp side of the function-calling evaluation (scripts/bfcl/run.sh).

For each case of prepare.py: renders the GGUF's own chat template with the tools (Python jinja2 set
up as transformers sets it up, whose `tojson` keeps key order and does not HTML-escape, as llama.cpp's
server renders it with `tools`), generates greedily with llama-cpp-python, and reads
the calls leniently, as llama.cpp's Hermes parser does: `<tool_call>` blocks, ```json fences, and
bare `{"name": …, "arguments"|"parameters": …}` objects or lists of them anywhere in the reply.
Writes the same JSON lines as the LocalLM runner (`LocalLMBenchmarks bfcl`), with the rendered
`prompt` of each case.
"""
import argparse
import json
import os
import sys
import time

import llama_cpp
from llama_cpp import Llama

from prepare import strip_order

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "goldens"))
from template_goldens import make_environment  # noqa: E402


def as_call(obj):
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    arguments = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None
    if not isinstance(arguments, dict):
        return None
    return {"name": obj["name"], "arguments": arguments}


def lenient_calls(text):
    """Every call-shaped JSON value in the reply, in order."""
    decoder = json.JSONDecoder()
    calls, i = [], 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                i += 1
                continue
            found = [as_call(v) for v in value] if isinstance(value, list) else [as_call(value)]
            found = [c for c in found if c]
            if found:
                calls.extend(found)
                i = end
                continue
        i += 1
    return calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    llm = Llama(model_path=args.model, n_ctx=4096, n_threads=args.threads, n_threads_batch=args.threads,
                verbose=False, seed=0)
    template_text = llm.metadata.get("tokenizer.chat_template")
    if not template_text:
        sys.exit("the model has no chat template")
    # Plain jinja2's `tojson` sorts keys and HTML-escapes (`'` -> \u0027); transformers' and
    # llama.cpp's keep the caller's order and the text as it is.
    template = make_environment().from_string(template_text)
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    eos = llm.detokenize([llm.token_eos()]).decode("utf-8", "replace")
    bos = llm.detokenize([llm.token_bos()]).decode("utf-8", "replace") if llm.token_bos() >= 0 else ""

    with open(args.cases) as f:
        cases = [json.loads(line) for line in f if line.strip()]
    if args.limit:
        cases = cases[: args.limit]
    with open(args.out, "w") as out:
        for n, case in enumerate(cases, 1):
            started = time.time()
            messages = ([{"role": "system", "content": case["system"]}] if case.get("system") else [])
            messages.append({"role": "user", "content": case["user"]})
            tools = [{"type": "function", "function": strip_order(t)} for t in case["tools"]]
            prompt = template.render(messages=messages, tools=tools, add_generation_prompt=True,
                                     bos_token=bos, eos_token=eos)
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            llm.reset()
            generated = []
            for token in llm.generate(tokens, top_k=1, top_p=1.0, temp=0.0, repeat_penalty=1.0, reset=True):
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    break
                generated.append(token)
                if len(generated) >= args.max_tokens:
                    break
            text = llm.detokenize(generated).decode("utf-8", "replace")
            for stop in ("<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>"):
                text = text.split(stop)[0]
            calls = lenient_calls(text)
            record = {"id": case["id"], "category": case["category"], "calls": calls, "text": text, "prompt": prompt}
            out.write(json.dumps(record, sort_keys=True) + "\n")
            out.flush()
            print(f"{n:4d} {case['id']} calls={len(calls)} {time.time() - started:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
