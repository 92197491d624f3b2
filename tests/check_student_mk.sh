#!/bin/sh
# check_student_mk.sh KIT_MAKEFILE STUDENT_MAKEFILE — the rules the student kit's Makefile copies
# from the kit's are still the same, so a fix to one cannot silently miss the other.
# flipkit tests/: run by make handout and make check-handout; one line per rule that differs.
set -u
kit=${1:?usage: check_student_mk.sh Makefile handout/student.mk}
student=${2:?usage: check_student_mk.sh Makefile handout/student.mk}
# Rules written alike in both (the stub and movie rules differ on purpose: the student kit has
# no reference/ to make stubs from, and its flipsim runs the student track).
rules='$(DEPS_OK): $(GRADE_KIT)/libkit.a: $(GRADE_KIT)/include/.made: $(GRADE_KIT)/track.o: $(BUILD)/grader/%.o: $(BUILD)/%.o:'
fail=0
# The rule whose first line starts with target, up to the next blank line.
rule() { awk -v T="$1" 'index($0, T) == 1 { on = 1 } on && /^$/ { exit } on { print }' "$2"; }
for target in $rules; do
    a=$(rule "$target" "$kit")
    b=$(rule "$target" "$student")
    if [ -z "$a" ] || [ -z "$b" ]; then
        echo "check_student_mk: rule $target is missing from $([ -z "$a" ] && echo "$kit" || echo "$student")" >&2
        fail=1
    elif [ "$a" != "$b" ]; then
        echo "check_student_mk: rule $target differs between $kit and $student; make them the same" >&2
        fail=1
    fi
done
exit $fail
