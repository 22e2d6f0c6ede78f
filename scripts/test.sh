#!/usr/bin/env bash
# The test command (README and .ci/run): installs what the tests need, then runs the whole suite,
# real-model tests included, in release mode (numeric code is 10-100x slower in debug builds).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/fetch-models.sh >/dev/null
swift build -c release -Xswiftc -enable-testing --build-tests
# Serially: the real-model suites each use every core through the runtime's thread pool, so running
# them side by side only adds contention, and it starves Swift's cooperative pool, which makes the
# timing checks of the scripted-model tests (e.g. prompt cancellation) flaky.
swift test -c release -Xswiftc -enable-testing --skip-build --no-parallel "$@"
# The examples are a package of their own (so the library never resolves GRDB); their tests run from
# it, over this checkout by path. Skipped when the arguments name a filter of the root suite.
if [[ $# -eq 0 ]]; then
    swift build -c release -Xswiftc -enable-testing --build-tests --package-path Examples
    swift test -c release -Xswiftc -enable-testing --skip-build --no-parallel --package-path Examples
    # Each libFuzzer target for a few seconds, so that they keep building and their seeds keep passing
    # (the long runs are `scripts/fuzz.sh all`; Docs/reliability.md).
    scripts/fuzz.sh smoke
    # The server and the remote backend with real peers over loopback: the official `openai` Python
    # client against `locallm serve`, a small load run (4 streaming clients x 2 requests), and the
    # remote backend's seed programs against llama.cpp's server (llama-cpp-python, which pip builds
    # from source on a fresh machine: about 15 minutes). The in-process loopback tests ran above
    # (LocalLMServerTests); the full load run is `scripts/serve-tests.sh --load 32 8`.
    scripts/serve-tests.sh
fi
