#!/usr/bin/env bash
# The main job on the default model (SmolLM2-135M-Instruct): installs OpenBLAS and the test models when
# missing, builds `locallm` in release, then holds a short two-turn chat through LanguageModelSession
# (chat template, KV cache kept between turns, streamed answers), exactly as `import LocalLM` code would.
# Greedy, so the output is repeatable.
#
#   scripts/demo.sh ["first question" ["second question"]]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# All of fetch-models.sh's output, then its first line: `| head -n 1` can close the pipe early, and
# under pipefail the SIGPIPE would end this script.
models=$(scripts/fetch-models.sh)
model=${models%%$'\n'*}
# The same flags as scripts/test.sh, so the two commands share one build.
swift build -c release -Xswiftc -enable-testing --product locallm >&2
bin=$(swift build -c release -Xswiftc -enable-testing --show-bin-path)/locallm
first=${1:-"Name three primary colors."}
second=${2:-"And what color do you get by mixing blue and yellow?"}

echo "\$ printf '%s\n' \"$first\" \"$second\" | locallm chat --temperature 0 --max-tokens 64 --instructions \"You are a concise assistant.\""
printf '%s\n' "$first" "$second" \
    | LOCALLM_MODEL=$model "$bin" chat --temperature 0 --max-tokens 64 --instructions "You are a concise assistant."
