#!/bin/sh
# Plugins that cannot be gated (another ABI version, no entry symbol, a bad descriptor, no file,
# not a library) are each that plugin's or kernel's failure; the other kernels are still gated.
# "$1": qgate, "$2": the folder of the example plugin libraries (examples/plugin_cpu).
out=$("$1" gate --plugin "$2/libqgate_plugin_broken_abi.so" --plugin "$2/libqgate_plugin_broken_symbol.so" \
      --plugin "$2/libqgate_plugin_broken_table.so" --plugin "$2/no_such_plugin.so" --plugin /etc/hostname \
      --plugin "$2/libqgate_plugin_cpu.so" --property random_blocks --plugin-timeout 2 2>&1); rc=$?
[ "$rc" -eq 1 ] || { echo "exit $rc, want 1"; echo "$out"; exit 1; }
for s in "libqgate_plugin_broken_abi.so: ABI version mismatch: the plugin was built for ABI version 999, this qgate speaks versions 1 and 2" \
         "libqgate_plugin_broken_symbol.so: missing symbol qgate_plugin_v2_get or qgate_plugin_get" \
         "kernel broken_dequant_q4_0_unknown_format: unknown format 'q4_0_x'" \
         "kernel broken_dequant_q4_0_no_launch: no launch function" \
         "no_such_plugin.so: no such file" "plugin /etc/hostname: dlopen failed" \
         "FAIL broken_matvec_q4_0_writes_nothing: 0/1 properties; random_blocks: FAIL nbad=" \
         "PASS example_dequant_q4_0_f32: 1/1 properties" "PASS example_matvec_q8_0_f32: 1/1 properties" \
         "killed by SIGSEGV" "timed out after 2 s" "2 of 7 kernels pass (7 property runs); 6 could not be gated"; do
  case "$out" in *"$s"*) ;; *) echo "missing: $s"; echo "$out"; exit 1;; esac; done
case "$out" in *"broken_matvec_q4_0_writes_nothing: 0/1 properties; random_blocks: FAIL nbad="*"unwritten="*) ;;
  *) echo "poison left not seen"; echo "$out"; exit 1;; esac
