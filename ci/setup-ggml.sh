#!/usr/bin/env bash
# Fetches the shipped ggml build the ggml adapter gates (integrations/ggml, docs/GGML.md):
# node-llama-cpp's prebuilt llama.cpp / ggml 0.23 libraries from the npm registry, pinned by
# version and sha256, unpacked into build/ggml/<package>/ (libggml-base.so, libggml-cpu-<arch>.so,
# and in the vulkan package libggml-vulkan.so). npm comes from Debian when the machine lacks it.
#
# Never fails the build: where the registry cannot be reached or a checksum differs it writes
# the reason to build/ggml/UNAVAILABLE, and the ggml tests report skipped with that reason.
# Measured on Debian 12 (2026-12-05): 10.6 MB (cpu) + 27.5 MB (vulkan) fetched in about 5 s.
set -uo pipefail
cd "$(dirname "$0")/.."
out=build/ggml
mkdir -p "$out"
rm -f "$out/UNAVAILABLE"
unavailable() { echo "setup-ggml: $1" >&2; echo "$1" > "$out/UNAVAILABLE"; exit 0; }

version=3.21.1
packages=(
  "linux-x64 4b5b65a8b2611d8af94349b02d815c0f424a30a0a19aef2be5db25ecfef6730f"
  "linux-x64-vulkan 4877be47f01586481615aec277c23c7f660592ce66eec2753ff1dcc967a9a0d2"
)

if ! command -v npm >/dev/null 2>&1; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "setup-ggml: installing npm (Debian)"
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null \
    || unavailable "npm is not installed and apt-get could not install it"
fi

for p in "${packages[@]}"; do
  read -r name sha <<<"$p"
  dest="$out/$name"
  if [ -f "$dest/.sha256" ] && [ "$(cat "$dest/.sha256")" = "$sha" ]; then continue; fi
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && timeout 300 npm pack --silent "@node-llama-cpp/$name@$version" >/dev/null 2>"$tmp/err"); then
    reason="npm pack @node-llama-cpp/$name@$version failed: $(tail -1 "$tmp/err")"
    rm -rf "$tmp"
    unavailable "$reason"
  fi
  tgz=$(ls "$tmp"/*.tgz)
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  [ "$got" = "$sha" ] || { rm -rf "$tmp"; unavailable "@node-llama-cpp/$name@$version has sha256 $got, want $sha"; }
  rm -rf "$dest"
  mkdir -p "$dest"
  tar xzf "$tgz" -C "$tmp"
  mv "$tmp"/package/bins/*/* "$dest"/
  echo "$sha" > "$dest/.sha256"
  rm -rf "$tmp"
  echo "setup-ggml: $dest ($(ls "$dest" | wc -l) files, ggml from @node-llama-cpp/$name@$version)"
done
