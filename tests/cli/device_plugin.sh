#!/bin/sh
# A device example plugin gated through ABI version 2: skipped (77) when its first kernel is
# (no such device here), else the gate fails (its wrong kernels) and every verdict appears.
# Arguments: qgate, the plugin library, the first kernel's name, then the expected verdicts.
q=$1 lib=$2 first=$3; shift 3
out=$("$q" gate --plugin "$lib" 2>&1); rc=$?
if printf '%s\n' "$out" | grep -q "^skipped $first: "; then printf '%s\n' "$out" | grep "^skipped $first: "; exit 77; fi
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
for s in "$@"; do case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
printf '%s\n' "$out" | grep "^  [PF]A[SI][SL] "; exit 0
