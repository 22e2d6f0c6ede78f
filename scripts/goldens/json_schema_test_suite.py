#!/usr/bin/env python3
"""The JSON-Schema-Test-Suite (json-schema-org), drafts 7 and 2020-12, labelled by Python `jsonschema`.

The suite comes from the `jsonschema` source distribution on PyPI (it carries the suite under
json/tests/), fetched with pip. Only files of keywords LocalLM's grammar enforces are kept, and
tests that need remote references are dropped. Each instance is labelled by the draft's Python
validator (format checking off, as `jsonschema.validate` does), which is what the Swift validator
in Tests/LocalLMTestSupport is checked against.

Makes Tests/Fixtures/grammar/json_schema_test_suite.json:
  [{"draft", "file", "description", "schema", "tests": [{"description", "data", "valid"}]}]
Rerun: python3 scripts/goldens/json_schema_test_suite.py
"""
import glob, json, os, subprocess, sys, tarfile, tempfile
import jsonschema

HERE = os.path.dirname(__file__)
OUT = os.path.join(HERE, "../../Tests/Fixtures/grammar/json_schema_test_suite.json")
VERSION = "4.26.0"
KEYWORDS = [
    "additionalItems", "additionalProperties", "allOf", "anyOf", "boolean_schema", "const", "default",
    "dependencies", "dependentRequired", "dependentSchemas", "enum", "exclusiveMaximum", "exclusiveMinimum",
    "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems", "minLength", "minProperties",
    "minimum", "multipleOf", "not", "oneOf", "pattern", "patternProperties", "prefixItems", "properties",
    "propertyNames", "required", "type",
]
VALIDATORS = {"draft7": jsonschema.Draft7Validator, "draft2020-12": jsonschema.Draft202012Validator}


def uses_remote(node):
    if isinstance(node, dict):
        return any((k == "$ref" and isinstance(v, str) and not v.startswith("#")) or uses_remote(v) for k, v in node.items())
    if isinstance(node, list):
        return any(uses_remote(x) for x in node)
    return False


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"jsonschema=={VERSION}", "-d", tmp, "-q"], check=True)
        with tarfile.open(glob.glob(os.path.join(tmp, "*.tar.gz"))[0]) as t:
            t.extractall(tmp, filter="data")
        root = os.path.join(tmp, f"jsonschema-{VERSION}", "json", "tests")
        out = []
        for draft, cls in VALIDATORS.items():
            for kw in KEYWORDS:
                path = os.path.join(root, draft, kw + ".json")
                if not os.path.exists(path):
                    continue
                for group in json.load(open(path)):
                    if uses_remote(group["schema"]):
                        continue
                    v = cls(group["schema"])
                    tests = [{"description": t["description"], "data": t["data"], "valid": v.is_valid(t["data"])} for t in group["tests"]]
                    out.append({"draft": draft, "file": kw, "description": group["description"], "schema": group["schema"], "tests": tests})
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(out)} groups, {sum(len(g['tests']) for g in out)} instances -> {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
