#!/usr/bin/env python3
"""The official `openai` Python client against a running `locallm serve` (scripts/serve-tests.sh
starts it): chat, streaming, tools and tool_choice, response_format, stop, seed, errors, and a
client that hangs up. Usage: openai_client_tests.py BASE_URL API_KEY MODEL"""
import json
import sys
import time
import urllib.request

import jsonschema
import openai

BASE, KEY, MODEL = sys.argv[1], sys.argv[2], sys.argv[3]
client = openai.OpenAI(base_url=BASE, api_key=KEY, max_retries=0, timeout=300)
USER = [{"role": "user", "content": "Name three colors."}]

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city", "unit"],
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the current time in a time zone",
        "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]},
    },
}


def health():
    with urllib.request.urlopen(BASE.rsplit("/v1", 1)[0] + "/health") as response:
        return json.load(response)


def test_chat_and_streaming_agree():
    whole = client.chat.completions.create(model=MODEL, messages=USER, temperature=0, max_tokens=24)
    text = whole.choices[0].message.content
    assert text, whole
    assert whole.choices[0].finish_reason in ("stop", "length")
    assert 0 < whole.usage.completion_tokens <= 24 and whole.usage.prompt_tokens > 0
    assert whole.usage.total_tokens == whole.usage.prompt_tokens + whole.usage.completion_tokens
    chunks = list(client.chat.completions.create(
        model=MODEL, messages=USER, temperature=0, max_tokens=24, stream=True, stream_options={"include_usage": True}))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == text, (streamed, text)
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 2
    assert chunks[-1].usage is not None and chunks[-1].choices == []
    assert chunks[-1].usage.completion_tokens == whole.usage.completion_tokens
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == [whole.choices[0].finish_reason], finishes
    assert len({c.id for c in chunks}) == 1
    # Without include_usage, usage rides on the last chunk (the one with finish_reason).
    plain = list(client.chat.completions.create(model=MODEL, messages=USER, temperature=0, max_tokens=8, stream=True))
    assert plain[-1].choices[0].finish_reason and plain[-1].usage.completion_tokens == 8


def test_tools_required_auto_named_none():
    ask = [{"role": "user", "content": "What is the weather in Paris, in celsius?"}]
    first = client.chat.completions.create(model=MODEL, messages=ask, tools=[WEATHER, TIME], tool_choice="required", temperature=0)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls", first
    call = choice.message.tool_calls[0]
    assert call.function.name in ("get_weather", "get_time")
    arguments = json.loads(call.function.arguments)
    schema = (WEATHER if call.function.name == "get_weather" else TIME)["function"]["parameters"]
    jsonschema.validate(arguments, schema)  # the grammar kept the arguments to the schema
    # The tool's answer goes back; the model answers in text.
    follow = ask + [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": "18 degrees celsius and sunny"},
    ]
    answer = client.chat.completions.create(model=MODEL, messages=follow, tools=[WEATHER], tool_choice="none", temperature=0, max_tokens=40)
    assert answer.choices[0].message.tool_calls is None and answer.choices[0].message.content
    # A named function is the one called, even when another fits the question better.
    named = client.chat.completions.create(
        model=MODEL, messages=ask, tools=[WEATHER, TIME], temperature=0,
        tool_choice={"type": "function", "function": {"name": "get_time"}})
    assert named.choices[0].message.tool_calls[0].function.name == "get_time"
    jsonschema.validate(json.loads(named.choices[0].message.tool_calls[0].function.arguments), TIME["function"]["parameters"])
    # Streamed tool calls arrive as deltas the client reassembles.
    chunks = list(client.chat.completions.create(
        model=MODEL, messages=ask, tools=[WEATHER], tool_choice="required", temperature=0, stream=True))
    deltas = [d for c in chunks if c.choices for d in (c.choices[0].delta.tool_calls or [])]
    assert deltas and deltas[0].function.name == "get_weather"
    jsonschema.validate(json.loads("".join(d.function.arguments or "" for d in deltas)), WEATHER["function"]["parameters"])
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_response_formats():
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0, "maximum": 120},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        },
        "required": ["name", "age", "tags"],
        "additionalProperties": False,
    }
    result = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Describe a fictional person."}], temperature=0, max_tokens=120,
        response_format={"type": "json_schema", "json_schema": {"name": "person", "schema": schema, "strict": True}})
    jsonschema.validate(json.loads(result.choices[0].message.content), schema)
    anything = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Give me a JSON object about cats."}], temperature=0, max_tokens=80,
        response_format={"type": "json_object"})
    assert isinstance(json.loads(anything.choices[0].message.content), dict)


