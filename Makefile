# diagramir — build, test, bench, install.
#
#   make                 build every program into build/bin
#   make check           every test: unit, golden, man-page examples, fuzz smoke runs,
#                        and the same suite again under AddressSanitizer + UBSan
#   make agreement       kappa of tikz2ir | irlint against the human raters (dev split)
#   make check-tex       tikz2ir's picture extents against what TeX draws (needs TeX)
#   make bench           speed figures
#   make fuzz            long libFuzzer runs (clang), FUZZ_SECONDS each
#   make install PREFIX=/usr/local
#   make deps            install the Debian build and test dependencies when missing
#
# Layout: tools/<program>.c is a program; every other .c file under tools/, ir/,
# grammar/ and checks/ goes into one static library all programs link.

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
SAN     ?=
OPT     ?= -O2
CFLAGS_BASE = -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -g
CFLAGS  ?= $(OPT)
ALL_CFLAGS = $(CFLAGS_BASE) $(CFLAGS) $(SAN) -I. -I$(BUILD)/grammar
LDLIBS  = -lcjson -lexpat -lm -ldl
# Generated scanner/parser code is third-party style code: keep -Werror, drop
# the warnings flex's skeleton trips on.
GEN_CFLAGS = -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter

PROGRAM_NAMES = tikz2ir irlint svg2graph graphalign kappa judge
PROGRAMS = $(filter $(PROGRAM_NAMES),$(patsubst tools/%.c,%,$(wildcard tools/*.c)))
BINS     = $(addprefix $(BUILD)/bin/,$(PROGRAMS))

YACC_SRCS = $(wildcard grammar/*.y)
LEX_SRCS  = $(wildcard grammar/*.l)
GEN_C     = $(patsubst grammar/%.y,$(BUILD)/grammar/%.tab.c,$(YACC_SRCS)) \
            $(patsubst grammar/%.l,$(BUILD)/grammar/%.lex.c,$(LEX_SRCS))
GEN_H     = $(patsubst grammar/%.y,$(BUILD)/grammar/%.tab.h,$(YACC_SRCS)) \
            $(patsubst grammar/%.l,$(BUILD)/grammar/%.lex.h,$(LEX_SRCS))
TOOL_LIB_SRCS = $(filter-out $(addprefix tools/,$(addsuffix .c,$(PROGRAM_NAMES))),$(wildcard tools/*.c))
LIB_SRCS  = $(wildcard ir/*.c grammar/*.c checks/*.c checks/*/*.c) $(TOOL_LIB_SRCS)
LIB_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(GEN_C:.c=.o)
LIB       = $(BUILD)/libdiagramir.a

UNIT_SRCS = $(wildcard tests/unit/*.c)
UNIT_BINS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
FUZZ_SRCS = $(filter-out tests/fuzz/driver.c,$(wildcard tests/fuzz/*.c))
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

.PHONY: all check check-fast check-san check-clang agreement check-tex demo bench fuzz install deps clean
.SECONDARY:

all: $(BINS)

$(BUILD)/grammar/%.tab.c $(BUILD)/grammar/%.tab.h: grammar/%.y
	@mkdir -p $(dir $@)
	bison -Wall -Werror --defines=$(BUILD)/grammar/$*.tab.h -o $(BUILD)/grammar/$*.tab.c $<

$(BUILD)/grammar/%.lex.c $(BUILD)/grammar/%.lex.h: grammar/%.l $(patsubst grammar/%.y,$(BUILD)/grammar/%.tab.h,$(YACC_SRCS))
	@mkdir -p $(dir $@)
	flex --header-file=$(BUILD)/grammar/$*.lex.h -o $(BUILD)/grammar/$*.lex.c $<

$(BUILD)/grammar/%.o: $(BUILD)/grammar/%.c $(GEN_H)
	$(CC) $(ALL_CFLAGS) $(GEN_CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(GEN_H) $(wildcard */*.h */*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Fuzz harnesses: built with a plain driver (corpus + seeded random mutations)
# for the smoke runs in `make check`; `make fuzz` builds them for libFuzzer.
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/driver.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< tests/fuzz/driver.c $(LIB) $(LDLIBS)

# The one test entry point: unit, golden, man examples, fuzz smoke runs, the
# kappa floor against people (tests/irlint-regression), the sanitizer build,
# the clang build, and agreement with TeX.
check: check-fast check-san check-clang check-tex

# The README's first command: dependencies, build, the main job on an example.
demo: all
	$(BUILD)/bin/tikz2ir contrib/examples/right-triangle.tex | $(BUILD)/bin/irlint --rubric geom --verbose; \
	  st=$$?; [ $$st -le 1 ] || exit $$st

check-fast: all $(UNIT_BINS) $(FUZZ_BINS)
	@BUILD=$(BUILD) sh tests/run-all.sh

# Warning-free with clang too (-Werror): the whole build once more.
check-clang:
	@$(MAKE) --no-print-directory CC=clang BUILD=build/clang all >/dev/null && echo "PASS  clang build (-Wall -Wextra -Werror)"

SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check-san:
	@$(MAKE) --no-print-directory BUILD=build/san SAN="$(SAN_FLAGS)" OPT=-O1 check-fast

agreement: all
	@BUILD=$(BUILD) sh tests/agreement.sh

check-tex: all
	@BUILD=$(BUILD) sh tests/tex/check-tex.sh

bench: all
	@BUILD=$(BUILD) sh tests/bench.sh

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
	install -m 644 tools/rubrics/*.rubric tools/rubrics/*.prompt tools/rubrics/*.taxonomy tools/rubrics/prices.tsv \
	    $(DESTDIR)$(PREFIX)/share/diagramir/rubrics/

# Debian packages the build and the test suite need (TeX for check-tex).
DEB_BUILD = gcc clang make flex bison libcjson-dev libcurl4-openssl-dev libexpat1-dev \
            fonts-open-sans valgrind python3
DEB_TEST  = texlive-pictures texlive-latex-recommended texlive-latex-extra dvisvgm \
            poppler-utils python3-sklearn python3-scipy graphviz
deps:
	@missing=""; for p in $(DEB_BUILD) $(DEB_TEST); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "all dependencies present"; fi

clean:
	rm -rf build
