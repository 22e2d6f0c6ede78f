#!/usr/bin/env bash
# The test command (README and .ci/run): installs what the tests need, then runs the whole suite,
# real-model tests included, in release mode (numeric code is 10-100x slower in debug builds).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/fetch-models.sh >/dev/null
swift build -c release -Xswiftc -enable-testing --build-tests
swift test -c release -Xswiftc -enable-testing --skip-build "$@"
