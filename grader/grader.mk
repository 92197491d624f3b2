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
	@tests/check_grader.sh $(GRADER) $(CALIBRATE)

# make grade: the self-check on the public cases; make grade SUBMISSIONS=dir/: a class, one
# independent flipgrade per submission (parallel with -j), then build/grades/grades.csv;
# GRADE_ON=slurm: the same class as one Slurm array job (grader/slurm.sh), ONLY='a b' for the
# named submissions alone (a resubmission).
SUBMISSIONS  ?=
GRADES_CSV   ?= build/grades/grades.csv
GRADE_CONFIG ?= grader/config
GRADE_ON     ?= local
ONLY         ?=
ifeq ($(SUBMISSIONS),)
grade: grade-kit $(GRADE_DATA)/.made ## assignment/ against the public cases; SUBMISSIONS=dir/ [-j2] [GRADE_ON=slurm [ONLY=names]]: a class (build/grades/grades.csv)
	@$(GRADER) --public --config $(GRADE_CONFIG) --out build/grades/self assignment
else ifeq ($(GRADE_ON),slurm)
grade: grade-kit $(GRADE_DATA)/.made
	@grader/slurm.sh --csv $(GRADES_CSV) --config $(GRADE_CONFIG) $(if $(ONLY),--only '$(ONLY)') $(SUBMISSIONS)
else
grade_name = $(notdir $(patsubst %.tar.gz,%,$(patsubst %.tgz,%,$(patsubst %.zip,%,$(patsubst %/,%,$(1))))))
GRADE_SUBS := $(sort $(wildcard $(patsubst %/,%,$(SUBMISSIONS))/*))
GRADE_ONE  := $(GRADE_SUBS:%=grade-one/%)
.PHONY: $(GRADE_ONE)
$(GRADE_ONE): grade-one/%: grade-kit $(GRADE_DATA)/.made
	@$(GRADER) --quiet --config $(GRADE_CONFIG) --out build/grades/$(call grade_name,$*) $*; test $$? -le 1
grade: $(GRADE_ONE)
	@$(GRADER) --class-csv $(GRADES_CSV) $(foreach s,$(GRADE_SUBS),build/grades/$(call grade_name,$(s))/report.json)
	@echo "make grade: $(words $(GRADE_SUBS)) submissions graded; $(GRADES_CSV)"
endif

check-slurm: grade-kit $(GRADE_DATA)/.made ## a real one-node Slurm cluster (installed, started, stopped here) grades a class: same grades.csv as locally
	@tests/check_slurm.sh
