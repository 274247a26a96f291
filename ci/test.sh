#!/usr/bin/env bash
# The tests: set up, build, and run every ctest entry (labels: oracle, property,
# regression, mutants, cli, census (the code-object census gate, docs/HIP.md); backend
# labels cpu/vulkan/cuda/hip). Extra arguments go to
# ctest (e.g. -L mutants). Then the CMake package: install it and build and run
# examples/engine_test (an engine's own test binary using find_package(qgate)) against it.
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/build.sh
ctest --preset cpu -j "$(nproc)" "$@"
rm -rf build/cpu-install build/example
cmake --install build/cpu --prefix "$PWD/build/cpu-install" >/dev/null
cmake -S examples/engine_test -B build/example -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/cpu-install" >/dev/null
cmake --build build/example -j "$(nproc)"
ctest --test-dir build/example --output-on-failure
