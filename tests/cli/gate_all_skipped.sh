#!/bin/sh
# A gate whose every selected kernel is skipped here (no CUDA device) evaluates nothing: it exits
# 77 with "gate SKIPPED" and the reason, never "gate PASSED". Where a CUDA device is present
# the CUDA kernels run and there is nothing to check: skipped (77). "$1": qgate.
out=$("$1" gate --backend cuda --format q4_0 --op dequant 2>&1); rc=$?
printf '%s\n' "$out" | grep -q '^  cuda: skipped: ' || { echo "a CUDA device is present: nothing to check"; exit 77; }
[ "$rc" -eq 77 ] || { echo "exit $rc, want 77"; echo "$out"; exit 1; }
case "$out" in *"gate PASSED"*) echo "$out"; exit 1;; esac
case "$out" in *"gate SKIPPED: every selected kernel was skipped here"*) ;; *) echo "$out"; exit 1;; esac
