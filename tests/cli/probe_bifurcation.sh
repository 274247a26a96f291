#!/bin/sh
# The flash-vs-eager bifurcation probe on the CPU (docs/FUSIONS.md): the tiny model's greedy
# paths; the bf16-P path flips at a near-tie inside the bound (exit 0). "$1": qgate.
out=$("$1" probe bifurcation --backend cpu --steps 60); rc=$?
[ "$rc" -eq 0 ] || { echo "exit $rc"; echo "$out"; exit 1; }
for s in "PASS tiny model" "attn_eager_f32_cpu     no divergence in 60 tokens" \
         "attn_flash_pbf16_cpu   first divergent token" "-> near-tie"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
err=$("$1" probe bifurcation --backend cpu --mutant cpu_flash_rescale_dropped 2>&1); [ $? -eq 2 ] || exit 1
case "$err" in *"needs the mutant build"*) ;; *) echo "$err"; exit 1;; esac
