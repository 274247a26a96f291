#!/usr/bin/env bash
# The CUDA run on the GPU machine (docs/CUDA.md): binaries built here
# for sm_90 and copied into build-cuda-device/ (ci/cuda.sh --pack BUILD_DIR), run there.
#   ci/cuda.sh --pack build/h-cuda     here: stripped test binaries, qgate, qgate-mutants, the
#                                      example plugins (CUDA, Vulkan, engine-style CPU) and the two
#                                      shared libraries they load (Vulkan loader, libpng)
#   ci/cuda.sh                         there: STEPS (default: quant mma props mutants gate probe
#                                      plugins: the example plugins through qgate gate --plugin)
#   ci/cuda.sh --sanitize              there: the CUDA tests under compute-sanitizer memcheck,
#                                      racecheck, initcheck and synccheck (SAN_TOOLS, SAN_FILTER)
#   ci/cuda.sh --bench                 there: qgate bench --backend cuda (BENCH_ARGS)
#   ci/cuda.sh --pack-qgate NAME BUILD_DIR
#                                      here: a speed variant, only qgate (stripped) and its two
#                                      libraries, into build-NAME-device/ (16 MiB)
#   ci/cuda.sh --ab "NAME ..."         there: qgate bench --backend cuda (BENCH_ARGS) of each
#                                      build-NAME-device/ in turn, AB_ROUNDS rounds (default 3),
#                                      so variants meet the same machine state; one line per
#                                      variant and round: each GEMM's TOPS, each mat-vec's % of
#                                      the read stream
# Logs go to $OUT (or ./device-out); each step prints its tail and rc. Exit 1 if any failed.
# Without a CUDA device the tests report SKIPPED with the reason (and exit 0).
set -uo pipefail
cd "$(dirname "$0")/.."
d=${CUDA_DEVICE_DIR:-build-cuda-device}  # another folder (build-<name>-device) for parallel packs
pack() {  # pack DIR BUILD_DIR TARGET...: stripped binaries and the libraries they load
  local dir=$1 b=$2; shift 2
  rm -rf "$dir" && mkdir -p "$dir/lib" || return 1
  for t in "$@"; do strip -o "$dir/$(basename "$t")" "$b/$t" || return 1; done
  for l in libvulkan.so.1 libpng16.so.16; do cp -L "/lib/x86_64-linux-gnu/$l" "$dir/lib/" || return 1; done
  du -sh "$dir"
}
if [ "${1:-}" = "--pack" ]; then
  pack "$d" "${2:?usage: ci/cuda.sh --pack BUILD_DIR}" properties/qgate_property_tests_cuda \
    properties/qgate_mutant_tests_cuda kernels/qgate_quantize_act_tests_cuda kernels/qgate_mma_tests_cuda \
    tools/qgate/qgate tools/qgate/qgate-mutants examples/plugin_cuda/libqgate_plugin_cuda.so \
    examples/plugin_v2/libqgate_plugin_engine.so examples/plugin_vulkan/libqgate_plugin_vulkan.so
  exit $?
fi
if [ "${1:-}" = "--pack-qgate" ]; then
  pack "build-${2:?usage: ci/cuda.sh --pack-qgate NAME BUILD_DIR}-device" "${3:?usage: ci/cuda.sh --pack-qgate NAME BUILD_DIR}" \
    tools/qgate/qgate
  exit $?
