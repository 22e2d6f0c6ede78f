#!/usr/bin/env python3
"""Scores function-calling outputs with BFCL's own AST checker (scripts/bfcl/run.sh).

Reads the cases (prepare.py), BFCL's possible answers and one or more output files (name=path),
and prints per category: accuracy by BFCL's AST rules (for `irrelevance`: no call made), and the
share of calls that are well-formed — the name is one of the offered tools and the arguments
validate against that tool's JSON Schema (python-jsonschema). Optionally writes the table as JSON.
"""
import argparse
import json
import sys
import types
from collections import defaultdict
from pathlib import Path

import jsonschema

from prepare import CATEGORIES, strip_order


def load_checker(data_root):
    """BFCL's ast_checker without its model registry (which imports every vendor's SDK): the
    registry only decides whether a model's names had '.' replaced by '_', and neither engine
    here renames functions."""
    sys.path.insert(0, str(data_root))
    config = types.ModuleType("bfcl_eval.constants.model_config")

    class _Config:
        underscore_to_dot = False

    config.MODEL_CONFIG_MAPPING = defaultdict(_Config)
    sys.modules["bfcl_eval.constants.model_config"] = config
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    return ast_checker, Language.PYTHON


def load_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--json", help="write the table here too")
    parser.add_argument("--verdicts", help="write each case's verdict per engine here (JSON lines)")
    parser.add_argument("outputs", nargs="+", help="name=path")
    args = parser.parse_args()
    root = Path(args.data)
    ast_checker, python = load_checker(root)
    data = root / "bfcl_eval" / "data"
    answers, raw = {}, {}
    for filename in CATEGORIES.values():
        for line in load_lines(data / filename):
            raw[line["id"]] = line["function"]
        if (data / "possible_answer" / filename).exists():
            for line in load_lines(data / "possible_answer" / filename):
                answers[line["id"]] = line["ground_truth"]
    cases = {c["id"]: c for c in load_lines(args.cases)}
    categories = list(dict.fromkeys(c["category"] for c in cases.values()))

    table = {}
    verdicts = []
    for spec in args.outputs:
        name, path = spec.split("=", 1)
        outputs = {o["id"]: o for o in load_lines(path)}
        per = {cat: {"n": 0, "correct": 0, "calls": 0, "well_formed": 0, "errors": 0} for cat in categories}
        for cid, case in cases.items():
            if cid not in outputs:
                continue
            out, cat = outputs[cid], case["category"]
            row = per[cat]
            row["n"] += 1
            calls = out.get("calls", [])
            if out.get("error"):
                row["errors"] += 1
            schemas = {t["name"]: strip_order(t["parameters"]) for t in case["tools"]}
            for call in calls:
                row["calls"] += 1
                schema = schemas.get(call.get("name"))
                if schema is not None and isinstance(call.get("arguments"), dict):
                    try:
                        jsonschema.validate(call["arguments"], schema)
                        row["well_formed"] += 1
                    except jsonschema.ValidationError:
                        pass
            if cat == "irrelevance":
                row["correct"] += int(not calls)
                verdicts.append({"engine": name, "id": cid, "correct": not calls, "calls": calls})
                continue
            model_output = [{c["name"]: c["arguments"]} for c in calls if isinstance(c.get("arguments"), dict)]
            if not model_output:
                verdicts.append({"engine": name, "id": cid, "correct": False, "calls": calls, "error": "no call"})
                continue
            try:
                verdict = ast_checker(raw[cid], model_output, answers[cid], python, cat, "locallm")
            except Exception as error:  # a malformed output the checker cannot read is wrong
                verdict = {"valid": False, "error": [str(error)]}
            row["correct"] += int(bool(verdict.get("valid")))
            verdicts.append({"engine": name, "id": cid, "correct": bool(verdict.get("valid")), "calls": calls,
                             "error": verdict.get("error")})
        table[name] = per

    names = list(table)
    header = "| category | n | " + " | ".join(f"{n} accuracy | {n} well-formed calls" for n in names) + " |"
    print(header)
    print("|" + "---|" * (2 + 2 * len(names)))
    totals = {n: [0, 0] for n in names}
    for cat in categories:
        cells = []
        count = 0
        for n in names:
            row = table[n][cat]
            count = max(count, row["n"])
            totals[n][0] += row["correct"]
            totals[n][1] += row["n"]
            acc = f"{row['correct']}/{row['n']} ({100 * row['correct'] / row['n']:.0f}%)" if row["n"] else "-"
            wf = f"{row['well_formed']}/{row['calls']}" if row["calls"] else "no calls"
            cells += [acc, wf]
        print(f"| {cat} | {count} | " + " | ".join(cells) + " |")
    print("| overall | | " + " | ".join(
        f"{c}/{t} ({100 * c / t:.0f}%) | " if t else "- | " for c, t in totals.values()).rstrip(" |") + " |")
    if args.verdicts:
        with open(args.verdicts, "w") as f:
            for v in verdicts:
                f.write(json.dumps(v, sort_keys=True) + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
