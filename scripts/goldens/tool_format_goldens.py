#!/usr/bin/env python3
"""Tool-history goldens for the engine's ChatRenderer: one conversation with a tool call, its output
and an answer, rendered with Python jinja2 by the chat template of each tool-call family's model
(llama.cpp's models/templates, copied under Tests/Fixtures/templates/ by template_goldens.py).

Writes Tests/Fixtures/templates/tool-formats.json:
  {"conversation": {"messages": [...], "tools": [...]},
   "cases": {template_file: {"output": text} | {"error": message}}}
The Swift test (LocalLMEngineTests/ChatRendererFamilyTests) builds the same conversation as engine
messages, renders it with ChatRenderer and compares byte for byte.

The environment is template_goldens.py's (transformers' set-up: trim_blocks, lstrip_blocks, tojson
override, raise_exception, fixed strftime_now).

Rerun (needs jinja2 only):
  python3 scripts/goldens/tool_format_goldens.py
"""
import json

import jinja2
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from template_goldens import OUT, make_environment, WEATHER_TOOL  # noqa: E402

TEMPLATES = [
    "Qwen-Qwen2.5-7B-Instruct.jinja",                       # hermes
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",  # hermes
    "meta-llama-Llama-3.1-8B-Instruct.jinja",               # llama3
    "meta-llama-Llama-3.3-70B-Instruct.jinja",              # llama3
    "Mistral-Small-3.2-24B-Instruct-2506.jinja",            # mistral
    "ibm-granite-granite-3.3-2B-Instruct.jinja",            # <|tool_call|>
    "LFM2-8B-A1B.jinja",                                    # lfm2
    "microsoft-Phi-4-mini-instruct.jinja",                  # <|tool_call|>...<|/tool_call|>
    "google-gemma-2-2b-it.jinja",                           # generic JSON (the template knows no tools)
]

# Phi-4-mini's template is not among llama.cpp's models/templates; the fixture is the
# `chat_template` of microsoft/Phi-4-mini-instruct's tokenizer_config.json, byte for byte.
PHI4_DEFAULT_SYSTEM = "You are a helpful assistant with some tools."

MESSAGES = [
    {"role": "system", "content": "You can call tools."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call00001", "type": "function",
         "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}},
    ]},
    {"role": "tool", "content": "{\"temperature\": 18, \"sky\": \"clear\"}", "tool_call_id": "call00001", "name": "get_weather"},
    {"role": "assistant", "content": "It is 18 °C and clear in Paris."},
    {"role": "user", "content": "And in Zürich?"},
]


def calls_as_text(messages, source):
    """LFM2's and Granite 3.3's templates take `tools` but render only `content`: their calls are
    text in the assistant message, in the family's form as the engine writes them:
    `<|tool_call_start|>[{"name": ..., "arguments": {...}}]<|tool_call_end|>` (the JSON form
    llama.cpp's LFM2 handler uses) and `<|tool_call|>[{"name": ..., "arguments": {...}}]`."""
    lfm2 = "<|tool_call_start|>" in source or "<|tool_list_start|>" in source
    out = []
    for m in messages:
        if m.get("tool_calls"):
            calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in m["tool_calls"]]
            text = json.dumps(calls, ensure_ascii=False)
            text = "<|tool_call_start|>" + text + "<|tool_call_end|>" if lfm2 else "<|tool_call|>" + text
            m = {"role": "assistant", "content": text}
        out.append(m)
    return out


def phi4_messages(messages, tools):
    """Phi-4-mini's template renders every message as `<|role|>content<|end|>` and nothing else of
    tools but a system message's `tools` string. Microsoft's model card gives the form: the
    functions (name, description, parameters) as one `json.dumps` list in the system message, a
    call as `<|tool_call|>[{"name": ..., "arguments": {...}}]<|/tool_call|>`; with no system
    message, the card's "You are a helpful assistant with some tools." Tool outputs stay `tool`
    messages (the template writes `<|tool|>output<|end|>`)."""
    listed = json.dumps([t["function"] for t in tools], ensure_ascii=False)
    out = []
    for m in messages:
        if m.get("tool_calls"):
            calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in m["tool_calls"]]
            m = {"role": "assistant", "content": "<|tool_call|>" + json.dumps(calls, ensure_ascii=False) + "<|/tool_call|>"}
        elif m["role"] == "system":
            m = dict(m, tools=listed)
        out.append(m)
    if not any(m["role"] == "system" for m in out):
        out.insert(0, {"role": "system", "content": PHI4_DEFAULT_SYSTEM, "tools": listed})
    return out


