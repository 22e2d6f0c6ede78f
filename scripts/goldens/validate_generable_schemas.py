#!/usr/bin/env python3
"""Validate LocalLM's generated JSON Schemas with Python `jsonschema` (an independent validator).

Reads  Tests/Fixtures/generable/schema-cases.json  (written by the Swift test
       GenerableJSONSchemaTests with LOCALLM_RECORD_GOLDENS=1): per case a schema we emit,
       instances generated from Swift values, and hand-written violations.
Writes Tests/Fixtures/generable/schema-cases.validated.json: for each case, whether the schema
       is a valid Draft 2020-12 schema, and the validator's verdict on every instance. The
       source text is copied in, so the Swift test can tell a stale validation from a fresh one.

Rerun after any schema change:
    LOCALLM_RECORD_GOLDENS=1 swift test --filter GenerableJSONSchemaTests
    python3 scripts/goldens/validate_generable_schemas.py
Needs: python3 with jsonschema (>= 4, for Draft 2020-12).
"""
import importlib.metadata
import json
import pathlib
import sys

import jsonschema
from jsonschema import Draft202012Validator

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "Tests/Fixtures/generable/schema-cases.json"
OUTPUT = ROOT / "Tests/Fixtures/generable/schema-cases.validated.json"


def main() -> int:
    text = SOURCE.read_text(encoding="utf-8")
    cases = json.loads(text)["cases"]
    results = []
    for case in cases:
        schema = case["schema"]
        try:
            Draft202012Validator.check_schema(schema)
            schema_ok = True
        except jsonschema.exceptions.SchemaError as error:
            print(f"{case['name']}: invalid schema: {error.message}", file=sys.stderr)
            schema_ok = False
        validator = Draft202012Validator(schema)
        valid = [validator.is_valid(instance) for instance in case["valid"]]
        invalid = [validator.is_valid(instance) for instance in case["invalid"]]
        for instance, ok in zip(case["valid"], valid):
            if not ok:
                print(f"{case['name']}: rejected {json.dumps(instance)}: "
                      f"{next(validator.iter_errors(instance)).message}", file=sys.stderr)
        for instance, ok in zip(case["invalid"], invalid):
            if ok:
                print(f"{case['name']}: accepted violation {json.dumps(instance)}", file=sys.stderr)
        results.append({"name": case["name"], "schemaIsValid": schema_ok, "valid": valid, "invalid": invalid})
    document = {"validator": f"jsonschema {importlib.metadata.version('jsonschema')} Draft202012Validator",
                "source": text, "results": results}
    OUTPUT.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)} ({len(results)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
