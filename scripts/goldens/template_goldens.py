#!/usr/bin/env python3
"""Chat-template goldens: render real model templates the Hugging Face way with Python jinja2.

What it makes (under Tests/Fixtures/templates/):
  *.jinja         copies of llama.cpp's models/templates/*.jinja (the templates under test), plus
                  gguf-SmolLM2-135M-Instruct.jinja (tokenizer.chat_template read from the test model
                  with gguf-py) and locallm-default-chatml.jinja (ChatTemplate.defaultSource, the
                  fallback for models without a template; a Swift test checks they are equal)
  contexts.json   the Jinja contexts (conversations) every template is rendered with, as an
                  ordered JSON list of {"name": ..., "context": {...}}
  goldens.json    {"date": ..., "cases": {template_file: {context_name: {"output": text} | {"error": message}}}}
  snippets.json   small feature templates (loops, macros, filters, tests, methods, slicing, whitespace
                  control, errors) from scripts/goldens/template_snippets.py, each with its context and
                  jinja2's {"output"} or {"error"}

How: jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with the
`{% generation %}` extension and loopcontrols, the `tojson` override, `raise_exception` and
`strftime_now` exactly as transformers' `_compile_jinja_template` sets them up, except that
strftime_now reads a FIXED clock (FIXED_NOW) so the goldens are stable. The Swift tests inject
the same date.

Rerun (needs jinja2 only):
  python3 scripts/goldens/template_goldens.py [--templates ~/.cache/locallm/reference/llama.cpp/models/templates]
"""
import argparse
import json
import os
import sys
from datetime import datetime

import jinja2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime(2026, 3, 7, 14, 5, 9)  # a Saturday; Swift tests use the same instant (UTC)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(REPO, "Tests", "Fixtures", "templates")


def make_environment():
    class GenerationTag(Extension):
        # transformers' AssistantTracker: `{% generation %}` renders its body (mask tracking is
        # irrelevant for the rendered text).
        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
            return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

        def _generation_support(self, caller):
            return caller()

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return FIXED_NOW.strftime(format)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the web.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "default": 5}},
            "required": ["query"],
        },
    },
}


def conversations():
    base = {"bos_token": "<s>", "eos_token": "</s>"}
    convs = [
        ("system_user", [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hello! What is 2 + 2?"},
        ], {}),
        ("multi_turn", [
            {"role": "user", "content": "Hi there."},
            {"role": "assistant", "content": "Hello! How can I help you today?"},
            {"role": "user", "content": "Tell me a joke about cats."},
            {"role": "assistant", "content": "Why did the cat sit on the computer? To keep an eye on the mouse."},
            {"role": "user", "content": "  Another one, please.  "},
        ], {}),
        ("non_ascii", [
            {"role": "system", "content": "Réponds en français, s'il te plaît. «Merci»"},
            {"role": "user", "content": "Ça va? 你好，世界！ Привет 🌍🎉 \"quoted\" \\ back\tslash"},
            {"role": "assistant", "content": "Très bien — 谢谢! ñ ü ß 😀"},
            {"role": "user", "content": "日本語で答えてください。"},
        ], {}),
        ("tools", [
            {"role": "system", "content": "You can call tools."},
            {"role": "user", "content": "What's the weather in Paris and in Zürich?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}},
                {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zürich"}}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "{\"temperature\": 18, \"sky\": \"clear\"}"},
            {"role": "tool", "tool_call_id": "call_2", "name": "get_weather", "content": "{\"temperature\": 11.5, \"sky\": \"rain\"}"},
            {"role": "assistant", "content": "Paris: 18 °C and clear. Zürich: 11.5 °C with rain."},
            {"role": "user", "content": "Thanks! Now search for umbrellas."},
        ], {"tools": [WEATHER_TOOL, SEARCH_TOOL]}),
        ("tools_no_system", [
            {"role": "user", "content": "Search for 'swift jinja'."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_9", "type": "function", "function": {"name": "search", "arguments": {"query": "swift jinja", "limit": 3, "exact": True, "score": 0.5, "tags": ["a", "b"], "extra": None}}},
            ]},
            {"role": "tool", "tool_call_id": "call_9", "name": "search", "content": "No results."},
        ], {"tools": [SEARCH_TOOL]}),
        ("user_only_extra", [
            {"role": "user", "content": "Summarise: the quick brown fox jumps over the lazy dog."},
        ], {"enable_thinking": False, "date_string": "07 Mar 2026"}),
    ]
    out = []
    for name, messages, extra in convs:
        for agp in (True, False):
            ctx = dict(base)
            ctx["messages"] = messages
            ctx.update(extra)
            ctx["add_generation_prompt"] = agp
            out.append({"name": f"{name}{'_gen' if agp else ''}", "context": ctx})
    return out


# Must equal ChatTemplate.defaultSource in Sources/LocalLMTokenizers/ChatTemplate/ChatTemplate.swift.
DEFAULT_CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def model_template(path):
    """tokenizer.chat_template of a GGUF file, read with gguf-py (pip install gguf, or llama.cpp's gguf-py)."""
    sys.path.insert(0, os.path.expanduser("~/.cache/locallm/reference/llama.cpp/gguf-py"))
    import gguf

    field = gguf.GGUFReader(path).fields["tokenizer.chat_template"]
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def render(env, source, context):
    try:
        template = env.from_string(source)
    except Exception as e:  # syntax error or unknown filter/test: fails for every context
        return {"error": f"{type(e).__name__}: {e}"}
    try:
        return {"output": template.render(**context)}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--templates", default=os.path.expanduser("~/.cache/locallm/reference/llama.cpp/models/templates"))
    args = ap.parse_args()
    env = make_environment()
    contexts = conversations()
    os.makedirs(OUT, exist_ok=True)
    cases = {}
    sources = {}
    for name in sorted(f for f in os.listdir(args.templates) if f.endswith(".jinja")):
        with open(os.path.join(args.templates, name), encoding="utf-8") as f:
            sources[name] = f.read()
    sources["gguf-SmolLM2-135M-Instruct.jinja"] = model_template(
        os.path.expanduser("~/.cache/locallm/models/SmolLM2-135M-Instruct.Q4_1.gguf"))
    sources["locallm-default-chatml.jinja"] = DEFAULT_CHATML
    names = sorted(sources)
    for name in names:
        with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="") as f:
            f.write(sources[name])
        cases[name] = {c["name"]: render(env, sources[name], c["context"]) for c in contexts}
    with open(os.path.join(OUT, "contexts.json"), "w", encoding="utf-8") as f:
        json.dump(contexts, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(os.path.join(OUT, "goldens.json"), "w", encoding="utf-8") as f:
        json.dump({"jinja2": jinja2.__version__, "date": FIXED_NOW.isoformat(), "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    from template_snippets import SNIPPETS
    snippets = []
    for i, (source, context) in enumerate(SNIPPETS):
        snippets.append({"id": i, "source": source, "context": context, **render(env, source, context)})
    with open(os.path.join(OUT, "snippets.json"), "w", encoding="utf-8") as f:
        json.dump(snippets, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(snippets)} snippets, {sum(1 for s in snippets if 'error' in s)} expected errors", file=sys.stderr)
    errors = sum(1 for t in cases.values() for r in t.values() if "error" in r)
    total = sum(len(t) for t in cases.values())
    print(f"{len(names)} templates x {len(contexts)} contexts = {total} cases, {errors} expected errors", file=sys.stderr)


if __name__ == "__main__":
    main()
