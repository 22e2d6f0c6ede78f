#!/usr/bin/env bash
# The test command (README and .ci/run): installs what the tests need, then runs the whole suite,
# real-model tests included, in release mode (numeric code is 10-100x slower in debug builds).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/fetch-models.sh >/dev/null
swift build -c release -Xswiftc -enable-testing --build-tests
# On CPUs with AVX-512, OpenBLAS may run kernels other than the AVX2 (Haswell/Zen) ones the tests'
# exact comparisons were written on: SkylakeX on the models it knows, its SSE3 Prescott fallback on
# those it does not (Debian's 0.3.21 on Intel family 6 model 207), where the library then uses its own
# sgemm. There three tests fail by float rounding (split F16 decode attention off by 6e-5, about one
# F16 step of a softmax weight; two fault-path tests whose greedy answers part at a near-tie after ~20
# characters). The suite pins OpenBLAS's AVX2 kernels (which the library keeps) so that it computes
# the same everywhere; SgemmTests check the own sgemm bit for bit. See Docs/fidelity.md.
if [[ -z ${OPENBLAS_CORETYPE:-} ]] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=Haswell
fi
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
