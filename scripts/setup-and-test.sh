#!/usr/bin/env bash
# One command on a fresh machine: install what is missing (with the test dependencies), build,
# and run every test. CI runs this (.ci/run). It ends with the time each part took: issue 24's
# budget is ten minutes on two cores (docs/benchmarks.md keeps the table;
# scripts/time-build.sh shows where the time goes).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
scripts/install-deps.sh --with-tests
packages=$((SECONDS - started))
scripts/build.sh -DLAB_CHECK_BUILD_TESTS=ON
build=$((SECONDS - started - packages))
cd build
status=0
# Three tests more than there are cores: much of the suite's time is waiting (start-up budgets,
# planted hangs, ranks and interpreters starting), and the cores idle through it. Measured on two
# cores, the same build back to back: -j3 191 s, -j4 174-177 s, -j5 160-167 s, -j6 161 s
# (docs/benchmarks.md); the tests that read the host's clock run alone (RUN_SERIAL) whatever -j is.
ctest --output-on-failure -j "$(( $(nproc) + 3 ))" --timeout 900 || status=$?
tests=$((SECONDS - started - packages - build))
echo "setup-and-test: packages ${packages} s, build ${build} s, tests ${tests} s; total $((SECONDS - started)) s on $(nproc) cores"
exit "$status"
