#!/usr/bin/env bash
# check_slurm.sh — a real one-node Slurm cluster grades a class the way a course would on its own.
# flipkit tests/: Debian's munge, slurmctld and slurmd, configured in a temporary directory and
# run in a network namespace of their own (nothing listens on the machine's network); four submissions (the reference, the stubs, a planted bug, a hostile one) graded
# locally and through the cluster with grader/slurm.sh must give the same grades.csv; a task
# that fails is listed with its reason and graded alone on resubmission; no daemon is left.
# Usage: check_slurm.sh (from make check-slurm, after make grade-kit grade-data; root to install
# the packages and start the daemons).
set -u
: "${STAGES:?run me from make, which reads the stages from common/stagelist.h}"
out=build/check-slurm
config=tests/grader/small.config
pkgs="munge slurmd slurmctld slurm-client"
fail() { echo "FAIL check-slurm: $*"; exit 1; }

# ---- the packages ------------------------------------------------------------------------
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "check-slurm: SKIPPED: needs root to install$missing and run the daemons"
        exit 0
    fi
    echo "check-slurm: installing$missing"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } > /dev/null 2>&1 ||
        { echo "check-slurm: SKIPPED: apt-get could not install$missing"; exit 0; }
fi
[ "$(id -u)" = 0 ] || { echo "check-slurm: SKIPPED: the daemons need root"; exit 0; }

# ---- the class -----------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out/subs"
class=$out/subs
with_reference() {   # with_reference NAME: the reference's eight stage files
    mkdir -p "$class/$1/assignment"
    for s in $STAGES; do cp "reference/$s.c" "$class/$1/assignment/$s.c"; done
}
with_reference reference
mkdir -p "$class/stubs" && cp -r assignment "$class/stubs/assignment"
with_reference planted
patch -s -o "$class/planted/assignment/p2g.c" reference/p2g.c < tests/mutants/p2g-no-normalise.patch ||
    fail "tests/mutants/p2g-no-normalise.patch no longer applies"
with_reference hostile
cp tests/hostile/p2g-segfaults.c "$class/hostile/assignment/p2g.c"
names="hostile planted reference stubs"

# ---- graded here, as make grade does it ------------------------------------------------------
t0=$(date +%s)
MAKEFLAGS= make --no-print-directory grade SUBMISSIONS="$class/" GRADE_CONFIG="$config" \
    GRADES_CSV="$out/local.csv" > "$out/local.log" 2>&1 ||
    { tail -5 "$out/local.log"; fail "make grade (local) failed"; }
echo "check-slurm: graded locally in $(( $(date +%s) - t0 )) s: $(tr '\n' ' ' < "$out/local.csv" | cut -c1-160)..."
for n in $names; do rm -rf "build/grades/$n"; done   # the cluster must make its own

# ---- the cluster ---------------------------------------------------------------------------
# Everything from here runs in a new network namespace: its loopback and a veth pair that leads
# nowhere are all it has, so nothing outside can reach the daemons; they are stopped when it
# ends (checked at the end).
cluster_script=$out/cluster.sh
cat > "$cluster_script" <<'EOF'
set -u
out=$1 config=$2 names=$3
state=$(cd "$out" && pwd)/slurm
mkdir -p "$state/spool" "$state/save" "$state/munge"
ip link set lo up
hostname flipkit   # slurmctld runs only on the host SlurmctldHost names (a UTS namespace of its own)
# Slurm resolves 127.0.0.1 with AI_ADDRCONFIG, which finds nothing while loopback is the only
# interface with an address: a veth pair whose two ends are both in here, leading nowhere.
ip link add fk0 type veth peer name fk1 && ip addr add 10.254.0.1/30 dev fk0 &&
    ip link set fk0 up && ip link set fk1 up ||
    { echo "FAIL check-slurm: cannot make the namespace's veth pair"; exit 1; }
cleanup() {   # stop the daemons and wait until they are gone (then nothing in here is left)
    local pids=""
    for pidfile in "$state/slurmd.pid" "$state/slurmctld.pid" "$state/munge/munged.pid"; do
        [ -f "$pidfile" ] && pids="$pids $(cat "$pidfile")"
    done
    [ -n "$pids" ] && kill $pids 2>/dev/null
    for i in $(seq 1 50); do
        alive=""
        for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
        [ -z "$alive" ] && return
        sleep 0.2
    done
    kill -9 $alive 2>/dev/null
    sleep 0.5
}
trap cleanup EXIT
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$state/munge/munge.key"
munged --force --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
    --pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" \
    --seed-file="$state/munge/munged.seed" 2>> "$state/munge/munged.log" || { echo "FAIL check-slurm: munged did not start"; exit 1; }
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat > "$state/slurm.conf" <<CONF
ClusterName=flipkit
MailProg=/bin/true
SlurmctldHost=flipkit(127.0.0.1)
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$state/save
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=flipkit NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=grade Nodes=flipkit Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$state/slurm.conf
slurmctld -i || { echo "FAIL check-slurm: slurmctld did not start"; tail -5 "$state/slurmctld.log"; exit 1; }
slurmd -N flipkit || { echo "FAIL check-slurm: slurmd did not start"; tail -5 "$state/slurmd.log"; exit 1; }
for i in $(seq 1 30); do
    timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle && break
    sleep 1
done
timeout 5 sinfo -h -o "%P %T %c" | grep -q idle || { echo "FAIL check-slurm: the node never became idle"; sinfo; tail -5 "$state/slurmd.log"; exit 1; }
echo "check-slurm: cluster up: $(sinfo -h -o 'partition %P, node %N, %T, %c CPUs') (loopback only)"

