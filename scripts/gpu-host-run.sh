#!/usr/bin/env bash
# Runs FrameFarm on a GPU host from the bundle that scripts/gpu-host-bundle.sh made (DIR, default .gpu-host),
# from the repository root. Steps, in the order given:
#   env       the host: OS, cores, GPUs, Vulkan drivers, libraries the tools cannot find
#   smoke     sample, preview, thumbnails and poster of a 30-s 1080p clip, timed, with per-submission GPU timing;
#             then each over 21 one-second clips with --jobs 2 and 8
#   tests     the whole test suite with the validation layer on (log: $OUT/tests.log)
#   inputs    start making the bench's inputs in the background (they outlive this command while the host stays)
#   wait      wait for those inputs
#   bench:ARGS  the bench with ARGS, separated by '+', report to $OUT/bench-N.md and .json
# Example: scripts/gpu-host-run.sh env smoke inputs tests wait bench:--only+preview,poster+--repeat+3
set -u
DIR=${GPU_HOST_DIR:-.gpu-host}
OUT=${OUT:-/tmp/gpu-host-out}
ROOT=/tmp/framefarm-gpu-host
mkdir -p "$OUT"
for deb in "$DIR"/*.deb; do dpkg -x "$deb" /; done
ldconfig
if [ ! -x $ROOT/bin/framefarm ]; then
    mkdir -p $ROOT && tar -xJf "$DIR/bundle.tar.xz" -C $ROOT
    # The tools look for the Swift runtime where the toolchain keeps it (their RUNPATH).
    mkdir -p /opt/swift/usr/lib/swift/linux && cp --update=none $ROOT/swift/*.so /opt/swift/usr/lib/swift/linux/
fi
export LD_LIBRARY_PATH=$ROOT/lib PATH=$ROOT/bin:$PATH VK_LAYER_PATH=$ROOT/layers
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d $d ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d; done
if ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
    icd=$(ls /usr/local/nvidia/share/vulkan/icd.d/*.json 2>/dev/null | head -1)
    [ -n "$icd" ] && export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
fi
runs=0
for step in "$@"; do
    echo "=== $step $(date +%T)"
    case $step in
    env)
        grep PRETTY_NAME /etc/os-release; ldd --version | head -1; echo "$(nproc) cores"
        nvidia-smi -L 2>/dev/null
        ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>/dev/null
        ldd $ROOT/bin/framefarm $ROOT/tests/FrameFarmPackageTests.xctest | grep "not found"
        ;;
    smoke)
        rm -rf /tmp/smoke && mkdir -p /tmp/smoke
        framefarm sample --out /tmp/smoke/s.mp4 --duration 30 --size 1920x1080 --keyframe-interval 2
        FRAMEFARM_GPU_TIMING=1 /usr/bin/time -f "preview %e s, %M KB" framefarm preview /tmp/smoke/s.mp4 --out /tmp/smoke/o
        /usr/bin/time -f "thumbnails %e s" framefarm thumbnails /tmp/smoke/s.mp4 --out /tmp/smoke/o --interval 2
        /usr/bin/time -f "poster %e s" framefarm poster /tmp/smoke/s.mp4 --out /tmp/smoke/o
        # 21 one-second clips (links to one), 2 and 8 inputs in flight: what --jobs gives short clips on many cores.
        framefarm sample --out /tmp/smoke/short.mp4 --duration 1 --size 1280x720 --keyframe-interval 1
        for i in $(seq -w 0 20); do ln -sf short.mp4 /tmp/smoke/c$i.mp4; done
        for jobs in 2 8; do
            for command in poster thumbnails "preview --devices iphone-16-pro"; do
                /usr/bin/time -f "$command --jobs $jobs, 21 clips: %e s" \
                    framefarm $command /tmp/smoke/c*.mp4 --out /tmp/smoke/jobs$jobs --quiet --jobs $jobs
            done
        done
        ;;
    tests)
        FRAMEFARM_VALIDATION=1 $ROOT/tests/FrameFarmPackageTests.xctest --testing-library swift-testing > "$OUT/tests.log" 2>&1
        echo "tests exit $?"; grep -E "✘|Test run" "$OUT/tests.log" | tail -30
        ;;
    inputs)
        mkdir -p .build && setsid nohup bench --prepare-only > .build/inputs.log 2>&1 < /dev/null &
        ;;
    wait)
        while pgrep -f "bench --prepare-only" > /dev/null; do sleep 2; done; cat .build/inputs.log
        ;;
    bench:*)
        runs=$((runs + 1))
        IFS=+ read -r -a arguments <<< "${step#bench:}"
        bench "${arguments[@]}" --markdown "$OUT/bench-$runs.md" --json "$OUT/bench-$runs.json" > /dev/null 2> "$OUT/bench-$runs.err"
        echo "bench exit $?"; grep -E "^\| (thumbnails|preview|poster)" "$OUT/bench-$runs.md" | head -12
        ;;
    *) echo "unknown step $step"; exit 2 ;;
    esac
done
