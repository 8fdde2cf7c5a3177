#!/usr/bin/env bash
# `make test-cluster`: FrameFarm on a real one-node Slurm cluster started here. It installs slurm-wlm and munge
# when missing, starts munged, slurmctld and slurmd from a configuration in a temporary folder, submits
# deploy/slurm/framefarm.sbatch as an array job over a generated library (mixed lengths and sizes, stems repeated
# in different folders, one file that is no video), and checks:
#   - every good input done exactly once, by exactly one array task (from the run records);
#   - the outputs are byte for byte those of one process over the same list;
#   - `report` finds the bad input failed (exit 1), and exits 0 once the list leaves it out;
#   - an array task cancelled mid-run (scancel) leaves inputs missing, and running that index again (alone, with
#     FRAMEFARM_SHARDS) completes the library as that shard.
# The daemons are stopped by their process ids and the folder removed, whatever happens. Where the packages
# cannot be installed it says so in one line and skips, except under CI (CI set), where that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test-cluster: $*"; }
fail() { say "FAILED: $*"; exit 1; }

if ! scripts/install-deps.sh --cluster; then
    [[ -n "${CI:-}" ]] && fail "slurm-wlm and munge could not be installed"
    say "skipped: slurm-wlm and munge could not be installed (apt-get failed)"
    exit 0
fi
framefarm=${FRAMEFARM:-$PWD/.build/debug/framefarm}
[[ -x "$framefarm" ]] || fail "no framefarm binary at $framefarm (run swift build first)"

