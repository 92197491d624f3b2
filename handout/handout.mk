# handout/handout.mk — the handout (README.md, a page per stage, figures) and the student tarball.
# flipkit handout/: included by the top Makefile; the tarball's own Makefile is handout/student.mk,
# which includes common/build.mk and grader/kit.mk as the kit does.
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

$(MKFIGURES): handout/mkfigures.c common/grid.h common/constants.h | $(PKGS_FOUND)
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

#:The handout:
handout-sync: $(MKFIGURES) $(SOLVERLAB) $(HANDOUT_TABLE) ## remake handout/README.md's quoted blocks and its figures
	$(call draw_figures,handout/figures)
	@for f in $(HANDOUT_PAGES); do handout/sync.sh $$f common/stages.h $(HANDOUT_TABLE) || exit 1; done
	@echo "handout-sync: handout/README.md, handout/stages/ and handout/figures/ are up to date"

check-handout: $(MKFIGURES) $(SOLVERLAB) $(HANDOUT_TABLE) $(FLIPSIM) check-mutants ## the handout agrees with stages.h, grader/config, the tests
	@rm -rf $(BUILD)/handout/figures
	$(call draw_figures,$(BUILD)/handout/figures)
	@diff -r $(BUILD)/handout/figures handout/figures >/dev/null || { \
	  echo "check-handout: handout/figures/ differs from what its programs draw; run make handout-sync" >&2; \
	  diff -rq $(BUILD)/handout/figures handout/figures >&2; exit 1; }
	@for f in $(HANDOUT_PAGES); do handout/sync.sh --check $$f common/stages.h $(HANDOUT_TABLE) || exit 1; done
	@tests/check_handout.sh handout $(BUILD)/mutants

$(BUILD)/handout/stubs/%.c: reference/%.c reference/mkstub.awk
	@mkdir -p $(@D)
	awk -v stage=$* -v stages="$(STAGES)" -f reference/mkstub.awk $< > $@

# In the kit, make submission compares with the stubs make handout ships.
SUBMISSION_STUBS := $(BUILD)/handout/stubs
submission: $(HANDOUT_STUBS)

# Only when grader/config says handout.reference_objects = true: the reference's stages,
# compiled without debug information (no source lines) for the students' --use-reference.
$(REF_STAGES_LIB): $(STAGES:%=reference/%.c) handout/refstages.c | $(PKGS_FOUND)
	@mkdir -p $(@D)/obj
	@for s in $(STAGES); do \
	  $(CC) $(STD) -O2 -g0 -Icommon -Icommon/writers $(PKG_CFLAGS) -D$$s=ref_$$s -c reference/$$s.c -o $(@D)/obj/$$s.o || exit 1; \
	done
	$(call say,CC,handout/refstages.c)
	$(CC) $(STD) -O2 -g0 -Icommon -Icommon/writers -Ireference $(PKG_CFLAGS) -c handout/refstages.c -o $(@D)/obj/refstages.o
	@rm -f $@
	$(call say,AR,$@)
	ar rcs $@ $(STAGES:%=$(@D)/obj/%.o) $(@D)/obj/refstages.o
	strip --strip-debug $@

# Only when grader/config says handout.given_objects = true: the given SOR solve compiled,
# shipped as lib/given_sor.o in place of common/given_sor.c (-fPIC: the students' Python
# library links it too).
GIVEN_SOR_OBJ := $(BUILD)/handout/lib/given_sor.o
$(GIVEN_SOR_OBJ): common/given_sor.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$< (shipped compiled))
	$(CC) $(STD) -O2 -g0 -fPIC -Icommon -Icommon/writers $(PKG_CFLAGS) -c $< -o $@
	strip --strip-debug $@

# Only when grader/config says handout.github_classroom = true: each stage's points, from which
# mkdist.sh writes the GitHub Classroom workflow (.github/workflows/classroom.yml).
CLASSROOM_POINTS := $(BUILD)/handout/stage-points.txt


# A stage of handout.given_stages ships as the reference's object under the stage's own name,
# without debug information (-fPIC: the students' Python library links it too).
GIVEN_STAGE_DIR := $(BUILD)/handout/given
$(GIVEN_STAGE_DIR)/%.o: reference/%.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$< (shipped compiled))
	$(CC) $(STD) -O2 -g0 -fPIC -Icommon -Icommon/writers $(PKG_CFLAGS) -c $< -o $@
	strip --strip-debug $@

