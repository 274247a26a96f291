#!/bin/sh
# The bifurcation probe with the online-softmax rescale dropped (a planted defect): the flash
# paths are classified as defects (exit 1). "$1": qgate-mutants.
out=$("$1" probe bifurcation --backend cpu --steps 40 --mutant cpu_flash_rescale_dropped 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
for s in "FAIL tiny model" "attn_eager_f32_cpu     no divergence in 40 tokens" \
         "attn_flash_pf32_cpu    stopped after 30 tokens -> DEFECT" "attention (layer 1) outside its bound"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
