#!/usr/bin/env bash
# `make image`: FrameFarm's container image from Debian's packages alone, with no registry: a debootstrap'ed
# bookworm with only the libraries FrameFarm runs with, and the release `framefarm` with the Swift runtime linked
# in. Tags IMAGE_NAME:<version> and IMAGE_NAME:latest (default localhost/framefarm) in podman's storage and writes
# .build/image/<name>-<version>.oci.tar, an OCI archive any registry tool can push (docs/container.md; IMAGE_ARCHIVE=0
# leaves it out).
# The base is cached in .build/image per package list: a second build only relinks and re-imports.
set -euo pipefail
cd "$(dirname "$0")/../.."

name=${IMAGE_NAME:-localhost/framefarm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=.build/image
export CONTAINERS_CONF=$PWD/scripts/image/containers.conf
# What `ldd framefarm` asks for, by package (and lavapipe, the Vulkan driver that needs no GPU; CA certificates
# for https inputs). Nothing for building.
runtime_packages=(libavformat59 libavcodec59 libavutil57 libswscale6 libvulkan1 mesa-vulkan-drivers libpng16-16
                  libturbojpeg0 libdeflate0 libwebp7 libcurl4 ca-certificates)
say() { echo "image: $*"; }

mkdir -p "$work"
swift build -c release --product framefarm --static-swift-stdlib --scratch-path "$work/swift"
binary=$work/swift/release/framefarm
version=$("$binary" --version | head -1 | cut -d' ' -f2)

key=$( (echo "$mirror"; printf '%s\n' "${runtime_packages[@]}") | sha256sum | cut -c1-12)
base=$work/base-bookworm-$key.tar
staging=$(mktemp -d "$PWD/$work/staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT
if [[ ! -f $base ]]; then
    say "debootstrap bookworm with ${runtime_packages[*]} (once; cached as $base)"
    debootstrap --variant=minbase --include="$(IFS=,; echo "${runtime_packages[*]}")" bookworm "$staging" "$mirror" \
        > "$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; exit 1; }
    # What a runtime image never reads: downloaded packages, package lists, documentation, translations.
    rm -rf "$staging"/var/cache/apt/archives/*.deb "$staging"/var/lib/apt/lists/* \
           "$staging"/usr/share/doc/* "$staging"/usr/share/man/* "$staging"/usr/share/info/* "$staging"/usr/share/locale/*
    tar -C "$staging" -cf "$base.partial" . && mv "$base.partial" "$base"
    rm -rf "$staging" && mkdir "$staging"
fi
tar -C "$staging" -xf "$base"
# Stripped: 60 MB instead of 81; the code is the same as the host binary test-image compares with.
install -s -m 0755 "$binary" "$staging/usr/local/bin/framefarm"
# The user it runs as: not root, no home (HOME is /tmp, a tmpfs under --read-only).
echo "framefarm:x:10001:10001:FrameFarm:/tmp:/usr/sbin/nologin" >> "$staging/etc/passwd"
echo "framefarm:x:10001:" >> "$staging/etc/group"

say "importing $name:$version"
tar -C "$staging" -c . | podman import --quiet \
    --change 'ENTRYPOINT ["/usr/local/bin/framefarm"]' \
    --change 'USER 10001:10001' \
    --change 'WORKDIR /tmp' \
    --change 'ENV HOME=/tmp' \
    --change 'ENV MESA_SHADER_CACHE_DISABLE=true' \
    --message "FrameFarm $version" - "$name:$version" > /dev/null
podman tag "$name:$version" "$name:latest"
size=$(podman image inspect --format '{{.Size}}' "$name:$version" | awk '{ printf "%.0f MB", $1 / 1e6 }')
if [[ ${IMAGE_ARCHIVE:-1} == 0 ]]; then
    say "$name:$version and :latest ($size)"
    exit 0
fi
archive=$work/$(basename "$name")-$version.oci.tar
rm -f "$archive"
podman save --format oci-archive -o "$archive" "$name:$version" > /dev/null 2>&1
say "$name:$version and :latest ($size); archive $archive ($(du -m "$archive" | cut -f1) MB)"
