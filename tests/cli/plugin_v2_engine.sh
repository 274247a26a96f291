#!/bin/sh
# ABI version 2 engine-style kernels (examples/plugin_v2): the correct ones pass every property
# (split-K as non-deterministic), each planted defect and the stale-state kernel are rejected.
# "$1": qgate, "$2": the folder of libqgate_plugin_engine.so.
out=$("$1" gate --plugin "$2/libqgate_plugin_engine.so" --plugin-arg threads=4 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
for k in engine_matvec_q4_1_q8_1s16 engine_matvec_q5_1_q8_1s16 engine_matvec_q4_0_q8_0 engine_matvec_q8_0_q8_0 \
         engine_matvec_q6_K_f32_split engine_matvec_tq2_0_f32_split engine_matvec_q8_0_f32_panels; do
  printf '%s\n' "$out" | grep -q "^  PASS $k: 9/9 properties, worst max|err|/bound 0\.[0-9]" || { echo "$k did not pass"; echo "$out"; exit 1; }
done
printf '%s\n' "$out" | grep -q "^  PASS engine_matvec_q8_0_f32_splitk: 8/8 properties.*(declared non-deterministic: reruns not compared" \
  || { echo "split-K did not pass as non-deterministic"; echo "$out"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c "^  FAIL wrong_")
[ "$n" -eq 15 ] || { echo "$n wrong_ kernels rejected, want 15"; echo "$out"; exit 1; }
for s in "PASS engine_gate_up_q4_0_q8_0: 9/9 properties" "PASS engine_moe_q8_0_q8_0: 2/2 properties" \
         "PASS engine_add_rmsnorm_f32: 2/2 properties" "PASS engine_silu_mul_f32: 1/1 properties" \
         "PASS engine_moe_route_f32: 2/2 properties" "PASS engine_attn_eager_f32: 2/2 properties" \
         "PASS engine_qk_norm_rope_f32: 1/1 properties"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
printf '%s\n' "$out" | grep -q "^  FAIL stale_matvec_q8_0_f32: " || { echo "stale kernel passed"; echo "$out"; exit 1; }
case "$out" in *"--plugin-arg threads=4"*) ;; *) echo "repro lines lack the plugin args"; echo "$out"; exit 1;; esac
exit 0
