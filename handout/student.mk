# flipkit (student kit) — one entry point. `make run` runs the default scene with your stages,
# `make test` tests all eight, `make help` lists the rest. handout/README.md is the assignment.
# Objects and binaries live under build/ (build/asan with SANITIZE=1).
# This Makefile is made for the tarball by `make handout` from the kit's handout/student.mk.
# Its deps, compile and grader-kit rules are the kit Makefile's own; make handout checks they still are.

# The eight stages, read from common/stagelist.h (the one list; C reads it as STAGE_LIST).
STAGES   := $(shell sed -n 's/^ *X([0-9]*, *\([a-z0-9_]*\)).*/\1/p' common/stagelist.h)
export STAGES
SCENE    ?= scenes/first_drop.json
ARGS     ?=
CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L
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
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD    := build
SANFLAGS :=
endif

# No OpenCL here: a student's build needs a C compiler, make, Check, jansson and libpng; the
# self-check grader (make grade) adds libconfig and libarchive.
DEB_PKGS := build-essential check pkg-config libjansson-dev libpng-dev libconfig-dev libarchive-dev gcovr
PKGS_LIB := jansson libpng check libconfig libarchive
DEPS_OK  := build/.deps-ok

PKG_CFLAGS   = $(shell pkg-config --cflags jansson libpng 2>/dev/null)
PKG_LIBS     = $(shell pkg-config --libs jansson libpng 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

# The golden cases come recorded in tests/golden/public (the kit's reference made them).
ALL_CFLAGS  = $(STD) $(WARN) $(CFLAGS) $(SANFLAGS) -Icommon -Icommon/writers $(PKG_CFLAGS) -MMD -MP \
              -DFLIPKIT_GOLDEN_DIR='"tests/golden/public"' $(REF_CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS        = $(PKG_LIBS) -lm

# Reference stages, compiled, when your instructor shipped them (lib/reference_stages.a):
# then --use-reference=p2g,g2p takes those stages from the reference.
REF_LIB    := $(wildcard lib/reference_stages.a)
REF_CFLAGS := $(if $(REF_LIB),-DFLIPKIT_REFERENCE_OBJECTS)

COMMON_SRC := $(filter-out common/flipsim_main.c,$(wildcard common/*.c common/writers/*.c))
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
STU_OBJ    := $(STAGES:%=$(BUILD)/assignment/%.o) $(BUILD)/assignment/track.o
SIM_OBJ    := $(COMMON_OBJ) $(STU_OBJ)
FLIPSIM    := $(BUILD)/flipsim

STAGE_TESTS  := $(STAGES:%=$(BUILD)/tests/test_%)
TEST_SUPPORT := $(BUILD)/tests/harness.o $(BUILD)/tests/golden.o $(BUILD)/tests/compare.o \
                $(BUILD)/tests/fielddiff.o $(BUILD)/tests/stagecase.o

.PHONY: all run movie test $(STAGES:%=test-%) grade coverage golden deps clean help
.DEFAULT_GOAL := all
.SECONDARY:

all: $(FLIPSIM)

help:
	@echo "flipkit (student kit) targets; handout/README.md is the assignment:"
	@echo "  make run [SCENE=scenes/first_drop.json] [ARGS='--frames 10']  build and run a scene with"
	@echo "                                      your stages (writes out/<scene name>/particles/*.ply;"
	@echo "                                      first_drop also preview/, ball_drop surface/ and preview/)"
	@echo "  make movie [SCENE=...] [ARGS=...]   out/<scene name>/preview.mp4 from the previews (ffmpeg)"
	@echo "  make test                           all eight stage suites on your assignment/, then a table"
	@echo "  make test-<stage>                   one stage's suite: $(STAGES)"
	@echo "  make grade                          the self-check: each stage alone on the public cases,"
	@echo "                                      as the grader does (build/grades/self/report.html)"
	@echo "  make coverage                       which lines of your stages the suites reached"
	@echo "                                      (HTML in build/coverage/index.html)"
	@echo "  make SANITIZE=1 test                build with ASan+UBSan into build/asan/"
	@echo "  make deps                           install missing system packages"
	@echo "  make clean                          remove build/ (your assignment/ and out/ stay)"
	@echo "Debugging a suite (Check's own variables):"
	@echo "  CK_RUN_CASE=golden make test-p2g    run one case (analytic or golden) of a suite"
	@echo "  CK_FORK=no gdb build/tests/test_p2g run in one process, so gdb stops in your stage"
	@echo "  CK_TIMEOUT_MULTIPLIER=6 make test   give each case 6 x its 10 s (valgrind, slow machines)"
	@echo "Isolating a bug in a whole run: ARGS='--set use_gauss_seidel=true' swaps your jacobi for"
	@echo "  the given Gauss-Seidel; ARGS='--use-reference=p2g,g2p' swaps stages for the reference's"
	@echo "  $(if $(REF_LIB),(shipped in lib/ by your instructor),(not in this kit: your instructor did not ship the reference stages))."

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
$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(FLIPSIM): $(SIM_OBJ) $(BUILD)/common/flipsim_main.o $(REF_LIB)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_SUPPORT) $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(CHECK_LIBS) $(LIBS) -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- running and testing ----------------------------------------------------------------
# --track student is the default; it is spelled out because with the reference stages shipped
# the binary has both tracks (ARGS='--track reference' still picks the other).
run: $(FLIPSIM)
	$(FLIPSIM) --track student $(ARGS) $(SCENE)

# The scene's previews as one video at its frame rate (runs the scene first if it has none).
movie: $(FLIPSIM)
	@common/movie.sh $(FLIPSIM) "$(SCENE)" --track student $(ARGS)

test: $(STAGE_TESTS)
	@tests/run_suites.sh student $(STAGE_TESTS)

$(STAGES:%=test-%): test-%: $(BUILD)/tests/test_%
	@$<

golden:
	@echo "make golden: the golden cases come recorded in tests/golden/public/ (the reference made"
	@echo "them and it is not in this kit); if they are missing, unpack the tarball again."

# ---- the self-check grader --------------------------------------------------------------
# The instructor's grader, with only the public cases: each stage is compiled alone, run in a
# sandbox on the cases of tests/golden/public, and scored with the points of grader/config.
# (The whole-scene part needs the reference's frames, which are not shipped: it runs only at
# grading time.)
GRADER      := $(BUILD)/flipgrade
GRADE_KIT   := $(BUILD)/grader/kit
GRADER_MODS := flipgrade gradeconfig intake metrics build stagepart scenepart report render sandbox sbjail sbcalls
GRADER_CFLAGS = -Igrader -Itests $(shell pkg-config --cflags libconfig libarchive 2>/dev/null)
GRADER_LIBS   = $(shell pkg-config --libs jansson libpng libconfig libarchive 2>/dev/null) -lm
RUNNER_LIBS   = $(PKG_LIBS) -lm
GRADE_KIT_FILES := $(GRADE_KIT)/libkit.a $(GRADE_KIT)/track.o $(GRADE_KIT)/guard.o $(GRADE_KIT)/include/.made \
                   $(GRADE_KIT)/stagerun.o $(GRADE_KIT)/scenerun.o $(STAGES:%=$(GRADE_KIT)/stub_%.o)

$(BUILD)/grader/%.o: grader/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) $(GRADER_CFLAGS) -DFLIPGRADE_CC='"$(CC)"' -DFLIPGRADE_LIBS='"$(RUNNER_LIBS)"' -c $< -o $@

$(GRADER): $(GRADER_MODS:%=$(BUILD)/grader/%.o) $(GRADE_KIT)/libkit.a | $(GRADE_KIT_FILES)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(GRADER_LIBS) -o $@

$(GRADE_KIT)/libkit.a: $(COMMON_OBJ) $(BUILD)/tests/stagecase.o $(BUILD)/tests/fielddiff.o
	@mkdir -p $(@D)
	@rm -f $@
	$(call say,AR,$@)
	ar rcs $@ $^

# A stage's untouched stub stands in for a file of yours that does not compile.
$(GRADE_KIT)/stub_%.o: grader/stubs/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

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

grade: $(GRADER) $(GRADE_KIT_FILES)
	@$(GRADER) --public --parts stages --data tests/golden --objects $(GRADE_KIT) \
	  --out build/grades/self assignment

# ---- coverage --------------------------------------------------------------------------
COV_BUILD := build/cov
coverage: | $(DEPS_OK)
	@$(MAKE) --no-print-directory BUILD=$(COV_BUILD) CFLAGS="-O0 -g --coverage" \
	  LDFLAGS="--coverage" $(STAGES:%=$(COV_BUILD)/tests/test_%) >/dev/null
	@find $(COV_BUILD) -name '*.gcda' -delete
	@for s in $(STAGES); do $(COV_BUILD)/tests/test_$$s >/dev/null 2>&1 || true; done
	@command -v gcovr >/dev/null || { echo "make coverage: gcovr is not installed (apt-get install gcovr)" >&2; exit 1; }
	@mkdir -p build/coverage
	@gcovr -r . --object-directory $(COV_BUILD) -f assignment/ \
	  --html-details build/coverage/index.html --print-summary
	@echo "make coverage: build/coverage/index.html"

clean:
	rm -rf build
