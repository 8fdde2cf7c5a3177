#!/usr/bin/env bash
# Builds FrameFarm against the next FFmpeg users will have (Debian 13's 7.1, from Debian's own source through a
# private apt configuration) and runs the whole test suite with it: the check that Sources/CFFmpeg/compat.h keeps
# the code building and behaving on FFmpeg 7. FFmpeg is built once, with its internal codecs plus x264, x265 and
# libwebp (what the tests encode with), into .build/ffmpeg-next; FrameFarm into .build-ffmpeg-next.
#
# Usage: scripts/test-ffmpeg-next.sh   (make test-ffmpeg-next; about 15 minutes on 2 cores the first time)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$PWD/.build/ffmpeg-next
PREFIX=$WORK/install
SUITE=${FFMPEG_NEXT_SUITE:-trixie}
mkdir -p "$WORK"

scripts/install-deps.sh --test
apt-get install -y -qq dpkg-dev nasm libx264-dev libx265-dev libnuma-dev libwebp-dev >/dev/null

if [ ! -f "$PREFIX/lib/pkgconfig/libavformat.pc" ]; then
    lists=$WORK/apt-lists
    mkdir -p "$lists/partial"
    echo "deb-src http://deb.debian.org/debian $SUITE main" > "$WORK/sources.list"
    apt_source=(-o Dir::Etc::SourceList="$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$lists")
    apt-get "${apt_source[@]}" update -qq
    rm -rf "$WORK/src" && mkdir -p "$WORK/src"
    (cd "$WORK/src" && apt-get "${apt_source[@]}" source -qq ffmpeg >/dev/null 2>&1)
    source_dir=$(find "$WORK/src" -maxdepth 1 -type d -name 'ffmpeg-*' | head -1)
    echo "framefarm: building $(basename "$source_dir") into $PREFIX"
    (cd "$source_dir" &&
        ./configure --prefix="$PREFIX" --enable-shared --disable-static --disable-doc --disable-debug \
            --disable-autodetect --enable-gpl --enable-libx264 --enable-libx265 --enable-libwebp --enable-zlib \
            --enable-pthreads --disable-avdevice --disable-postproc --disable-network --disable-hwaccels \
            --disable-programs >/dev/null &&
        make -j"$(nproc)" >/dev/null 2>&1 && make install >/dev/null 2>&1)
fi
echo "framefarm: testing against FFmpeg $(pkg-config --modversion "$PREFIX/lib/pkgconfig/libavformat.pc") (libavformat)"

# SwiftPM puts each package's -L on the link line as its .pc file says, and Debian's libpng, libdeflate,
# libturbojpeg and libwebp name the system folder, which comes before FFmpeg's and would link Debian's FFmpeg 5.1.
# Copies of their .pc files without the -L (the system folder is searched anyway) keep FFmpeg 7.1's folder first.
overrides=$WORK/pkgconfig
mkdir -p "$overrides"
for package in libpng libdeflate libturbojpeg libwebp; do
    sed 's/^Libs: -L${libdir} /Libs: /' "$(pkg-config --variable=pcfiledir $package)/$package.pc" > "$overrides/$package.pc"
done
export PKG_CONFIG_PATH=$overrides:$PREFIX/lib/pkgconfig
export LD_LIBRARY_PATH=$PREFIX/lib
swift build --build-tests --scratch-path .build-ffmpeg-next
FRAMEFARM_VALIDATION=1 scripts/run-tests.sh --scratch-path .build-ffmpeg-next
