#!/usr/bin/env bash
# The main job on the default model (SmolLM2-135M-Instruct): installs OpenBLAS and the test models when
# missing, builds `locallm` in release, shows what the model file holds, then answers a prompt through
# LanguageModelSession (chat template, KV cache, streaming), exactly as `import LocalLM` code would.
#
#   scripts/demo.sh ["your prompt"]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
model=$(scripts/fetch-models.sh | head -n 1)
swift build -c release --product locallm >&2
bin=$(swift build -c release --show-bin-path)/locallm
prompt=${1:-"Name three primary colors."}

echo "\$ locallm inspect $(basename "$model")"
"$bin" inspect "$model"
echo
echo "\$ locallm run --temperature 0 --max-tokens 64 --instructions \"You are a concise assistant.\" \"$prompt\""
LOCALLM_MODEL=$model "$bin" run --temperature 0 --max-tokens 64 --instructions "You are a concise assistant." "$prompt"
