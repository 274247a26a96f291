#!/bin/sh
# Unknown format: exit 2 and the list of known names. "$1": qgate.
err=$("$1" dequant --format q9_9 </dev/null 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || { echo "exit $rc, want 2"; exit 1; }
case "$err" in "qgate: unknown format 'q9_9'; known: q4_0, "*) ;; *) echo "stderr: $err"; exit 1;; esac
