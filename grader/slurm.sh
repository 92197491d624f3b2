#!/usr/bin/env bash
# slurm.sh — grade a class on a Slurm cluster: one array job, one task per submission, the
# grader's own limits as the job's; then the same grades.csv as `make grade SUBMISSIONS=dir/`.
# flipkit grader/: `make grade SUBMISSIONS=dir/ GRADE_ON=slurm [ONLY='alice bob']` runs it.
#
# usage: grader/slurm.sh [--csv FILE] [--config FILE] [--parts all|stages|scenes] [--reports DIR]
#                        [--only 'NAME...'] [--] SUBMISSIONS_DIR
# Run from the kit's root, on a node that can sbatch, with the kit on storage the compute
# nodes share (they run build/flipgrade from it and write build/grades/<name>/ into it).
# The submissions are listed by `flipgrade --class DIR --list`, which refuses every name
# outside the safe set (grader/README.md) by name; every other name is letters, digits and
# ._- only, and every expansion here is quoted all the same.
# Environment (all optional):
#   SLURM_PARTITION, SLURM_ACCOUNT   passed to sbatch as --partition, --account
#   GRADE_SLURM_PARALLEL             at most this many tasks at once [16]
#   GRADE_SLURM_DIR                  the job's files: list, task script, logs, status [build/grades/slurm]
# Exit status: 0 every submission graded (the CSV written), 1 some task failed or some name was
# refused (listed with the reason; the CSV holds the rest), 2 bad usage or the job could not be
# submitted.
set -u
csv=build/grades/grades.csv config=grader/config parts=all reports=build/grades only=""
while [ $# -gt 1 ]; do
    case $1 in
    --csv) csv=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --parts) parts=$2; shift 2 ;;
    --reports) reports=$2; shift 2 ;;
    --only) only="$only $2"; shift 2 ;;
    --) shift; break ;;
    *) echo "slurm.sh: $1: unknown option (see the header of grader/slurm.sh)" >&2; exit 2 ;;
    esac
done
subs_dir=${1:?usage: grader/slurm.sh [--csv FILE] [--config FILE] [--parts P] [--reports DIR] [--only NAMES] [--] SUBMISSIONS_DIR}
[ -d "$subs_dir" ] || { echo "slurm.sh: $subs_dir: not a directory of submissions" >&2; exit 2; }
for tool in sbatch scontrol; do
    command -v "$tool" >/dev/null 2>&1 ||
        { echo "slurm.sh: $tool not found: run this where Slurm's client commands are" >&2; exit 2; }
done
kit=$(pwd)
grader=$kit/build/flipgrade
[ -x "$grader" ] || { echo "slurm.sh: $grader missing: run \`make grade-kit grade-data\` first" >&2; exit 2; }
work=${GRADE_SLURM_DIR:-build/grades/slurm}
mkdir -p "$work/status" "$work/logs" || exit 2
work=$(cd "$work" && pwd)
subs_abs=$(cd "$subs_dir" && pwd) || exit 2

# Every safe submission ("grade ENTRY NAME", or "skip ENTRY NAME" when --only leaves it out);
# flipgrade says each refused name on stderr, one line each, and exits 1 when there was one.
only_args=()
[ -n "${only// /}" ] && only_args=(--only "$only")
"$grader" --class "$subs_dir" --reports "$reports" --list "${only_args[@]}" > "$work/list.txt"
list_rc=$?
[ "$list_rc" -le 1 ] || exit 2
all=() tasks=()
while read -r what entry name; do
    all+=("$name")
    [ "$what" = grade ] && tasks+=("$entry $name")
