# level.awk — cuts a kit file down to the assignment level its stages are handed out at.
# flipkit handout/: make handout (mkdist.sh) runs it over every file with level markers (stages.h,
# grid.h, grid.c, the handout's pages), so each level's text comes from one source and cannot drift.
#
# A marker is a line holding "@level LEVELS" or "@level LEVELS for STAGES" (LEVELS and STAGES
# comma-separated, no spaces) and opens a block that ends at the next line holding "@level end".
# The block is kept when one of the STAGES (without "for": the file's own stage, -v stage=, or
# when it has none, the whole handout's -v level=) is at one of LEVELS. Marker lines never ship.
# A stage given compiled (level "given") keeps its guided text: it describes the code shipped.
# Variables: levels="advect=guided p2g=standard ..." (flipgrade --print levels), level=, stage=.
function fail(msg) { printf "level.awk: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; bad = 1; exit 2 }
function level_of(s) {
    if (!(s in of)) fail("\"" s "\" is not a stage")
    return of[s] == "given" ? "guided" : of[s]
}
# Whether any of the comma-separated stages is at one of the comma-separated levels.
function wanted(lvls, stgs,   ls, ss, i, j, n, m, own) {
    n = split(lvls, ls, ",")
    for (i = 1; i <= n; i++)
        if (ls[i] != "guided" && ls[i] != "standard" && ls[i] != "open") fail("\"" ls[i] "\" is not a level")
    if (stgs == "") { m = 1; own = stage != "" ? level_of(stage) : level }
    else m = split(stgs, ss, ",")
    for (j = 1; j <= m; j++)
        for (i = 1; i <= n; i++)
            if ((stgs == "" ? own : level_of(ss[j])) == ls[i]) return 1
    return 0
}
BEGIN {
    n = split(levels, pairs, " ")
    for (i = 1; i <= n; i++) { split(pairs[i], kv, "="); of[kv[1]] = kv[2] }
    if (level !~ /^(guided|standard|open)$/) { print "level.awk: level=\"" level "\" is not a level" > "/dev/stderr"; bad = 1; exit 2 }
    if (stage != "" && !(stage in of)) { print "level.awk: stage=\"" stage "\" is not in levels=" > "/dev/stderr"; bad = 1; exit 2 }
}
# Blocks nest: a line ships when every block around it is kept.
/@level end/ {
    if (!depth) fail("\"@level end\" with no block open")
    depth--; next
}
/@level [a-z,]+/ {
    spec = $0
    sub(/.*@level /, "", spec)
    lv = spec; sub(/[^a-z,].*/, "", lv)
    st = ""
    if (spec ~ /^[a-z,]+ for [a-z0-9_,]+/) { st = spec; sub(/^[a-z,]+ for /, "", st); sub(/[^a-z0-9_,].*/, "", st) }
    depth++
    opened[depth] = FNR
    kept[depth] = wanted(lv, st) && (depth == 1 || kept[depth - 1])
    next
}
depth && !kept[depth] { next }
{ print }
END {
    if (bad) exit 2
    if (depth) { printf "level.awk: %s: the block opened at line %d is never closed\n", FILENAME, opened[depth] > "/dev/stderr"; exit 2 }
}
