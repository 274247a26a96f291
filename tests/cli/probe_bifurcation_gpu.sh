#!/bin/sh
# The bifurcation probe on a GPU backend: the tiny model decoded on the backend's own kernels
# (mat-vecs, norms, RoPE + KV, SwiGLU, each attention kernel) passes, every divergence a
# near-tie; with the flash rescale dropped (a planted defect) the flash P f32 path is a DEFECT:
# one of its attention calls breaks its bound once the cache spans two 32-key tiles (from
# generated token 30 on) and a later key sets a new running maximum. Exit 77 (skipped) where
# the backend is absent.
# "$1": backend, "$2": qgate, "$3": qgate-mutants, "$4": the mutant, "$5": tokens for the
# mutant run, "$6" (optional): the generated token the defect must be reported at.
out=$("$2" probe bifurcation --backend "$1" --steps 36 2>&1); rc=$?
[ "$rc" -eq 77 ] && { echo "$out"; exit 77; }
[ "$rc" -eq 0 ] || { echo "exit $rc, want 0"; echo "$out"; exit 1; }
case "$out" in *"PASS tiny model"*"other ops: "*) ;; *) echo "$out"; exit 1;; esac
out=$("$3" probe bifurcation --backend "$1" --steps "$5" --mutant "$4" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
case "$out" in *"attn_flash_pf32_"*"DEFECT"*"a kernel call broke its bound at generated token ${6:-}"*": attention (layer "*) ;;
  *) echo "$out"; exit 1;; esac
