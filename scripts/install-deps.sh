#!/usr/bin/env bash
# Installs the system libraries FrameFarm builds and runs against, only those missing.
# Usage: scripts/install-deps.sh [--test | --bench | --cluster | --image]
#   --test adds the validation layer, pngcheck, Chromium (a test renders the contact sheet in it),
#   junitparser (a test parses lint's JUnit report with it), nginx and openssl (the http(s) input tests serve videos over http and https)
#   and the ffmpeg CLI (tests cut clips with a stream copy, as users do);
#   --bench the ffmpeg CLI, the peers `bench` times against; --cluster Slurm and munge, for `make test-cluster`;
#   --image podman, runc and debootstrap, for `make image` and `make test-image`.
set -euo pipefail

packages=(pkg-config libvulkan-dev mesa-vulkan-drivers glslang-tools spirv-tools
          libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
          libpng-dev libdeflate-dev libturbojpeg0-dev libwebp-dev libcurl4-openssl-dev)
if [[ "${1:-}" == "--test" ]]; then
    packages+=(vulkan-validationlayers pngcheck chromium python3-junitparser nginx openssl ffmpeg)
fi
if [[ "${1:-}" == "--bench" ]]; then
    packages+=(ffmpeg)
fi
if [[ "${1:-}" == "--cluster" ]]; then
    packages+=(slurm-wlm munge)
fi
if [[ "${1:-}" == "--image" ]]; then
    packages+=(podman runc debootstrap uidmap)
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "framefarm: installing system packages: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "framefarm: installed ${#missing[@]} packages"
