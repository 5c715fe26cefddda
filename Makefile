# diagramir — build, test, bench, install.
#
#   make                 build every program into build/bin
#   make check           every test: unit, golden, man-page examples, fuzz smoke runs,
#                        and the same suite again under AddressSanitizer + UBSan
#   make same-update     rewrite the output digests of the equivalence check
#   make agreement-cv    kappa of tikz2ir | irlint against the human raters (dev split),
#                        cross-validated: the figure to report (SENSITIVITY=1 for more)
#   make agreement       the same kappa in-sample (flatters: the rules were tuned on it)
#   make check-tex       tikz2ir's picture extents against what TeX draws (needs TeX)
#   make pgfmanual       tikz2ir on the pgf manual's examples: clean rate per group,
#                        TeX (pdflatex) as the oracle of what is an example,
#                        crashes, hangs, top unparsed causes (texlive-pictures-doc,
#                        fetched with apt-get download when not installed);
#                        PGFMANUAL_ARGS="--tex-sample 40" adds check-tex on a sample
#   make svg-handmade    svg2graph on hand-written and editor-exported SVG (LLM styles,
#                        Inkscape, draw.io, Excalidraw-like): exact rate per style
#   make check-render    ir2svg's pictures against what TeX draws: ink distance (needs TeX)
#   make bench           speed figures (BENCH_BASE=DIR: side by side with the
#                        tikz2ir and irlint in DIR, with the ratio)
#   make fuzz            long libFuzzer runs (clang), FUZZ_SECONDS each
#   make install PREFIX=/usr/local
#   make deps            install the Debian build and test dependencies when missing
#   make PGO=0           build once, without the profile (quicker while editing)
#
# Layout: tools/<program>.c is a program (its main); every .c file of the
# libraries (ir/, grammar/, checks/, llm/, svg/, stats/, graph/, draw/, report/) goes into one
# static library all programs link.

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
SAN     ?=
OPT     ?= -O2
CFLAGS_BASE = -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -g
CFLAGS  ?= $(OPT)
# Generated scanners and parsers live in GEN_DIR. The instrumented build of PGO
# below compiles the parent build's copies, so that both compile the same file
# names (gcc checks a function's source location against its profile).
GEN_DIR ?= $(BUILD)/grammar

# Profile-guided optimization (gcc only; not with sanitizers). With PGO=1 the
# build compiles twice: first an instrumented build in $(BUILD)/pgo-gen, which
# runs the main job (tikz2ir | irlint --rubric geom) once over the dev corpus
# (PGO_TRAIN) and leaves its counts in $(BUILD)/pgo-data; then every object is
# compiled with those counts. Output does not depend on it: only code layout,
# inlining and branch order do. -fprofile-partial-training keeps code the
# training run never reached optimized as usual. PGO=0 builds once, without it.
CC_IS_GCC := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1)
PGO     ?= $(if $(and $(CC_IS_GCC),$(if $(SAN),,1)),1,0)
PGO_TRAIN = tests/data/diagramir-dev/tikz
PGO_DATA ?= $(abspath $(BUILD))/pgo-data
# gcc keys a static function's counts by the object's auxiliary name, and
# files its counts under it: both builds give each object the same one
# (-dumpdir, -dumpbase), whatever directory the object itself goes to.
PGO_AUX ?= $(abspath $(BUILD))/pgo-aux
PGO_OBJ = -dumpdir $(PGO_AUX)/ -dumpbase $(subst /,.,$(patsubst $(BUILD)/%,%,$(basename $@)))
ifeq ($(PGO),1)
PGO_STAMP = $(BUILD)/pgo-data.stamp
PGO_CFLAGS = -fprofile-use=$(PGO_DATA) -fprofile-partial-training -Wno-missing-profile $(PGO_OBJ)
endif
ifeq ($(PGO),gen)
PGO_CFLAGS = -fprofile-generate=$(PGO_DATA) -fprofile-update=single $(PGO_OBJ)
endif

