#!/usr/bin/env python3
"""Ports the pass/fail cases of llama.cpp's tests/test-grammar-integration.cpp to data.

Makes Tests/Fixtures/grammar/integration_cases.json: a list of
  {"name", "kind": "gbnf"|"schema", "source", "pass": [...], "fail": [...], "divergences": [...]}
For schema cases the labels are re-checked with Python `jsonschema` (format checking on) and every
disagreement is listed in "divergences". llama.cpp's label is kept (a grammar may generate a strict
subset of the schema: fixed property order, no unlisted properties, no "-0", arrays only when
"items" is given), except for the cases in SPEC_WINS, where llama.cpp's converter is wrong by its
own design choices (its 16-digit cap on unbounded integers); there the spec's label is used. Keywords our compiler refuses on
purpose (they cannot be enforced by a grammar, e.g. uniqueItems) are listed in "unsupported"; the
test checks the typed error, then runs the strings against the schema without them.

Rerun: python3 scripts/goldens/grammar_integration_cases.py [path/to/llama.cpp]
"""
import json, os, re, sys
import jsonschema

REF = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/locallm/reference/llama.cpp")
OUT = os.path.join(os.path.dirname(__file__), "../../Tests/Fixtures/grammar/integration_cases.json")
UNENFORCEABLE = ["uniqueItems"]
SPEC_WINS = {("min 0", "100000000000000000000000000000000"), ("min 2", "12345678900000000")}


def tokens(src):
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            i = src.index("\n", i)
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif src.startswith('R"', i):
            d = src.index("(", i)
            delim = src[i + 2:d]
            end = src.index(")" + delim + '"', d)
            yield ("str", src[d + 1:end].encode())
            i = end + len(delim) + 2
        elif c == '"':
            i += 1
            out = bytearray()
            while src[i] != '"':
                if src[i] == "\\":
                    e = src[i + 1]
                    if e == "x":
                        m = re.match(r"[0-9a-fA-F]+", src[i + 2:])
                        out.append(int(m.group(0), 16)); i += 2 + len(m.group(0)); continue
                    out += {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", '"': b'"', "'": b"'", "0": b"\0"}[e]
                    i += 2
                else:
                    out += src[i].encode(); i += 1
            i += 1
            yield ("str", bytes(out))
        elif c.isalpha() or c == "_":
            m = re.match(r"\w+", src[i:]); yield ("id", m.group(0)); i += len(m.group(0))
        elif c.isspace():
            i += 1
        else:
            yield ("p", c); i += 1


def parse_calls(src):
    toks = list(tokens(src))
    k = 0
    cases = []
    while k < len(toks):
        t = toks[k]
        if t[0] == "id" and t[1] in ("test_grammar", "test_schema") and toks[k + 1] == ("p", "(") and toks[k - 1] != ("id", "void"):
            kind = "gbnf" if t[1] == "test_grammar" else "schema"
            k += 2
            args = []
            cur = None
            depth = 0
            while True:
                tk = toks[k]
                if tk == ("p", ")") and depth == 0:
                    if cur is not None: args.append(cur)
                    break
                if tk == ("p", "{"):
                    depth += 1; cur = []
                elif tk == ("p", "}"):
                    depth -= 1
                elif tk == ("p", ","):
                    if depth == 0: args.append(cur); cur = None
                elif tk[0] == "str":
                    if depth > 0: cur.append(tk[1])
                    elif cur is None: cur = tk[1]
                    else: cur += tk[1]  # adjacent literals concatenate
                k += 1
            name, source, passing, failing = args
            cases.append(dict(name=name.decode(), kind=kind, source=source.decode(),
                              passing=[s.decode() for s in passing], failing=[s.decode() for s in failing]))
        k += 1
    return cases


def strip(schema, keys):
    if isinstance(schema, dict):
        return {k: strip(v, keys) for k, v in schema.items() if k not in keys}
    if isinstance(schema, list):
        return [strip(v, keys) for v in schema]
    return schema


def uses(schema, key):
    if isinstance(schema, dict):
        return key in schema or any(uses(v, key) for v in schema.values())
    if isinstance(schema, list):
        return any(uses(v, key) for v in schema)
    return False


def uses_tuple_items(schema):
    if isinstance(schema, dict):
        return isinstance(schema.get("items"), list) or any(uses_tuple_items(v) for v in schema.values())
    if isinstance(schema, list):
        return any(uses_tuple_items(v) for v in schema)
    return False


def main():
    src = open(os.path.join(REF, "tests/test-grammar-integration.cpp")).read()
    out = []
    for c in parse_calls(src):
        case = {"name": c["name"], "kind": c["kind"], "source": c["source"], "unsupported": [], "divergences": []}
        passing, failing = list(c["passing"]), list(c["failing"])
        if c["kind"] == "schema":
            schema = json.loads(c["source"])
            case["unsupported"] = [k for k in UNENFORCEABLE if uses(schema, k)]
            checked = strip(schema, case["unsupported"])
            # Tuple-form "items": [...] is draft-7 syntax; everything else is read as 2020-12.
            default = jsonschema.Draft7Validator if uses_tuple_items(checked) else jsonschema.Draft202012Validator
            cls = jsonschema.validators.validator_for(checked, default=default)
            v = cls(checked, format_checker=cls.FORMAT_CHECKER)
            def valid(s):
                try:
                    return v.is_valid(json.loads(s))
                except ValueError:
                    return False
            for s in list(passing):
                if not valid(s):
                    wins = (c["name"], s) in SPEC_WINS
                    if wins: passing.remove(s); failing.append(s)
                    case["divergences"].append({"string": s, "llama": "pass", "jsonschema": "fail", "used": "jsonschema" if wins else "llama"})
            for s in list(failing):
                if valid(s):
                    wins = (c["name"], s) in SPEC_WINS
                    if wins: failing.remove(s); passing.append(s)
                    case["divergences"].append({"string": s, "llama": "fail", "jsonschema": "pass", "used": "jsonschema" if wins else "llama"})
        case["pass"], case["fail"] = passing, failing
        out.append(case)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    print(f"{len(out)} cases, {sum(len(c['pass']) for c in out)} pass, {sum(len(c['fail']) for c in out)} fail, "
          f"{sum(len(c['divergences']) for c in out)} divergences -> {OUT}")
    for c in out:
        for d in c["divergences"]:
            print("divergence:", c["name"], d)


main()
