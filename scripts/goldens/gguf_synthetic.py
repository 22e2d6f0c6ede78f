#!/usr/bin/env python3
"""A small GGUF written by gguf-py's own GGUFWriter, with every metadata value type (nested arrays
included), a non-default alignment and tensors of several ggml types, so the Swift reader is checked
against the reference writer rather than only against our test-support writer.

Writes Tests/Fixtures/gguf/all_types.gguf and Tests/Fixtures/gguf/all_types.json (what gguf-py's
GGUFReader reads back: header figures, every key with type and value, the tensor table).

Rerun:  pip install gguf==0.19.0 && python3 scripts/goldens/gguf_synthetic.py
"""
import json
import os
import struct
from importlib.metadata import version as package_version

import numpy as np
from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "gguf")
PATH = os.path.join(OUT, "all_types.gguf")
# GGUFReader flattens nested arrays ([[1, 2, 3], [4]] reads back as [1, 2, 3, 4]), so for these keys the
# expectation is what was written; their types come from the reader. (gguf-py refuses empty arrays.)
NESTED = {"t.nested": [[1, 2, 3], [4]], "t.nested_strings": [["x", "yz"], ["w"]]}


def write():
    w = GGUFWriter(PATH, arch="toy")
    w.add_custom_alignment(64)
    w.add_name("all types ✓")
    w.add_uint8("t.u8", 250)
    w.add_int8("t.i8", -120)
    w.add_uint16("t.u16", 65_000)
    w.add_int16("t.i16", -32_000)
    w.add_uint32("t.u32", 4_000_000_000)
    w.add_int32("t.i32", -2_000_000_000)
    w.add_uint64("t.u64", 2**64 - 1)
    w.add_int64("t.i64", -(2**63))
    w.add_float32("t.f32", 1e-6)
    w.add_float64("t.f64", -2.5e300)
    w.add_bool("t.true", True)
    w.add_bool("t.false", False)
    w.add_string("t.string", "multi\nline \"quoted\" 日本語")
    w.add_string("t.empty", "")
    w.add_array("t.strings", ["a", "", "ü", "<0xFF>"])
    w.add_array("t.ints", [1, -2, 3])
    w.add_array("t.floats", [0.5, -1.25, 3.0e-3])
    w.add_array("t.bools", [True, False, True])
    for key, value in NESTED.items():
        w.add_array(key, value)
    rng = np.random.default_rng(7)
    w.add_tensor("f32", rng.standard_normal((3, 8)).astype(np.float32))
    w.add_tensor("f16", rng.standard_normal((2, 16)).astype(np.float16))
    w.add_tensor("i32", np.arange(5, dtype=np.int32))
    # Quantized payloads are opaque bytes here: shape given as raw bytes, type as the ggml type.
    w.add_tensor("q8_0", rng.integers(0, 256, (4, 34), dtype=np.uint8), raw_dtype=GGMLQuantizationType.Q8_0)
    w.add_tensor("q4_K", rng.integers(0, 256, (2, 144), dtype=np.uint8), raw_dtype=GGMLQuantizationType.Q4_K)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def value_json(vtype, part):
    if vtype == GGUFValueType.STRING:
        return bytes(part).decode("utf-8")
    if vtype == GGUFValueType.FLOAT32:
        return {"float32_bits": int(np.asarray(part, dtype=np.float32).view(np.uint32)[0])}
    if vtype == GGUFValueType.FLOAT64:
        return {"float64_bits": int(np.asarray(part, dtype=np.float64).view(np.uint64)[0])}
    if vtype == GGUFValueType.BOOL:
        return bool(part[0])
    return str(int(part[0]))


def exact(value):
    """Integers as decimal strings (JSON parsers may round 2^64 - 1 to a double); floats stay floats."""
    if isinstance(value, list):
        return [exact(v) for v in value]
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return str(value)


def read():
    r = GGUFReader(PATH)
    meta = []
    for f in r.fields.values():
        if f.name.startswith("GGUF."):
            continue
        entry = {"key": f.name, "types": [t.name for t in f.types]}
        if f.name in NESTED:
            entry["value"] = exact(NESTED[f.name])
        elif f.types[0] == GGUFValueType.ARRAY:
            entry["value"] = [value_json(f.types[1], f.parts[i]) for i in f.data]
        else:
            entry["value"] = value_json(f.types[0], f.parts[f.data[0]])
        meta.append(entry)
    tensors = [
        {
            "name": t.name,
            "type": GGMLQuantizationType(int(t.tensor_type)).name,
            "dimensions": [int(d) for d in t.shape],
            "offset": int(t.data_offset) - int(r.data_offset),
            "byte_count": int(t.n_bytes),
            "fnv1a64": fnv(bytes(np.asarray(t.data).tobytes())),
        }
        for t in r.tensors
    ]
    return {
        "generator": f"scripts/goldens/gguf_synthetic.py with gguf {package_version('gguf')}",
        "version": int(r.fields["GGUF.version"].contents()),
        "alignment": int(r.alignment),
        "data_offset": int(r.data_offset),
        "file_size": os.path.getsize(PATH),
        "metadata": meta,
        "tensors": tensors,
    }


def fnv(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & ((1 << 64) - 1)
    return f"{h:016x}"


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    write()
    with open(os.path.join(OUT, "all_types.json"), "w") as f:
        json.dump(read(), f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {PATH} ({os.path.getsize(PATH)} bytes) and all_types.json")
