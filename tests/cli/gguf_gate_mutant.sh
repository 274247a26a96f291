#!/bin/sh
# The gate over a GGUF tensor can fail: the crossed-nibble mutant on real q4_0 rows is
# rejected, the report holds the failing testcase and a heat map; the release qgate refuses
# --mutant. "$1": qgate-mutants, "$2": qgate.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
"$1" gguf fixture "$d/fx.gguf" >/dev/null || exit 1
out=$("$1" gate --gguf "$d/fx.gguf" --tensor blk.0.q4_0.weight --kernel matmul_q4_0_q8_1_cpu \
      --mutant crossed_nibble_lanes --report "$d/r" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
case "$out" in *"FAIL matmul_q4_0_q8_1_cpu / random_blocks"*"repro: qgate gate --gguf"*"--mutant crossed_nibble_lanes"*) ;;
  *) echo "$out"; exit 1;; esac
grep -q '<failure message="qgate gate --gguf' "$d/r/junit.xml" || { cat "$d/r/junit.xml"; exit 1; }
[ "$(head -c 4 "$d/r/heatmaps/matmul_q4_0_q8_1_cpu.random_blocks.png" | od -An -tx1 | xargs)" = "89 50 4e 47" ] || exit 1
err=$("$2" gate --kernel matmul_q4_0_q8_1_cpu --mutant crossed_nibble_lanes 2>&1); [ $? -eq 2 ] || exit 1
case "$err" in *"needs the mutant build"*) ;; *) echo "$err"; exit 1;; esac
