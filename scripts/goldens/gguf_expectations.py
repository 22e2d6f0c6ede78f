#!/usr/bin/env python3
"""Expectations for the GGUF reader, made with gguf-py (the `gguf` package from PyPI).

Writes, under Tests/Fixtures/gguf/:
  - <model>.json for each real test model: header figures, every metadata key with its type and value
    (arrays: element type, count, all items when short, else the first/last 4 items and an FNV-1a-64
    hash of their canonical encoding), the whole tensor table, and the figures `locallm inspect` prints.
  - quant_sizes.json: gguf-py's GGML_QUANT_SIZES (block size, bytes per block) per ggml type.

Canonical encoding hashed for arrays (mirrored in Tests/LocalLMGGUFTests/GGUFGoldenTests.swift):
strings as u64-LE length + raw bytes; integers as i64-LE (u64 as its bit pattern); FLOAT32 as its
u32-LE bit pattern; FLOAT64 as u64-LE bits; BOOL as one byte 0/1.

Rerun:  pip install gguf==0.19.0 && scripts/fetch-models.sh && python3 scripts/goldens/gguf_expectations.py
"""
import json
import os
import struct
import sys
from importlib.metadata import version as package_version

import numpy as np
from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFReader, GGUFValueType

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "gguf")
MODELS = os.environ.get("LOCALLM_MODELS") or os.path.expanduser("~/.cache/locallm/models")
FILES = {
    "smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "gemma3": "gemma-3-270m-q4_k_m.gguf",
}
SHORT = 16  # arrays up to this many items are written out in full
EDGE = 4    # otherwise: this many items from each end, plus the hash

FNV_OFFSET, FNV_PRIME, MASK = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1


def fnv1a(data: bytes, h: int = FNV_OFFSET) -> int:
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


INT_TYPES = {
    GGUFValueType.UINT8, GGUFValueType.INT8, GGUFValueType.UINT16, GGUFValueType.INT16,
    GGUFValueType.UINT32, GGUFValueType.INT32, GGUFValueType.UINT64, GGUFValueType.INT64,
}


def canonical(vtype, part) -> bytes:
    if vtype == GGUFValueType.STRING:
        raw = bytes(part)
        return struct.pack("<Q", len(raw)) + raw
    if vtype in INT_TYPES:
        return struct.pack("<Q", int(part[0]) & MASK)
    if vtype == GGUFValueType.FLOAT32:
        return np.asarray(part, dtype=np.float32).tobytes()
    if vtype == GGUFValueType.FLOAT64:
        return np.asarray(part, dtype=np.float64).tobytes()
    if vtype == GGUFValueType.BOOL:
        return bytes([1 if part[0] else 0])
    raise ValueError(f"no canonical encoding for {vtype}")


def item(vtype, part):
    """A JSON value for one scalar: strings decoded (U+FFFD for bad bytes), floats with their bits."""
    if vtype == GGUFValueType.STRING:
        return bytes(part).decode("utf-8", errors="replace")
    if vtype in INT_TYPES:
        return int(part[0])
    if vtype == GGUFValueType.FLOAT32:
        return {"float32_bits": int(np.asarray(part, dtype=np.float32).view(np.uint32)[0])}
    if vtype == GGUFValueType.FLOAT64:
        return {"float64_bits": int(np.asarray(part, dtype=np.float64).view(np.uint64)[0])}
    if vtype == GGUFValueType.BOOL:
        return bool(part[0])
    raise ValueError(f"unexpected scalar type {vtype}")


