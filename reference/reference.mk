# reference/reference.mk — the kit's flipsim (both tracks, the OpenCL pipeline), running it,
# the stubs made from the reference, benchmarks and the convergence lab.
# flipkit reference/: included by the top Makefile after common/build.mk.

# Reference stages share their names with the student's; they are renamed ref_<stage> at
# compile time so both tracks live in one binary (--use-reference swaps between them).
$(REF_STAGE_OBJ): $(BUILD)/reference/%.o: reference/%.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -D$*=ref_$* -c $< -o $@

# common/constants.h as a C string literal: reference/clx.c puts it in front of the kernels.
CONSTANTS_INC := $(BUILD)/gen/constants_cl.inc
$(CONSTANTS_INC): common/constants.h
	@mkdir -p $(@D)
	$(call say,GEN,$@)
	{ printf '%s\n' '"#line 1 \"common/constants.h\"\n"'; sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&\\n"/' $<; } > $@.tmp && mv $@.tmp $@
$(BUILD)/reference/clx.o: $(CONSTANTS_INC)
$(BUILD)/reference/clx.o: ALL_CFLAGS += -I$(BUILD)/gen

$(FLIPSIM): $(SIM_OBJ) $(BUILD)/reference/flipsim_main.o
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

#:Running:
all: $(FLIPSIM) ## build build/flipsim (the default goal)

run: deps ## build and run a scene: [SCENE=scenes/ball_drop.json] [ARGS='--frames 10']; installs missing packages first
	@$(MAKE) --no-print-directory $(FLIPSIM)
	$(FLIPSIM) $(ARGS) $(SCENE)

# The scene's previews as one video at its frame rate (runs the scene first if needed).
movie: $(FLIPSIM) ## out/<scene name>/preview.mp4 from the scene's previews (needs ffmpeg) [SCENE=...] [ARGS=...]
	@common/movie.sh $(FLIPSIM) "$(SCENE)" $(ARGS)

# ---- stubs: assignment/ is reference/ with the solution blocks stripped ----------------
stubs: ## regenerate assignment/ from reference/ (mkstub.awk)
	@for s in $(STAGES); do awk -v stage=$$s -v stages="$(STAGES)" -f reference/mkstub.awk reference/$$s.c > assignment/$$s.c; done
	@echo "assignment/: regenerated $(words $(STAGES)) stubs from reference/"

check-stubs: ## assignment/ is what make stubs makes
	@fail=0; for s in $(STAGES); do \
	  awk -v stage=$$s -v stages="$(STAGES)" -f reference/mkstub.awk reference/$$s.c | cmp -s - assignment/$$s.c \
	    || { echo "check-stubs: assignment/$$s.c differs from what 'make stubs' makes from reference/$$s.c" >&2; fail=1; }; \
	done; exit $$fail
	@echo "check-stubs: assignment/ matches reference/"

# The maintainer's tools (maintainer/: the golden recorder, the benchmark, the validation report,
# the convergence lab) read the reference's headers, and the recorder the stage cases' (tests/lib).
$(BUILD)/maintainer/%.o: ALL_CFLAGS += -Ireference -Itests/lib

# Golden cases: the reference's input and output of every stage on tests/golden/*.json,
# recorded by running the reference on those scenes (the suites and the grader read them).
MKGOLDEN      := $(BUILD)/maintainer/mkgolden
GOLDEN_DIR    := build/golden
GOLDEN_SCENES := $(sort $(wildcard tests/golden/*.json))
GOLDEN_STAMP  := $(GOLDEN_DIR)/.made

$(MKGOLDEN): $(BUILD)/maintainer/mkgolden.o $(CHECKLIB) $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(GOLDEN_STAMP): $(MKGOLDEN) $(GOLDEN_SCENES)
	@rm -rf $(GOLDEN_DIR)
	$(MKGOLDEN) $(GOLDEN_DIR) $(GOLDEN_SCENES)
	@touch $@

# ---- benchmarks and the convergence lab -------------------------------------------------
# C reference against the OpenCL pipeline; BENCH_ARGS=--quick for the smaller sizes only.
BENCH      := $(BUILD)/maintainer/bench
BENCH_ARGS ?=
$(BENCH): $(BUILD)/maintainer/bench.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -pthread -o $@

#:Measuring:
bench: $(BENCH) ## C vs OpenCL per stage, peak memory per run, outputs and triangles, solvers, bandwidth (build/bench/) [BENCH_ARGS=--quick|--outputs|--shipped [SCENE...]]
	@mkdir -p build/bench
	@$(BENCH) $(BENCH_ARGS)

# Validation: the reference against Martin & Moyce's dam break, the hydrostatic tank, a standing
# wave and the volume of two splashes, each at the teaching and the production stepping side by
# side (build/validate/report.html); check-validate is its short version, both settings too.
VALIDATE := $(BUILD)/maintainer/validate
$(VALIDATE): $(BUILD)/maintainer/validate.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -pthread -o $@

validate: $(VALIDATE) ## the reference against experiment and exact results, teaching and production stepping: build/validate/report.html
	@$(VALIDATE)

check-validate: $(VALIDATE) ## make validate at one resolution, each case within its tolerance at both settings
	@$(VALIDATE) --short

# ---- Python: the package's suite (pylib and python-examples are common/build.mk's) -----------
# The kit's libflipkit.so has the reference track and its OpenCL pipeline (PYLIB_MAIN hands them in).

check-python: pylib $(FLIPSIM) ## the Python package's suite (tests/python) and its two examples, headless
	@$(PY_ENV) $(PYTHON) -m unittest discover -s tests/python -t tests/python
	@$(MAKE) --no-print-directory python-examples
	@for f in build/python/pressure_slice.png build/python/residuals.png; do \
	  test "$$(stat -c %s $$f)" -gt 20000 || { echo "check-python: $$f: under 20 kB, not a plot"; exit 1; }; done

# Every C solver's residual after each iteration on the first solve of the hydrostatic tank;
# SOLVERS_ARGS="--sizes 16,32 --cap 500" for a smaller run.
SOLVERLAB    := $(BUILD)/maintainer/solverlab
SOLVERS_ARGS ?=
$(SOLVERLAB): $(BUILD)/maintainer/solverlab.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

solvers: $(SOLVERLAB) ## the convergence lab: residual per iteration of every solver (build/solvers/) [SOLVERS_ARGS=...]
	@mkdir -p build/solvers
	@$(SOLVERLAB) $(SOLVERS_ARGS)

check-solvers: $(SOLVERLAB) ## the lab at 16^3 and 32^3, its numbers and its SVG checked
	@tests/check_solvers.sh $(SOLVERLAB)
