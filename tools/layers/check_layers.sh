#!/bin/sh
# The layers point one way: each top-level folder may include only the folders below it.
#   oracles  -> oracles
#   core     -> core oracles                       (core/kernel.hpp: the kernel descriptor)
#   backends -> backends core oracles              (device runtimes, vendor headers)
#   kernels  -> kernels backends core oracles      (production kernels and their list)
#   io       -> io core oracles
#   plugin   -> nothing of qgate's (the C ABI header stands alone)
# Usage: check_layers.sh ROOT. Prints every include that points upward and exits 1 if any.
root=${1:?usage: check_layers.sh ROOT}
bad=0
check() {  # check DIR ALLOWED...: every #include "top/..." in DIR names an allowed top
  dir=$1; shift
  [ -d "$root/$dir" ] || return 0
  allowed=" $* "
  out=$(cd "$root" && grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' "$dir" \
        --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.c' --include='*.cu' --include='*.cuh' \
        --include='*.inc' --include='*.comp' --include='*.glsl' 2>/dev/null)
  [ -n "$out" ] || return 0
  printf '%s\n' "$out" | while IFS= read -r line; do
    top=$(printf '%s\n' "$line" | sed -E 's/^[^"]*"([a-z_]+)\/.*/\1/')
    case "$allowed" in *" $top "*) ;; *) echo "layer violation: $dir may include only {$*}: $line";; esac
  done
}
report=$(
  check oracles oracles
  check core core oracles
  check backends backends core oracles
  check kernels kernels backends core oracles
  check io io core oracles
  check plugin
)
if [ -n "$report" ]; then printf '%s\n' "$report"; bad=1; fi
[ $bad -eq 0 ] && echo "layers: every include points down (oracles < core < backends < kernels; io; plugin)"
exit $bad
