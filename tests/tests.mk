# tests/tests.mk — the stage suites, golden cases, the suites of common/, physics and the
# pipeline, planted bugs, fuzzing, and `make check`, which runs them all.
# flipkit tests/: included by the top Makefile after common/build.mk and grader/kit.mk.
COMMON_TESTS := grid scene ply state seed cli solvers report sandbox buildcache usd preview surface aniso bricks diffuse outputs peakmem
PHYS_TESTS   := physics pipeline
TEST_BINS    := $(COMMON_TESTS:%=$(BUILD)/tests/test_%) $(PHYS_TESTS:%=$(BUILD)/tests/test_%) $(STAGE_TESTS)

# Only the suites of grader code read grader/ headers and link grader objects.
$(BUILD)/tests/test_report.o $(BUILD)/tests/test_sandbox.o $(BUILD)/tests/test_buildcache.o: ALL_CFLAGS += -Igrader
$(BUILD)/tests/test_report: $(BUILD)/grader/report.o $(BUILD)/grader/render.o $(BUILD)/grader/escape.o \
                           $(BUILD)/grader/gradescope.o $(BUILD)/grader/gradebook.o
$(BUILD)/tests/test_report: LIBS += $(GRADER_LIBS)
$(BUILD)/tests/test_sandbox: $(SANDBOX_OBJ)
$(BUILD)/tests/test_buildcache: $(BUILD)/grader/buildcache.o

#:The stage suites (TRACK=student, reference or opencl):
all-tests: $(TEST_BINS) $(MKGOLDEN) $(SOLVERLAB) ## build every test program
golden: $(GOLDEN_STAMP) ## (re)make the golden cases in build/golden/ (the reference records them)

test: $(STAGE_TESTS) $(GOLDEN_STAMP) ## all eight stage suites, then a table [TRACK=student|reference|opencl]
	@tests/run_suites.sh $(TRACK) $(STAGE_TESTS)

$(STAGES:%=test-%): test-%: $(BUILD)/tests/test_% $(GOLDEN_STAMP) ## [test-<stage>] one stage's suite
	@FLIPKIT_TRACK=$(TRACK) $<

# Coverage: the suites built with --coverage into build/cov, then gcovr. The stage suites run
# against TRACK (your own stage files with the default TRACK=student), the common suites too.
COV_BUILD := build/cov
coverage: | $(PKGS_FOUND) ## which lines of the stages the suites reached (build/coverage/index.html) [TRACK=...]
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
#:  CK_RUN_CASE=golden make test-p2g    run one case (analytic or golden) of a suite
#:  CK_FORK=no gdb build/tests/test_p2g run in one process, so gdb stops in the stage
#:  CK_TIMEOUT_MULTIPLIER=6 make test   give each case 6 x its 10 s (valgrind, slow machines)
#:  SANITIZE=1 make ...                 build with ASan+UBSan (and float-cast-overflow) into build/asan/
#:  V=1 make ...                        print every compile and link command in full
#:Isolating a bug in a whole run: ARGS='--set use_gauss_seidel=true' swaps the student's jacobi
#:  for the given Gauss-Seidel; ARGS='--track student --use-reference=p2g,g2p' swaps stages for
#:  the reference's.

#:The self-check (make check runs every one of these; each runs alone too):
# Two parts at a time (this machine has 2 cores), each part's output kept together; the parts
# that run a make of their own (coverage, sanitize, warnings, the tarball) build into their
# own directories, and every file two parts share is a prerequisite the parent makes first.
check: deps ## the whole self-check (what CI runs); installs missing packages first
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(CHECK_PARTS)
	@echo "make check: all passed"

check-make: ## every phony target has a rule and a line in make help (kit and student kit); the instructor's guide names only targets and files that exist
	@tests/check_make.sh Makefile
	@tests/check_make.sh handout/student.mk
	@tests/check_make.sh --planted
	@tests/check_guide.sh grader/GUIDE.md
	@tests/check_guide.sh --planted

