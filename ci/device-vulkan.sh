#!/usr/bin/env bash
# The Vulkan run on the GPU machine: binaries built here and copied
# into build-device/ (ci/device-vulkan.sh --pack), the Debian Vulkan loader in .gl/.
# There: unpack the loader, then the Vulkan property and mutant tests, the gate, the replay
# probe and the mat-vec benchmark; logs go to $OUT (or ./device-out).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--pack" ]; then  # here: stripped copies of what the run needs
  d=${VK_DEVICE_DIR:-build-device}; b=${VK_BUILD_DIR:-build/cpu}
  rm -rf "$d" && mkdir -p "$d"
  for t in tools/qgate/qgate tools/qgate/qgate-mutants properties/qgate_property_tests_vulkan \
           properties/qgate_mutant_tests_vulkan; do
    strip -o "$d/$(basename "$t")" "$b/$t"
  done
  du -sh "$d"
  exit 0
fi
out="${OUT:-device-out}"
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
d=${VK_DEVICE_DIR:-build-device}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$d/qgate" list --backends 2>&1 | head -6 | tee "$out/list.txt"
status=0
step() { local name=$1; shift; echo "== $name"; "$@" > "$out/$name.txt" 2>&1; local rc=$?; tail -4 "$out/$name.txt"; echo "rc=$rc"; [ $rc -eq 0 ] || status=1; }
for s in ${STEPS:-props mutants gate probe bench}; do
  case $s in
    props) step property_tests "$d/qgate_property_tests_vulkan" --gtest_brief=1 ;;
    mutants) step mutant_tests "$d/qgate_mutant_tests_vulkan" --gtest_brief=1 ;;
    gate) step gate "$d/qgate" gate --backend vulkan --quiet ;;
    probe) step probe "$d/qgate" probe replay --backend vulkan --steps 64 ;;
    bench) step bench "$d/qgate" bench --backend vulkan ${BENCH_ARGS:-} ;;
  esac
done
exit $status
