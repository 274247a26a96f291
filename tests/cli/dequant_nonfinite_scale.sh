#!/bin/sh
# Two q4_0 blocks, the first valid (d = 1.0), the second with d = +Inf (0x7C00): exit 2, the
# message names the field and block 1, and stdout stays empty (no partial output). "$1": qgate.
q4_0_good_inf() { printf '\000\074\210\210\210\210\210\210\210\210\210\210\210\210\210\210\210\210\000\174\210\210\210\210\210\210\210\210\210\210\210\210\210\210\210\210'; }
err=$(q4_0_good_inf | "$1" dequant --format q4_0 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || { echo "exit $rc, want 2"; exit 1; }
case "$err" in *'non-finite scale d'*'block 1'*) ;; *) echo "stderr: $err"; exit 1;; esac
n=$(q4_0_good_inf | "$1" dequant --format q4_0 2>/dev/null | wc -c)
[ "$n" -eq 0 ] || { echo "$n bytes on stdout"; exit 1; }