# Every object of the kit's programs (flipsim, its Python library's main, the grader, the
# maintainer's tools): whom each calls. The sources are read from the tree.
LAYER_OBJ := $(SIM_OBJ) $(BUILD)/reference/flipsim_main.o $(PYLIB_MAIN) $(CHECKLIB_OBJ) \
             $(GRADER_MODS:%=$(BUILD)/grader/%.o) $(BUILD)/grader/calibrate.o \
             $(patsubst %.c,$(BUILD)/%.o,$(wildcard maintainer/*.c))
check-layers: $(LAYER_OBJ) ## includes run one way (common/ never names reference/, ...) and no two files include or call each other in a circle
	@tests/check_layers.py $(LAYER_OBJ)
	@tests/check_layers.py --planted "$(CC)" $(LAYER_OBJ)

test-common: $(COMMON_TESTS:%=$(BUILD)/tests/test_%) ## the Check suites of common/ and the grader's parts
	@for t in $^; do $$t || exit 1; done

test-physics: $(BUILD)/tests/test_physics ## the physical validation suite (reference track)
	$<

# The suites can fail: reference passes, stubs fail without crashing, isolation per stage.
check-suites: $(STAGE_TESTS) $(GOLDEN_STAMP) ## the suites pass on the reference, fail on the stubs, per stage
	@tests/check_suites.sh $(STAGE_TESTS)

# A planted bug is compiled in place of the student's stage and linked into that stage's suite;
# a planted kernel bug runs under the opencl track.
check-mutants: $(STAGE_TESTS) $(GOLDEN_STAMP) ## every planted bug (tests/mutants/) fails its stage's analytic case
	@CC="$(CC)" BUILD="$(BUILD)" MUT_CFLAGS="$(ALL_CFLAGS)" MUT_LDFLAGS="$(ALL_LDFLAGS)" \
	  MUT_LIBS="$(CHECK_LIBS) $(LIBS)" MUT_OBJS="$(TEST_SUPPORT) $(SIM_OBJ)" tests/check_mutants.sh

# A run that goes wrong names its stage: planted bugs in a flipsim whose student track is the
# reference's stages (the student's objects are left out; the script compiles its own).
check-watch: $(COMMON_OBJ) $(REF_OBJ) $(BUILD)/assignment/track.o $(BUILD)/reference/flipsim_main.o ## a short run with each planted bug stops naming its stage (watch.c)
	@CC="$(CC)" BUILD="$(BUILD)" WATCH_CFLAGS="$(ALL_CFLAGS)" WATCH_LDFLAGS="$(ALL_LDFLAGS)" WATCH_LIBS="$(LIBS)" \
	  WATCH_OBJS="$(COMMON_OBJ) $(REF_OBJ) $(BUILD)/assignment/track.o $(BUILD)/reference/flipsim_main.o" \
	  tests/check_watch.sh

# The OpenCL stages under the same suites (PoCL's CPU device here).
check-opencl: $(STAGE_TESTS) $(GOLDEN_STAMP) ## the stage suites against the OpenCL pipeline's own phases
	@tests/run_suites.sh opencl $(STAGE_TESTS)

# The kernels under Oclgrind: every out-of-bounds access or race is an error, even one that
# leaves the values as they were.
check-oclgrind: $(STAGE_TESTS) $(FLIPSIM) ## the stage suites and four small scenes on OpenCL under Oclgrind (out-of-bounds, races)
	@tests/check_oclgrind.sh $(BUILD) $(STAGES)

# The OpenCL pipeline against the C reference: scenes, solvers, determinism (PoCL here).
check-pipeline: $(BUILD)/tests/test_pipeline ## the OpenCL pipeline against the C reference
	$<

check-determinism: $(FLIPSIM) ## the same scene writes the same bytes; --out locking and clearing
	@tests/check_determinism.sh $(FLIPSIM)
	@tests/check_device_cli.sh $(FLIPSIM)
	@tests/check_out_dir.sh $(FLIPSIM)

check-movie: $(FLIPSIM) ## make movie, with and without ffmpeg
	@tests/check_movie.sh $(FLIPSIM)

# Installs Debian's chromium for itself when missing (and says it skipped when it cannot).
check-viewer: $(FLIPSIM) ## make view's page in headless Chromium: two small runs side by side, a 64³ frame timed
	@tests/check_viewer.sh $(FLIPSIM)

# Blender (Debian's, 87 MB and ~70 libraries) is not in DEB_PKGS: only check-blender needs it.
# deps-blender installs it the way `make deps` installs the kit's packages (root or sudo, under
# the lock the page checks' apt-get takes); check-blender runs it first. Not part of make check:
# the install alone takes minutes on a fresh machine.
BLENDER_DEB_PKGS := blender
deps-blender: ## install Debian's blender for check-blender (apt-get, through sudo when not root)
	@command -v blender >/dev/null 2>&1 || { \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "flipkit: check-blender needs Blender; this is not Debian/Ubuntu: install $(BLENDER_DEB_PKGS) by hand" >&2; exit 1; fi; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  echo "+ $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BLENDER_DEB_PKGS)"; \
	  flock -w 900 /tmp/flipkit-apt.lock sh -c "$$sudo apt-get update -qq && \
	    $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BLENDER_DEB_PKGS) >/dev/null" || \
	    { echo "flipkit: apt-get could not install $(BLENDER_DEB_PKGS)" >&2; exit 1; }; }

# A 64³ ball_drop through the splash, its surfaces imported into Blender (bmesh): 0 non-manifold
# edges and vertices, as many triangles as each file holds; then a planted duplicate triangle
# must be caught.
check-blender: $(FLIPSIM) deps-blender ## Blender imports the 64³ ball_drop's surface PLYs near the splash: 0 non-manifold, every triangle
	@tests/check_blender.sh $(FLIPSIM)

check-warnings: | $(PKGS_FOUND) ## gcc and clang build without a warning
	@tests/check_warnings.sh

check-sanitize: | $(PKGS_FOUND) ## ASan/UBSan flipsim on every bad scene
	@$(MAKE) --no-print-directory SANITIZE=1 build/asan/flipsim
	@tests/check_bad_scenes.sh build/asan/flipsim

coverage-check: $(GOLDEN_STAMP) ## coverage of the reference track
	@$(MAKE) --no-print-directory coverage TRACK=reference

# ---- fuzzing (libFuzzer, clang): the scene loader, the state and PLY readers, the grader's intake
# make fuzz: FUZZ_SECONDS per target (300); check-fuzz: 20 s each, part of make check. A finding
# fails the run and leaves its input in build/fuzz/crash-TARGET-*. FUZZ_TARGETS=intake (say) runs
# only those.
FUZZ_DIR     := build/fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_TARGETS := scene state ply intake
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow \
                -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
FUZZ_OBJ     := $(COMMON_SRC:%.c=$(FUZZ_DIR)/%.o) $(STAGES:%=$(FUZZ_DIR)/assignment/%.o) \
                $(FUZZ_DIR)/assignment/track.o
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_TINY    := {"name": "tiny", "grid": {"resolution": [6, 5, 4], "cell_size": 0.5}, \
                "fluid": [{"box": {"min": [0.5, 0.5, 0.5], "max": [1.5, 1.5, 1.5]}}]}

$(FUZZ_DIR)/%.o: %.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(FUZZ_CC) $(STD) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) -Icommon -Icommon/writers $(PKG_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_%: tests/fuzz_%.c tests/fuzzfile.h $(FUZZ_OBJ)
	$(call say,LD,$@)
	$(FUZZ_CC) $(STD) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -Icommon -Icommon/writers $(PKG_CFLAGS) \
	  $< $(FUZZ_OBJ) $(LIBS) -o $@

# The grader's intake: its own two files, libarchive, and zlib to gzip the tars it makes.
FUZZ_INTAKE_OBJ := $(FUZZ_DIR)/grader/intake.o $(FUZZ_DIR)/grader/escape.o
$(FUZZ_DIR)/fuzz_intake: tests/fuzz_intake.c tests/fuzzfile.h grader/intake.h $(FUZZ_INTAKE_OBJ) $(FUZZ_OBJ)
	$(call say,LD,$@)
	$(FUZZ_CC) $(STD) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -Icommon -Igrader $(PKG_CFLAGS) \
	  $< $(FUZZ_INTAKE_OBJ) $(FUZZ_OBJ) $(LIBS) $(shell pkg-config --libs libarchive zlib 2>/dev/null) -o $@

# Seeds from the kit's own files: its scenes, a tiny scene's checkpoints and frames (of the
# scene fuzz_state.c loads them into), the golden cases' states, and for the intake the
# reference's stage files as a tar, a tar.gz and a zip, and a tar whose p2g.c header says size
# -1, each after the byte that makes fuzz_intake.c read it as an archive.
$(FUZZ_DIR)/corpus/.made: $(FLIPSIM) $(GOLDEN_STAMP) $(wildcard scenes/*.json tests/bad_scenes/*) \
                          $(STAGES:%=reference/%.c) tests/grader/mkarchive.py
	@rm -rf $(@D) && mkdir -p $(@D)/scene $(@D)/state $(@D)/ply $(@D)/run $(@D)/intake
	@for a in ref.tar ref.tar.gz ref.zip; do tests/grader/mkarchive.py $(@D)/run/$$a reference; done
	@tests/grader/mkarchive.py $(@D)/run/realsize-negative.tar reference --realsize p2g=-1
	@for a in $(@D)/run/*.tar $(@D)/run/*.tar.gz $(@D)/run/*.zip; do \
	  { printf '\000'; cat "$$a"; } > $(@D)/intake/$$(basename "$$a"); done
	@cp scenes/*.json tests/golden/*.json grader/cases/*.json $(@D)/scene/
	@for f in tests/bad_scenes/*; do cp "$$f" "$(@D)/scene/bad-$$(basename "$$f")"; done
	@echo '$(FUZZ_TINY)' > $(@D)/run/tiny.json
	@$(FLIPSIM) --quiet --device cpu --frames 2 --checkpoint-every 1 --out $(@D)/run/out $(@D)/run/tiny.json
	@cp $(@D)/run/out/state/*.state $(@D)/state/
	@for f in $$(ls $(GOLDEN_DIR)/*/*.state 2>/dev/null | head -n 8); do cp "$$f" "$(@D)/state/golden-$$(echo "$$f" | tr / -)"; done
	@for f in $(@D)/run/out/particles/*.ply; do cp "$$f" "$(@D)/ply/"; done
	@rm -rf $(@D)/run
	@touch $@

check-fuzz: $(FUZZ_BINS) $(FUZZ_DIR)/corpus/.made ## libFuzzer on the scene loader, state and PLY readers and the grader's intake, 20 s each
	@tests/run_fuzz.sh $(FUZZ_DIR) 20 $(FUZZ_TARGETS)

fuzz: $(FUZZ_BINS) $(FUZZ_DIR)/corpus/.made ## the same for FUZZ_SECONDS each [FUZZ_SECONDS=300] [FUZZ_TARGETS=scene state ply intake]
	@tests/run_fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

CHECK_PARTS := check-make check-layers check-stubs test-common test-physics check-suites check-mutants check-watch check-opencl check-oclgrind \
               check-pipeline check-solvers check-grader check-class check-handout check-dist check-determinism \
               check-movie check-sanitize check-warnings coverage-check check-fuzz check-slurm check-gradescope \
               check-validate check-python check-viewer
