# mkstub.awk — makes a student stub (assignment/STAGE.c) from a reference stage file.
# flipkit reference/: `make stubs` runs it (awk -v stage=S; stages is no longer read); `make check`
# fails if assignment/ differs.
# Between "// BEGIN SOLUTION" and "// END SOLUTION" every line is dropped except "// STUB: "
# lines, which are kept without that prefix (the stub's documented "not done" behaviour).
/^ \* flipkit reference\/:/ {
    print " * flipkit assignment/: yours to write; replace the TODO block (`make test-" stage "` checks it)."
    next
}
/^ \* The contract — .* is in common\/stages\.h\. \*\/$/ {
    # The stage's own page, not a section number: check-handout checks the page is there.
    print " * The contract is in common/stages.h; handout/stages/" stage ".md explains it. */"
    next
}
/^[ \t]*\/\/ BEGIN SOLUTION/ {
    in_solution = 1
    kept = ""
    indent = $0
    sub(/\/\/.*/, "", indent)
    next
}
# A block at file scope (the answer's helper functions) leaves a pointer, not a TODO: the
# stage's TODO is in its function body.
/^[ \t]*\/\/ END SOLUTION/ {
    in_solution = 0
    if (indent == "" && kept == "") {
        print "/* Helper functions of your own, if you want any, go here: static, named for what they do. */"
        next
    }
    print indent "/* TODO(" stage "): write this stage here. Until you do, the lines below keep its"
    print indent "   outputs in the \"not done\" state that stages.h describes (delete them). */"
    printf "%s", kept
    next
}
in_solution && /^[ \t]*\/\/ STUB: ?/ {
    line = $0
    sub(/\/\/ STUB: ?/, "", line)
    kept = kept line "\n"
    next
}
in_solution { next }
{ print }
