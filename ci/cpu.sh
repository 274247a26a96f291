#!/usr/bin/env bash
# Per-backend CI entry point for the CPU backend: its ctest label only.
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/test.sh -L cpu "$@"
