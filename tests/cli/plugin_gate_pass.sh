#!/bin/sh
# Only the example plugin's correct kernels: the gate passes (exit 0).
# "$1": qgate, "$2": the folder of the example plugin libraries (examples/plugin_cpu).
out=$("$1" gate --plugin "$2/libqgate_plugin_cpu.so" --kernel example_ 2>&1); rc=$?
[ "$rc" -eq 0 ] || { echo "exit $rc, want 0"; echo "$out"; exit 1; }
for s in "2 of 2 kernels pass (18 property runs)" "q8_0       matmul   PASS 1/1" "gate PASSED"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