# HANDOUT_CONFIG: the grader config the kit is made from (its handout group: objects, levels,
# given stages) and that the kit's self-check grader gets; check-dist makes one per level.
HANDOUT_CONFIG ?= grader/config
handout: $(GRADER) $(GOLDEN_STAMP) $(GRADE_DATA)/.made $(HANDOUT_STUBS) check-handout-fresh ## the student tarball: dist/flipkit-student.tar.gz, at grader/config's handout.level
	@cfg=$(HANDOUT_CONFIG); \
	if [ "$$($(GRADER) --config $$cfg --print reference-objects)" = true ]; then \
	  $(MAKE) --no-print-directory $(REF_STAGES_LIB) || exit 1; lib=$(REF_STAGES_LIB); else lib=-; fi; \
	if [ "$$($(GRADER) --config $$cfg --print given-objects)" = true ]; then \
	  $(MAKE) --no-print-directory $(GIVEN_SOR_OBJ) || exit 1; given=$(GIVEN_SOR_OBJ); else given=; fi; \
	if [ "$$($(GRADER) --config $$cfg --print reference-frames)" = true ]; then frames=$(GRADE_DATA)/frames; else frames=; fi; \
	if [ "$$($(GRADER) --config $$cfg --print github-classroom)" = true ]; then \
	  $(GRADER) --config $$cfg --print stage-points > $(CLASSROOM_POINTS) || exit 1; classroom=$(CLASSROOM_POINTS); else classroom=; fi; \
	level=$$($(GRADER) --config $$cfg --print level) && levels=$$($(GRADER) --config $$cfg --print levels) && \
	stages=$$($(GRADER) --config $$cfg --print given-stages) || exit 1; \
	for s in $$stages; do $(MAKE) --no-print-directory $(GIVEN_STAGE_DIR)/$$s.o || exit 1; done; \
	$(GRADER) --config $$cfg --print grading-table > $(BUILD)/handout/table.$(notdir $(DIST)).md || exit 1; \
	CONFIG=$$cfg LEVEL=$$level LEVELS="$$levels" GIVEN_DIR=$(GIVEN_STAGE_DIR) TABLE=$(BUILD)/handout/table.$(notdir $(DIST)).md \
	FRAMES=$$frames CLASSROOM_POINTS=$$classroom GIVEN_OBJ=$$given STAGES="$(STAGES)" METRICS=$(GRADE_DATA)/metrics handout/mkdist.sh $(DIST) $(GOLDEN_DIR) $(BUILD)/handout/stubs $$lib; \
	rc=$$?; rm -f $(BUILD)/handout/table.$(notdir $(DIST)).md; exit $$rc

# The handout ships as committed; a stale one is an error, not something to fix silently.
check-handout-fresh: $(HANDOUT_TABLE) ## the handout's quoted blocks are current
	@for f in $(HANDOUT_PAGES); do handout/sync.sh --check $$f common/stages.h $(HANDOUT_TABLE) || exit 1; done

# The tarball as a student gets it: no solution code in it; unpacked in an empty directory it
# runs, its tests fail on the stubs and pass on the reference's files, and make grade agrees.
# The other settings of handout.reference_objects, handout.given_objects,
# handout.reference_frames and handout.github_classroom are checked too, on a second tarball:
# its workflow is read with a YAML parser and its tests run as GitHub Classroom would run them
# (tests/classroom.py).
# And at the other levels (issue 39), each from grader/config with its handout group changed:
# standard for every stage, and open with two stages given compiled (the subset an instructor
# assigns). Each is made by make handout itself, as an instructor's config would make it.
DIST_WITH_REF := $(BUILD)/handout/flipkit-student-with-reference.tar.gz
DIST_LEVELS   := standard open
CHECK_LEVEL_standard := level = "standard";
CHECK_LEVEL_open     := level = "open"; given_stages = [ "advect", "gravity" ];
$(DIST_LEVELS:%=$(BUILD)/handout/config.%): $(BUILD)/handout/config.%: grader/config handout/handout.mk
	@mkdir -p $(@D)
	@awk -v extra='  $(CHECK_LEVEL_$*)' '{ print } /^handout:/ { h = 1; next } h && /^\{/ { print extra; h = 0 }' $< > $@.tmp
	@grep -qxF '  $(CHECK_LEVEL_$*)' $@.tmp || { echo "check-dist: grader/config has no handout group to set the $* level in" >&2; exit 1; }
	@mv $@.tmp $@
check-dist: handout $(REF_STAGES_LIB) $(GIVEN_SOR_OBJ) $(DIST_LEVELS:%=$(BUILD)/handout/config.%) ## the tarball, and one per level: no solution code; it builds, tests and grades
	@$(GRADER) --print stage-points > $(CLASSROOM_POINTS)
	@FRAMES=$(GRADE_DATA)/frames CLASSROOM_POINTS=$(CLASSROOM_POINTS) GIVEN_OBJ=$(GIVEN_SOR_OBJ) STAGES="$(STAGES)" METRICS=$(GRADE_DATA)/metrics handout/mkdist.sh $(DIST_WITH_REF) $(GOLDEN_DIR) $(BUILD)/handout/stubs $(REF_STAGES_LIB) >/dev/null
	@for l in $(DIST_LEVELS); do \
	  $(MAKE) --no-print-directory handout HANDOUT_CONFIG=$(BUILD)/handout/config.$$l DIST=$(BUILD)/handout/flipkit-student-$$l.tar.gz >/dev/null || exit 1; done
	@STAGES="$(STAGES)" REF_TARBALL=$(DIST_WITH_REF) CLASSROOM_POINTS=$(CLASSROOM_POINTS) \
	  LEVEL_TARBALLS="$(foreach l,$(DIST_LEVELS),$(l):$(BUILD)/handout/flipkit-student-$(l).tar.gz)" tests/check_dist.sh $(DIST)