def generic_messages(messages, tools):
    """A template that knows no tools and no ChatML (Gemma 2) gets the generic JSON convention as
    text, as the engine writes it (ChatRenderer.textMessages): the tool list and how to call in
    the system message, or opening the first user message when there is none; a call as
    `{"tool_calls": [{"name": ..., "arguments": {...}}]}` in the assistant message; one round's
    outputs as one user message."""
    block = ("You can call these tools:\n" + "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
             + "\n\nTo call tools, answer only with JSON of this shape:\n"
             + '{"tool_calls": [{"name": <tool name>, "arguments": <arguments object>}]}\n'
             + "Otherwise answer in plain text.")
    out, outputs, placed = [], [], False
    for m in messages:
        if m["role"] != "tool" and outputs:
            out.append({"role": "user", "content": "\n".join(outputs)})
            outputs = []
        if m["role"] == "system" and not placed:
            out.append({"role": "system", "content": m["content"] + "\n\n" + block if m["content"] else block})
            placed = True
        elif m.get("tool_calls"):
            calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in m["tool_calls"]]
            out.append({"role": "assistant", "content": json.dumps({"tool_calls": calls}, ensure_ascii=False)})
        elif m["role"] == "tool":
            outputs.append(m["content"])
        else:
            out.append(m)
    if outputs:
        out.append({"role": "user", "content": "\n".join(outputs)})
    if not placed:
        first = next(i for i, m in enumerate(out) if m["role"] == "user")
        out[first] = dict(out[first], content=block + "\n\n" + out[first]["content"])
    return out


def supports_system_role(env, source):
    """minja's probe (llama.cpp's templating): does a system message's text reach the output?"""
    needle = "<System Needle>"
    try:
        out = env.from_string(source).render(messages=[{"role": "system", "content": needle}, {"role": "user", "content": "Hey"}],
                                             add_generation_prompt=False, bos_token="<s>", eos_token="</s>")
    except Exception:
        return False
    return needle in out


def system_text_in_user_messages(messages):
    """minja's system-role polyfill: system texts, joined by a newline, open the next user message
    (then a newline); before any other message, or at the end, they become a user message."""
    out, pending = [], ""
    for m in messages:
        if m["role"] == "system":
            pending = pending + "\n" + m["content"] if pending else m["content"]
            continue
        if m["role"] == "user" and pending:
            m = dict(m, content=pending + ("\n" + m["content"] if m["content"] else ""))
            pending = ""
        elif pending:
            out.append({"role": "user", "content": pending})
            pending = ""
        out.append(m)
    if pending:
        out.append({"role": "user", "content": pending})
    return out


def main():
    env = make_environment()
    cases = {}
    for name in TEMPLATES:
        with open(os.path.join(OUT, name), encoding="utf-8") as f:
            source = f.read()
        if "<|tool|>" in source:
            variants = {name: phi4_messages(MESSAGES, [WEATHER_TOOL]),
                        name + "#no-system": phi4_messages(MESSAGES[1:], [WEATHER_TOOL])}
        elif "tools" not in source:
            # Without a system message the tool text opens the first user message. (Gemma 2 refuses
            # a system message: below, its text moves into the next user message.)
            variants = {name: generic_messages(MESSAGES, [WEATHER_TOOL]),
                        name + "#no-system": generic_messages(MESSAGES[1:], [WEATHER_TOOL])}
        else:
            variants = {name: MESSAGES if "tool_calls" in source else calls_as_text(MESSAGES, source)}
        if not supports_system_role(env, source):
            variants = {key: system_text_in_user_messages(messages) for key, messages in variants.items()}
        for key, messages in variants.items():
            context = {"bos_token": "<s>", "eos_token": "</s>", "messages": messages, "tools": [WEATHER_TOOL],
                       "add_generation_prompt": True}
            try:
                cases[key] = {"output": env.from_string(source).render(**context)}
            except Exception as error:  # the Swift side must fail too
                cases[key] = {"error": str(error)}
    document = {"generator": "scripts/goldens/tool_format_goldens.py (Python jinja2 " + jinja2.__version__ + ")",
                "conversation": {"messages": MESSAGES, "tools": [WEATHER_TOOL]}, "cases": cases}
    with open(os.path.join(OUT, "tool-formats.json"), "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote", {k: ("error" if "error" in v else len(v["output"])) for k, v in cases.items()})


if __name__ == "__main__":
    main()
