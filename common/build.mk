# common/build.mk — compiling, system packages and `make help`, for the kit and the student kit.
# flipkit common/: the kit's Makefile and the student kit's (handout/student.mk) both include it, so
# the two compile alike. The includer sets DEB_PKGS, PKGS_LIB (pkg-config modules the build needs),
# PKG_MODULES (those whose flags every compile gets) and, if it wants, KIT_CFLAGS and TEST_CFLAGS.
#
# Help: a target's line ends in `## what it does` (or `## [name] ...` to show another name, e.g.
# test-<stage>); a line starting `#:` is printed as it is. `make help` prints them in file order.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L
SANITIZE ?= 0

# The eight stages, read from common/stagelist.h (the one list; C reads it as STAGE_LIST).
STAGES   := $(shell sed -n 's/^ *X([0-9]*, *\([a-z0-9_]*\)).*/\1/p' common/stagelist.h)
export STAGES

# Quiet builds: one short line per file made (CC, LD, AR, GEN); `make V=1` prints every command.
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

PKG_CFLAGS   = $(shell pkg-config --cflags $(PKG_MODULES) 2>/dev/null)
PKG_LIBS     = $(shell pkg-config --libs $(PKG_MODULES) 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

ALL_CFLAGS  = $(STD) $(WARN) $(CFLAGS) $(SANFLAGS) -Icommon -Icommon/writers $(PKG_CFLAGS) -MMD -MP \
              $(KIT_CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS        = $(PKG_LIBS) -lm

COMMON_SRC := $(filter-out common/flipsim_main.c,$(wildcard common/*.c common/writers/*.c))
# A student kit made with handout.given_objects has the given solve compiled (lib/given_sor.o,
# position-independent, no debug information) where its source would be.
GIVEN_SOR_SHIPPED := $(if $(wildcard common/given_sor.c),,$(wildcard lib/given_sor.o))
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o) $(GIVEN_SOR_SHIPPED)
# A student kit made with handout.given_stages has those stages compiled from the reference
# (lib/stages/<stage>.o, no debug information) and no assignment/<stage>.c: they are not assigned.
GIVEN_STAGES    := $(filter $(STAGES),$(basename $(notdir $(wildcard lib/stages/*.o))))
ASSIGNED_STAGES := $(filter-out $(GIVEN_STAGES),$(STAGES))
STU_OBJ    := $(ASSIGNED_STAGES:%=$(BUILD)/assignment/%.o) $(GIVEN_STAGES:%=lib/stages/%.o) \
              $(BUILD)/assignment/track.o

# What the stage suites and the grader share (stage cases, field diffs): one library, both link it.
CHECKLIB     := $(BUILD)/tests/lib/libflipcheck.a
CHECKLIB_OBJ := $(BUILD)/tests/lib/stagecase.o $(BUILD)/tests/lib/fielddiff.o
TEST_SUPPORT := $(BUILD)/tests/harness.o $(BUILD)/tests/golden.o $(BUILD)/tests/compare.o $(CHECKLIB)
STAGE_TESTS  := $(ASSIGNED_STAGES:%=$(BUILD)/tests/test_%)

.SECONDARY:

# ---- system packages --------------------------------------------------------------------
# Only `make deps` installs (and the README's commands, which run it first); a compile only
# checks that the libraries are there and otherwise says to run `make deps`.
DEPS_OK    := build/.deps-ok
PKGS_FOUND := $(BUILD)/.pkgs-found

#:Setting up, help, cleaning:
deps: $(DEPS_OK) ## install the system packages that are missing (Debian/Ubuntu: apt-get, through sudo)
$(DEPS_OK): common/build.mk $(firstword $(MAKEFILE_LIST)) # the package lists live in both
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

$(PKGS_FOUND):
	@missing=""; for m in $(PKGS_LIB); do pkg-config --exists $$m 2>/dev/null || missing="$$missing $$m"; done; \
	if [ -n "$$missing" ]; then \
	  echo "flipkit: libraries missing:$$missing; run \`make deps\` (it installs them)" >&2; exit 1; fi
	@mkdir -p $(@D) && touch $@

# ---- compiling ----------------------------------------------------------------------------
$(BUILD)/%.o: %.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# Test code reads tests/lib's headers; only the suites of grader code add -Igrader (tests.mk).
$(BUILD)/tests/%.o: tests/%.c | $(PKGS_FOUND)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(CC) $(ALL_CFLAGS) -Itests/lib $(TEST_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(CHECKLIB): $(CHECKLIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	ar rcs $@ $^

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_SUPPORT) $(SIM_OBJ)
	$(call say,LD,$@)
	$(CC) $(ALL_LDFLAGS) $^ $(CHECK_LIBS) $(LIBS) -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- help ---------------------------------------------------------------------------------
help: ## [help] this list
	@awk '/^#:/ { sub(/^#:/, ""); print; next } \
	      /^[^#\t][^=]*:.*## / { t = $$0; sub(/:.*/, "", t); d = $$0; sub(/.*## /, "", d); \
	        if (d ~ /^\[/) { t = d; sub(/\].*/, "", t); sub(/^\[/, "", t); sub(/^\[[^]]*\] ?/, "", d) } \
	        printf "  make %-28s %s\n", t, d }' $(MAKEFILE_LIST)
	$(if $(HELP_LEVELS),@echo "$(HELP_LEVELS)")
	$(if $(HELP_NOTE),@echo "$(HELP_NOTE)")

clean: ## remove build/ (the kit: dist/ too); assignment/ and out/ stay
	rm -rf build $(CLEAN_MORE)

# ---- Python: common/python/flipkit over build/libflipkit.so ----------------------------------
# The library is the kit's own objects compiled again with -fPIC into build/pic (a shared
# library cannot take the PIE objects flipsim links), so it runs the same C as flipsim.
PYTHON   := /usr/bin/python3
PYLIB    := build/libflipkit.so
PY_ENV   := PYTHONPATH=common/python FLIPKIT_LIB=$(PYLIB) FLIPSIM=$(FLIPSIM) MPLBACKEND=Agg
# PYLIB_MAIN: what the includer's library hands the binding (pyapi.h); empty in the student kit.
$(BUILD)/libflipkit.so: $(SIM_OBJ) $(PYLIB_MAIN)
	$(call say,LD,$@)
	$(CC) -shared $(ALL_LDFLAGS) $^ $(LIBS) -pthread -o $@

pylib: | $(PKGS_FOUND) ## build/libflipkit.so, the C under the Python package common/python/flipkit
	@$(MAKE) --no-print-directory BUILD=build/pic CFLAGS="$(CFLAGS) -fPIC" $(PYLIB_MAKEFLAGS) build/pic/libflipkit.so
	@cp build/pic/libflipkit.so $(PYLIB).tmp && mv $(PYLIB).tmp $(PYLIB)

python-examples: pylib ## from Python: a pressure slice and divergence, the solvers' residuals (build/python/*.png)
	@$(PY_ENV) $(PYTHON) common/python/examples/pressure_slice.py build/python/pressure_slice.png
	@$(PY_ENV) $(PYTHON) common/python/examples/residuals.py build/python/residuals.png

# ---- the viewer: a run's frames in the browser (common/viewer/) -----------------------------
# Served on 127.0.0.1 from the run's own PLY files; three.js comes from npm at the versions
# common/viewer/package-lock.json pins, installed into build/viewer on first use.
RUN ?= out/$(basename $(notdir $(SCENE)))
VS  ?=
#:Looking at a run:
view: ## the run in 3D in your browser: scrub, orbit, the surface and solids [RUN=out/<scene name>] [VS=out/other: side by side]
	@common/viewer/setup.sh build/viewer
	@node common/viewer/serve.mjs --modules build/viewer/node_modules "$(RUN)" $(if $(VS),"$(VS)")