def field_json(field):
    vtype = field.types[0]
    entry = {"key": field.name, "type": vtype.name, "offset": int(field.offset)}
    if vtype != GGUFValueType.ARRAY:
        entry["value"] = item(vtype, field.parts[field.data[0]])
        return entry
    if len(field.types) > 2 or (len(field.types) == 2 and field.types[1] == GGUFValueType.ARRAY):
        raise ValueError(f"{field.name}: nested arrays are not expected in the test models")
    elem = field.types[1] if len(field.types) > 1 else GGUFValueType.UINT8
    parts = [field.parts[i] for i in field.data]
    entry["element_type"] = elem.name
    entry["count"] = len(parts)
    if len(parts) <= SHORT:
        entry["items"] = [item(elem, p) for p in parts]
    else:
        entry["first"] = [item(elem, p) for p in parts[:EDGE]]
        entry["last"] = [item(elem, p) for p in parts[-EDGE:]]
        h = FNV_OFFSET
        for p in parts:
            h = fnv1a(canonical(elem, p), h)
        entry["fnv1a64"] = f"{h:016x}"
    return entry


def scalar(reader, key):
    field = reader.fields.get(key)
    if field is None:
        return None
    return field.contents()


def inspect_figures(reader, path):
    arch = scalar(reader, "general.architecture")
    a = lambda suffix: scalar(reader, f"{arch}.{suffix}")
    tokens = reader.fields.get("tokenizer.ggml.tokens")
    types = {}
    for t in reader.tensors:
        name = GGMLQuantizationType(int(t.tensor_type)).name
        types[name] = types.get(name, 0) + 1
    rope = a("rope.freq_base")
    return {
        "architecture": arch,
        "name": scalar(reader, "general.name"),
        "context_length": a("context_length"),
        "embedding_length": a("embedding_length"),
        "block_count": a("block_count"),
        "head_count": a("attention.head_count"),
        "head_count_kv": a("attention.head_count_kv"),
        "key_length": a("attention.key_length"),
        "value_length": a("attention.value_length"),
        "rope_freq_base_float32_bits": None if rope is None
        else int(np.asarray([rope], dtype=np.float32).view(np.uint32)[0]),
        "feed_forward_length": a("feed_forward_length"),
        "vocab_size": None if tokens is None else len(tokens.data),
        "tokenizer_model": scalar(reader, "tokenizer.ggml.model"),
        "tensor_types": dict(sorted(types.items())),
        "file_size": os.path.getsize(path),
        "parameter_count": int(sum(int(t.n_elements) for t in reader.tensors)),
    }


def model_json(path):
    reader = GGUFReader(path)
    fields = [f for f in reader.fields.values() if not f.name.startswith("GGUF.")]
    tensors = [
        {
            "name": t.name,
            "type": GGMLQuantizationType(int(t.tensor_type)).name,
            "type_id": int(t.tensor_type),
            "dimensions": [int(d) for d in t.shape],  # gguf-py keeps ggml order (innermost first)
            "offset": int(t.data_offset) - int(reader.data_offset),
            "byte_count": int(t.n_bytes),
            "element_count": int(t.n_elements),
        }
        for t in reader.tensors
    ]
    return {
        "generator": f"scripts/goldens/gguf_expectations.py with gguf {package_version('gguf')}",
        "file": os.path.basename(path),
        "version": int(reader.fields["GGUF.version"].contents()),
        "tensor_count": len(tensors),
        "kv_count": len(fields),
        "alignment": int(reader.alignment),
        "data_offset": int(reader.data_offset),
        "metadata": [field_json(f) for f in fields],
        "tensors": tensors,
        "inspect": inspect_figures(reader, path),
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    for label, name in FILES.items():
        path = os.path.join(MODELS, name)
        if not os.path.exists(path):
            sys.exit(f"missing {path}: run scripts/fetch-models.sh")
        with open(os.path.join(OUT, f"{label}.json"), "w") as f:
            json.dump(model_json(path), f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {label}.json")
    sizes = {
        "generator": f"scripts/goldens/gguf_expectations.py with gguf {package_version('gguf')}",
        "types": [
            {"name": t.name, "id": int(t.value), "block_size": bs, "type_size": ts}
            for t, (bs, ts) in sorted(GGML_QUANT_SIZES.items(), key=lambda kv: int(kv[0].value))
        ],
    }
    with open(os.path.join(OUT, "quant_sizes.json"), "w") as f:
        json.dump(sizes, f, indent=1)
        f.write("\n")
    print("wrote quant_sizes.json")


if __name__ == "__main__":
    main()
