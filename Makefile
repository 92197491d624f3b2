# flipkit — one entry point. `make run` runs the default scene, `make check` is the self-check.
# `make help` lists every target. Objects and binaries live under build/ (build/asan with SANITIZE=1).

# The eight stages, read from common/stagelist.h (the one list; C reads it as STAGE_LIST).
STAGES   := $(shell sed -n 's/^ *X([0-9]*, *\([a-z0-9_]*\)).*/\1/p' common/stagelist.h)
export STAGES
SCENE    ?= scenes/ball_drop.json
ARGS     ?=
CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L
PKGS_LIB := jansson libpng check libconfig libarchive
SANITIZE ?= 0

# Quiet builds: one short line per file made (CC, LD, AR); `make V=1` prints every command.
# Warnings and errors are the compiler's own output, printed in full either way.
V ?= 0
ifeq ($(V),1)
say =
else
.SILENT:
say = @printf '  %-3s %s\n' '$(1)' '$(2)'
endif

ifeq ($(SANITIZE),1)
BUILD    := build/asan
SANFLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined,float-cast-overflow
else
BUILD    := build
SANFLAGS :=
endif

# Debian/Ubuntu package names of everything the kit needs (the OpenCL ones are for the
# reference pipeline; a student's own build only needs a compiler, make, Check, jansson, libpng).
DEB_PKGS := check pkg-config patch clang ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo gcovr \
            libjansson-dev libpng-dev libxml2-utils libconfig-dev libarchive-dev
DEPS_OK  := build/.deps-ok

