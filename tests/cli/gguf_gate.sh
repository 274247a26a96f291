#!/bin/sh
# Gate every CPU kernel of one format on a fixture tensor; the report has one testcase per
# kernel x property and no failure. "$1": qgate.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
"$1" gguf fixture "$d/fx.gguf" >/dev/null || exit 1
out=$("$1" gate --gguf "$d/fx.gguf" --tensor blk.0.q4_K.weight --backend cpu --report "$d/r" 2>&1); rc=$?
[ "$rc" -eq 0 ] || { echo "exit $rc"; echo "$out"; exit 1; }
for s in "tensor blk.0.q4_K.weight (q4_K, 512 x 12), rows 0..11 of 12" "gate PASSED" "q4_K       matmul" "report: "; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
n=$(grep -c '<testcase ' "$d/r/junit.xml"); [ "$n" -ge 8 ] || { echo "$n testcases"; exit 1; }
grep -q '<failure' "$d/r/junit.xml" && { echo "failure in a passing run"; exit 1; }
grep -q 'name="gemm_q4_K_f32_cpu/ragged_shapes"' "$d/r/junit.xml" || exit 1
grep -q '| q4_K | matmul | pass ' "$d/r/matrix.md" || { cat "$d/r/matrix.md"; exit 1; }
grep -q 'not implemented' "$d/r/matrix.md" || exit 1
