#!/bin/sh
# 3 bytes are not a whole 34-byte q8_0 block: exit 2, the sizes named, nothing on stdout.
# "$1": qgate.
err=$(printf '\000\074\001' | "$1" dequant --format q8_0 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || { echo "exit $rc, want 2"; exit 1; }
case "$err" in *"truncated input: 3 bytes is not a whole number of 34-byte q8_0 blocks"*) ;;
  *) echo "stderr: $err"; exit 1;; esac
n=$(printf '\000\074\001' | "$1" dequant --format q8_0 2>/dev/null | wc -c)
[ "$n" -eq 0 ] || { echo "$n bytes on stdout"; exit 1; }
