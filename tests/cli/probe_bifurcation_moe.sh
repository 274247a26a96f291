#!/bin/sh
# The tiny model with mixture-of-experts layers (QGATE_TINY_EXPERTS=E:K): the planted attention
# defect is still classified a defect, and a router defect stops every path at its first call.
# "$1": qgate, "$2": qgate-mutants.
out=$(QGATE_TINY_EXPERTS=4:2 "$1" probe bifurcation --backend cpu --steps 20 2>&1) || { echo "$out"; exit 1; }
case "$out" in *"MoE 4 experts of d_ff/2, top 2 routed"*"attn_flash_pbf16_cpu"*) ;; *) echo "$out"; exit 1;; esac
out=$(QGATE_TINY_EXPERTS=4:2 "$2" probe bifurcation --backend cpu --steps 32 --mutant cpu_flash_rescale_dropped 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
case "$out" in *"attn_eager_f32_cpu     no divergence in 32 tokens"*"attn_flash_pf32_cpu    stopped after 30 tokens -> DEFECT"*"attention (layer"*) ;;
  *) echo "$out"; exit 1;; esac
out=$(QGATE_TINY_EXPERTS=4:2 "$2" probe bifurcation --backend cpu --steps 8 --mutant cpu_router_renorm_skipped 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
case "$out" in *"attn_eager_f32_cpu     stopped after 0 tokens -> DEFECT"*"moe_route weights (layer 0) outside its bound"*) ;;
  *) echo "$out"; exit 1;; esac
out=$(QGATE_TINY_EXPERTS=9:9 "$1" probe bifurcation --backend cpu 2>&1) && { echo "accepted 9:9"; exit 1; }
case "$out" in *"expected E:K with 1 <= K <= min(E, 8)"*) ;; *) echo "$out"; exit 1;; esac