done < "$work/list.txt"
[ ${#all[@]} -gt 0 ] || { echo "slurm.sh: $subs_dir holds no submission that can be graded" >&2; exit 2; }
[ ${#tasks[@]} -gt 0 ] || { echo "slurm.sh: --only '${only# }' names none of the submissions in $subs_dir" >&2; exit 2; }
printf '%s\n' "${tasks[@]}" > "$work/submissions.txt"
for task in "${tasks[@]}"; do
    name=${task#* }
    rm -f "$work/status/$name" "$work/logs/$name.txt"
    rm -rf "${reports:?}/$name"         # a report left from an earlier try is not this one's
done

# One task: grade line SLURM_ARRAY_TASK_ID of the list ("ENTRY NAME", both safe names); the
# exit status is kept in status/. The paths are written into the script with printf %q, so
# whatever the instructor's directories are called, they stay one word each.
{
    echo '#!/bin/bash'
    echo "# written by grader/slurm.sh: one array task grades one submission of submissions.txt"
    printf 'work=%q kit=%q grader=%q config=%q parts=%q reports=%q subs=%q\n' \
        "$work" "$kit" "$grader" "$config" "$parts" "$reports" "$subs_abs"
    cat <<'EOF'
read -r entry name < <(sed -n "${SLURM_ARRAY_TASK_ID}p" "$work/submissions.txt")
cd "$kit" || exit 2
"$grader" --quiet --config "$config" --parts "$parts" --out "$reports/$name" -- "$subs/$entry" \
    > "$work/logs/$name.txt" 2>&1
rc=$?
# Killed by a signal (scancel, a node going down): Slurm's state (CANCELLED, TIMEOUT, ...) says
# why, and a status here would hide it; the shell often outlives its child by the few
# instructions that write one, so it must not try.
[ $rc -gt 128 ] && exit $rc
echo $rc > "$work/status/$name"
test $rc -le 1
EOF
} > "$work/task.sh"
chmod +x "$work/task.sh"

eval "$("$grader" --config "$config" --print job-limits)" || exit 2
args=(--parsable --wait --job-name=flipkit-grade --array="1-${#tasks[@]}%${GRADE_SLURM_PARALLEL:-16}"
      --cpus-per-task="$cpus" --mem="${mem_mib}M" --time="$minutes" --chdir="$kit"
      --output="$work/logs/slurm-%A_%a.out")
[ -n "${SLURM_PARTITION:-}" ] && args+=(--partition="$SLURM_PARTITION")
[ -n "${SLURM_ACCOUNT:-}" ] && args+=(--account="$SLURM_ACCOUNT")
echo "slurm.sh: ${#tasks[@]} submission(s), one array task each: ${minutes} min, ${mem_mib} MiB, $cpus CPU per task"
sbatch "${args[@]}" "$work/task.sh" > "$work/job.txt" 2> "$work/sbatch.err"
sbatch_rc=$?
job=$(head -n 1 "$work/job.txt" | cut -d';' -f1)
if [ -z "$job" ]; then
    echo "slurm.sh: sbatch refused the job: $(head -n 1 "$work/sbatch.err")" >&2
    exit 2
fi
echo "slurm.sh: job $job finished (sbatch --wait exit $sbatch_rc)"

# Why task i has no report: Slurm's state for it (TIMEOUT, OUT_OF_MEMORY, CANCELLED, ...) from
# sacct where accounting runs, else from scontrol while the controller still remembers it.
task_state() {
    local state=""
    if command -v sacct >/dev/null 2>&1; then
        state=$(sacct -n -X -P -j "${job}_$1" -o State,ExitCode 2>/dev/null | head -n 1)
    fi
    if [ -z "$state" ]; then   # one line per task of the array; task $1's
        state=$(scontrol -o show job "$job" 2>/dev/null | grep " ArrayTaskId=$1 " |
                sed -n 's/.* JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\) .*/\1 exit \2/p' | head -n 1)
    fi
    echo "${state:-Slurm has no record of it (cancelled before it started, or forgotten)}"
}

failed=0
: > "$work/failed.txt"
for i in "${!tasks[@]}"; do
    name=${tasks[$i]#* }
    status=$(cat "$work/status/$name" 2>/dev/null)
    if [ -n "$status" ] && [ "$status" -le 1 ] && [ -f "$reports/$name/report.json" ]; then
        continue
    fi
    if [ -n "$status" ]; then
        why="flipgrade exit $status: $(tail -n 1 "$work/logs/$name.txt" 2>/dev/null)"
    else
        why="task $((i + 1)) ended without grading: $(task_state $((i + 1)))"
    fi
    printf '%s\t%s\n' "$name" "$why" >> "$work/failed.txt"
    echo "slurm.sh: FAILED $name: $why" >&2
    failed=1
done

# The CSV from every submission's report, graded now or by an earlier try.
rows=()
for name in "${all[@]}"; do
    r="$reports/$name/report.json"
    [ -f "$r" ] && rows+=("$r")
done
if [ ${#rows[@]} -gt 0 ]; then
    mkdir -p "$(dirname "$csv")"
    "$grader" --class-csv "$csv" "${rows[@]}" || exit 2
fi
echo "slurm.sh: ${#rows[@]} of ${#all[@]} submissions in $csv"
if [ $failed -ne 0 ]; then
    names=$(cut -f1 "$work/failed.txt" | paste -sd' ' -)
    echo "slurm.sh: resubmit the failed ones alone with:" >&2
    echo "  make grade SUBMISSIONS=${subs_dir%/}/ GRADE_ON=slurm ONLY='$names'" >&2
fi
[ "$list_rc" -ne 0 ] && echo "slurm.sh: some entries of $subs_dir were refused by name (above) and not graded" >&2
[ $failed -eq 0 ] && [ "$list_rc" -eq 0 ]
