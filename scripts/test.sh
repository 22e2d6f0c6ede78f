#!/usr/bin/env bash
# The test command (README and .ci/run): installs what the tests need, then runs the whole suite,
# real-model tests included, in release mode (numeric code is 10-100x slower in debug builds).
set -euo pipefail
cd "$(dirname "$0")/.."
# The examples (Examples/Records) join this package's one build (see the end of Package.swift):
# built as the package of their own, they compile LocalLM and swift-syntax a second time, which
# took 18 minutes on a 2-core AMD host, too much of CI's 90.
export LOCALLM_EXAMPLES=1
stage() { echo "== $1 (at $((SECONDS / 60)) min $((SECONDS % 60)) s)" >&2; }
stage "dependencies and models"
scripts/install-deps.sh
scripts/fetch-models.sh >/dev/null
stage "build"
swift build -c release -Xswiftc -enable-testing --build-tests
# Serially: the real-model suites each use every core through the runtime's thread pool, so running
# them side by side only adds contention, and it starves Swift's cooperative pool, which makes the
# timing checks of the scripted-model tests (e.g. prompt cancellation) flaky.
stage "tests"
swift test -c release -Xswiftc -enable-testing --skip-build --no-parallel "$@"
# Skipped when the arguments name a filter of the suite.
if [[ $# -eq 0 ]]; then
    # Each libFuzzer target for a few seconds, so that they keep building and their seeds keep passing
    # (the long runs are `scripts/fuzz.sh all`; Docs/reliability.md).
    stage "fuzz smoke"
    scripts/fuzz.sh smoke
    # The server and the remote backend with real peers over loopback: the official `openai` Python
    # client against `locallm serve`, a small load run (4 streaming clients x 2 requests), and the
    # remote backend's seed programs against llama.cpp's server (llama-cpp-python, which pip builds
    # from source on a fresh machine: about 15 minutes). The in-process loopback tests ran above
    # (LocalLMServerTests); the full load run is `scripts/serve-tests.sh --load 32 8`.
    stage "server tests"
    scripts/serve-tests.sh
fi
stage "done"
