#!/bin/sh
# The bifurcation probe on a GPU backend: the tiny model decoded on the backend's own kernels
# (mat-vecs, norms, RoPE + KV, SwiGLU, each attention kernel) passes, every divergence a
# near-tie; with the flash rescale dropped (a planted defect) the flash f32 path is a DEFECT:
# its attention call at generated token 30, the first whose 34 cached keys span two 32-key
# tiles, breaks its bound. Exit 77 (skipped) where the backend is absent. "$1": backend, "$2": qgate, "$3": qgate-mutants, "$4": the mutant.
out=$("$2" probe bifurcation --backend "$1" --steps 36 2>&1); rc=$?
[ "$rc" -eq 77 ] && { echo "$out"; exit 77; }
[ "$rc" -eq 0 ] || { echo "exit $rc, want 0"; echo "$out"; exit 1; }
case "$out" in *"PASS tiny model"*"other ops: "*) ;; *) echo "$out"; exit 1;; esac
out=$("$3" probe bifurcation --backend "$1" --steps 32 --mutant "$4" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
case "$out" in *"attn_flash_pf32_"*"DEFECT"*"a kernel call broke its bound at generated token 30: attention (layer 1) outside its bound"*) ;;
  *) echo "$out"; exit 1;; esac
