#!/usr/bin/env bash
# The tests: set up, build, and run every ctest entry (labels: oracle, property,
# regression, mutants, cli; backend labels cpu/vulkan/cuda/hip). Extra arguments go to
# ctest (e.g. -L mutants).
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/build.sh
ctest --preset cpu -j "$(nproc)" "$@"
