# flipkit (student kit) — one entry point. `make run` runs the default scene with your stages,
# `make test` tests all eight, `make help` lists the rest. handout/README.md is the assignment.
# Objects and binaries live under build/ (build/asan with SANITIZE=1).
# This Makefile is made for the tarball by `make handout` from the kit's handout/student.mk. It
# compiles with the kit's own rules: common/build.mk and grader/kit.mk are the kit's files.

SCENE ?= scenes/first_drop.json
# Each stage and the level your instructor hands it out at (guided, standard or open; given: the
# reference's, compiled in lib/stages/, not yours to write). make handout writes this line from
# grader/config (handout.level, handout.level_by_stage, handout.given_stages).
KIT_LEVELS := advect=guided gravity=guided p2g=guided g2p=guided divergence=guided laplacian=guided jacobi=guided gradient=guided
ARGS  ?=

# No OpenCL here: a student's build needs a C compiler, make, Check, jansson and libpng; the
# self-check grader (make grade) adds libconfig and libarchive.
DEB_PKGS    := build-essential check pkg-config libjansson-dev libpng-dev libconfig-dev libarchive-dev gcovr \
               python3-numpy python3-matplotlib
PKGS_LIB    := jansson libpng check libconfig libarchive
PKG_MODULES := jansson libpng

# Reference stages, compiled, when your instructor shipped them (lib/reference_stages.a):
# then --use-reference=p2g,g2p takes those stages from the reference.
REF_LIB    := $(wildcard lib/reference_stages.a)
# The golden cases come recorded in tests/golden/public (the kit's reference made them).
KIT_CFLAGS := -DFLIPKIT_GOLDEN_DIR='"tests/golden/public"' $(if $(REF_LIB),-DFLIPKIT_REFERENCE_OBJECTS)

# The suites link it too: common/pyapi.c names the reference's track when it is shipped.
SIM_OBJ  = $(COMMON_OBJ) $(STU_OBJ) $(REF_LIB)
# The Python package's library has your stages only: a shipped reference archive is not -fPIC.
PYLIB_MAKEFLAGS := REF_LIB=
# make submission says which stages are still these untouched stubs.
SUBMISSION_STUBS := grader/stubs
FLIPSIM  = $(BUILD)/flipsim

.DEFAULT_GOAL := all

#:flipkit (student kit) targets; handout/README.md is the assignment:
include common/build.mk
include grader/kit.mk

# After the fragments: STAGES is common/build.mk's.
.PHONY: all run movie view test $(STAGES:%=test-%) golden grade grade-kit submission check-physics coverage deps help clean pylib python-examples

# The archive last: $^ keeps a prerequisite's first place only, and SIM_OBJ already names it,
# so it would come before flipsim_main.o, which is what needs reference_stages_track from it.
$(FLIPSIM): $(SIM_OBJ) $(BUILD)/common/flipsim_main.o $(REF_LIB)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $(filter-out $(REF_LIB),$^) $(REF_LIB) $(LIBS) -o $@

# A stage's untouched stub stands in for a file of yours that does not compile.
$(GRADE_KIT)/stub_%.o: grader/stubs/%.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# A stage your instructor gave you compiled (lib/stages/) runs as it is, in the grader's runs too.
$(GRADE_KIT)/given_%.o: lib/stages/%.o
	@mkdir -p $(@D)
	cp $< $@

#:Running and testing your stages:
all: $(FLIPSIM) ## build build/flipsim with your stages (the default goal)

# --track student is the default; it is spelled out because with the reference stages shipped
# the binary has both tracks (ARGS='--track reference' still picks the other).
run: deps ## build and run a scene with your stages [SCENE=scenes/first_drop.json] [ARGS='--frames 10']; installs missing packages first
	@$(MAKE) --no-print-directory $(FLIPSIM)
	$(FLIPSIM) --track student $(ARGS) $(SCENE)

