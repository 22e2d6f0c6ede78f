#!/usr/bin/env python3
"""Picks the function-calling cases both engines answer (scripts/bfcl/run.sh).

Reads BFCL v4's public single-turn categories from the bfcl-eval wheel (scripts/bfcl/fetch.sh) and
writes one JSON object a line: id, category, system (if any), user, and the offered tools with
their parameters turned from BFCL's Python type names into JSON Schema (dict -> object,
float -> number, tuple -> array, any -> string), each object keeping its property order in
`x-order`. The sample per category is a seeded random choice, the same on every run.
"""
import argparse
import json
import random
import sys
from pathlib import Path

CATEGORIES = {
    "simple": "BFCL_v4_simple_python.json",
    "multiple": "BFCL_v4_multiple.json",
    "parallel": "BFCL_v4_parallel.json",
    "parallel_multiple": "BFCL_v4_parallel_multiple.json",
    "irrelevance": "BFCL_v4_irrelevance.json",
}

TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}


def to_json_schema(node):
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out[key] = TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: to_json_schema(child) for name, child in value.items()}
            out["x-order"] = list(value.keys())
        elif key == "items":
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    return out


def strip_order(node):
    """The schema without the `x-order` lists this script adds (what the engines' prompts show)."""
    if isinstance(node, dict):
        return {k: strip_order(v) for k, v in node.items() if k != "x-order"}
    if isinstance(node, list):
        return [strip_order(v) for v in node]
    return node


def load_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, help="the unpacked bfcl-eval wheel (fetch.sh prints it)")
    parser.add_argument("--per-category", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--categories", default=",".join(CATEGORIES))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    data = Path(args.data) / "bfcl_eval" / "data"
    written = 0
    with open(args.out, "w") as out:
        for category in args.categories.split(","):
            cases = load_lines(data / CATEGORIES[category])
            chosen = random.Random(args.seed).sample(cases, min(args.per_category, len(cases)))
            chosen.sort(key=lambda case: int(case["id"].rsplit("_", 1)[1]))
            for case in chosen:
                turns = case["question"][0]
                system = "\n".join(m["content"] for m in turns if m["role"] == "system") or None
                users = [m["content"] for m in turns if m["role"] == "user"]
                record = {
                    "id": case["id"],
                    "category": category,
                    "user": users[-1],
                    "tools": [
                        {"name": f["name"], "description": f.get("description", ""),
                         "parameters": to_json_schema(f.get("parameters", {}))}
                        for f in case["function"]
                    ],
                }
                if system:
                    record["system"] = system
                out.write(json.dumps(record) + "\n")
                written += 1
    print(f"{written} cases -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
