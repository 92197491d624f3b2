# mkstub.awk — makes a student stub (assignment/STAGE.c) from a reference stage file.
# flipkit reference/: `make stubs` runs it; `make check` fails if assignment/ differs.
# Between "// BEGIN SOLUTION" and "// END SOLUTION" every line is dropped except "// STUB: "
# lines, which are kept without that prefix (the stub's documented "not done" behaviour).
/^ \* flipkit reference\/:/ {
    print " * flipkit assignment/: yours to write; replace the TODO block (`make test-" stage "` checks it)."
    next
}
/^[ \t]*\/\/ BEGIN SOLUTION/ {
    in_solution = 1
    indent = $0
    sub(/\/\/.*/, "", indent)
    print indent "/* TODO(" stage "): write this stage here. Until you do, the lines below keep its"
    print indent "   outputs in the \"not done\" state that stages.h describes (delete them). */"
    next
}
/^[ \t]*\/\/ END SOLUTION/ { in_solution = 0; next }
in_solution && /^[ \t]*\/\/ STUB: ?/ {
    line = $0
    sub(/\/\/ STUB: ?/, "", line)
    print line
    next
}
in_solution { next }
{ print }
