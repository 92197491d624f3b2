# grader/kit.mk — build/flipgrade and the kit of objects it links student code with.
# flipkit grader/: included by the kit's Makefile and the student kit's, after common/build.mk; the
# includer adds the rule for $(GRADE_KIT)/stub_%.o (the kit makes stubs from reference/, the
# student kit ships them). grader/README.md explains the grader; grader/config drives it.
GRADER      := $(BUILD)/flipgrade
GRADE_KIT   := $(BUILD)/grader/kit
GRADE_CACHE := $(BUILD)/grader/cache
GRADER_MODS := flipgrade grading gradeconfig intake escape classrun metrics build buildcache stagepart scenepart report feedback render sandbox sbjail sbcalls
GRADER_OBJ  := $(GRADER_MODS:%=$(BUILD)/grader/%.o) $(GRADE_KIT)/libkit.a
SANDBOX_OBJ := $(BUILD)/grader/sandbox.o $(BUILD)/grader/sbjail.o $(BUILD)/grader/sbcalls.o
GRADER_CFLAGS = -Igrader -Itests/lib $(shell pkg-config --cflags libconfig libarchive 2>/dev/null)
GRADER_LIBS   = $(shell pkg-config --libs jansson libpng libconfig libarchive 2>/dev/null) -lm
# What the grader links student objects with (the runners need no OpenCL).
RUNNER_LIBS   = $(shell pkg-config --libs jansson libpng 2>/dev/null) -lm
GRADE_KIT_FILES := $(GRADE_KIT)/libkit.a $(GRADE_KIT)/track.o $(GRADE_KIT)/guard.o $(GRADE_KIT)/include/.made \
                   $(GRADE_KIT)/stagerun.o $(GRADE_KIT)/scenerun.o $(GRADE_KIT)/solvertrap.o \
                   $(STAGES:%=$(GRADE_KIT)/stub_%.o)

$(BUILD)/grader/%.o: grader/%.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) $(GRADER_CFLAGS) -DFLIPGRADE_CC='"$(CC)"' -DFLIPGRADE_LIBS='"$(RUNNER_LIBS)"' -c $< -o $@

# Order-only: `make build/flipgrade` also makes the kit the grader links student code with
# (it refuses to grade without it, rather than grading every stage 0).
# Every report names the grader that made it: the commit it was linked at (git describe, when
# the kit is a git checkout; "unknown" in the student kit) beside a hash of its binary.
$(GRADER): $(GRADER_OBJ) | $(GRADE_KIT_FILES)
	@rm -rf $(GRADE_CACHE)
	@printf 'const char flipgrade_version[] = "%s";\n' \
	    "$$( { test -e .git && git describe --always --dirty 2>/dev/null; } || echo unknown)" > $(BUILD)/grader/version.c
	@$(CC) $(ALL_CFLAGS) -c $(BUILD)/grader/version.c -o $(BUILD)/grader/version.o
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(BUILD)/grader/version.o $(GRADER_LIBS) -o $@

# The kit's objects and the stage harness, in one archive the runners link. A new archive, new
# headers or a new grader make every entry of the grader's build cache a miss (their stamps
# are in its keys), so the cache goes with them.
$(GRADE_KIT)/libkit.a: $(COMMON_OBJ) $(CHECKLIB_OBJ)
	@mkdir -p $(@D)
	@rm -rf $@ $(GRADE_CACHE)
	$(call say,AR,$@)
	ar rcs $@ $^

# The headers a student file may include: a copy, so a compile can read nothing else of the kit.
$(GRADE_KIT)/include/.made: $(wildcard common/*.h common/writers/*.h)
	@mkdir -p $(@D)
	@rm -rf $(GRADE_CACHE)
	cp $^ $(@D)/
	@touch $@

$(GRADE_KIT)/track.o: $(BUILD)/assignment/track.o
	@mkdir -p $(@D)
	cp $< $@

$(GRADE_KIT)/%.o: $(BUILD)/grader/%.o
	@mkdir -p $(@D)
	cp $< $@

#:Grading:
grade-kit: $(GRADER) $(GRADE_KIT_FILES) ## the grader and the objects and headers it links student code with

# ---- handing in ---------------------------------------------------------------------------
# The archive holds the eight files the grader reads and nothing else; handin reads it back with
# the grader's own intake (grader/handin.c). Files are dereferenced (-h): the intake refuses a link.
# SUBMISSION_STUBS: where the untouched stubs are, to say which stages are still stubs.
SUBMISSION := submission.tar.gz
HANDIN     := $(BUILD)/handin
$(HANDIN): $(BUILD)/grader/handin.o $(BUILD)/grader/intake.o $(BUILD)/grader/escape.o $(BUILD)/common/stagetable.o
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(shell pkg-config --libs libarchive 2>/dev/null) -o $@

# make check-physics: the handout's physics checks with the student's stages (tests/checkphysics.c).
CHECKPHYSICS := $(BUILD)/checkphysics
$(CHECKPHYSICS): $(BUILD)/tests/checkphysics.o $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

#:Checking and handing in your work:
check-physics: $(CHECKPHYSICS) ## the handout's physics checks with your stages: still tank, Martin & Moyce's front, volume (under a minute)
	@$(CHECKPHYSICS)

submission: $(HANDIN) ## pack your eight assignment/<stage>.c into submission.tar.gz and check it as the grader's intake will
	@rm -f $(SUBMISSION)
	@files=; for s in $(STAGES); do [ -f assignment/$$s.c ] && files="$$files assignment/$$s.c"; done; \
	  tar -czhf $(SUBMISSION) --files-from=/dev/null $$files
	@$(HANDIN) $(SUBMISSION) assignment $(SUBMISSION_STUBS)
