#!/bin/sh
# The listing comes from the registries: every format name appears, and the backends without
# kernels in this build say so. "$1": qgate.
out=$("$1" list) || exit 1
for f in q4_0 q8_K q6_K mxfp4 fp8_e5m2 gptq_int4 dequant_q4_0_f32_cpu; do
  case "$out" in *"$f"*) ;; *) echo "missing $f"; exit 1;; esac; done
for b in cpu vulkan cuda hip; do  # each backend has a line with its kernel count or -, and its status
  echo "$out" | grep -Eq "^$b +([0-9]+ +(available|skipped)|- +(not built in this configuration|no kernels registered))" ||
    { echo "backend $b: no status line"; echo "$out"; exit 1; }; done
"$1" list --kernels --json | grep -q '"backend": "cpu"' || exit 1
"$1" list --kernels | grep -q '^ *attn_flash_pbf16_cpu  *attention' || { echo "fused kernels not listed"; exit 1; }
"$1" list --kernels --json | grep -q '"op": "add_rmsnorm"' || { echo "fused kernels not in the JSON"; exit 1; }
"$1" list --formats --kernels >/dev/null 2>&1; [ $? -eq 2 ] || { echo "exclusive flags accepted"; exit 1; }
