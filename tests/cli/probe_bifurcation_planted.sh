#!/bin/sh
# The bifurcation probe on one backend's own kernels (mat-vecs, norms, RoPE + KV, SwiGLU, each
# attention kernel): without mutants it passes, every divergence a near-tie; with each planted
# defect the named decode path is a DEFECT at the named place, with the first op that left
# its bound, and the one-line repro is printed. Exit 77 (skipped) where the backend is absent.
# "$1": backend, "$2": qgate, "$3": qgate-mutants; then one argument per planted defect:
#   MUTANT|TOKENS|PATH|WHERE|OP   e.g.
#   vk_flash_rescale_dropped|32|attn_flash_pf32_|generated token 30|attention
#   (TOKENS decoded; PATH the reported path's kernel prefix; WHERE "generated token N" or
#   "prompt position N"; OP the op named as out of bound, in layer 0 or 1).
out=$("$2" probe bifurcation --backend "$1" --steps 36 2>&1); rc=$?
[ "$rc" -eq 77 ] && { echo "$out"; exit 77; }
[ "$rc" -eq 0 ] || { echo "exit $rc, want 0"; echo "$out"; exit 1; }
case "$out" in *"PASS tiny model"*"other ops: "*) ;; *) echo "$out"; exit 1;; esac
b=$1 mut=$3
shift 3
for spec in "$@"; do
  IFS='|' read -r m tokens path where op <<SPEC
$spec
SPEC
  out=$("$mut" probe bifurcation --backend "$b" --steps "$tokens" --mutant "$m" 2>&1); rc=$?
  [ "$rc" -eq 1 ] || { echo "$m: exit $rc, want 1"; echo "$out"; exit 1; }
  case "$out" in *"$path"*"DEFECT"*"a kernel call broke its bound at $where: $op (layer "*) ;;
    *) echo "$m: want $path DEFECT at $where, $op first out of bound"; echo "$out"; exit 1;; esac
  case "$out" in *"repro: qgate-mutants probe bifurcation --backend $b --steps $tokens --mutant $m"*) ;;
    *) echo "$m: no repro line"; echo "$out"; exit 1;; esac
  echo "$m: $path DEFECT at $where ($op)"
done
