#!/usr/bin/env bash
# `make test-image`: the container image, built as `make image` builds it (under a test name), run here with
# podman on lavapipe, and checked:
#   - `framefarm --version` in a container;
#   - `probe --json`, `thumbnails --poster` and `poster` of generated samples mounted read-only, outputs written to a
#     mounted folder, as the non-root user, with a read-only root filesystem and no network: every sheet, poster,
#     playlist and track byte for byte those of the same release binary run on this machine, the manifests and the
#     probe's JSON equal but for the input path;
#   - a library run as two containers at once, each a shard exactly as deploy/kubernetes/indexed-job.yaml sets them
#     (JOB_COMPLETION_INDEX 0 and 1, FRAMEFARM_SHARDS=2, the same arguments) over one shared OUT, then `report`
#     in a container, exit 0.
# The containers and the test image are removed whatever happens. Where podman cannot be installed it says so in one
# line and skips, except under CI (CI set), where that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test-image: $*"; }
fail() { say "FAILED: $*"; exit 1; }

if ! scripts/install-deps.sh --image; then
    [[ -n "${CI:-}" ]] && fail "podman and debootstrap could not be installed"
    say "skipped: podman and debootstrap could not be installed (apt-get failed)"
    exit 0
fi
export CONTAINERS_CONF=$PWD/scripts/image/containers.conf
image=localhost/framefarm-test
work=$(mktemp -d /tmp/framefarm-image.XXXXXX)
containers=()
cleanup() {
    for container in "${containers[@]}"; do podman rm -f "$container" > /dev/null 2>&1 || true; done
    podman images --format '{{.Repository}}:{{.Tag}}' | grep "^$image:" | xargs -r podman rmi -f > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
IMAGE_NAME=$image IMAGE_ARCHIVE=0 scripts/image/build.sh
host=.build/image/swift/release/framefarm
version=$("$host" --version | head -1 | cut -d' ' -f2)
say "image built in $(( $(date +%s) - started )) s"

# Every container: named (so cleanup can remove it), the non-root user, read-only root, no network. The name is
# taken here, in this shell, even for a container started in the background.
next_name() {
    name=framefarm-test-$$-${#containers[@]}
    containers+=("$name")
}
run() {
    next_name
    podman run --name "$name" --read-only --network none --user 10001:10001 "$@"
}

line=$(run --rm "$image:$version" --version | head -1)
[[ $line == "framefarm $version" ]] || fail "--version in a container printed '$line'"

# Samples made on this machine, mounted read-only.
mkdir -p "$work/in" "$work/host" "$work/container"
"$host" sample --out "$work/in/letterboxed.mp4" --duration 6 --size 640x360 --letterbox --keyframe-interval 1 > /dev/null
"$host" sample --out "$work/in/portrait.mov" --duration 4 --size 240x426 --keyframe-interval 1 > /dev/null
chown -R 10001:10001 "$work/container"
mounts=(-v "$work/in:/data/in:ro" -v "$work/container:/data/out")
inputs=(/data/in/letterboxed.mp4 /data/in/portrait.mov)

"$host" probe --json "$work/in/letterboxed.mp4" "$work/in/portrait.mov" > "$work/host-probe.json"
run --rm "${mounts[@]}" "$image:$version" probe --json "${inputs[@]}" > "$work/container-probe.json"
"$host" thumbnails "$work/in/letterboxed.mp4" "$work/in/portrait.mov" --out "$work/host" --interval 2 --poster --quiet
run --rm "${mounts[@]}" "$image:$version" thumbnails "${inputs[@]}" --out /data/out --interval 2 --poster --quiet
"$host" poster "$work/in/letterboxed.mp4" --out "$work/host/posters" --quiet
run --rm "${mounts[@]}" "$image:$version" poster /data/in/letterboxed.mp4 --out /data/out/posters --quiet

compared=0
while IFS= read -r file; do
    [[ -f "$work/container/$file" ]] || fail "the container did not write $file"
    cmp -s "$work/host/$file" "$work/container/$file" || fail "$file differs between host and container"
    compared=$((compared + 1))
done < <(cd "$work/host" && find . -type f \( -name '*.jpg' -o -name '*.png' -o -name '*.vtt' -o -name '*.m3u8' \
                                             -o -name '*.mpd' -o -name '*.mp4' -o -name '*.txt' \) | sort)
(( compared >= 20 )) || fail "only $compared files compared"
# Manifests and probe reports: equal once the input paths (and the file times they carry) are left out.
python3 - "$work" <<'PYTHON' || fail "manifests or probe reports differ between host and container"
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in ("path", "modifiedSeconds")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value
pairs = [(work / "host-probe.json", work / "container-probe.json")]
pairs += [(m, work / "container" / m.relative_to(work / "host")) for m in (work / "host").rglob("manifest.json")]
assert len(pairs) >= 4, pairs
for host, container in pairs:
    if scrub(json.loads(host.read_text())) != scrub(json.loads(container.read_text())):
        sys.exit(f"{host.relative_to(work)} differs")
PYTHON
say "probe, thumbnails --poster and poster: $compared files byte-identical to the host's, manifests equal"

# The Kubernetes Indexed Job, two pods at once: its arguments and environment, one shared OUT.
mkdir -p "$work/data/library/news" "$work/data/library/sport" "$work/data/out"
for name in news/a news/b news/c sport/d sport/e; do
    "$host" sample --out "$work/data/library/$name.mp4" --duration 3 --size 320x180 --keyframe-interval 1 > /dev/null
done
(cd "$work/data/library" && find . -name '*.mp4' | sort | sed 's|^\.|/data/library|') > "$work/data/list.txt"
chown -R 10001:10001 "$work/data/out"
shared=(-v "$work/data/library:/data/library:ro" -v "$work/data/list.txt:/data/list.txt:ro" -v "$work/data/out:/data/out")
# The arguments as the manifest gives them, so the test runs what a cluster would.
mapfile -t job_args < <(python3 -c '
import re
text = open("deploy/kubernetes/indexed-job.yaml").read()
match = re.search(r"args: \[(.*?)\]", text, re.S)
print("\n".join(re.findall(r"\"([^\"]*)\"", match.group(1))))')
pids=()
for index in 0 1; do
    next_name
    podman run --name "$name" --read-only --network none --user 10001:10001 --rm "${shared[@]}" \
        -e JOB_COMPLETION_INDEX=$index -e FRAMEFARM_SHARDS=2 "$image:$version" "${job_args[@]}" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a shard's container failed"; done
run --rm "${shared[@]}" "$image:$version" report /data/out --inputs-from /data/list.txt \
    || fail "report found the library incomplete"
done_count=$(find "$work/data/out" -name manifest.json | wc -l)
[[ $done_count -eq 5 ]] || fail "$done_count of 5 library videos have a manifest"
say "two shard containers and report: the library of 5 videos complete"
say "passed in $(( $(date +%s) - started )) s"
