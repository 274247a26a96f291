#!/bin/sh
# The example plugin's correct kernels pass, the wrong one is rejected with a heat map, the
# crashing and the hanging ones fail with their reason; the hang costs one watchdog period.
# "$1": qgate, "$2": the folder of the example plugin libraries (examples/plugin_cpu).
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
out=$("$1" gate --plugin "$2/libqgate_plugin_cpu.so" --plugin-timeout 2 --report "$d/r" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
for s in "6 plugin kernel(s) from 1 library" "2 of 6 kernels pass" \
         "PASS example_dequant_q4_0_f32: 9/9 properties" "PASS example_matvec_q8_0_f32: 9/9 properties" \
         "FAIL wrong_dequant_q4_0_f32_crossed: 0/9 properties; random_blocks: FAIL nbad=" \
         "FAIL wrong_dequant_q4_0_f32_overrun: 0/9 properties; random_blocks: FAIL nbad=0/" \
         "FAIL crash_matvec_q8_0_f32_null_write: 0/9 properties; random_blocks: FAIL kernel error: killed by SIGSEGV (n=" \
         "FAIL hang_dequant_q4_0_f32_loop: 0/9 properties; random_blocks: FAIL kernel error: timed out after 2 s (n=" \
         "repro: qgate gate --plugin $2/libqgate_plugin_cpu.so --kernel wrong_dequant_q4_0_f32_crossed --property random_blocks --seed 0x" \
         "report: $d/r/junit.xml"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
case "$out" in *"wrong_dequant_q4_0_f32_overrun: 0/9 properties; random_blocks: FAIL nbad=0/"*"redzone_damaged="*) ;;
  *) echo "overrun not seen as guard damage"; echo "$out"; exit 1;; esac
n=$(printf '%s\n' "$out" | grep -c "^FAIL hang_dequant_q4_0_f32_loop / .*: not run: the kernel timed out after 2 s")
[ "$n" -eq 8 ] || { echo "$n later properties of the hanging kernel marked not run, want 8"; echo "$out"; exit 1; }
printf '%s\n' "$out" | grep -q "^FAIL example_" && { echo "a correct kernel failed"; echo "$out"; exit 1; }
png="$d/r/heatmaps/wrong_dequant_q4_0_f32_crossed.random_blocks.png"
[ "$(head -c 4 "$png" | od -An -tx1 | xargs)" = "89 50 4e 47" ] || { echo "no heat map $png"; ls "$d/r/heatmaps"; exit 1; }
ls "$d/r/heatmaps" | grep -q '^example_' && { echo "heat map for a passing kernel"; exit 1; }
grep -q 'name="wrong_dequant_q4_0_f32_crossed/random_blocks">' "$d/r/junit.xml" || exit 1
grep -A1 'name="example_dequant_q4_0_f32/random_blocks">' "$d/r/junit.xml" | grep -q '<failure' && exit 1
grep -q '| q4_0 | dequant | \*\*FAIL\*\* 1/4 ' "$d/r/matrix.md" || { cat "$d/r/matrix.md"; exit 1; }
grep -q '!\[wrong_dequant_q4_0_f32_crossed random_blocks\](heatmaps/wrong_dequant_q4_0_f32_crossed.random_blocks.png)' "$d/r/matrix.md" || exit 1
exit 0
