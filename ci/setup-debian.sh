#!/usr/bin/env bash
# Installs every build and test dependency of qgate from Debian 12 packages.
# Idempotent; needs root (or sudo) for apt-get. Nothing is downloaded from anywhere else.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev librapidcheck-dev libeigen3-dev libboost-dev
  libcli11-dev nlohmann-json3-dev libpng-dev
  libvulkan-dev mesa-vulkan-drivers glslc spirv-tools
  # AMD code objects of the CUDA-dialect kernels (kernels/hip/hip.cmake, docs/HIP.md):
  # hipcc = ROCm 5.2's compiler driver (clang 15) with its headers and device libraries,
  #   for gfx90a and gfx1030, the newest targets those libraries cover;
  # clang-19 + lld-19 = the only Debian 12 compiler that emits gfx1100/gfx1151/gfx1201/gfx942
  #   (built -nogpulib against ROCm 5.2's headers), and the linker its amdgcn link step runs;
  # llvm-19 = llvm-nm (the build's fully-resolved check), llvm-readelf/llvm-objdump that
  #   know gfx12 (the code-object census, qgate census);
  # libamdhip64-dev (pulled in by hipcc) = the HIP headers backends/hip compiles against
  #   (libamdhip64.so.5 is opened at run time, not linked).
  # Measured on Debian 12 (2026-12-01): 34 packages, 133 MB download, 660 MB installed,
  # 18 s to install with the .debs already in the apt cache.
  hipcc clang-19 lld-19 llvm-19
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-debian: all ${#pkgs[@]} packages present"
  exit 0
fi
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "setup-debian: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
