#!/bin/sh
# Version 2 libraries that cannot be gated as they stand: a refusal, a bad descriptor, a kernel
# that cannot run here (skipped) and a failing init are each reported with their reason.
# "$1": qgate, "$2": the folder of the libqgate_plugin_v2_broken_*.so libraries.
out=$("$1" gate --plugin "$2/libqgate_plugin_v2_broken_refused.so" --plugin "$2/libqgate_plugin_v2_broken_table.so" \
      --plugin "$2/libqgate_plugin_v2_broken_init.so" --property random_blocks 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
for s in "libqgate_plugin_v2_broken_refused.so: qgate_plugin_v2_get refused: libengine.so not found (pass --plugin-arg lib=PATH)" \
         "kernel broken_v2_reserved_set: reserved fields must be zero" \
         "kernel broken_v2_unknown_activation: unknown activation quantization 6" \
         "skipped broken_v2_unavailable: the plugin says: needs AVX-512 VNNI, which this CPU lacks" \
         "FAIL broken_v2_init_fails: 0/1 properties; random_blocks: FAIL kernel error: the plugin's init returned 3: no device for the engine"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