# One task fails: the reference's (task 3, the slowest) is cancelled while it runs, as an
# admin or a failing node would end it; one task runs at a time, so the others are not touched.
# It is cancelled once its script has opened its log: squeue shows R from the allocation on,
# and a scancel before slurmd has started the script can miss it (the task then grades in
# full while Slurm records CANCELLED; seen once in CI).
export GRADE_SLURM_PARALLEL=1 GRADE_SLURM_DIR=$out/job
(
    for i in $(seq 1 600); do
        task=$(squeue -h -n flipkit-grade -t R -o %i 2>/dev/null | grep '_3$')
        [ -n "$task" ] && [ -e "$out/job/logs/reference.txt" ] && { scancel "$task"; exit 0; }
        sleep 0.2
    done
) &
canceller=$!
t0=$(date +%s)
MAKEFLAGS= make --no-print-directory grade SUBMISSIONS="$out/subs/" GRADE_ON=slurm GRADE_CONFIG="$config" \
    GRADES_CSV="$out/slurm.csv" > "$out/slurm.log" 2>&1
rc=$?
wait $canceller
echo "check-slurm: first submission: exit $rc in $(( $(date +%s) - t0 )) s"
grep -q "^reference	task 3 ended without grading: CANCELLED" "$out/job/failed.txt" ||
    { cat "$out/slurm.log"; echo "failed.txt:"; cat "$out/job/failed.txt"; scontrol -o show job "$(cut -d';' -f1 "$out/job/job.txt")"; echo "FAIL check-slurm: the cancelled task is not listed with its reason (CANCELLED)"; exit 1; }
[ "$rc" -eq 2 ] || [ "$rc" -eq 1 ] ||
    { cat "$out/slurm.log"; echo "FAIL check-slurm: make grade exited $rc with a failed task, expected non-zero"; exit 1; }
grep -q "ONLY='reference'" "$out/slurm.log" ||
    { cat "$out/slurm.log"; echo "FAIL check-slurm: no resubmission command for the failed task"; exit 1; }
echo "check-slurm: listed: $(cat "$out/job/failed.txt")"
# ... and graded alone when resubmitted
t0=$(date +%s)
MAKEFLAGS= make --no-print-directory grade SUBMISSIONS="$out/subs/" GRADE_ON=slurm GRADE_CONFIG="$config" \
    GRADES_CSV="$out/slurm.csv" ONLY=reference > "$out/resubmit.log" 2>&1 ||
    { cat "$out/resubmit.log"; echo "FAIL check-slurm: the resubmission failed"; exit 1; }
tasks=$(wc -l < "$out/job/submissions.txt")
[ "$tasks" -eq 1 ] || { echo "FAIL check-slurm: the resubmission ran $tasks tasks, expected 1"; exit 1; }
echo "check-slurm: resubmitted the reference alone: 1 task, $(( $(date +%s) - t0 )) s"

# Names are data: a class with an entry named to run a command if a shell ever saw it. It is
# refused by name, the other is graded, and nothing ran (no MARKER here or in the job's files).
names_class=$out/names-subs
evil='x$(touch${IFS}MARKER)y'
mkdir -p "$names_class"
cp -r "$out/subs/stubs" "$names_class/stubs"
cp -r "$out/subs/stubs" "$names_class/$evil"
MAKEFLAGS= GRADE_SLURM_DIR=$out/job-names make --no-print-directory grade SUBMISSIONS="$names_class/" \
    GRADE_ON=slurm GRADE_CONFIG="$config" GRADE_PARTS=stages GRADE_REPORTS="$out/names-reports" \
    GRADES_CSV="$out/names.csv" > "$out/names.log" 2>&1
rc=$?
marker=$(ls -d MARKER 2>/dev/null; find "$out" -name MARKER)
[ -z "$marker" ] || { echo "FAIL check-slurm: a submission's name ran a command: $marker"; exit 1; }
[ "$rc" -ne 0 ] || { cat "$out/names.log"; echo "FAIL check-slurm: a refused name left the exit status 0"; exit 1; }
[ "$(grep -cF "refused \"$evil\"" "$out/names.log")" -eq 1 ] ||
    { cat "$out/names.log"; echo "FAIL check-slurm: the hostile name was not refused by name, once"; exit 1; }
[ "$(cat "$out/job-names/submissions.txt")" = "stubs stubs" ] ||
    { cat "$out/job-names/submissions.txt"; echo "FAIL check-slurm: the cluster was given more than the safe name"; exit 1; }
[ "$(tail -n +2 "$out/names.csv" | cut -d, -f1)" = "stubs" ] ||
    { cat "$out/names.csv"; echo "FAIL check-slurm: the CSV is not the one safe submission's"; exit 1; }
echo "check-slurm: refused by name, nothing run: $(grep -F "refused \"$evil\"" "$out/names.log" | cut -c1-60)...; stubs graded"
EOF
unshare --net --uts bash "$cluster_script" "$out" "$config" "$names" || fail "the cluster run failed (see above)"

# ---- what it proved ---------------------------------------------------------------------------
cmp -s "$out/local.csv" "$out/slurm.csv" ||
    { diff "$out/local.csv" "$out/slurm.csv" | head; fail "grades.csv through Slurm differs from the local run's"; }
echo "check-slurm: grades.csv through Slurm equals the local run's ($(($(wc -l < "$out/local.csv") - 1)) students)"
left=$(for d in slurmctld slurmd slurmstepd munged; do pgrep -x "$d"; done | tr '\n' ' ')
[ -z "$left" ] || fail "daemons left running: pids $left"
echo "check-slurm: no daemon left running"
