#!/bin/sh
# Malformed and unusable GGUF inputs (copies of the fixture made with head and tail): exit 2
# with a message naming what is wrong. "$1": qgate.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
"$1" gguf fixture "$d/fx.gguf" >/dev/null || exit 1
expect() {  # expect <file> <tensor> <message part>
  err=$("$1" gate --gguf "$2" --tensor "$3" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || { echo "$2 $3: exit $rc, want 2: $err"; exit 1; }
  case "$err" in *"$4"*) ;; *) echo "$2 $3: stderr: $err"; exit 1;; esac
}
head -c 300 "$d/fx.gguf" > "$d/trunc.gguf"
expect "$1" "$d/trunc.gguf" blk.0.q4_0.weight "tensor_count at byte 8: 27 tensor infos cannot fit in the 276 bytes left"
head -c 1900 "$d/fx.gguf" > "$d/trunc.gguf"
expect "$1" "$d/trunc.gguf" blk.0.q4_0.weight "data at byte"
head -c 20 "$d/fx.gguf" > "$d/trunc.gguf"
expect "$1" "$d/trunc.gguf" blk.0.q4_0.weight "kv_count at byte 16: truncated: needs 8 bytes, 4 left"
{ printf 'GGUX'; tail -c +5 "$d/fx.gguf"; } > "$d/magic.gguf"
expect "$1" "$d/magic.gguf" blk.0.q4_0.weight "magic at byte 0: not a GGUF file"
{ head -c 4 "$d/fx.gguf"; printf '\002\000\000\000'; tail -c +9 "$d/fx.gguf"; } > "$d/v2.gguf"
expect "$1" "$d/v2.gguf" blk.0.q4_0.weight "unsupported GGUF version 2"
{ head -c 8 "$d/fx.gguf"; printf '\377\377\377\377\377\377\377\177'; tail -c +17 "$d/fx.gguf"; } > "$d/count.gguf"
expect "$1" "$d/count.gguf" blk.0.q4_0.weight "tensor_count at byte 8"
expect "$1" "$d/fx.gguf" output_norm.weight "ggml type f32, which qgate has no oracle for"
expect "$1" "$d/fx.gguf" blk.0.nope.weight "no tensor 'blk.0.nope.weight'"
expect "$1" "$d/nonexistent.gguf" blk.0.q4_0.weight "No such file"
err=$("$1" gate --gguf "$d/fx.gguf" --tensor blk.0.q4_0.weight --rows 5:99 2>&1 >/dev/null); [ $? -eq 2 ] || exit 1
case "$err" in *"past the tensor's 12 rows"*) ;; *) echo "$err"; exit 1;; esac
"$1" gguf list "$d/trunc.gguf" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "list accepted a truncated file"; exit 1; }
