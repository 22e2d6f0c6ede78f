#!/usr/bin/env bash
# Fetches BFCL's public data and AST checker (the `bfcl-eval` wheel from PyPI, pinned) into the cache.
# Nothing of it is committed: the evaluation reads it from $LOCALLM_BFCL (default ~/.cache/locallm/bfcl).
set -euo pipefail
version="2026.3.23"
dest="${LOCALLM_BFCL:-$HOME/.cache/locallm/bfcl}"
if [[ -f "$dest/$version/bfcl_eval/data/BFCL_v4_simple_python.json" ]]; then
  echo "$dest/$version"
  exit 0
fi
mkdir -p "$dest/download"
python3 -m pip download --quiet --no-deps --dest "$dest/download" "bfcl-eval==$version" >&2
python3 -m zipfile -e "$dest/download/bfcl_eval-$version-py3-none-any.whl" "$dest/$version" >&2
echo "$dest/$version"
