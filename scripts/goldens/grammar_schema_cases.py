#!/usr/bin/env python3
"""Labelled JSON instances for the JSON Schema conformance and validator cross-check tests.

Schemas: those of llama.cpp's tests/test-json-schema-to-grammar.cpp (as inputs only; its expected
grammars are not used), our own Tests/Fixtures/grammar/property_schemas.json, and the small schemas
the real-model property test decodes with SmolLM2 (Tests/Fixtures/grammar/model_schemas.json).
For each schema, a seeded type-directed generator makes canonical instances (compact JSON,
properties in schema order, no unlisted properties: the language our grammars produce), plus
mutations of them (wrong types, values just outside bounds, missing/extra members, wrong lengths),
and for top-level numeric bounds the bounds themselves and values 0.01 and 0.001 either side.
Every instance is labelled by Python `jsonschema` (format checking on). "canonical" marks
instances the grammar must accept when valid: the generated values themselves, never mutations
(a mutation may leave the grammar's language on purpose yet stay valid: another JSON type where
the schema has no "type", extra members, reordered members, unanchored pattern matches).

Makes Tests/Fixtures/grammar/schema_cases.json:
  [{"name", "source": "llama"|"property"|"model", "schema", "instances": [{"text", "valid", "canonical"}]}]
Rerun: python3 scripts/goldens/grammar_schema_cases.py [path/to/llama.cpp]
"""
import copy, json, os, random, string, sys
import jsonschema
sys.path.insert(0, os.path.dirname(__file__))
from grammar_integration_cases import tokens, uses_tuple_items

REF = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/locallm/reference/llama.cpp")
HERE = os.path.dirname(__file__)
OUT = os.path.join(HERE, "../../Tests/Fixtures/grammar/schema_cases.json")
PROPS = os.path.join(HERE, "../../Tests/Fixtures/grammar/property_schemas.json")
MODEL = os.path.join(HERE, "../../Tests/Fixtures/grammar/model_schemas.json")


def llama_schemas():
    src = open(os.path.join(REF, "tests/test-json-schema-to-grammar.cpp")).read()
    toks = list(tokens(src))
    out = []
    for k in range(len(toks) - 6):
        if toks[k] == ("id", "test") and toks[k + 1] == ("p", "(") and toks[k + 2] == ("p", "{") and toks[k + 3][0] == "id":
            status = toks[k + 3][1]
            name = toks[k + 5][1].decode()
            schema = toks[k + 7][1].decode()
            out.append((status, name, schema))
    return out


def resolve(schema, root):
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return None
        node = root
        for part in [p for p in ref[1:].split("/") if p]:
            node = node[part] if isinstance(node, dict) else node[int(part)]
        schema = node
    return schema


def gen_string(rng, lo=0, hi=None):
    hi = hi if hi is not None else lo + 6
    n = rng.randint(lo, max(lo, min(hi, lo + 6)))
    alphabet = string.ascii_letters + string.digits + ' _-é"\\/\n中😀'
    return "".join(rng.choice(alphabet) for _ in range(n))


