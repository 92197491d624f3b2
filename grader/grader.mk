# grader/grader.mk — the kit's side of the grader: stubs made from the reference, the
# reference's data, calibration, and grading one submission or a class.
# flipkit grader/: included by the top Makefile after grader/kit.mk (which builds flipgrade).
GRADE_DATA  := build/grader/data
GRADE_CASES := $(sort $(wildcard grader/cases/*.json))

# A stage's stub, made from the reference as `make stubs` does, stands in for a student file
# that is missing or does not compile.
$(GRADE_KIT)/stub_%.o: reference/%.c reference/mkstub.awk | $(PKGS_FOUND)
	@mkdir -p $(@D)
	awk -v stage=$* -v stages="$(STAGES)" -f reference/mkstub.awk $< > $(GRADE_KIT)/stub_$*.c
	$(call say,CC,$(GRADE_KIT)/stub_$*.c)
	$(CC) $(ALL_CFLAGS) -c $(GRADE_KIT)/stub_$*.c -o $@

# A stage of handout.given_stages runs as the reference's, under the stage's own name.
$(GRADE_KIT)/given_%.o: reference/%.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$< (given))
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# Calibration: the reference's OpenCL stages and pipeline against the grader's thresholds.
CALIBRATE := $(BUILD)/grader/calibrate
$(BUILD)/grader/calibrate.o: GRADER_CFLAGS += -Ireference
$(CALIBRATE): $(BUILD)/grader/calibrate.o $(BUILD)/grader/metrics.o $(BUILD)/grader/gradeconfig.o \
              $(SANDBOX_OBJ) $(CHECKLIB) $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) $(GRADER_LIBS) -o $@

# The reference's hidden and public cases and its frames of every graded scene.
$(GRADE_DATA)/.made: $(GRADER) $(MKGOLDEN) $(FLIPSIM) grader/config $(GRADE_CASES) $(GOLDEN_SCENES) $(wildcard scenes/*.json)
	$(GRADER) --prepare --data $(GRADE_DATA) --mkgolden $(MKGOLDEN) --flipsim $(FLIPSIM)
	@touch $@

grade-data: $(GRADE_DATA)/.made ## (re)make the reference's cases and frames for the grader

check-grader: grade-kit $(CALIBRATE) $(GRADE_DATA)/.made ## the grader calibrated: reference, OpenCL, planted bugs, hostile code, sandbox attacks
	@tests/check_cases.sh $(MKGOLDEN)
	@tests/check_grader.sh $(GRADER) $(CALIBRATE)
	@tests/check_variants.sh $(GRADER)

# make grade: the self-check on the public cases. make grade SUBMISSIONS=dir/: a class, graded by
# `flipgrade --class`, which reads dir/ itself and starts each grading with an argv array, so no
# submission's name ever reaches make or a shell; as many at once as this make's -jN (JOBS=N
# overrides it; -j alone: one per CPU), then build/grades/grades.csv. ONLY='a b' grades those
# alone and writes the CSV again from every report; GRADE_PARTS=stages|scenes grades only those
# parts. GRADE_ON=slurm: the same class as one Slurm array job (grader/slurm.sh). Every variable
# reaches the shell as one single-quoted word.
SUBMISSIONS   ?=
GRADES_CSV    ?= build/grades/grades.csv
GRADE_REPORTS ?= build/grades
GRADE_CONFIG  ?= grader/config
GRADE_PARTS   ?= all
GRADE_ON      ?= local
ONLY          ?=
JOBS          ?=
# $(call grade_q,TEXT): TEXT as one shell word, in single quotes, each of its own as '\''.
grade_q = '$(subst ','\'',$(1))'
# While a recipe runs, MAKEFLAGS holds -jN (or -j alone) when make was given it.
grade_jobs = $(or $(JOBS),$(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),$(if $(filter -j,$(MAKEFLAGS)),0,1))
grade_common = --config $(call grade_q,$(GRADE_CONFIG)) --parts $(call grade_q,$(GRADE_PARTS)) \
               --reports $(call grade_q,$(GRADE_REPORTS)) $(if $(ONLY),--only $(call grade_q,$(ONLY)))
ifeq ($(SUBMISSIONS),)
grade: grade-kit $(GRADE_DATA)/.made ## assignment/ against the public cases; SUBMISSIONS=dir/ [-j2] [ONLY='a b'] [GRADE_ON=slurm]: a class (build/grades/grades.csv)
	@$(GRADER) --public --config $(call grade_q,$(GRADE_CONFIG)) --out build/grades/self assignment
else ifeq ($(GRADE_ON),slurm)
grade: grade-kit $(GRADE_DATA)/.made
	@grader/slurm.sh --csv $(call grade_q,$(GRADES_CSV)) $(grade_common) -- $(call grade_q,$(SUBMISSIONS))
else
grade: grade-kit $(GRADE_DATA)/.made
	@$(GRADER) --class $(call grade_q,$(SUBMISSIONS)) --jobs $(call grade_q,$(grade_jobs)) \
	    --class-csv $(call grade_q,$(GRADES_CSV)) $(grade_common)
endif

# make feedback, after make grade SUBMISSIONS=dir/: each student's report made fit to hand back
# (no path of this machine, no make view line, no frames, at most feedback.max_kib of the config),
# in build/feedback/<name>/, apart from the instructor's full reports; ONLY='a b' just those.
FEEDBACK_DIR  ?= build/feedback
feedback: $(GRADER) ## after make grade SUBMISSIONS=dir/: each report fit to hand back, in build/feedback/<name>/ [ONLY='a b']
	@$(GRADER) --feedback $(call grade_q,$(FEEDBACK_DIR)) --reports $(call grade_q,$(GRADE_REPORTS)) \
	    --config $(call grade_q,$(GRADE_CONFIG)) $(if $(ONLY),--only $(call grade_q,$(ONLY)))

# make gradebook, after make grade SUBMISSIONS=dir/: the class's totals as a gradebook imports
# them, GRADEBOOK=canvas or moodle, IDS=FILE ("NAME ID" lines: which gradebook student each
# submission is), GRADEBOOK_COLUMN=TITLE the grade's column; into build/grades/<GRADEBOOK>.csv.
# A report without a line in IDS, or without a grade, is named and left out (then make fails).
GRADEBOOK        ?= canvas
IDS              ?=
GRADEBOOK_COLUMN ?= flipkit
GRADEBOOK_CSV    ?= $(GRADE_REPORTS)/$(GRADEBOOK).csv
gradebook: $(GRADER) ## after make grade SUBMISSIONS=dir/: GRADEBOOK=canvas|moodle IDS=FILE [GRADEBOOK_COLUMN=title]: build/grades/<GRADEBOOK>.csv
	@[ -n $(call grade_q,$(IDS)) ] || { echo "make gradebook: IDS=FILE is needed: lines \"NAME ID\", which gradebook student each submission is (grader/README.md, Gradebooks)" >&2; exit 2; }
	@set -- $(call grade_q,$(GRADE_REPORTS))/*/report.json; [ -f "$$1" ] || { \
	  echo "make gradebook: no report in "$(call grade_q,$(GRADE_REPORTS))"/*/report.json: run make grade SUBMISSIONS=dir/ first" >&2; exit 2; }; \
	$(GRADER) --class-csv $(call grade_q,$(GRADEBOOK_CSV)) --format $(call grade_q,$(GRADEBOOK)) \
	    --ids $(call grade_q,$(IDS)) --column $(call grade_q,$(GRADEBOOK_COLUMN)) "$$@"

# make class-report's program: the reports and stage files of a graded class, read only
# (the kit's alone: the student kit has no class to report on). version.o is flipgrade's.
FLIPCLASS   := $(BUILD)/flipclass
FLIPCLASS_OBJ := $(BUILD)/grader/flipclass.o $(BUILD)/grader/classreport.o $(BUILD)/grader/similar.o \
                 $(filter-out $(BUILD)/grader/flipgrade.o,$(GRADER_OBJ))
$(FLIPCLASS): $(FLIPCLASS_OBJ) $(GRADER)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $(FLIPCLASS_OBJ) $(BUILD)/grader/version.o $(GRADER_LIBS) -o $@

# make class-report, after make grade SUBMISSIONS=dir/: the class's reports and stage files read (never
# built or run) into build/grades/class.html and class.json: score plots, every case's pass rate and
# who failed it, similar stage files side by side (grader/config's similarity group; SIM_THRESHOLD=
# overrides its threshold). The same GRADE_REPORTS and GRADE_CONFIG as make grade.
SIM_THRESHOLD ?=
class-report: $(FLIPCLASS) ## after make grade SUBMISSIONS=dir/: build/grades/class.html and class.json (pass rates, score plots, similar stage files) [SIM_THRESHOLD=0.6]
	@if [ -z $(call grade_q,$(SUBMISSIONS)) ]; then \
	    echo "make class-report: SUBMISSIONS=dir/ names the class that make grade SUBMISSIONS=dir/ graded" >&2; exit 2; fi
	@$(FLIPCLASS) --class $(call grade_q,$(SUBMISSIONS)) --reports $(call grade_q,$(GRADE_REPORTS)) \
	    --config $(call grade_q,$(GRADE_CONFIG)) $(if $(SIM_THRESHOLD),--threshold $(call grade_q,$(SIM_THRESHOLD)))

# A made-up class of six (planted bugs, a disguised copy, an honest rewrite) graded and reported,
# then the page in headless Chromium; about 25 s here (a minute on a busy machine).
check-class: grade-kit $(FLIPCLASS) $(GRADE_DATA)/.made ## a made-up class graded, then make class-report: pass rates, a disguised copy flagged, an honest rewrite not, the page in Chromium
	@tests/check_class.sh $(GRADER) $(FLIPCLASS)

check-slurm: grade-kit $(GRADE_DATA)/.made ## a real one-node Slurm cluster (installed, started, stopped here) grades a class: same grades.csv as locally
	@tests/check_slurm.sh

# make gradescope: the kit as a Gradescope autograder (grader/gradescope/: setup.sh builds the
# grader and its data on Gradescope's image once, run_autograder grades each submission and
# writes results.json). The zip holds the kit's files as git lists them, so a checkout is needed.
GRADESCOPE_ZIP := build/gradescope/autograder.zip
gradescope: ## build/gradescope/autograder.zip: the kit as a Gradescope autograder (grader/README.md, Gradescope)
	@mkdir -p $(dir $(GRADESCOPE_ZIP))
	@git ls-files -z > $(dir $(GRADESCOPE_ZIP))files 2>/dev/null || { \
	  echo "make gradescope: the zip holds the files git lists, and this is not a git checkout" >&2; exit 1; }
	@python3 grader/gradescope/mkzip.py $(GRADESCOPE_ZIP) < $(dir $(GRADESCOPE_ZIP))files

check-gradescope: gradescope grade-kit $(GRADE_DATA)/.made ## the autograder zip in a Gradescope-like root: setup.sh, run_autograder, results.json checked
	@tests/check_gradescope.sh $(GRADESCOPE_ZIP)
