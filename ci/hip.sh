#!/usr/bin/env bash
# Per-backend CI entry point for HIP (docs/HIP.md): the hip preset builds every CUDA-dialect
# kernel as AMD code objects for gfx90a, gfx1030 (hipcc) and gfx1100, gfx1151, gfx1201, gfx942
# (clang-19), qgate, the census and HIP runtime tests; ctest --preset hip runs labels hip and
# census (the census gate and its mutant; HIP runtime tests are SKIPPED with the reason where
# there is no AMD GPU). The cpu preset (ci/test.sh) runs the same census entries on every push.
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/setup-debian.sh
cmake --preset hip >/dev/null
cmake --build --preset hip -j "$(nproc)"
ctest --preset hip -j "$(nproc)" "$@"
