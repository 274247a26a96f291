#!/usr/bin/env bash
# The main job: set up, build, gate every registered kernel on every available backend
# (unavailable backends are reported skipped with the reason), then the mutant kill matrix.
# Extra arguments go to `qgate gate` (e.g. --format q4_K, --backend cpu, --seed 0x1234).
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/build.sh
qgate=build/cpu/tools/qgate/qgate
status=0
"$qgate" gate --regression-dir regression/cases "$@" || status=$?
echo
"$qgate" mutants || status=$?
exit $status
