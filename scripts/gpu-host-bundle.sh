#!/usr/bin/env bash
# Packs FrameFarm to run on a GPU host that has neither Swift nor FFmpeg (an x86-64 glibc >= 2.36 Linux with a
# Vulkan driver), in under 64 MiB: the release `framefarm` and `bench`, the debug test bundle, the Swift runtime,
# Debian's Vulkan loader and GL dispatch libraries (NVIDIA's Vulkan driver needs libGLdispatch), the validation
# layer, and an FFmpeg 5.1 built from Debian's own source with only its internal codecs plus x264 and x265.
# Debian's FFmpeg links about 200 libraries (300 MB); this one keeps the same sonames and symbol versions, so the
# tools built against Debian's headers load it unchanged, and its ffmpeg CLI serves as the bench's peer.
#
# Usage: scripts/gpu-host-bundle.sh [DIR]   (default .gpu-host; about 10 minutes on 2 cores the first time)
# Then, on the GPU host, from a copy of this repository with DIR beside it: scripts/gpu-host-run.sh STEP...
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.gpu-host}
WORK=.build/gpu-host
FFMPEG=$WORK/ffmpeg
mkdir -p "$DIR" "$WORK"

apt-get install -y -qq dpkg-dev nasm libx264-dev libx265-dev libnuma-dev vulkan-validationlayers >/dev/null

if [ ! -x "$FFMPEG/bin/ffmpeg" ]; then
    # Debian's source of the FFmpeg the tools were built against, through a private apt configuration.
    lists=$WORK/apt-lists
    mkdir -p "$lists/partial"
    cat > "$WORK/sources.list" <<EOF
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
    apt_source=(-o Dir::Etc::SourceList="$PWD/$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$PWD/$lists")
    apt-get "${apt_source[@]}" update -qq
    version=$(dpkg-query -W -f '${Version}' libavcodec-dev)
    rm -rf "$WORK/src" && mkdir -p "$WORK/src"
    (cd "$WORK/src" && apt-get "${apt_source[@]}" source -qq "ffmpeg=$version" >/dev/null 2>&1)
    source_dir=$(find "$WORK/src" -maxdepth 1 -type d -name 'ffmpeg-*' | head -1)
    (cd "$source_dir" &&
        ./configure --prefix="$PWD/../../ffmpeg" --enable-shared --disable-static --disable-doc --disable-debug \
            --disable-autodetect --enable-gpl --enable-libx264 --enable-libx265 --enable-zlib --enable-pthreads \
            --disable-avdevice --disable-postproc --disable-network --disable-hwaccels >/dev/null &&
        make -j"$(nproc)" >/dev/null 2>&1 && make install >/dev/null 2>&1)
fi

swift build -c release --product framefarm
swift build -c release --product bench
swift build --build-tests

stage=$WORK/stage
rm -rf "$stage" && mkdir -p "$stage"/{lib,bin,swift,tests,layers}
cp -a "$FFMPEG"/lib/lib*.so.* "$stage/lib/"
for library in libx264.so.164 libx265.so.199 libnuma.so.1 libpng16.so.16 libturbojpeg.so.0 libdeflate.so.0 libwebp.so.7 \
               libvulkan.so.1 libxml2.so.2 libicuuc.so.72 libicudata.so.72 liblzma.so.5 libz.so.1; do
    cp -L "/usr/lib/x86_64-linux-gnu/$library" "$stage/lib/"
done
cp "$FFMPEG"/bin/ffmpeg "$FFMPEG"/bin/ffprobe .build/release/framefarm .build/release/bench "$stage/bin/"
# The tests find the CLI next to their bundle.
cp .build/debug/FrameFarmPackageTests.xctest .build/debug/framefarm "$stage/tests/"
swift_lib=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux
for name in swiftCore swift_Concurrency swift_StringProcessing swift_RegexParser swiftGlibc BlocksRuntime dispatch \
            swiftDispatch Foundation FoundationEssentials FoundationInternationalization _FoundationICU FoundationXML \
            Testing XCTest _Testing_Foundation _TestingInterop swiftSwiftOnoneSupport swiftSynchronization \
            swift_Builtin_float; do
    cp "$swift_lib/lib$name.so" "$stage/swift/"
done
cp /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so "$stage/layers/"
sed 's#"library_path": *"[^"]*"#"library_path": "./libVkLayer_khronos_validation.so"#' \
    /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json > "$stage/layers/VkLayer_khronos_validation.json"
strip --strip-unneeded "$stage"/bin/* "$stage"/tests/* "$stage"/lib/* "$stage"/swift/* "$stage"/layers/*.so 2>/dev/null || true
tar -C "$stage" -cf - . | xz -T"$(nproc)" -6 > "$DIR/bundle.tar.xz"

# libglvnd's dispatch libraries, which NVIDIA's Vulkan driver (libGLX_nvidia) loads.
rm -f "$DIR"/*.deb
(cd "$DIR" && apt-get download -qq libglvnd0 libglx0 libegl1 libgl1 libgles2 libopengl0 2>/dev/null)
du -sh "$DIR"
echo "gpu-host-bundle: carry $DIR; on the host run scripts/gpu-host-run.sh env smoke tests (and bench ...)"