fi
if [ "${1:-}" = "--ab" ]; then
  names=${2:?usage: ci/cuda.sh --ab \"NAME ...\"}
  out="${OUT:-device-out}"
  mkdir -p "$out"
  status=0
  for r in $(seq "${AB_ROUNDS:-3}"); do
    for v in $names; do
      vd=build-$v-device
      LD_LIBRARY_PATH="$PWD/$vd/lib" "$vd/qgate" bench --backend cuda ${BENCH_ARGS:-} > "$out/ab.$v.$r.txt" 2>&1
      rc=$?
      [ $rc -eq 0 ] || status=1
      # the table rows: | format | M | shape | kernel | ms | TOPS | ... and | format | shape | kernel | MB | us | GB/s | % | GB/s | % |
      echo "$v round $r (rc=$rc): $(awk -F'|' '$5 ~ /gemm_/ {printf "%s M=%s %s |", $2, $3, $7} $4 ~ /matmul_/ {printf "%s %s (same bytes %s) |", $2, $8, $10}' "$out/ab.$v.$r.txt" | tr -s ' ')"
    done
  done
  exit $status
fi
out="${OUT:-device-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$d/qgate" list --backends 2>&1 | grep -i cuda | tee "$out/list.txt"
status=0
step() {
  local name=$1; shift
  echo "== $name: $*"
  local t0=$SECONDS
  "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  tail -n 4 "$out/$name.txt"
  echo "rc=$rc ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || status=1
}
# The property tests in SHARDS processes (the oracles run on the host's cores).
props() {
  local n=${SHARDS:-8} pids=() rc=0
  for i in $(seq 0 $((n - 1))); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i "$d/qgate_property_tests_cuda" --gtest_brief=1 \
      > "$out/property_tests.$i.txt" 2>&1 & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  cat "$out"/property_tests.*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]" | sort | uniq -c
  return $rc
}
if [ "${1:-}" = "--sanitize" ]; then
  cs=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
  [ -x "$cs" ] || { echo "compute-sanitizer not found at $cs"; exit 1; }
  filter=${SAN_FILTER:-'*ragged_shapes*:*random_blocks__gemm*:*moe_ragged*:*many_rows__matmul*'}
  for tool in ${SAN_TOOLS:-memcheck racecheck initcheck synccheck}; do
    case $tool in
      memcheck) f=$filter ;;
      *) f=${SAN_FILTER_SLOW:-'*random_blocks__gemm*:*random_blocks__matmul_q4_K*:*random_blocks__matmul_q4_0*:*moe_random__moe_*q4_K*:*many_rows__matmul_q4_0_q8_1_cuda*:*many_rows__matmul_mxfp4*cuda*'} ;;
    esac
    step "san_${tool}_mma" "$cs" --tool "$tool" --error-exitcode 1 "$d/qgate_mma_tests_cuda"
    step "san_${tool}_quant" "$cs" --tool "$tool" --error-exitcode 1 "$d/qgate_quantize_act_tests_cuda"
    step "san_${tool}_props" "$cs" --tool "$tool" --error-exitcode 1 "$d/qgate_property_tests_cuda" \
      --gtest_brief=1 "--gtest_filter=$f"
    step "san_${tool}_probe" "$cs" --tool "$tool" --error-exitcode 1 "$d/qgate" probe replay --backend cuda --steps 8
  done
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$out"/san_*.txt | sort | uniq -c
  exit $status
fi
if [ "${1:-}" = "--bench" ]; then
  step bench "$d/qgate" bench --backend cuda ${BENCH_ARGS:-}
  cat "$out/bench.txt"
  exit $status
fi
# The example plugins: their correct kernels must pass and each wrong one be rejected (the gate
# exits 1); the verdict lines are the result.
plugins() {
  local rc=0
  "$d/qgate" gate --plugin "$d/libqgate_plugin_cuda.so" > "$out/plugin_cuda.txt" 2>&1
  [ $? -eq 1 ] || rc=1
  "$d/qgate" gate --plugin "$d/libqgate_plugin_engine.so" --plugin-arg threads=8 > "$out/plugin_engine.txt" 2>&1
  [ $? -eq 1 ] || rc=1
  # Vulkan: needs the carried loader (ci/device-vulkan.sh); skipped kernels count as a failure here
  "$d/qgate" gate --plugin "$d/libqgate_plugin_vulkan.so" > "$out/plugin_vulkan.txt" 2>&1
  [ $? -eq 1 ] || rc=1
  for f in "$out/plugin_cuda.txt" "$out/plugin_engine.txt" "$out/plugin_vulkan.txt"; do
    grep -E "^  (PASS|FAIL|skipped) " "$f"
    grep -qE "^  PASS (engine|cuda|vk)_" "$f" || rc=1
    grep -qE "^  FAIL (engine|cuda|vk)_" "$f" && rc=1
    grep -qE "^  PASS (wrong|stale)_" "$f" && rc=1
  done
  return $rc
}
for s in ${STEPS:-quant mma props mutants gate probe plugins}; do
  case $s in
    quant) step quantize_act_tests "$d/qgate_quantize_act_tests_cuda" --gtest_brief=1 ;;
    mma) step mma_tests "$d/qgate_mma_tests_cuda" --gtest_brief=1 ;;
    props) step property_tests props ;;
    mutants) step mutant_tests "$d/qgate_mutant_tests_cuda" --gtest_brief=1 ;;
    gate) step gate "$d/qgate" gate --backend cuda --quiet ;;
    probe) step probe "$d/qgate" probe replay --backend cuda --steps 64 ;;
    plugins) step plugins plugins ;;
    cases) step write_cases bash -c "for m in ${CASE_MUTANTS:-}; do \"$d/qgate-mutants\" mutants --only \$m --write-cases \"$out/cases\" || exit 1; done" ;;
  esac
done
exit $status
