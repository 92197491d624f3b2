# flipkit — one entry point. `make run` runs the default scene, `make check` is the self-check;
# `make help` lists every target. Objects and binaries live under build/ (build/asan with SANITIZE=1).
# The rules are in one fragment per area:
#   common/build.mk      compiling, system packages, make help (the student kit's Makefile includes it too)
#   grader/kit.mk        build/flipgrade and the objects it links student code with (shared too)
#   reference/reference.mk  flipsim with both tracks, running, stubs, golden cases, benchmarks
#   grader/grader.mk     the reference's data, calibration, grading a class
#   tests/tests.mk       the suites, planted bugs, fuzzing, make check
#   handout/handout.mk   the handout and the student tarball

SCENE ?= scenes/ball_drop.json
ARGS  ?=
TRACK ?= student

# Debian/Ubuntu packages of everything the kit needs (the OpenCL ones are for the reference
# pipeline; a student's own build needs a compiler, make, Check, jansson and libpng).
DEB_PKGS    := check pkg-config patch clang ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo oclgrind gcovr \
               libjansson-dev libpng-dev libxml2-utils libconfig-dev libarchive-dev \
               python3-numpy python3-matplotlib python3-yaml
PKGS_LIB    := jansson libpng check libconfig libarchive OpenCL
PKG_MODULES := jansson libpng OpenCL
# The kit's tests may use the reference (reference/*.h, FLIPKIT_HAVE_REFERENCE).
TEST_CFLAGS := -Ireference -DFLIPKIT_HAVE_REFERENCE
CLEAN_MORE  := dist

# The kit's flipsim links the student track, the reference track and the OpenCL pipeline.
REF_STAGE_OBJ  = $(STAGES:%=$(BUILD)/reference/%.o)
REF_OTHER_SRC  = $(filter-out $(STAGES:%=reference/%.c) reference/flipsim_main.c reference/pylib_main.c,$(wildcard reference/*.c))
REF_OBJ        = $(REF_STAGE_OBJ) $(REF_OTHER_SRC:%.c=$(BUILD)/%.o)
SIM_OBJ        = $(COMMON_OBJ) $(REF_OBJ) $(STU_OBJ)
FLIPSIM        = $(BUILD)/flipsim
# libflipkit.so's own main: it hands the Python binding the reference track and the pipeline.
PYLIB_MAIN     = $(BUILD)/reference/pylib_main.o

.DEFAULT_GOAL := all

#:flipkit targets (the kit); handout/README.md is the assignment, README.md the kit's guide.
include common/build.mk
include reference/reference.mk
include grader/kit.mk
include grader/grader.mk
include tests/tests.mk
include handout/handout.mk

# After the fragments: STAGES is common/build.mk's.
.PHONY: all run movie stubs check-stubs bench solvers check-solvers \
        all-tests golden test $(STAGES:%=test-%) coverage coverage-check check check-make check-layers test-common \
        test-physics check-suites check-mutants check-watch check-opencl check-oclgrind check-pipeline check-determinism \
        check-movie check-warnings check-sanitize fuzz check-fuzz \
        grade grade-data grade-kit feedback gradebook class-report check-class submission check-physics check-grader check-slurm gradescope check-gradescope validate \
        check-validate \
        pylib check-python python-examples \
        handout handout-sync check-handout check-handout-fresh check-dist \
        view check-viewer check-blender deps-blender deps help clean
