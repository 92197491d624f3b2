#!/usr/bin/env python3
# classroom.py — reads the student kit's GitHub Classroom workflow with a YAML parser (PyYAML).
# flipkit tests/: check_dist.sh runs it on .github/workflows/classroom.yml of the tarball made
# with handout.github_classroom, then runs the commands it prints as the workflow would.
#
# Usage: classroom.py WORKFLOW STAGE_POINTS
#   STAGE_POINTS: `flipgrade --print stage-points` of the instructor's config ("STAGE POINTS").
# Checks what GitHub Classroom's actions need (command grader: test-name, command, timeout,
# max-score as a whole number; reporter: runners naming every test, and each test's result
# passed in <ID>_RESULTS), one test per stage in the config's order running `make test-<stage>`
# and worth its points. Prints "setup COMMAND" for each `run:` step before the tests, "test ID
# POINTS TIMEOUT COMMAND" for each test, and "total N". A failed check is one line on stderr
# naming the file and the step, exit 1.
import sys

import yaml

COMMAND_GRADER = "classroom-resources/autograding-command-grader@"
REPORTER = "classroom-resources/autograding-grading-reporter@"


def fail(path, where, what):
    print(f"classroom.py: {path}: {where}: {what}", file=sys.stderr)
    sys.exit(1)


def read_points(path):
    points = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if len(words) != 2:
                fail(path, f"line {n}", "expected \"STAGE POINTS\"")
            points.append((words[0], float(words[1])))
    return points


def the_steps(path, doc):
    if not isinstance(doc, dict) or "jobs" not in doc:
        fail(path, "top level", "expected a mapping with jobs")
    on = doc.get("on")
    if not isinstance(on, list) or "push" not in on:
        fail(path, "on", f"expected a list holding push, got {on!r}")
    jobs = doc["jobs"]
    if not isinstance(jobs, dict) or len(jobs) != 1:
        fail(path, "jobs", "expected one job")
    job = next(iter(jobs.values()))
    steps = job.get("steps") if isinstance(job, dict) else None
    if not isinstance(steps, list):
        fail(path, "jobs", "the job has no list of steps")
    return steps


def check_test(path, step, stage, points):
    where = f"step {step.get('name')!r}"
    args = step.get("with") or {}
    for key in ("test-name", "command", "timeout", "max-score"):
        if key not in args:
            fail(path, where, f"no with.{key}")
    if step.get("id") != stage or args["test-name"] != stage:
        fail(path, where, f"expected the test of stage {stage} (id and test-name {stage})")
    if args["command"] != f"make test-{stage}":
        fail(path, where, f"command {args['command']!r}, expected 'make test-{stage}'")
    score = args["max-score"]
    if not isinstance(score, int) or isinstance(score, bool) or score != points:
        fail(path, where, f"max-score {score!r}, expected the config's {points:g} points (a whole number)")
    if not isinstance(args["timeout"], int) or not 1 <= args["timeout"] <= 360:
        fail(path, where, f"timeout {args['timeout']!r}, expected whole minutes from 1 to 360")
    return args


def check_reporter(path, step, ids):
    args = step.get("with") or {}
    runners = str(args.get("runners", "")).split(",")
    if runners != ids:
        fail(path, "the reporter", f"runners {','.join(runners)}, expected {','.join(ids)}")
    env = step.get("env") or {}
    for i in ids:
        want = "${{steps.%s.outputs.result}}" % i
        if env.get(f"{i.upper()}_RESULTS") != want:
            fail(path, "the reporter", f"env {i.upper()}_RESULTS is {env.get(i.upper() + '_RESULTS')!r}, expected {want!r}")


def main():
    if len(sys.argv) != 3:
        print("usage: classroom.py WORKFLOW STAGE_POINTS", file=sys.stderr)
        sys.exit(2)
    path, points_path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        try:
            doc = yaml.safe_load(f)
        except yaml.YAMLError as e:
            fail(path, "YAML", str(e).replace("\n", " "))
    points = read_points(points_path)
    steps = the_steps(path, doc)
    tests = [s for s in steps if str(s.get("uses", "")).startswith(COMMAND_GRADER)]
    reporters = [s for s in steps if str(s.get("uses", "")).startswith(REPORTER)]
    if len(tests) != len(points):
        fail(path, "steps", f"{len(tests)} command-grader tests, expected one per stage ({len(points)})")
    if len(reporters) != 1 or steps[-1] is not reporters[0]:
        fail(path, "steps", "expected one reporter, as the last step")
    first = steps.index(tests[0])
    for s in steps[:first]:
        if "run" in s:
            print(f"setup {s['run']}")
    total = 0
    for step, (stage, pts) in zip(tests, points):
        args = check_test(path, step, stage, pts)
        print(f"test {stage} {args['max-score']} {args['timeout']} {args['command']}")
        total += args["max-score"]
    check_reporter(path, reporters[0], [stage for stage, _ in points])
    print(f"total {total}")


main()