def gen(schema, root, rng, depth=0):
    schema = resolve(schema, root)
    if schema is None or schema is True or schema == {}:
        return rng.choice([1, "x", None, True, [1], {"k": "v"}])
    if schema is False:
        raise ValueError("false schema")
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if "enum" in schema:
        return copy.deepcopy(rng.choice(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return gen(rng.choice(schema[key]), root, rng, depth)
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return gen(schema["allOf"][0], root, rng, depth)
    t = schema.get("type")
    if isinstance(t, list):
        t = rng.choice(t)
    if t is None:
        if "properties" in schema or "additionalProperties" in schema or "required" in schema: t = "object"
        elif "items" in schema or "prefixItems" in schema: t = "array"
        elif "pattern" in schema or "format" in schema or "minLength" in schema or "maxLength" in schema: t = "string"
        elif "minimum" in schema or "maximum" in schema: t = "number"
        else: return rng.choice([1, "x", None, [], {}])
    if t == "null": return None
    if t == "boolean": return rng.random() < 0.5
    if t in ("integer", "number"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum", -1000))
        hi = schema.get("maximum", schema.get("exclusiveMaximum", 1000))
        if "exclusiveMinimum" in schema: lo = schema["exclusiveMinimum"] + (1 if t == "integer" else 0.001)
        if "exclusiveMaximum" in schema: hi = schema["exclusiveMaximum"] - (1 if t == "integer" else 0.001)
        if t == "integer":
            edge = [int(lo), int(hi)]
            return rng.choice(edge + [rng.randint(int(lo), int(hi))] * 3) if lo <= hi else int(lo)
        v = rng.uniform(lo, hi)
        return round(v, rng.choice([0, 1, 3])) if lo <= round(v, 3) <= hi else lo
    if t == "string":
        fmt = schema.get("format")
        if fmt == "date": return f"{rng.randint(1900, 2099):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if fmt == "time": return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}" + rng.choice(["Z", ".5Z", "+01:00"])
        if fmt == "date-time": return f"{rng.randint(1900, 2099):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
        if fmt == "uuid": return "-".join("".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12))
        if "pattern" in schema:
            return pattern_example(schema["pattern"], rng)
        return gen_string(rng, schema.get("minLength", 0), schema.get("maxLength"))
    if t == "array":
        items = schema.get("prefixItems") or (schema["items"] if isinstance(schema.get("items"), list) else None)
        if items is not None:
            return [gen(s, root, rng, depth + 1) for s in items]
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", lo + 3)
        if depth > 3: hi = lo
        n = rng.randint(lo, max(lo, min(hi, lo + 3)))
        return [gen(schema.get("items", {}), root, rng, depth + 1) for _ in range(n)]
    if t == "object":
        out = {}
        req = schema.get("required", [])
        for k, s in schema.get("properties", {}).items():
            if k in req or (rng.random() < 0.5 and depth < 4):
                out[k] = gen(s, root, rng, depth + 1)
        for k in req:
            if k not in out: out[k] = gen({}, root, rng, depth + 1)
        return out
    return None


_pattern_cache = {}
def pattern_example(pattern, rng):
    from hypothesis import strategies as st, given, settings, HealthCheck
    found = []
    ascii_text = "".join(chr(c) for c in range(0x20, 0x7F)) + "\t\n"
    @settings(max_examples=12, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    # Printable ASCII (plus tab and newline): Python's \w \d \s are Unicode-wide, ECMA-262's (which
    # JSON Schema names, and our grammars follow) are ASCII; on ASCII text the dialects agree.
    @given(st.from_regex(pattern, fullmatch=True, alphabet=ascii_text))
    def collect(s):
        found.append(s)
    if pattern not in _pattern_cache:
        collect()
        _pattern_cache[pattern] = found or [""]
    return rng.choice(_pattern_cache[pattern])


def mutations(v, schema, root, rng):
    """Values near v that often break the schema. Yields (value, canonical)."""
    yield (rng.choice([None, True, "s", 7, 2.5, [], {}]), True)
    if isinstance(v, bool):
        yield (not v, True)
    elif isinstance(v, int):
        yield (v + 1, True); yield (v - 1, True); yield (float(v) + 0.5, True)
    elif isinstance(v, float):
        yield (v + 1, True); yield (-v - 1, True)
    elif isinstance(v, str):
        yield (v + "a", True); yield (v[:-1], True); yield (v + "!", True)
    elif isinstance(v, list):
        if v: yield (v[:-1], True); yield (v + [v[-1]], True); yield ([rng.choice([None, "s", 3])] + v[1:], True)
        yield (v + [1], True)
    elif isinstance(v, dict):
        keys = list(v)
        if keys:
            k = rng.choice(keys)
            yield ({x: y for x, y in v.items() if x != k}, True)
            w = dict(v); w[k] = rng.choice([None, "s", 3, [], True]); yield (w, True)
            if len(keys) > 1: yield (dict(reversed(list(v.items()))), False)
        w = dict(v); w["zz_extra"] = 1; yield (w, False)


def dumps(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def cases_for(name, source, schema, rng):
    default = jsonschema.Draft7Validator if uses_tuple_items(schema) else jsonschema.Draft202012Validator
    cls = jsonschema.validators.validator_for(schema, default=default)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    seen = {}
    for _ in range(12):
        try:
            v = gen(schema, schema, rng)
        except (ValueError, KeyError, IndexError, TypeError):
            continue
        # Python renders some floats with exponents; bounded grammars refuse those: keep them out.
        insts = [(v, True)] + [(m, False) for m, _ in mutations(v, schema, schema, rng)]
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            b = schema.get(key) if isinstance(schema, dict) else None
            if isinstance(b, (int, float)) and not isinstance(b, bool):
                insts += [(b, True)] + [(round(b + d, 6), True) for d in (-0.01, -0.001, 0.001, 0.01)]
        for inst, canonical in insts:
            text = dumps(inst)
            if "e-" in text or "e+" in text or "Infinity" in text or "NaN" in text: continue
            if text in seen: continue
            try:
                ok = validator.is_valid(inst)
            except Exception:
                continue
            seen[text] = {"text": text, "valid": ok, "canonical": canonical}
    return {"name": name, "source": source, "schema": schema, "instances": list(seen.values())[:24]}


def main():
    rng = random.Random(1234)
    out = []
    for status, name, text in llama_schemas():
        try:
            schema = json.loads(text)
        except ValueError:
            out.append({"name": name, "source": "llama", "schemaText": text, "instances": []})
            continue
        try:
            out.append(cases_for(name, "llama", schema, rng))
        except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.UnknownType, Exception) as e:
            out.append({"name": name, "source": "llama", "schema": schema, "instances": [], "note": f"jsonschema: {type(e).__name__}"})
    for p in json.load(open(PROPS)):
        out.append(cases_for(p["name"], "property", p["schema"], rng))
    for p in json.load(open(MODEL)):
        out.append(cases_for(p["name"], "model", p["schema"], rng))
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0, ensure_ascii=False)
    n = sum(len(c["instances"]) for c in out)
    v = sum(1 for c in out for i in c["instances"] if i["valid"])
    print(f"{len(out)} schemas, {n} instances ({v} valid) -> {OUT}")


if __name__ == "__main__":
    main()
