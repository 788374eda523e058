#!/usr/bin/env bash
# One command on a fresh machine: install what is missing, build the binary (no tests, no
# simulator: GoogleTest is not needed), run the full check.
# Arguments go to lab_check (e.g. --quick, --lang en, --python ~/venvs/ai/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DLAB_CHECK_BUILD_TESTS=OFF
exec build/lab_check "$@"