ALL_CFLAGS = $(CFLAGS_BASE) $(CFLAGS) $(SAN) $(PGO_CFLAGS) -I. -I$(GEN_DIR)
LDLIBS  = -lcjson -lexpat -lm -ldl
# librsvg, cairo and libpng (draw/png.c: ir2svg --png, and the pictures judge
# and svg2graph --llm make for a model): their headers for draw/png.o only;
# no program links them, draw/png.c dlopen()s them when it first draws (as
# llm/curl.c does libcurl), so runs that draw no PNG do not map some fifty
# shared libraries. Their headers (glib's) are system headers: -isystem keeps
# our warnings (-Wall -Wextra -Werror) on our code only.
RSVG_CFLAGS := $(shell pkg-config --cflags librsvg-2.0 libpng 2>/dev/null | sed 's/-I/-isystem /g')
$(BUILD)/obj/draw/png.o: ALL_CFLAGS += $(RSVG_CFLAGS)
# Generated scanner/parser code is third-party style code: keep -Werror, drop
# the warnings flex's skeleton trips on.
GEN_CFLAGS = -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter

PROGRAM_NAMES = tikz2ir irlint svg2graph graphalign kappa judge ir2svg irreport
PROGRAMS = $(filter $(PROGRAM_NAMES),$(patsubst tools/%.c,%,$(wildcard tools/*.c)))
BINS     = $(addprefix $(BUILD)/bin/,$(PROGRAMS))

YACC_SRCS = $(wildcard grammar/*.y)
LEX_SRCS  = $(wildcard grammar/*.l)
GPERF_SRCS = $(wildcard grammar/*.gperf)
GEN_C     = $(patsubst grammar/%.y,$(GEN_DIR)/%.tab.c,$(YACC_SRCS)) \
            $(patsubst grammar/%.l,$(GEN_DIR)/%.lex.c,$(LEX_SRCS)) \
            $(patsubst grammar/%.gperf,$(GEN_DIR)/%.hash.c,$(GPERF_SRCS))
GEN_H     = $(patsubst grammar/%.y,$(GEN_DIR)/%.tab.h,$(YACC_SRCS)) \
            $(patsubst grammar/%.l,$(GEN_DIR)/%.lex.h,$(LEX_SRCS))
LIB_DIRS  = ir grammar checks checks/geom llm svg stats graph draw report
LIB_SRCS  = $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
LIB_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(patsubst $(GEN_DIR)/%.c,$(BUILD)/obj/gen/%.o,$(GEN_C))
LIB       = $(BUILD)/libdiagramir.a

UNIT_SRCS = $(wildcard tests/unit/*.c)
UNIT_BINS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
FUZZ_SRCS = $(filter-out tests/fuzz/driver.c,$(wildcard tests/fuzz/*.c))
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

.PHONY: FORCE same-update all check check-fast check-san check-clang agreement agreement-cv check-tex pgfmanual check-render render-tools demo bench graphviz-shapes plantuml-shapes svg-handmade fuzz install deps clean
.SECONDARY:

all: $(BINS)

$(GEN_DIR)/%.tab.c $(GEN_DIR)/%.tab.h: grammar/%.y
	@mkdir -p $(dir $@)
	bison -Wall -Werror --defines=$(GEN_DIR)/$*.tab.h -o $(GEN_DIR)/$*.tab.c $<

$(GEN_DIR)/%.lex.c $(GEN_DIR)/%.lex.h: grammar/%.l $(patsubst grammar/%.y,$(GEN_DIR)/%.tab.h,$(YACC_SRCS))
	@mkdir -p $(dir $@)
	flex --header-file=$(GEN_DIR)/$*.lex.h -o $(GEN_DIR)/$*.lex.c $<

# Perfect hashes of fixed key sets (gperf): grammar/NAME.gperf, with its
# declarations in grammar/NAME.h.
$(GEN_DIR)/%.hash.c: grammar/%.gperf
	@mkdir -p $(dir $@)
	gperf --output-file=$@ $<
$(patsubst grammar/%.gperf,$(BUILD)/obj/gen/%.hash.o,$(GPERF_SRCS)): $(BUILD)/obj/gen/%.hash.o: grammar/%.h

# The flags the objects were compiled with: when they change (PGO=0 after
# PGO=1, another OPT), everything is compiled again.
FLAGS_FILE = $(BUILD)/cflags
$(FLAGS_FILE): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS)' > $@

$(BUILD)/obj/gen/%.o: $(GEN_DIR)/%.c $(GEN_H) $(PGO_STAMP) $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(GEN_CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(GEN_H) $(wildcard */*.h */*/*.h) $(PGO_STAMP) $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

ifeq ($(PGO),1)
# The instrumented programs are a build of their own (PGO=gen there), asked
# for on every run; the training run and its counts are made anew only when
# they, or the training items, are newer than the last counts.
PGO_GEN_BINS = $(BUILD)/pgo-gen/bin/tikz2ir $(BUILD)/pgo-gen/bin/irlint
$(PGO_STAMP): FORCE $(GEN_C) $(GEN_H)
	@$(MAKE) --no-print-directory PGO=gen BUILD=$(BUILD)/pgo-gen GEN_DIR=$(GEN_DIR) \
	    PGO_DATA=$(PGO_DATA) PGO_AUX=$(PGO_AUX) -s $(PGO_GEN_BINS)
	@if [ -f $@ ] && [ -z "$$(find $(PGO_GEN_BINS) $(PGO_TRAIN) -newer $@ | head -1)" ]; then exit 0; fi; \
	  rm -rf $(PGO_DATA); \
	  echo "PGO: training on $(PGO_TRAIN)"; \
	  $(BUILD)/pgo-gen/bin/tikz2ir -q $(PGO_TRAIN)/*.tex > $(BUILD)/pgo-gen/train.ir || exit 1; \
	  $(BUILD)/pgo-gen/bin/irlint --rubric geom --format tsv < $(BUILD)/pgo-gen/train.ir > /dev/null; \
	  [ $$? -le 1 ] || exit 1; \
	  touch $@
endif
FORCE:

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# The measuring tools of check-render (tests/render/): inkdist, the ink
# distance of two PNGs (cairo), and svgwin, a window of an SVG drawn into a
# PNG (librsvg). Test tools, not installed.
RENDER_TOOLS = $(BUILD)/render/inkdist $(BUILD)/render/svgwin
render-tools: $(RENDER_TOOLS)
$(BUILD)/render/inkdist: tests/render/inkdist.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(shell pkg-config --cflags cairo) -o $@ $< $(shell pkg-config --libs cairo) -lm
$(BUILD)/render/svgwin: tests/render/svgwin.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(shell pkg-config --cflags librsvg-2.0 cairo) -o $@ $< $(shell pkg-config --libs librsvg-2.0 cairo)

# Fuzz harnesses: built with a plain driver (corpus + seeded random mutations)
# for the smoke runs in `make check`; `make fuzz` builds them for libFuzzer.
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/driver.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< tests/fuzz/driver.c $(LIB) $(LDLIBS)

# The one test entry point: unit, golden, man examples, fuzz smoke runs, the
# kappa floor against people (tests/irlint-regression), the sanitizer build,
# the clang build, and agreement with TeX (extents, and the rendered ink).
check: check-fast check-san check-clang check-tex check-render

# The README's first command: dependencies, build, the main job on an example.
demo: all
	$(BUILD)/bin/tikz2ir contrib/examples/right-triangle.tex | $(BUILD)/bin/irlint --rubric geom --verbose; \
	  st=$$?; [ $$st -le 1 ] || exit $$st

check-fast: all $(UNIT_BINS) $(FUZZ_BINS) $(RENDER_TOOLS)
	@BUILD=$(BUILD) sh tests/run-all.sh

# Warning-free with clang too (-Werror): the whole build once more.
check-clang:
	@$(MAKE) --no-print-directory CC=clang BUILD=build/clang all render-tools >/dev/null && echo "PASS  clang build (-Wall -Wextra -Werror)"

SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check-san:
	@$(MAKE) --no-print-directory BUILD=build/san SAN="$(SAN_FLAGS)" OPT=-O1 check-fast

# Rewrite tests/same/expected.tsv, the digests of every program's output that
# the equivalence check (tests/same/run.sh, part of make check) compares with:
# only for a change meant to change output, named in its commit message.
same-update: all
	@SAME_UPDATE=1 BUILD=$(BUILD) sh tests/same/run.sh

agreement: all
	@BUILD=$(BUILD) sh tests/agreement.sh

agreement-cv: all
	@BUILD=$(BUILD) sh tests/agreement-cv.sh

check-tex: all
	@BUILD=$(BUILD) sh tests/tex/check-tex.sh
	@BUILD=$(BUILD) TEX_FLOOR=100 sh tests/tex/check-tex.sh tests/tikz2ir/cond-foreach.tex \
	    tests/tikz2ir/cond-dims.tex tests/tikz2ir/matrix-cells.tex tests/tikz2ir/matrix-nodes.tex \
	    tests/tikz2ir/decorations.tex tests/tikz2ir/plot-handlers.tex \
	    tests/tikz2ir/edges.tex tests/tikz2ir/node-scope-shape.tex tests/tikz2ir/path-forms.tex \
	    tests/tikz2ir/path-scopes.tex tests/tikz2ir/matrix-amp-set.tex tests/tikz2ir/matrix-amp-tikzset.tex \
	    tests/tikz2ir/tree-level-distance.tex tests/tikz2ir/path-svg.tex tests/tikz2ir/metamorphic/*.tex \
	    tests/tikz2ir/pic-keys.tex tests/tikz2ir/current-bbox.tex tests/tikz2ir/decorate-crosses.tex \
	    tests/tikz2ir/decorate-fractals.tex tests/tikz2ir/node-contents.tex \
	    tests/tikz2ir/graph-[a-t]*.tex tests/tikz2ir/calendar-[lmw]*.tex \
	    tests/tikz2ir/text-tt.tex tests/tikz2ir/border-*.tex tests/tikz2ir/to-path-*.tex tests/tikz2ir/quotes-labels.tex \
	    tests/tikz2ir/quotes-edges.tex tests/tikz2ir/quotes-brackets.tex tests/tikz2ir/doc-fontsize*.tex tests/tikz2ir/pic-transform.tex \
	    tests/tikz2ir/shapes-rrect*.tex tests/tikz2ir/shapes-chamfered.tex tests/tikz2ir/shapes-crossout.tex \
	    tests/tikz2ir/shapes-forbidden.tex tests/tikz2ir/shapes-star.tex tests/tikz2ir/style-scope-*.tex
	@sh tests/tex/check-tex-pairs.sh

pgfmanual: all
	@BUILD=$(BUILD) sh tests/tex/pgfmanual.sh $(PGFMANUAL_ARGS)

check-render: all $(RENDER_TOOLS)
	@BUILD=$(BUILD) sh tests/render/check-render.sh

bench: all
	@BUILD=$(BUILD) sh tests/bench.sh

# svg2graph against Graphviz over every closed node shape, all five engines,
# with and without overlap removal: the exact rate per engine and per shape
# (about a minute; a fixed-seed sample runs in tests/svg2graph/run.sh).
graphviz-shapes: all
	@BUILD=$(BUILD) sh tests/svg2graph/graphviz-shapes.sh

# svg2graph on SVG written as people, LLMs and editors write it: 60
# generated diagrams (tests/svg2graph/handmade/gen.py) and the hand-picked
# ones; the exact rate per style and kind (a few seconds; a fixed subset
# runs in tests/svg2graph/run.sh)
svg-handmade: all
	@BUILD=$(BUILD) sh tests/svg2graph/handmade.sh

# needs plantuml (Java): not part of check
plantuml-shapes: all
	@BUILD=$(BUILD) sh tests/svg2graph/plantuml-oracle.sh

FUZZ_SECONDS ?= 600
fuzz:
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run-libfuzzer.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	for m in man/*.1; do [ -f "$$m" ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done; true
	for m in man/*.5; do [ -f "$$m" ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man5/; done; true
	for m in man/*.7; do [ -f "$$m" ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man7/; done; true
	install -d $(DESTDIR)$(PREFIX)/share/diagramir/rubrics
	install -m 644 llm/rubrics/*.rubric llm/rubrics/*.prompt llm/rubrics/*.taxonomy llm/rubrics/prices.tsv \
	    $(DESTDIR)$(PREFIX)/share/diagramir/rubrics/
	install -d $(DESTDIR)$(PREFIX)/share/diagramir/tex
	install -m 644 contrib/tex/render.sh contrib/tex/IM.cls $(DESTDIR)$(PREFIX)/share/diagramir/tex/

# Debian packages the build and the test suite need (TeX for check-tex and
# check-render, texlive-fonts-extra for the opensans package the IM class
# sets its text in, as the raters saw it; cm-super for the EC fonts its
# \ttfamily and \rmfamily select, in Type 1 outlines dvisvgm can measure
# (bitmap glyphs it drops); cairo and librsvg for ir2svg and check-render's
# tools; GNU parallel and rsync, its transfers to other hosts, for
# tests/contrib's runs of the recipe).
DEB_BUILD = gcc clang make flex bison gperf libcjson-dev libcurl4-openssl-dev libexpat1-dev \
            fonts-open-sans valgrind python3 pkg-config librsvg2-dev libcairo2-dev libpng-dev
DEB_TEST  = texlive-pictures texlive-latex-recommended texlive-latex-extra texlive-fonts-extra cm-super dvisvgm \
            poppler-utils python3-sklearn python3-scipy graphviz chromium parallel rsync
deps:
	@missing=""; for p in $(DEB_BUILD) $(DEB_TEST); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "all dependencies present"; fi

clean:
	rm -rf build
