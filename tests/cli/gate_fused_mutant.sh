#!/bin/sh
# A failing fused kernel prints a `qgate repro` line that replays the shrunk case (with the
# mutant: FAIL; on the release kernels: pass) and lands in the reports.
# "$1": qgate-mutants, "$2": qgate.
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
out=$("$1" gate --backend cpu --kernel attn_flash_pf32_cpu --property attn_long_kv \
      --mutant cpu_flash_rescale_dropped --report "$d/r" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
repro=$(printf '%s\n' "$out" | sed -n 's/^  repro: qgate //p')
case "$repro" in "repro --kernel attn_flash_pf32_cpu --property attn_long_kv --case 'op=attention,"*"' --mutant cpu_flash_rescale_dropped") ;;
  *) echo "repro line: $repro"; echo "$out"; exit 1;; esac
eval "\"\$1\" $repro" > "$d/o" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q "nbad=" "$d/o" || { echo "repro with the mutant: exit $rc"; cat "$d/o"; exit 1; }
release=$(printf '%s' "$repro" | sed 's/ --mutant [a-z0-9_]*$//')
eval "\"\$2\" $release" > "$d/o" 2>&1 || { echo "repro on the release kernel fails"; cat "$d/o"; exit 1; }
grep -q 'classname="qgate.cpu.attention" name="attn_flash_pf32_cpu/attn_long_kv"' "$d/r/junit.xml" || { cat "$d/r/junit.xml"; exit 1; }
grep -q '### Fusions and attention' "$d/r/matrix.md" && grep -q 'repro: `qgate repro --kernel attn_flash_pf32_cpu' "$d/r/matrix.md" \
  || { cat "$d/r/matrix.md"; exit 1; }
[ -s "$d/r/heatmaps/attn_flash_pf32_cpu.attn_long_kv.png" ] || { ls -R "$d/r"; exit 1; }
