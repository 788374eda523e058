#!/usr/bin/env bash
# One command on a fresh machine: install what is missing (with the test dependencies), build,
# and run every test. CI runs this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --with-tests
scripts/build.sh -DLAB_CHECK_BUILD_TESTS=ON
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 900
