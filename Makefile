# wakebench: build, test, install.
#
#   make            all programs into $(O)/bin (default O=build)
#   make check      unit tests (Check) and integration tests (shell)
#   make asan       the same tests under ASan + UBSan, in O=build-asan (ASAN_O=)
#   make deps       install the Debian packages we need (root), else print the line
#   make demo       pairs of loopback runs without and with pre-query: the paired
#                   effect with its CI and verdict, the workload tests, a report
#   make install    PREFIX=/usr/local DESTDIR=
#   make uninstall  the same PREFIX/DESTDIR: removes what install put there
#   make fuzz       libFuzzer harnesses (clang) for FUZZ_SECONDS each

VERSION := $(shell cat VERSION 2>/dev/null || echo 0)
O ?= build
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/wakebench
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/wakebench
# Debian's bash-completion layout: one file per command, loaded on demand
COMPLETIONSDIR ?= $(PREFIX)/share/bash-completion/completions

CC ?= gcc
CFLAGS ?= -O2 -g
# Warnings stop the build where the developers want them to: make check,
# asan and fuzz, and CI (which also builds with WERROR=-Werror under gcc
# and clang). A user's plain `make` of a release with a newer compiler
# warns and builds.
ifneq ($(filter check unit asan fuzz,$(MAKECMDGOALS)),)
WERROR ?= -Werror
endif
WARN := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-missing-field-initializers
# lib/ is in folders by subsystem (lib/*/README.md); every folder is on
# the include path, so a source names a header by its file name alone.
LIB_DIRS := $(patsubst %/,%,$(wildcard lib/*/))
CPPFLAGS += -std=gnu11 -D_GNU_SOURCE $(LIB_DIRS:%=-I%) -DWB_VERSION='"$(VERSION)"'
# Library flags come from pkg-config, asked when a recipe first needs them
# (not when the Makefile is read), so `make deps demo` works on a machine
# that has none of the -dev packages yet: deps runs first, then the build
# asks. $(call cached,VAR,COMMAND) runs COMMAND once and keeps its output.
cached = $(eval $(1) := $$(shell $(2) 2>/dev/null))$($(1))
TRACE_CFLAGS = $(call cached,TRACE_CFLAGS,pkg-config --cflags libtracecmd libtracefs libtraceevent)
TRACE_LIBS = $(call cached,TRACE_LIBS,pkg-config --libs libtracecmd libtracefs libtraceevent)
CHECK_CFLAGS = $(call cached,CHECK_CFLAGS,pkg-config --cflags check)
CHECK_LIBS = $(call cached,CHECK_LIBS,pkg-config --libs check)
CPPFLAGS += $(TRACE_CFLAGS)
LDLIBS += $(TRACE_LIBS) -lcpupower -lm -lpthread -lz

# Debian 12 packages: build, test and peer tools.
DEB_PKGS := build-essential pkg-config check libsubunit-dev libcpupower-dev \
	libtracefs-dev libtraceevent-dev libtracecmd-dev linux-cpupower gnuplot-nox \
	sockperf trace-cmd iproute2 procps util-linux python3 time clang \
	libclang-rt-dev man-db groff-base bsdextrautils memcached redis-server \
	linux-perf chromium openssh-server bash-completion rt-tests \
	zlib1g-dev libhdrhistogram-java default-jre-headless strace

LIB_SRC := $(wildcard lib/*/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(O)/obj/%.o)
LIBWB := $(O)/libwakebench.a

# C commands and their sources.
server_SRC := $(wildcard server/*.c)
client_SRC := $(wildcard client/*.c)
cstate_SRC := cstate/cstate.c
snapshot_SRC := snapshot/snapshot.c
midtier_SRC := prequery/midtier.c
trace_SRC := tracing/trace.c tracing/record.c tracing/residency.c tracing/capture.c \
	tracing/export.c tracing/tracedat.c tracing/socwatch.c
stats_SRC := stats/stats.c
# the scripts' helpers, verbs of one hidden program (lib/cli verbs)
internal_SRC := $(wildcard internal/*.c)
# internal helper of `wakebench report` (lib/fig)
figdata_SRC := figdata/figdata.c
wake_SRC := wake/wake.c
PROGS := server client midtier cstate snapshot trace stats internal figdata wake
PROG_BINS := $(PROGS:%=$(O)/bin/wakebench-%)
SCRIPT_CMDS := $(patsubst scripts/wakebench-%,%,$(wildcard scripts/wakebench-*))
SCRIPT_BINS := $(SCRIPT_CMDS:%=$(O)/bin/wakebench-%)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRC:tests/tools/%.c=$(O)/tests/%)
BENCH_TOOL_SRC := $(wildcard bench/tools/*.c)
BENCH_TOOL_BINS := $(BENCH_TOOL_SRC:bench/tools/%.c=$(O)/bench/%)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(O)/obj/%.o)
UNIT_BIN := $(O)/tests/unit-tests
PROG_OBJ := $(foreach p,$(PROGS),$(patsubst %.c,$(O)/obj/%.o,$($(p)_SRC)))

# Header dependencies: every compile also writes a .d file beside its
# output (-MMD: the user headers it read; -MP: an empty rule for each, so
# a header removed since does not stop the build). They are included at
# the end of this file, those that exist: a fresh tree has none.
DEPFLAGS := -MMD -MP

all: $(O)/bin/wakebench $(PROG_BINS) $(SCRIPT_BINS)

# A library pkg-config cannot find stops the build here, naming the Debian
# package, instead of compiling on without its flags.
need-libs:
	@tools/check-deps.sh build

need-check:
	@tools/check-deps.sh check

$(O)/obj/%.o: %.c Makefile | need-libs
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(LIBWB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(O)/bin/wakebench: scripts/wakebench VERSION
	@mkdir -p $(dir $@)
	sed 's/@VERSION@/$(VERSION)/' $< > $@ && chmod +x $@

$(O)/bin/wakebench-%: scripts/wakebench-%
	@mkdir -p $(dir $@)
	cp $< $@ && chmod +x $@

define prog_rule
$(O)/bin/wakebench-$(1): $(patsubst %.c,$(O)/obj/%.o,$($(1)_SRC)) $(LIBWB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p))))

$(O)/tests/%: tests/tools/%.c $(LIBWB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -MF $@.d $(LDFLAGS) -o $@ $< $(LIBWB) $(LDLIBS)

$(O)/bench/%: bench/tools/%.c $(LIBWB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -MF $@.d $(LDFLAGS) -o $@ $< $(LIBWB) $(LDLIBS)

bench-tools: $(BENCH_TOOL_BINS)

$(O)/obj/tests/unit/%.o: tests/unit/%.c Makefile | need-libs need-check
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(CHECK_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(UNIT_BIN): $(UNIT_OBJ) $(LIBWB) | need-check
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(LIBWB) $(CHECK_LIBS) $(LDLIBS)

# The new-dimension test (issue 32): lib/sweep and lib/fig built again
# with the rows of tests/sweepdim/sweepdim-test.h added to the table of
# lib/sweep/sweepdim.h, linked before the library so that they win.
SWEEPDIM_OBJ := $(patsubst %.c,$(O)/obj-sweepdim/%.o,$(wildcard lib/sweep/*.c lib/fig/*.c))
SWEEPDIM_BIN := $(O)/tests/sweepdim-extra
SWEEPDIM_FLAGS := -DSWEEPDIM_TEST -Itests/sweepdim

$(O)/obj-sweepdim/%.o: %.c Makefile | need-libs
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SWEEPDIM_FLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(SWEEPDIM_BIN): tests/sweepdim/sweepdim-extra.c $(SWEEPDIM_OBJ) $(LIBWB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SWEEPDIM_FLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -MF $@.d $(LDFLAGS) \
		-o $@ $< $(SWEEPDIM_OBJ) $(LIBWB) $(LDLIBS)

tests: $(UNIT_BIN) $(TOOL_BINS) $(BENCH_TOOL_BINS) $(SWEEPDIM_BIN)

check: all tests
	$(UNIT_BIN)
	$(SWEEPDIM_BIN)
	O=$(O) tests/run-integration.sh

unit: $(UNIT_BIN)
	$(UNIT_BIN)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
ASAN_O ?= build-asan
asan:
	$(MAKE) O=$(ASAN_O) CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" \
		CK_FORK=no check

# libFuzzer harnesses (clang). `make fuzz FUZZ_SECONDS=N` runs each for N
# seconds on a scratch copy of its seed corpus (tests/fuzz/corpus/NAME,
# which also keeps every input that once crashed). FUZZ_SEED=N fixes the
# mutation sequence (0: a new one each run). Every lib/*/*.c is compiled by
# clang with the fuzzer's coverage and the sanitizers into
# $(FUZZ_O)/libwakebench-fuzz.a; each tests/fuzz/fuzz_NAME.c links against
# it, taking the modules it calls.
FUZZ_SECONDS ?= 10
FUZZ_SEED ?= 0
FUZZ_CC ?= clang
FUZZ_O ?= build-fuzz
FUZZERS := proto timeline turbostat readers tracepage spec sweepcsv kv socwatch figdata
FUZZ_SAN := address,undefined -fno-sanitize-recover=all
FUZZ_LIB_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,$(FUZZ_SAN)
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,$(FUZZ_SAN)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_O)/obj/%.o)
FUZZ_LIB := $(FUZZ_O)/libwakebench-fuzz.a
FUZZ_BINS := $(FUZZERS:%=$(FUZZ_O)/fuzz_%)
FUZZ_LIBS = $(TRACE_LIBS) -lcpupower -lm

