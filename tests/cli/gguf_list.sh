#!/bin/sh
# `qgate gguf list` on the fixture written by the project's own GGUF writer (qgate gguf
# fixture) names the header, the metadata and each tensor with its status. "$1": qgate.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
"$1" gguf fixture "$d/fx.gguf" >/dev/null || exit 1
out=$("$1" gguf list "$d/fx.gguf") || { echo "$out"; exit 1; }
for s in "GGUF v3" "general.architecture (string) = \"qgate-fixture\"" "blk.0.q4_K.weight" "512 x 12" \
         "blk.0.mxfp4.weight" "output_norm.weight" "unsupported: no oracle for f32" "kernels (q8_K)"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
case "$out" in *"blk.0.q4_0.weight"*" kernels (q4_0)"*) ;; *) echo "$out"; exit 1;; esac