# The scene's previews as one video at its frame rate (runs the scene first if it has none).
movie: $(FLIPSIM) ## out/<scene name>/preview.mp4 from the previews (needs ffmpeg) [SCENE=...] [ARGS=...]
	@common/movie.sh $(FLIPSIM) "$(SCENE)" --track student $(ARGS)

test: deps ## the suites of the stages you write, on your assignment/, then a table; installs missing packages first
	@$(MAKE) --no-print-directory $(STAGE_TESTS)
	@tests/run_suites.sh student $(STAGE_TESTS)

$(ASSIGNED_STAGES:%=test-%): test-%: $(BUILD)/tests/test_% ## [test-<stage>] one stage's suite
	@$<

ifneq ($(GIVEN_STAGES),)
$(GIVEN_STAGES:%=test-%): test-%:
	@echo "make $@: $* is given in this kit (lib/stages/$*.o, the reference compiled): not yours to write or test"
endif

golden: ## the golden cases come recorded in tests/golden/public/
	@echo "make golden: the golden cases come recorded in tests/golden/public/ (the reference made"
	@echo "them and it is not in this kit); if they are missing, unpack the tarball again."

# ---- the self-check grader --------------------------------------------------------------
# The instructor's grader, with only the public cases and scenes: each stage is compiled alone,
# run in a sandbox on the cases of tests/golden/public; then your whole pipeline runs the graded
# scenes and every frame is compared with the reference's metrics in tests/golden/metrics (the
# grader's own code and thresholds). Points from grader/config. GRADE_PARTS=stages skips the scenes.
GRADE_PARTS ?= all
grade: $(GRADER) $(GRADE_KIT_FILES) ## the self-check: each stage alone on the public cases, then the public scenes frame by frame, as the grader does (build/grades/self/report.html)
	@$(GRADER) --public --parts '$(GRADE_PARTS)' --data tests/golden --objects $(GRADE_KIT) \
	  --out build/grades/self assignment

# ---- coverage --------------------------------------------------------------------------
COV_BUILD := build/cov
coverage: | $(PKGS_FOUND) ## which lines of your stages the suites reached (build/coverage/index.html)
	@$(MAKE) --no-print-directory BUILD=$(COV_BUILD) CFLAGS="-O0 -g --coverage" \
	  LDFLAGS="--coverage" $(ASSIGNED_STAGES:%=$(COV_BUILD)/tests/test_%) >/dev/null
	@find $(COV_BUILD) -name '*.gcda' -delete
	@for s in $(ASSIGNED_STAGES); do $(COV_BUILD)/tests/test_$$s >/dev/null 2>&1 || true; done
	@command -v gcovr >/dev/null || { echo "make coverage: gcovr is not installed (apt-get install gcovr)" >&2; exit 1; }
	@mkdir -p build/coverage
	@gcovr -r . --object-directory $(COV_BUILD) -f assignment/ \
	  --html-details build/coverage/index.html --print-summary
	@echo "make coverage: build/coverage/index.html"

#:Debugging a suite (Check's own variables):
#:  CK_RUN_CASE=golden make test-p2g    run one case (analytic or golden) of a suite
#:  CK_FORK=no gdb build/tests/test_p2g run in one process, so gdb stops in your stage
#:  CK_TIMEOUT_MULTIPLIER=6 make test   give each case 6 x its time, 2 s analytic, 10 s golden (valgrind)
#:  SANITIZE=1 make test                build with ASan+UBSan into build/asan/
#:  V=1 make ...                        print every compile and link command in full
#:Isolating a bug in a whole run: ARGS='--set use_gauss_seidel=true' swaps your jacobi for the
#:  given Gauss-Seidel; ARGS='--use-reference=p2g,g2p' swaps stages for the reference's.
HELP_LEVELS := Your stages and their levels (README.md says what each means): $(foreach p,$(filter-out %=given,$(KIT_LEVELS)),$(subst =,:,$(p)))$(if $(GIVEN_STAGES),; given compiled (not yours): $(GIVEN_STAGES)).
HELP_NOTE := The reference's stages for --use-reference: $(if $(REF_LIB),shipped in lib/ by your instructor,not in this kit (your instructor did not ship them)).