$(FUZZ_O)/obj/%.o: %.c Makefile | need-libs
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_LIB_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BINS): $(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) Makefile | need-libs
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(DEPFLAGS) -MF $@.d -o $@ $< $(FUZZ_LIB) $(FUZZ_LIBS)

fuzz: $(FUZZ_BINS)
	@for f in $(FUZZERS); do \
		rm -rf $(FUZZ_O)/corpus-$$f && mkdir -p $(FUZZ_O)/corpus-$$f && \
		cp tests/fuzz/corpus/$$f/* $(FUZZ_O)/corpus-$$f/ && \
		echo "fuzz_$$f: $(FUZZ_SECONDS) s" && \
		$(FUZZ_O)/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_O)/crash-$$f- $(FUZZ_O)/corpus-$$f \
			2>$(FUZZ_O)/fuzz_$$f.log || { tail -30 $(FUZZ_O)/fuzz_$$f.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' $(FUZZ_O)/fuzz_$$f.log | tail -2; \
	done

deps:
	@if [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS); \
	else \
		echo "make deps needs root; run:"; \
		echo "  apt-get install -y $(DEB_PKGS)"; \
	fi

demo: all
	O=$(O) scripts/demo.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(O)/bin/wakebench $(DESTDIR)$(BINDIR)/wakebench
	install -m 755 $(PROG_BINS) $(SCRIPT_BINS) $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 scripts/wb-lib.sh $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(DATADIR)/plots
	install -m 644 plots/*.gp $(DESTDIR)$(DATADIR)/plots/
	install -d $(DESTDIR)$(COMPLETIONSDIR)
	install -m 644 scripts/completion/wakebench $(DESTDIR)$(COMPLETIONSDIR)/wakebench

# What install put there, by the same names; directories: only the
# wakebench ones (and bash-completion's), and only when nothing else is
# left in them.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/wakebench
	rm -f $(addprefix $(DESTDIR)$(LIBEXECDIR)/,$(notdir $(PROG_BINS) $(SCRIPT_BINS)) wb-lib.sh)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/plots/,$(notdir $(wildcard plots/*.gp)))
	rm -f $(DESTDIR)$(COMPLETIONSDIR)/wakebench
	@for d in $(DESTDIR)$(DATADIR)/plots $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR) \
		$(DESTDIR)$(COMPLETIONSDIR) $(dir $(DESTDIR)$(COMPLETIONSDIR)); do \
		[ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; \
	done

clean:
	rm -rf build build-asan build-fuzz

# Header dependencies of what was built before (see DEPFLAGS).
DEPS := $(LIB_OBJ:.o=.d) $(PROG_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) \
	$(TOOL_BINS:=.d) $(BENCH_TOOL_BINS:=.d) $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BINS:=.d) \
	$(SWEEPDIM_OBJ:.o=.d) $(SWEEPDIM_BIN:=.d)
-include $(wildcard $(DEPS))

.PHONY: need-libs need-check all check unit tests bench-tools asan fuzz deps demo install \
	uninstall clean
