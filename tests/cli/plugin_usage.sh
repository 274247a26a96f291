#!/bin/sh
# Bad usage of the plugin options: exit 2 with the reason.
# "$1": qgate, "$2": the folder of the example plugin libraries (examples/plugin_cpu).
expect() {  # expect <message part> <args...>
  want=$1; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || { echo "$*: exit $rc, want 2: $err"; exit 1; }
  case "$err" in *"$want"*) ;; *) echo "$*: stderr: $err"; exit 1;; esac
}
expect "not in range" "$1" gate --plugin "$2/libqgate_plugin_cpu.so" --plugin-timeout 0
expect "--plugin with --gguf is not supported yet" "$1" gate --plugin "$2/libqgate_plugin_cpu.so" --gguf x.gguf --tensor t
expect "no plugin kernel matches the filter" "$1" gate --plugin "$2/libqgate_plugin_cpu.so" --kernel no_such_kernel
expect "--plugin-arg needs KEY=VALUE" "$1" gate --plugin "$2/libqgate_plugin_cpu.so" --plugin-arg threads
expect "--plugin-arg needs --plugin" "$1" gate --plugin-arg threads=2
expect "no plugin kernel matches the filter (--property many_rows --kernel example_dequant)" "$1" gate --plugin "$2/libqgate_plugin_cpu.so" --kernel example_dequant --property many_rows
