#!/usr/bin/env bash
# The start of the code-object census gate (issue 7, item 4): for every kernel x AMD target
# built by kernels/hip/hip.cmake, the resources its code object declares (llvm-readelf
# --notes, the AMDGPU metadata the loader reads):
#   vgpr agpr sgpr   registers per work-item (agpr: CDNA's accumulation registers)
#   vspill sspill    registers spilled to scratch
#   scratch          private segment bytes per work-item
#   lds              group segment (shared memory) bytes per work-group
#   wave             wavefront size
# Usage: kernels/hip/census.sh [BUILD_DIR] [--check]
#   --check: exit 1 if any kernel spills or uses scratch (the first gate; per-kernel budgets,
#   occupancy and the ISA census of issue 7 are not here yet).
set -euo pipefail
build=build/h-hip
check=0
for a in "$@"; do
  case "$a" in
    --check) check=1 ;;
    *) build=$a ;;
  esac
done
readelf=$(command -v llvm-readelf-19 || command -v llvm-readelf || true)
filt=$(command -v llvm-cxxfilt-19 || command -v c++filt || echo cat)
[ -n "$readelf" ] || { echo "census: no llvm-readelf (Debian: llvm-19)" >&2; exit 2; }
shopt -s nullglob
objs=("$build"/kernels/hip/*/*.co)
[ ${#objs[@]} -gt 0 ] || { echo "census: no code objects under $build/kernels/hip (build qgate_hip_code_objects)" >&2; exit 2; }
printf '%-8s %-15s %4s %4s %4s %6s %6s %7s %6s %4s  %s\n' target source vgpr agpr sgpr vspill sspill scratch lds wave kernel
bad=0
tmp=$(mktemp)
for co in "${objs[@]}"; do
  target=$(basename "$(dirname "$co")")
  src=$(basename "$co" .co)
  "$readelf" --notes "$co" | awk -v t="$target" -v s="$src" '
    function flush() {
      if (name != "")
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, s, k["vgpr_count"], k["agpr_count"] == "" ? "-" : k["agpr_count"],
               k["sgpr_count"], k["vgpr_spill_count"], k["sgpr_spill_count"], k["private_segment_fixed_size"],
               k["group_segment_fixed_size"], k["wavefront_size"], name
      name = ""; delete k
    }
    /^  - / { flush(); sub(/^  - /, "    ") }
    /^    \.[a-z_]+:/ { key = $1; sub(/^\./, "", key); sub(/:$/, "", key); k[key] = $2; if (key == "name") name = $2 }
    /^amdhsa\.target/ { flush() }
    END { flush() }'
done > "$tmp"
# One demangler call for all rows (the kernel name is the last field).
"$filt" < "$tmp" | sed -E 's/qgate::cuk::(\(anonymous namespace\)::)?//g; s/\(.*$//' | awk -F'\t' '
  { printf "%-8s %-15s %4s %4s %4s %6s %6s %7s %6s %4s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
    if ($6 != 0 || $7 != 0 || $8 != 0) { print "census: SPILL/SCRATCH " $1 " " $11 > "/dev/stderr"; bad++ }
    n++ }
  END { printf "census: %d kernel x target rows, %d with spills or scratch\n", n, bad; exit bad > 0 }' || bad=1
rm -f "$tmp"
[ "$check" -eq 0 ] || [ "$bad" -eq 0 ]