PKG_CFLAGS = $(shell pkg-config --cflags jansson libpng OpenCL 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs jansson libpng OpenCL 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

ALL_CFLAGS  = $(STD) $(WARN) $(CFLAGS) $(SANFLAGS) -Icommon -Icommon/writers $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS        = $(PKG_LIBS) -lm

COMMON_SRC := $(filter-out common/flipsim_main.c,$(wildcard common/*.c common/writers/*.c))
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
REF_STAGE_OBJ := $(STAGES:%=$(BUILD)/reference/%.o)
REF_OTHER_SRC := $(filter-out $(STAGES:%=reference/%.c) reference/flipsim_main.c,$(wildcard reference/*.c))
REF_OBJ    := $(REF_STAGE_OBJ) $(REF_OTHER_SRC:%.c=$(BUILD)/%.o)
STU_OBJ    := $(STAGES:%=$(BUILD)/assignment/%.o) $(BUILD)/assignment/track.o
SIM_OBJ    := $(COMMON_OBJ) $(REF_OBJ) $(STU_OBJ)

FLIPSIM    := $(BUILD)/flipsim
COMMON_TESTS := grid scene ply state seed cli solvers report sandbox usd preview surface outputs
PHYS_TESTS   := physics pipeline
STAGE_TESTS  := $(STAGES:%=$(BUILD)/tests/test_%)
TEST_SUPPORT := $(BUILD)/tests/harness.o $(BUILD)/tests/golden.o $(BUILD)/tests/compare.o \
                $(BUILD)/tests/fielddiff.o $(BUILD)/tests/stagecase.o
TEST_BINS  := $(COMMON_TESTS:%=$(BUILD)/tests/test_%) $(PHYS_TESTS:%=$(BUILD)/tests/test_%) $(STAGE_TESTS)

SOLVERLAB  := $(BUILD)/tests/solverlab

# Golden cases: the reference's input and output of every stage on tests/golden/*.json.
MKGOLDEN      := $(BUILD)/tests/mkgolden
GOLDEN_DIR    := build/golden
GOLDEN_SCENES := $(sort $(wildcard tests/golden/*.json))
GOLDEN_STAMP  := $(GOLDEN_DIR)/.made
TRACK         ?= student

.PHONY: grade grade-data grade-kit check-grader all run movie check-movie check help deps clean stubs check-stubs golden test check-pipeline bench solvers check-solvers check-mutants check-suites check-opencl coverage coverage-check $(STAGES:%=test-%) test-common test-physics \
        check-warnings check-sanitize check-determinism all-tests handout handout-sync check-handout \
        check-handout-fresh check-dist fuzz check-fuzz
.DEFAULT_GOAL := all
.SECONDARY:

all: $(FLIPSIM)
all-tests: $(TEST_BINS) $(MKGOLDEN) $(SOLVERLAB)

help:
	@echo "flipkit targets:"
	@echo "  make run [SCENE=scenes/ball_drop.json] [ARGS='--frames 10']  build and run a scene"
	@echo "                                      (writes out/<scene name>/: particles/, and surface/,"
	@echo "                                      scene.usda and preview/ where the scene turns them on)"
	@echo "  make movie [SCENE=...] [ARGS=...]   out/<scene name>/preview.mp4 from the previews (ffmpeg)"
	@echo "  make test [TRACK=student|reference|opencl]  all eight stage suites, then a table"
	@echo "  make test-<stage>                   one stage's suite: $(STAGES)"
	@echo "  make coverage [TRACK=...]           which lines of your stages the suites reached"
	@echo "                                      (HTML in build/coverage/index.html)"
	@echo "  make golden                         (re)make the golden cases in build/golden/"
	@echo "  make check                          the whole self-check (what CI runs)"
	@echo "  make test-common                    the Check suites for common/"
	@echo "  make test-physics                   the physical validation suite (reference track)"
	@echo "  make check-pipeline                 the OpenCL pipeline against the C reference"
	@echo "  make bench [BENCH_ARGS=--quick]     C vs OpenCL per stage, solvers, bandwidth (build/bench/)"
	@echo "  make solvers [SOLVERS_ARGS=...]     the convergence lab: residual per iteration of every"
	@echo "                                      solver (build/solvers/convergence.csv and .svg)"
	@echo "  make check-solvers                  the lab at 16^3 and 32^3, its numbers and its SVG checked"
	@echo "  make grade                          your stages against the public cases (the self-check)"
	@echo "  make grade SUBMISSIONS=dir/ [-j2]   grade every submission in dir/ (build/grades/grades.csv)"
	@echo "  make grade-data                     (re)make the reference's cases and frames for the grader"
	@echo "  make check-grader                   the grader calibrated: reference, OpenCL, planted bugs, hostile code,"
	@echo "                                      every sandbox attack as root and as nobody"
	@echo "  make handout                        the student tarball: dist/flipkit-student.tar.gz"
	@echo "  make handout-sync                   remake handout/README.md's quoted blocks and its figures"
	@echo "  make check-handout                  the handout agrees with stages.h, grader/config, the tests"
	@echo "  make check-dist                     the tarball: no solution code; it builds, tests and grades"
	@echo "  make stubs                          regenerate assignment/ from reference/"
	@echo "  make all / all-tests                build flipsim / every test program"
	@echo "  make grade-kit                      the objects and headers the grader links student code with"
	@echo "Parts of make check (each runs alone too):"
	@echo "  make check-stubs                    assignment/ is what make stubs makes"
	@echo "  make check-suites                   the suites pass on the reference, fail on the stubs, per stage"
	@echo "  make check-mutants                  every planted bug (tests/mutants/) fails its stage's analytic case"
	@echo "  make check-opencl                   the stage suites against the OpenCL kernels"
	@echo "  make check-determinism              the same scene writes the same bytes; --out locking and clearing"
	@echo "  make check-movie                    make movie, with and without ffmpeg"
	@echo "  make check-sanitize                 ASan/UBSan flipsim on every bad scene"
	@echo "  make check-warnings                 gcc and clang build without a warning"
	@echo "  make check-handout-fresh            the handout's quoted blocks are current"
	@echo "  make coverage-check                 coverage of the reference track"
	@echo "  make SANITIZE=1 ...                 build with ASan+UBSan (and float-cast-overflow) into build/asan/"
	@echo "  make fuzz [FUZZ_SECONDS=300]        libFuzzer on the scene loader, state and PLY readers"
	@echo "  make check-fuzz                     the same, 20 s each (part of make check)"
	@echo "  make deps                           install missing system packages"
	@echo "  make ... V=1                        print every compile and link command in full"
	@echo "  make clean                          remove build/"
	@echo "Debugging a suite (Check's own variables; each suite's header says the same):"
	@echo "  CK_RUN_CASE=golden make test-p2g    run one case (analytic or golden) of a suite"
	@echo "  CK_FORK=no gdb build/tests/test_p2g run in one process, so gdb stops in your stage"
	@echo "  CK_TIMEOUT_MULTIPLIER=6 make test   give each case 6 x its 10 s (valgrind, slow machines)"
	@echo "Isolating a bug in a whole run: use_gauss_seidel: true in the scene (or"
	@echo "  ARGS='--set use_gauss_seidel=true') swaps your jacobi for the given Gauss-Seidel;"
	@echo "  ARGS='--track student --use-reference=p2g,g2p' swaps stages for the reference's."

# ---- system packages --------------------------------------------------------------------
deps: $(DEPS_OK)
$(DEPS_OK): Makefile
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  for p in $(DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	    echo "flipkit: installing missing packages:$$missing"; \
	    echo "+ $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing"; \
	    $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null \
	      || { echo "flipkit: apt-get failed; install these packages by hand:$$missing" >&2; exit 1; }; \
	  fi; \
	elif ! pkg-config --exists $(PKGS_LIB) 2>/dev/null; then \
	  echo "flipkit: this is not Debian/Ubuntu and some libraries are missing." >&2; \
	  echo "flipkit: install the equivalents of: $(DEB_PKGS)" >&2; \
	  exit 1; \
	fi
	@mkdir -p $(@D) && touch $@

# ---- compiling ------------------------------------------------------------------------
# common/constants.h as a C string literal: reference/clx.c puts it in front of the kernels.
CONSTANTS_INC := $(BUILD)/gen/constants_cl.inc
$(CONSTANTS_INC): common/constants.h
	@mkdir -p $(@D)
	$(call say,GEN,$@)
	{ printf '%s\n' '"#line 1 \"common/constants.h\"\n"'; sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&\\n"/' $<; } > $@.tmp && mv $@.tmp $@
$(BUILD)/reference/clx.o: $(CONSTANTS_INC)
$(BUILD)/reference/clx.o: ALL_CFLAGS += -I$(BUILD)/gen

# Reference stages share their names with the student's; they are renamed ref_<stage> at
# compile time so both tracks live in one binary (--use-reference swaps between them).
$(REF_STAGE_OBJ): $(BUILD)/reference/%.o: reference/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -D$*=ref_$* -c $< -o $@

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -Ireference -Igrader -DFLIPKIT_HAVE_REFERENCE $(CHECK_CFLAGS) -c $< -o $@

$(FLIPSIM): $(SIM_OBJ) $(BUILD)/reference/flipsim_main.o
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_SUPPORT) $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(CHECK_LIBS) $(LIBS) -o $@

$(MKGOLDEN): $(BUILD)/tests/mkgolden.o $(BUILD)/tests/stagecase.o $(BUILD)/tests/fielddiff.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- benchmarks ------------------------------------------------------------------------
# C reference against the OpenCL pipeline; BENCH_ARGS=--quick for the smaller sizes only.
BENCH      := $(BUILD)/tests/bench
BENCH_ARGS ?=
$(BENCH): $(BUILD)/tests/bench.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -pthread -o $@

bench: $(BENCH)
	@mkdir -p build/bench
	@$(BENCH) $(BENCH_ARGS)

# The convergence lab: every C solver's residual after each iteration on the first solve of the
# hydrostatic tank; SOLVERS_ARGS="--sizes 16,32 --cap 500" for a smaller run.
SOLVERS_ARGS ?=
$(SOLVERLAB): $(BUILD)/tests/solverlab.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

solvers: $(SOLVERLAB)
	@mkdir -p build/solvers
	@$(SOLVERLAB) $(SOLVERS_ARGS)

check-solvers: $(SOLVERLAB)
	@tests/check_solvers.sh $(SOLVERLAB)

# ---- the grader ------------------------------------------------------------------------
# build/flipgrade grades one submission; it compiles the student's files itself and links them
# with the kit's objects in $(GRADE_KIT). grader/README.md explains it; grader/config drives it.
GRADER      := $(BUILD)/flipgrade
GRADE_KIT   := $(BUILD)/grader/kit
GRADE_DATA  := build/grader/data
GRADE_CASES := $(sort $(wildcard grader/cases/*.json))
GRADER_MODS := flipgrade gradeconfig intake metrics build stagepart scenepart report render sandbox sbjail sbcalls
GRADER_OBJ  := $(GRADER_MODS:%=$(BUILD)/grader/%.o) $(BUILD)/grader/kit/libkit.a
SANDBOX_OBJ := $(BUILD)/grader/sandbox.o $(BUILD)/grader/sbjail.o $(BUILD)/grader/sbcalls.o
GRADER_CFLAGS = -Igrader -Itests $(shell pkg-config --cflags libconfig libarchive 2>/dev/null)
GRADER_LIBS   = $(shell pkg-config --libs jansson libpng libconfig libarchive 2>/dev/null) -lm
# What the grader links student objects with (the runners need no OpenCL).
RUNNER_LIBS   = $(shell pkg-config --libs jansson libpng 2>/dev/null) -lm
GRADE_KIT_FILES := $(GRADE_KIT)/libkit.a $(GRADE_KIT)/track.o $(GRADE_KIT)/guard.o $(GRADE_KIT)/include/.made \
                   $(GRADE_KIT)/stagerun.o $(GRADE_KIT)/scenerun.o $(STAGES:%=$(GRADE_KIT)/stub_%.o)

$(BUILD)/grader/%.o: grader/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) $(GRADER_CFLAGS) -DFLIPGRADE_CC='"$(CC)"' -DFLIPGRADE_LIBS='"$(RUNNER_LIBS)"' -c $< -o $@

# Order-only: `make build/flipgrade` also makes the kit the grader links student code with
# (it refuses to grade without it, rather than grading every stage 0).
$(GRADER): $(GRADER_OBJ) | $(GRADE_KIT_FILES)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(GRADER_LIBS) -o $@

$(GRADE_KIT)/libkit.a: $(COMMON_OBJ) $(BUILD)/tests/stagecase.o $(BUILD)/tests/fielddiff.o
	@mkdir -p $(@D)
	@rm -f $@
	$(call say,AR,$@)
	ar rcs $@ $^

# A stage's stub, made from the reference as `make stubs` does, stands in for a student file
# that is missing or does not compile.
$(GRADE_KIT)/stub_%.o: reference/%.c reference/mkstub.awk | $(DEPS_OK)
	@mkdir -p $(@D)
	awk -v stage=$* -v stages="$(STAGES)" -f reference/mkstub.awk $< > $(GRADE_KIT)/stub_$*.c
	$(call say,CC,$(GRADE_KIT)/stub_$*.c)
	$(CC) $(ALL_CFLAGS) -c $(GRADE_KIT)/stub_$*.c -o $@

# The headers a student file may include: a copy, so a compile can read nothing else of the kit.
$(GRADE_KIT)/include/.made: $(wildcard common/*.h common/writers/*.h)
	@mkdir -p $(@D)
	cp $^ $(@D)/
	@touch $@

$(GRADE_KIT)/track.o: $(BUILD)/assignment/track.o
	@mkdir -p $(@D)
	cp $< $@

$(GRADE_KIT)/%.o: $(BUILD)/grader/%.o
	@mkdir -p $(@D)
	cp $< $@

grade-kit: $(GRADER) $(GRADE_KIT_FILES)

# Calibration: the reference's OpenCL stages and pipeline against the grader's thresholds.
CALIBRATE := $(BUILD)/grader/calibrate
$(BUILD)/grader/calibrate.o: GRADER_CFLAGS += -Ireference
$(CALIBRATE): $(BUILD)/grader/calibrate.o $(BUILD)/grader/metrics.o $(BUILD)/grader/gradeconfig.o \
              $(SANDBOX_OBJ) $(BUILD)/tests/stagecase.o $(BUILD)/tests/fielddiff.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) $(GRADER_LIBS) -o $@

$(BUILD)/tests/test_report: $(BUILD)/grader/report.o $(BUILD)/grader/render.o
$(BUILD)/tests/test_report: LIBS += $(GRADER_LIBS)
$(BUILD)/tests/test_sandbox: $(SANDBOX_OBJ)

# The reference's hidden and public cases and its frames of every graded scene.
grade-data: $(GRADE_DATA)/.made
$(GRADE_DATA)/.made: $(GRADER) $(MKGOLDEN) $(FLIPSIM) grader/config $(GRADE_CASES) $(GOLDEN_SCENES) $(wildcard scenes/*.json)
	$(GRADER) --prepare --data $(GRADE_DATA) --mkgolden $(MKGOLDEN) --flipsim $(FLIPSIM)
	@touch $@

check-grader: grade-kit $(CALIBRATE) $(GRADE_DATA)/.made
	@tests/check_grader.sh $(GRADER) $(CALIBRATE)

# make grade: the self-check on the public cases; make grade SUBMISSIONS=dir/: a class, one
# independent flipgrade per submission (parallel with -j), then build/grades/grades.csv.
SUBMISSIONS ?=
GRADES_CSV  ?= build/grades/grades.csv
ifeq ($(SUBMISSIONS),)
grade: grade-kit $(GRADE_DATA)/.made
	@$(GRADER) --public --out build/grades/self assignment
else
grade_name = $(notdir $(patsubst %.tar.gz,%,$(patsubst %.tgz,%,$(patsubst %.zip,%,$(patsubst %/,%,$(1))))))
GRADE_SUBS := $(sort $(wildcard $(patsubst %/,%,$(SUBMISSIONS))/*))
GRADE_ONE  := $(GRADE_SUBS:%=grade-one/%)
.PHONY: $(GRADE_ONE)
$(GRADE_ONE): grade-one/%: grade-kit $(GRADE_DATA)/.made
	@$(GRADER) --quiet --out build/grades/$(call grade_name,$*) $*; test $$? -le 1
grade: $(GRADE_ONE)
	@$(GRADER) --class-csv $(GRADES_CSV) $(foreach s,$(GRADE_SUBS),build/grades/$(call grade_name,$(s))/report.json)
	@echo "make grade: $(words $(GRADE_SUBS)) submissions graded; $(GRADES_CSV)"
endif

# ---- the handout and the student tarball ----------------------------------------------------
# handout/README.md quotes common/stages.h and the grader's table verbatim (handout/sync.sh);
# its figures are drawn by handout/mkfigures.c and the convergence lab. `make handout-sync`
# remakes both, `make check-handout` fails when either is stale or a claim in it is not true.
DIST          := dist/flipkit-student.tar.gz
MKFIGURES     := $(BUILD)/handout/mkfigures
HANDOUT_TABLE := $(BUILD)/handout/grading.md
HANDOUT_STUBS := $(STAGES:%=$(BUILD)/handout/stubs/%.c)
REF_STAGES_LIB := $(BUILD)/handout/lib/reference_stages.a
FIGURES       := pipeline mac_cell mac_slice stencil
# The lab's run that the handout's convergence figure shows (check_solvers.sh runs the same).
FIGURE_LAB_ARGS := --sizes 16,32 --cap 500

$(MKFIGURES): handout/mkfigures.c common/grid.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(CC) $(STD) $(WARN) $(CFLAGS) -Icommon $< -lm -o $@

$(HANDOUT_TABLE): $(GRADER) grader/config $(wildcard scenes/*.json)
	@mkdir -p $(@D)
	$(GRADER) --print grading-table > $@.tmp && mv $@.tmp $@

# The figures, drawn into DIR.
define draw_figures
	@mkdir -p $(1)/lab
	@$(MKFIGURES) $(1)
	@$(SOLVERLAB) $(FIGURE_LAB_ARGS) --out $(1)/lab >/dev/null
	@cp $(1)/lab/convergence.svg $(1)/convergence.svg && rm -rf $(1)/lab
endef

# The handout: README.md (getting started, conventions, debugging, grading) and a page a stage.
HANDOUT_PAGES := handout/README.md $(STAGES:%=handout/stages/%.md)

handout-sync: $(MKFIGURES) $(SOLVERLAB) $(HANDOUT_TABLE)
	$(call draw_figures,handout/figures)
	@for f in $(HANDOUT_PAGES); do handout/sync.sh $$f common/stages.h $(HANDOUT_TABLE) || exit 1; done
	@echo "handout-sync: handout/README.md, handout/stages/ and handout/figures/ are up to date"

check-handout: $(MKFIGURES) $(SOLVERLAB) $(HANDOUT_TABLE) check-mutants
	@rm -rf $(BUILD)/handout/figures
	$(call draw_figures,$(BUILD)/handout/figures)
	@diff -r $(BUILD)/handout/figures handout/figures >/dev/null || { \
	  echo "check-handout: handout/figures/ differs from what its programs draw; run make handout-sync" >&2; \
	  diff -rq $(BUILD)/handout/figures handout/figures >&2; exit 1; }
	@for f in $(HANDOUT_PAGES); do handout/sync.sh --check $$f common/stages.h $(HANDOUT_TABLE) || exit 1; done
	@tests/check_student_mk.sh Makefile handout/student.mk && \
	  echo "check-handout: handout/student.mk's copied rules match the Makefile's"
	@tests/check_handout.sh handout $(BUILD)/mutants

$(BUILD)/handout/stubs/%.c: reference/%.c reference/mkstub.awk
	@mkdir -p $(@D)
	awk -v stage=$* -v stages="$(STAGES)" -f reference/mkstub.awk $< > $@

# Only when grader/config says handout.reference_objects = true: the reference's stages,
# compiled without debug information (no source lines) for the students' --use-reference.
$(REF_STAGES_LIB): $(STAGES:%=reference/%.c) handout/refstages.c | $(DEPS_OK)
	@mkdir -p $(@D)/obj
	@for s in $(STAGES); do \
	  $(CC) $(STD) -O2 -g0 -Icommon $(PKG_CFLAGS) -D$$s=ref_$$s -c reference/$$s.c -o $(@D)/obj/$$s.o || exit 1; \
	done
	$(call say,CC,handout/refstages.c)
	$(CC) $(STD) -O2 -g0 -Icommon -Ireference $(PKG_CFLAGS) -c handout/refstages.c -o $(@D)/obj/refstages.o
	@rm -f $@
	$(call say,AR,$@)
	ar rcs $@ $(STAGES:%=$(@D)/obj/%.o) $(@D)/obj/refstages.o
	strip --strip-debug $@

handout: $(GRADER) $(GOLDEN_STAMP) $(HANDOUT_STUBS) check-handout-fresh
	@if [ "$$($(GRADER) --print reference-objects)" = true ]; then \
	  $(MAKE) --no-print-directory $(REF_STAGES_LIB) || exit 1; lib=$(REF_STAGES_LIB); else lib=-; fi; \
	STAGES="$(STAGES)" handout/mkdist.sh $(DIST) $(GOLDEN_DIR) $(BUILD)/handout/stubs $$lib

# The handout ships as committed; a stale one is an error, not something to fix silently.
check-handout-fresh: $(HANDOUT_TABLE)
	@for f in $(HANDOUT_PAGES); do handout/sync.sh --check $$f common/stages.h $(HANDOUT_TABLE) || exit 1; done
	@tests/check_student_mk.sh Makefile handout/student.mk

# The tarball as a student gets it: no solution code in it; unpacked in an empty directory it
# runs, its tests fail on the stubs and pass on the reference's files, and make grade agrees.
# The other setting of handout.reference_objects is checked too, on a second tarball.
DIST_WITH_REF := $(BUILD)/handout/flipkit-student-with-reference.tar.gz
check-dist: handout $(REF_STAGES_LIB)
	@STAGES="$(STAGES)" handout/mkdist.sh $(DIST_WITH_REF) $(GOLDEN_DIR) $(BUILD)/handout/stubs $(REF_STAGES_LIB) >/dev/null
	@STAGES="$(STAGES)" REF_TARBALL=$(DIST_WITH_REF) tests/check_dist.sh $(DIST)

# ---- running --------------------------------------------------------------------------
run: $(FLIPSIM)
	$(FLIPSIM) $(ARGS) $(SCENE)

# The scene's previews as one video at its frame rate (runs the scene first if needed).
movie: $(FLIPSIM)
	@common/movie.sh $(FLIPSIM) "$(SCENE)" $(ARGS)

check-movie: $(FLIPSIM)
	@tests/check_movie.sh $(FLIPSIM)

# ---- stubs: assignment/ is reference/ with the solution blocks stripped ----------------
stubs:
	@for s in $(STAGES); do awk -v stage=$$s -v stages="$(STAGES)" -f reference/mkstub.awk reference/$$s.c > assignment/$$s.c; done
	@echo "assignment/: regenerated $(words $(STAGES)) stubs from reference/"

check-stubs:
	@fail=0; for s in $(STAGES); do \
	  awk -v stage=$$s -v stages="$(STAGES)" -f reference/mkstub.awk reference/$$s.c | cmp -s - assignment/$$s.c \
	    || { echo "check-stubs: assignment/$$s.c differs from what 'make stubs' makes from reference/$$s.c" >&2; fail=1; }; \
	done; exit $$fail
	@echo "check-stubs: assignment/ matches reference/"

# ---- the student's tests: one Check suite per stage ------------------------------------
golden: $(GOLDEN_STAMP)
$(GOLDEN_STAMP): $(MKGOLDEN) $(GOLDEN_SCENES)
	@rm -rf $(GOLDEN_DIR)
	$(MKGOLDEN) $(GOLDEN_DIR) $(GOLDEN_SCENES)
	@touch $@

test: $(STAGE_TESTS) $(GOLDEN_STAMP)
	@tests/run_suites.sh $(TRACK) $(STAGE_TESTS)

$(STAGES:%=test-%): test-%: $(BUILD)/tests/test_% $(GOLDEN_STAMP)
	@FLIPKIT_TRACK=$(TRACK) $<

# The suites can fail: reference passes, stubs fail without crashing, isolation per stage.
check-suites: $(STAGE_TESTS) $(GOLDEN_STAMP)
	@tests/check_suites.sh $(STAGE_TESTS)

# Coverage: the suites built with --coverage into build/cov, then gcovr. The stage suites run
# against TRACK (your own stage files with the default TRACK=student), the common suites too.
COV_BUILD := build/cov
coverage: | $(DEPS_OK)
	@$(MAKE) --no-print-directory BUILD=$(COV_BUILD) CFLAGS="-O0 -g --coverage" \
	  LDFLAGS="--coverage" all-tests >/dev/null
	@find $(COV_BUILD) -name '*.gcda' -delete
	@$(MAKE) --no-print-directory golden >/dev/null
	@for t in $(COMMON_TESTS); do $(COV_BUILD)/tests/test_$$t >/dev/null 2>&1 || true; done
	@for s in $(STAGES); do FLIPKIT_TRACK=$(TRACK) $(COV_BUILD)/tests/test_$$s >/dev/null 2>&1 || true; done
	@if [ "$(TRACK)" = reference ]; then for s in $(STAGES); do \
	  FLIPKIT_TRACK=opencl $(COV_BUILD)/tests/test_$$s >/dev/null 2>&1 || true; done; fi
	@mkdir -p build/coverage
	@gcovr -r . --object-directory $(COV_BUILD) -f common/ -f reference/ -f assignment/ \
	  --html-details build/coverage/index.html >/dev/null
	@tests/coverage_summary.sh $(COV_BUILD) $(TRACK)

# The OpenCL stages under the same suites (PoCL's CPU device here).
check-opencl: $(STAGE_TESTS) $(GOLDEN_STAMP)
	@tests/run_suites.sh opencl $(STAGE_TESTS)

# A planted bug is compiled in place of the student's stage and linked into that stage's suite.
check-mutants: $(STAGE_TESTS) $(GOLDEN_STAMP)
	@CC="$(CC)" BUILD="$(BUILD)" MUT_CFLAGS="$(ALL_CFLAGS)" MUT_LDFLAGS="$(ALL_LDFLAGS)" \
	  MUT_LIBS="$(CHECK_LIBS) $(LIBS)" MUT_OBJS="$(TEST_SUPPORT) $(SIM_OBJ)" tests/check_mutants.sh

# ---- self-check ------------------------------------------------------------------------
test-common: $(COMMON_TESTS:%=$(BUILD)/tests/test_%)
	@for t in $^; do $$t || exit 1; done

test-physics: $(BUILD)/tests/test_physics
	$<

# The OpenCL pipeline against the C reference: scenes, solvers, determinism (PoCL here).
check-pipeline: $(BUILD)/tests/test_pipeline
	$<

check-determinism: $(FLIPSIM)
	@tests/check_determinism.sh $(FLIPSIM)
	@tests/check_device_cli.sh $(FLIPSIM)
	@tests/check_out_dir.sh $(FLIPSIM)

# ---- fuzzing (libFuzzer, clang): the scene loader, the state reader, the PLY reader ------------
# make fuzz: FUZZ_SECONDS per target (300); check-fuzz: 20 s each, part of make check. A finding
# fails the run and leaves its input in build/fuzz/crash-TARGET-*.
FUZZ_DIR     := build/fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_TARGETS := scene state ply
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow \
                -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
FUZZ_OBJ     := $(COMMON_SRC:%.c=$(FUZZ_DIR)/%.o) $(STAGES:%=$(FUZZ_DIR)/assignment/%.o) \
                $(FUZZ_DIR)/assignment/track.o
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_TINY    := {"name": "tiny", "grid": {"resolution": [6, 5, 4], "cell_size": 0.5}, \
                "fluid": [{"box": {"min": [0.5, 0.5, 0.5], "max": [1.5, 1.5, 1.5]}}]}

$(FUZZ_DIR)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(FUZZ_CC) $(STD) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) -Icommon -Icommon/writers $(PKG_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_%: tests/fuzz_%.c tests/fuzzfile.h $(FUZZ_OBJ)
	$(call say,LD,$@)
	$(FUZZ_CC) $(STD) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -Icommon -Icommon/writers $(PKG_CFLAGS) \
	  $< $(FUZZ_OBJ) $(LIBS) -o $@

# Seeds from the kit's own files: its scenes, a tiny scene's checkpoints and frames (of the
# scene fuzz_state.c loads them into), and the golden cases' states.
$(FUZZ_DIR)/corpus/.made: $(FLIPSIM) $(GOLDEN_STAMP) $(wildcard scenes/*.json tests/bad_scenes/*)
	@rm -rf $(@D) && mkdir -p $(@D)/scene $(@D)/state $(@D)/ply $(@D)/run
	@cp scenes/*.json tests/golden/*.json grader/cases/*.json $(@D)/scene/
	@for f in tests/bad_scenes/*; do cp "$$f" "$(@D)/scene/bad-$$(basename "$$f")"; done
	@echo '$(FUZZ_TINY)' > $(@D)/run/tiny.json
	@$(FLIPSIM) --quiet --device cpu --frames 2 --checkpoint-every 1 --out $(@D)/run/out $(@D)/run/tiny.json
	@cp $(@D)/run/out/state/*.state $(@D)/state/
	@for f in $$(ls $(GOLDEN_DIR)/*/*.state 2>/dev/null | head -n 8); do cp "$$f" "$(@D)/state/golden-$$(echo "$$f" | tr / -)"; done
	@for f in $(@D)/run/out/particles/*.ply; do cp "$$f" "$(@D)/ply/"; done
	@rm -rf $(@D)/run
	@touch $@

fuzz: $(FUZZ_BINS) $(FUZZ_DIR)/corpus/.made
	@tests/run_fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

check-fuzz: $(FUZZ_BINS) $(FUZZ_DIR)/corpus/.made
	@tests/run_fuzz.sh $(FUZZ_DIR) 20 $(FUZZ_TARGETS)

check-warnings: | $(DEPS_OK)
	@tests/check_warnings.sh

check-sanitize: | $(DEPS_OK)
	@$(MAKE) --no-print-directory SANITIZE=1 build/asan/flipsim
	@tests/check_bad_scenes.sh build/asan/flipsim

check: check-stubs test-common test-physics check-suites check-mutants check-opencl check-pipeline \
       check-solvers check-grader check-handout check-dist check-determinism check-movie check-sanitize \
       check-warnings coverage-check check-fuzz
	@echo "make check: all passed"

coverage-check:
	@$(MAKE) --no-print-directory coverage TRACK=reference

clean:
	rm -rf build dist
