#!/usr/bin/env bash
# Configure and build the cpu preset (oracles, CPU kernels, the mutant build, tests, CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/setup-debian.sh
./ci/setup-ggml.sh
cmake --preset cpu >/dev/null
cmake --build --preset cpu -j "$(nproc)"
