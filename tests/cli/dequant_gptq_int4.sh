#!/bin/sh
# A gptq_int4 container, k = n = 8, group_size 8: qweight all 0, qzeros 0x77777777 (stored 7,
# true zero 8), scales 1.0 -> all 64 values 1.0 * (0 - 8) = -8.0 (0xC020..0); a shape that does
# not match the container is exit 2. "$1": qgate.
c() { printf 'QGGPTQ1\000\010\000\000\000\010\000\000\000\010\000\000\000'; head -c 44 /dev/zero
      printf '\167\167\167\167'; for i in 1 2 3 4 5 6 7 8; do printf '\000\074'; done; }
got=$(c | "$1" dequant --format gptq_int4 --n 8 --k 8 | od -An -v -tx8 --endian=little | xargs -n1 | sort | uniq -c | xargs)
[ "$got" = "64 c020000000000000" ] || { echo "got: $got"; exit 1; }
err=$(c | "$1" dequant --format gptq_int4 --n 16 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || { echo "shape mismatch: exit $rc, want 2"; exit 1; }
case "$err" in *"shape mismatch"*) ;; *) echo "stderr: $err"; exit 1;; esac
