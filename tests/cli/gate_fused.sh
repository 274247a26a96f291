#!/bin/sh
# Fusions and attention (docs/FUSIONS.md): `qgate gate` gates them in a table of their own
# (op x backend; --format selects none of them); bad filters and cases are exit 2. "$1": qgate.
out=$("$1" gate --backend cpu --op silu_mul 2>&1); rc=$?
[ "$rc" -eq 0 ] || { echo "exit $rc"; echo "$out"; exit 1; }
for s in "fusions and attention (no weight format)" "silu_mul            PASS 1/1" "gate PASSED"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
case "$out" in *"gate matrix:"*) echo "a weight table for a fused-only run"; echo "$out"; exit 1;; esac
err=$("$1" gate --backend cpu --format q8_0 --op silu_mul 2>&1); [ $? -eq 2 ] || { echo "$err"; exit 1; }
case "$err" in *"no registered kernel matches the filter"*) ;; *) echo "$err"; exit 1;; esac
# a property selects the kernels it applies to; none left evaluates nothing: exit 2, the filter named
err=$("$1" gate --backend cpu --format q4_0 --op matmul --property every_code_every_lane 2>&1); [ $? -eq 2 ] || { echo "$err"; exit 1; }
case "$err" in *"no registered kernel matches the filter (--property every_code_every_lane --op matmul --format q4_0 --backend cpu)"*) ;;
  *) echo "$err"; exit 1;; esac
err=$("$1" repro --kernel silu_mul_f32_cpu --property silu_random --case 'op=silu_mul,rows=0' 2>&1); [ $? -eq 2 ] || exit 1
case "$err" in *"bad --case: impossible silu_mul case"*) ;; *) echo "$err"; exit 1;; esac
