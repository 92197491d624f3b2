#!/bin/sh
# sync.sh — fills the generated blocks of handout/README.md from the files they quote.
# flipkit handout/: `make handout-sync` writes them, `make check-handout` runs it with --check,
# once for handout/README.md and once for each stage page, handout/stages/STAGE.md.
# The handout's contract blocks are common/stages.h verbatim and its grading table is made by
# the grader from grader/config, so the text students read cannot drift from the code.
#
# Blocks, each a pair of marker lines in the README (what is between them is replaced):
#   <!-- BEGIN stages.h: conventions -->  ... <!-- END stages.h -->      stages.h's header comment (README)
#   <!-- BEGIN stages.h: STAGE -->        ... <!-- END stages.h -->      STAGE's doc comment + prototype (its page)
#   <!-- BEGIN grader/config: grading --> ... <!-- END grader/config --> flipgrade --print grading-table (README)
# Usage: sync.sh [--check] README STAGES_H GRADING_TABLE_FILE
set -u
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
[ $# -eq 3 ] || { echo "usage: sync.sh [--check] README STAGES_H GRADING_TABLE_FILE" >&2; exit 2; }
readme=$1 stages_h=$2 table=$3
for f in "$readme" "$stages_h" "$table"; do
    [ -r "$f" ] || { echo "sync.sh: $f: cannot read it" >&2; exit 2; }
done
new=$(mktemp) || exit 2
trap 'rm -f "$new"' EXIT

page=$(basename "$readme" .md); [ "$page" = README ] && page=README.md
awk -v stages_h="$stages_h" -v table="$table" -v page="$page" '
# The header comment of stages.h from its Conventions rule to its end, and every prototype
# with the comment right above it, read once.
function read_contracts(   line, in_head, comment, name, proto) {
    while ((getline line < stages_h) > 0) {
        if (line ~ /---- Conventions/) in_head = 1
        if (in_head && line ~ /^ \*\/$/) { in_head = 0; continue }
        if (in_head) { head = head line "\n"; continue }
        if (line ~ /^void [a-z0-9]+\(/) {
            name = line; sub(/^void /, "", name); sub(/\(.*/, "", name)
            proto = line "\n"
            while (line !~ /;/ && (getline line < stages_h) > 0) proto = proto line "\n"
            contract[name] = comment proto
            comment = ""
            continue
        }
        if (line ~ /^\/\* [a-z0-9]+ — /) comment = ""
        if (line ~ /^\/\*/ || comment != "") comment = comment line "\n"
    }
    close(stages_h)
}
function read_table(   line) {
    while ((getline line < table) > 0) grading = grading line "\n"
    close(table)
}
function fail(msg) { printf "sync.sh: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; bad = 1; exit 2 }
BEGIN { read_contracts(); read_table() }
skipping && /^<!-- END / {
    if ($0 != end) fail("expected \"" end "\" to close the block opened at line " opened)
    skipping = 0; print; next
}
skipping { next }
/^<!-- BEGIN stages\.h: [a-z0-9]+ -->$/ {
    key = $4
    if (key == "conventions") body = head
    else if (key in contract) body = contract[key]
    else fail("no stage \"" key "\" in " stages_h)
    print; printf "```c\n%s```\n", body
    end = "<!-- END stages.h -->"; skipping = 1; opened = FNR; used[key] = 1; next
}
/^<!-- BEGIN grader\/config: grading -->$/ {
    print; printf "%s", grading
    end = "<!-- END grader/config -->"; skipping = 1; opened = FNR; used["grading"] = 1; next
}
/^<!-- BEGIN / { fail("unknown generated block: " $0) }
{ print }
END {
    if (bad) exit 2
    if (skipping) { printf "sync.sh: %s: the block opened at line %d is never closed\n", FILENAME, opened > "/dev/stderr"; exit 2 }
    # the README quotes the conventions and the grading table, a stage page its own contract
    need[1] = page == "README.md" ? "conventions" : page
    need[2] = page == "README.md" ? "grading" : ""
    for (q = 1; q <= 2; q++)
        if (need[q] != "" && !used[need[q]]) { printf "sync.sh: %s: no <!-- BEGIN %s: %s --> block\n", FILENAME, need[q] == "grading" ? "grader/config" : "stages.h", need[q] > "/dev/stderr"; exit 2 }
}' "$readme" > "$new" || exit 2

if [ "$check" = 1 ]; then
    if ! cmp -s "$new" "$readme"; then
        echo "check-handout: $readme is out of date with $stages_h or grader/config; the first difference:" >&2
        diff "$readme" "$new" | head -n 12 >&2
        echo "check-handout: run 'make handout-sync' and commit the result" >&2
        exit 1
    fi
    exit 0
fi
cmp -s "$new" "$readme" || cat "$new" > "$readme"
