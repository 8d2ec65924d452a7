# wakebench: build, test, install.
#
#   make            all programs into $(O)/bin (default O=build)
#   make check      unit tests (Check) and integration tests (shell)
#   make asan       the same tests under ASan + UBSan, in O=build-asan
#   make deps       install the Debian packages we need (root), else print the line
#   make demo       loopback experiment with and without pre-query, with a report
#   make install    PREFIX=/usr/local DESTDIR=

VERSION := $(shell cat VERSION 2>/dev/null || echo 0)
O ?= build
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/wakebench
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/wakebench

CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-missing-field-initializers
CPPFLAGS += -std=gnu11 -D_GNU_SOURCE -Ilib -DWB_VERSION='"$(VERSION)"'
# Library flags come from pkg-config, asked when a recipe first needs them
# (not when the Makefile is read), so `make deps demo` works on a machine
# that has none of the -dev packages yet: deps runs first, then the build
# asks. $(call cached,VAR,COMMAND) runs COMMAND once and keeps its output.
cached = $(eval $(1) := $$(shell $(2) 2>/dev/null))$($(1))
TRACE_CFLAGS = $(call cached,TRACE_CFLAGS,pkg-config --cflags libtracefs libtraceevent)
TRACE_LIBS = $(call cached,TRACE_LIBS,pkg-config --libs libtracefs libtraceevent)
CHECK_CFLAGS = $(call cached,CHECK_CFLAGS,pkg-config --cflags check)
CHECK_LIBS = $(call cached,CHECK_LIBS,pkg-config --libs check)
CPPFLAGS += $(TRACE_CFLAGS)
LDLIBS += $(TRACE_LIBS) -lcpupower -lm -lpthread

# Debian 12 packages: build, test and peer tools.
DEB_PKGS := build-essential pkg-config check libsubunit-dev libcpupower-dev \
	libtracefs-dev libtraceevent-dev linux-cpupower gnuplot-nox sockperf \
	trace-cmd iproute2 procps util-linux python3 time clang libclang-rt-dev

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(O)/obj/%.o)
LIBWB := $(O)/libwakebench.a

# C commands and their sources.
server_SRC := $(wildcard server/*.c)
client_SRC := $(wildcard client/*.c)
cstate_SRC := tracing/cstate.c
snapshot_SRC := tracing/snapshot.c
midtier_SRC := prequery/midtier.c
trace_SRC := tracing/trace.c tracing/record.c tracing/residency.c
stats_SRC := stats/stats.c
PROGS := server client midtier cstate snapshot trace stats
PROG_BINS := $(PROGS:%=$(O)/bin/wakebench-%)
SCRIPT_CMDS := $(patsubst scripts/wakebench-%,%,$(wildcard scripts/wakebench-*))
SCRIPT_BINS := $(SCRIPT_CMDS:%=$(O)/bin/wakebench-%)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRC:tests/tools/%.c=$(O)/tests/%)
BENCH_TOOL_SRC := $(wildcard bench/tools/*.c)
BENCH_TOOL_BINS := $(BENCH_TOOL_SRC:bench/tools/%.c=$(O)/bench/%)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(O)/tests/unit-tests

all: $(O)/bin/wakebench $(PROG_BINS) $(SCRIPT_BINS)

# A library pkg-config cannot find stops the build here, naming the Debian
# package, instead of compiling on without its flags.
need-libs:
	@tools/check-deps.sh build

need-check:
	@tools/check-deps.sh check

$(O)/obj/%.o: %.c $(wildcard lib/*.h */*.h) Makefile | need-libs
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -c -o $@ $<

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
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/bench/%: bench/tools/%.c $(LIBWB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench-tools: $(BENCH_TOOL_BINS)

$(UNIT_BIN): $(UNIT_SRC) $(wildcard tests/unit/*.h) $(LIBWB) | need-check
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(CHECK_CFLAGS) $(LDFLAGS) -o $@ \
		$(UNIT_SRC) $(LIBWB) $(CHECK_LIBS) $(LDLIBS)

tests: $(UNIT_BIN) $(TOOL_BINS) $(BENCH_TOOL_BINS)

check: all tests
	$(UNIT_BIN)
	O=$(O) tests/run-integration.sh

unit: $(UNIT_BIN)
	$(UNIT_BIN)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
asan:
	$(MAKE) O=build-asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" \
		CK_FORK=no check

# libFuzzer harnesses (clang). `make fuzz FUZZ_SECONDS=N` runs each for N
# seconds on a scratch copy of its seed corpus (tests/fuzz/corpus/NAME,
# which also keeps every input that once crashed). FUZZ_SEED=N fixes the
# mutation sequence (0: a new one each run).
FUZZ_SECONDS ?= 10
FUZZ_SEED ?= 0
FUZZ_CC ?= clang
FUZZERS := proto timeline turbostat readers tracepage
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz_proto_SRC := lib/proto.c lib/framer.c
fuzz_timeline_SRC := lib/timeline.c lib/attrib.c
fuzz_turbostat_SRC := lib/turbostat.c lib/csv.c
fuzz_readers_SRC := lib/tracefile.c lib/timeline.c lib/residency.c lib/idlestate.c \
	lib/sysfs.c lib/opt.c lib/cpu.c lib/clock.c lib/reqlog.c lib/csvread.c
fuzz_readers_LIBS = $(TRACE_LIBS) -lcpupower -lm
fuzz_tracepage_SRC := lib/tracefile.c lib/timeline.c lib/opt.c lib/cpu.c lib/clock.c
fuzz_tracepage_LIBS = $(TRACE_LIBS) -lcpupower
define fuzz_rule
build-fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $$(fuzz_$(1)_SRC) $(wildcard lib/*.h)
	@mkdir -p build-fuzz
	$$(FUZZ_CC) $$(CPPFLAGS) $$(FUZZ_FLAGS) -o $$@ tests/fuzz/fuzz_$(1).c $$(fuzz_$(1)_SRC) $$(fuzz_$(1)_LIBS) -lm
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_rule,$(f))))

fuzz: $(FUZZERS:%=build-fuzz/fuzz_%)
	@for f in $(FUZZERS); do \
		rm -rf build-fuzz/corpus-$$f && mkdir -p build-fuzz/corpus-$$f && \
		cp tests/fuzz/corpus/$$f/* build-fuzz/corpus-$$f/ && \
		echo "fuzz_$$f: $(FUZZ_SECONDS) s" && \
		build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -print_final_stats=1 \
			-artifact_prefix=build-fuzz/crash-$$f- build-fuzz/corpus-$$f \
			2>build-fuzz/fuzz_$$f.log || { tail -30 build-fuzz/fuzz_$$f.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' build-fuzz/fuzz_$$f.log | tail -2; \
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
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(DATADIR)/plots
	install -m 644 plots/*.gp $(DESTDIR)$(DATADIR)/plots/

clean:
	rm -rf build build-asan build-fuzz


.PHONY: need-libs need-check all check unit tests asan fuzz deps demo install clean
