#!/usr/bin/env bash
# Installs every build and test dependency of qgate from Debian 12 packages.
# Idempotent; needs root (or sudo) for apt-get. Nothing is downloaded from anywhere else.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev librapidcheck-dev libeigen3-dev libboost-dev
  libcli11-dev nlohmann-json3-dev libpng-dev
  libvulkan-dev mesa-vulkan-drivers glslc spirv-tools
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