work=$(mktemp -d /tmp/framefarm-cluster.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# The library: 17 videos of 1-6 s at three sizes, clip.mp4 in three folders, and a file that is no video.
library=$work/library
mkdir -p "$library"/{news,sport,films/old}
sizes=(320x180 480x270 256x144)
index=0
for name in news/clip news/a news/b news/c sport/clip sport/d sport/e sport/f films/clip films/g films/h \
            films/old/i films/old/j films/old/k films/old/l news/m sport/n; do
    "$framefarm" sample --out "$library/$name.mp4" --duration $((1 + index % 6)) --size "${sizes[index % 3]}" \
        --keyframe-interval 1 >/dev/null
    index=$((index + 1))
done
echo "not a video" > "$library/news/broken.mp4"
find "$library" -name '*.mp4' | sort > "$work/list.txt"
grep -v broken "$work/list.txt" > "$work/good.txt"
say "library of $(wc -l < "$work/list.txt") files, one of them broken"

# One node: this machine, everything under $work, ports unlikely to be taken.
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
mkdir -p "$work"/{state,spool,logs}
mungekey -c -k "$work/munge.key" >/dev/null 2>&1 || dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$work/munge.key"
cat > "$work/slurm.conf" <<CONF
ClusterName=framefarm-test
SlurmctldHost=$host
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmctldLogFile=$work/logs/slurmctld.log
SlurmdLogFile=$work/logs/slurmd.log
NodeName=$host CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

start() { # name pidfile command...: starts a daemon and records its pid
    local name=$1 pidfile=$2
    shift 2
    "$@" || fail "$name did not start"
    for _ in $(seq 50); do [[ -s "$pidfile" ]] && break; sleep 0.1; done
    [[ -s "$pidfile" ]] || fail "$name wrote no pid file"
    pids+=("$(cat "$pidfile")")
}
start munged "$work/munged.pid" munged --key-file="$work/munge.key" --socket="$work/munge.socket" \
    --pid-file="$work/munged.pid" --log-file="$work/logs/munged.log" --seed-file="$work/munge.seed" --force
start slurmctld "$work/slurmctld.pid" slurmctld -f "$SLURM_CONF"
start slurmd "$work/slurmd.pid" slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.2
done
sinfo -h -o %t | grep -q idle || { tail -5 "$work/logs/slurmctld.log" "$work/logs/slurmd.log"; fail "the node never became idle"; }
say "slurm $(sinfo -V | cut -d' ' -f2) up on $host (ports $port, $((port + 1)))"

command=(thumbnails --layout mirror --inputs-root "$library" --interval 1)
submit() { # out array [exports]: submits the sbatch file and prints the job id
    sbatch --parsable --array="$2" --cpus-per-task=1 --mem-per-cpu=64M --output="$work/logs/task-%A_%a.log" \
        --export=ALL,FRAMEFARM="$framefarm"${3:+,$3} deploy/slurm/framefarm.sbatch "$work/list.txt" "$1" "${command[@]}"
}
wait_for() { # job: waits until none of its tasks is queued or running (5 minutes at most)
    for _ in $(seq 1500); do
        [[ -z "$(squeue -h -j "$1" 2>/dev/null)" ]] && return 0
        sleep 0.2
    done
    fail "job $1 still running after 5 minutes"
}
report() { # out list: framefarm report's exit status
    local status=0
    "$framefarm" report "$1" --inputs-from "$2" > "$work/report.json" 2> "$work/report.txt" --json || status=$?
    echo "$status"
}

# 1. The library in 4 array tasks against one OUT, then the same list in one process.
job=$(submit "$work/cluster" 0-3)
wait_for "$job"
"$framefarm" "${command[@]}" --inputs-from "$work/list.txt" --out "$work/single" --quiet || true
records=("$work"/cluster/.framefarm/runs/*.json)
[[ ${#records[@]} -eq 4 ]] || fail "expected 4 run records, found ${#records[@]}"
folders=$(grep -h '"folder"' "${records[@]}" | sort)
[[ -z "$(uniq -d <<< "$folders")" ]] || fail "array tasks shared folders: $(uniq -d <<< "$folders" | tr '\n' ' ')"
[[ $(wc -l <<< "$folders") -eq $(wc -l < "$work/list.txt") ]] || fail "the run records do not name every input once"
done_count=$(grep -h '"status" : "done"' "${records[@]}" | wc -l)
[[ $done_count -eq $(wc -l < "$work/good.txt") ]] || fail "$done_count inputs done, not $(wc -l < "$work/good.txt")"
diff -r -q -x .framefarm -x index.html -x 'page-*.html' -x summary.json "$work/single" "$work/cluster" \
    || fail "the array job's outputs differ from one process's"
say "4 array tasks: every good input done once, outputs identical to one process's"

# 2. report: the broken file failed (exit 1); without it in the list, complete (exit 0).
[[ $(report "$work/cluster" "$work/list.txt") -eq 1 ]] || fail "report did not exit 1 with a failed input"
grep -q "broken.mp4" "$work/report.txt" || fail "report did not name the broken input: $(cat "$work/report.txt")"
[[ $(report "$work/cluster" "$work/good.txt") -eq 0 ]] || fail "report on the good list: $(cat "$work/report.txt")"
say "report: the broken input failed (exit 1), the good list complete (exit 0)"

# 3. A task cancelled mid-run, then run again.
job=$(submit "$work/retried" 0-3)
for _ in $(seq 600); do
    [[ "$(squeue -h -j "${job}_2" -o %t 2>/dev/null)" == "R" ]] && break
    sleep 0.05
done
scancel "${job}_2"
wait_for "$job"
after_cancel=$(report "$work/retried" "$work/good.txt")
grep -q "missing" "$work/report.txt" || say "note: task 2 ended before the cancel reached it"
[[ $after_cancel -eq 1 ]] || say "note: report found the library complete after the cancel"
# As the sbatch header says: the one index, with the run's shard count (alone, the task would take the whole list).
wait_for "$(submit "$work/retried" 2 FRAMEFARM_SHARDS=4)"
[[ $(report "$work/retried" "$work/good.txt") -eq 0 ]] || fail "after re-running task 2: $(cat "$work/report.txt")"
runs=$(ls "$work/retried/.framefarm/runs")
grep -q -- '-2-of-4' <<< "$runs" && ! grep -q -- '-of-1' <<< "$runs" || fail "the re-run was not shard 2/4: $runs"
diff -r -q -x .framefarm -x index.html -x 'page-*.html' -x summary.json "$work/single" "$work/retried" \
    || fail "the retried library differs from one process's"
[[ -z "$(find "$work/retried" -name '*.tmp')" ]] || fail "temporary files left: $(find "$work/retried" -name '*.tmp')"
say "task 2 cancelled (report exit $after_cancel), run again: the library complete and identical"
say "passed"
