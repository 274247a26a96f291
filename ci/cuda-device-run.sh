#!/usr/bin/env bash
# One GPU-machine call of the CUDA work (docs/CUDA.md): the tests, the mutants' stored cases,
# the sanitizers and the bench, logs gathered into a few files under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p /work; [ -e /work/h-cuda-src ] || ln -s "$PWD" /work/h-cuda-src   # the build's compiled-in paths
o=/tmp/cuda-out; rm -rf "$o"; mkdir -p "$o"
touch /tmp/cuda-start
export LD_LIBRARY_PATH="$PWD/${CUDA_DEVICE_DIR:-build-cuda-device}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for m in ${CASE_MUTANTS:-}; do
  timeout 60 ${CUDA_DEVICE_DIR:-build-cuda-device}/qgate-mutants mutants --only "$m" --write-cases regression/cases > "$o/write_cases_$m.txt" 2>&1
done
OUT=$o STEPS="${STEPS:-quant mma props mutants}" SHARDS=14 timeout ${MAIN_S:-150} ci/cuda.sh > "$OUT/main.txt" 2>&1; echo "main rc=$?" >> "$OUT/main.txt"
cat "$o"/write_cases_*.txt >> "$OUT/main.txt" 2>/dev/null
grep -h -B2 -A12 "Failure\|FAILED" "$o"/property_tests.*.txt | head -300 > "$OUT/props_failures.txt"
cp "$o/mutant_tests.txt" "$OUT/mutants.txt" 2>/dev/null
find regression/cases -newer /tmp/cuda-start -name '*.case' | tar -cf "$OUT/newcases.tar" -T - 2>/dev/null
if [ -n "${SAN:-}" ]; then
  OUT=$o/san timeout ${SAN_S:-200} ci/cuda.sh --sanitize > "$OUT/san.txt" 2>&1; echo "san rc=$?" >> "$OUT/san.txt"
  for f in "$o"/san/san_*.txt; do echo "== $f"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|Invalid|Uninitialized|Barrier|PASSED|FAILED|rc=" "$f" | head -12; done >> "$OUT/san.txt"
fi
if [ -n "${BENCH:-}" ]; then
  OUT=$o/bench timeout ${BENCH_S:-100} ci/cuda.sh --bench > "$OUT/bench.txt" 2>&1; echo "bench rc=$?" >> "$OUT/bench.txt"
fi
tail -25 "$OUT/main.txt"; tail -12 "$OUT/san.txt" 2>/dev/null; tail -5 "$OUT/bench.txt" 2>/dev/null