def test_stop_and_seed():
    counting = [{"role": "user", "content": "Count from 1 to 10, separated by commas."}]
    full = client.chat.completions.create(model=MODEL, messages=counting, temperature=0, max_tokens=40).choices[0].message.content
    assert "5" in full, full
    cut = client.chat.completions.create(model=MODEL, messages=counting, temperature=0, max_tokens=40, stop=["5"])
    assert cut.choices[0].message.content == full[: full.index("5")], (cut.choices[0].message.content, full)
    assert cut.choices[0].finish_reason == "stop"
    streamed = list(client.chat.completions.create(model=MODEL, messages=counting, temperature=0, max_tokens=40, stop=["5"], stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == full[: full.index("5")]


def test_seed_repeats():
    # A seeded request is evaluated from an empty cache, so the same request gives the same answer even
    # when the first one left its prompt in a sequence's cache (and another request ran in between).
    story = [{"role": "user", "content": "Write one sentence about the sea."}]
    a = client.chat.completions.create(model=MODEL, messages=story, temperature=1.0, top_p=0.95, seed=1234, max_tokens=30)
    client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Say hi."}], temperature=0, max_tokens=4)
    b = client.chat.completions.create(model=MODEL, messages=story, temperature=1.0, top_p=0.95, seed=1234, max_tokens=30)
    assert a.choices[0].message.content == b.choices[0].message.content, (a.choices[0].message.content, b.choices[0].message.content)


def expect_error(kind, code, **kwargs):
    try:
        client.chat.completions.create(model=kwargs.pop("model", MODEL), **kwargs)
    except kind as error:
        assert error.body is not None and error.body.get("message"), error.body
        if code is not None:
            assert error.code == code, (error.code, error.body)
        return
    raise AssertionError(f"expected {kind.__name__}")


def test_errors():
    expect_error(openai.NotFoundError, "model_not_found", model="no-such-model", messages=USER)
    expect_error(openai.BadRequestError, "unsupported_parameter", messages=USER, logit_bias={"1": 5})
    expect_error(openai.BadRequestError, "context_length_exceeded", messages=[{"role": "user", "content": "word " * 5000}])
    expect_error(openai.BadRequestError, "invalid_schema", messages=USER, response_format={
        "type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "properties": {"a": {"type": "strin"}}}}})
    expect_error(openai.BadRequestError, None, messages=USER, temperature=5)
    wrong = openai.OpenAI(base_url=BASE, api_key="wrong", max_retries=0)
    try:
        wrong.models.list()
        raise AssertionError("expected AuthenticationError")
    except openai.AuthenticationError as error:
        assert error.code == "invalid_api_key"
    assert [m.id for m in client.models.list().data] == [MODEL]


def test_disconnect_frees_the_sequence():
    total = health()["sequences"]
    stream = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Write a long story about a dragon."}], max_tokens=900, stream=True)
    received = 0
    for chunk in stream:
        received += 1
        if received == 3:
            break
    stream.close()  # hang up mid-generation
    for _ in range(100):
        if health()["idle"][MODEL] == total:
            break
        time.sleep(0.1)
    assert health()["idle"][MODEL] == total, health()
    # And the server still answers.
    assert client.chat.completions.create(model=MODEL, messages=USER, max_tokens=4).choices[0].message.content is not None


if __name__ == "__main__":
    failed = 0
    for name, test in [(n, f) for n, f in globals().items() if n.startswith("test_")]:
        started = time.time()
        try:
            test()
            print(f"ok   {name} ({time.time() - started:.1f}s)")
        except Exception as error:  # report every test, then fail
            failed += 1
            print(f"FAIL {name}: {type(error).__name__}: {error}")
    sys.exit(1 if failed else 0)
