# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# offload: build, test, cross-build, bench, fuzz, demo, install.
# `make help` lists the targets.

CC      ?= cc
AR      ?= ar
PREFIX  ?= /usr/local
OPT     ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -pedantic
CCNAME  := $(notdir $(firstword $(CC)))
BUILD   ?= build/$(CCNAME)

CPPFLAGS += -I.
ALL_CFLAGS = $(WARN) $(OPT) $(CFLAGS)
# Host programs (tests, ports, examples) may use POSIX.
HOST_CPPFLAGS = $(CPPFLAGS) -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE

# ISA-L is optional: the posix port uses it when its header and library link.
HAVE_ISAL := $(shell printf '#include <isa-l/crc.h>\nint main(void){return (int)crc32_iscsi(0,0,0);}\n' | \
               $(CC) -x c - -lisal -o /dev/null 2>/dev/null && echo 1)
ifeq ($(HAVE_ISAL),1)
  ISAL_CPPFLAGS := -DOFL_POSIX_HAVE_ISAL
  ISAL_LIBS     := -lisal
endif
HOST_LIBS = $(ISAL_LIBS) -lpthread

# libibverbs' header is optional: tests/test_verbs.c checks every OFL_WC_*
# against enum ibv_wc_status when <infiniband/verbs.h> compiles (the header
# only; nothing links libibverbs). Without it that check prints SKIP, and
# under OFL_REQUIRE_TOOLS=1 (CI) `make check` fails.
HAVE_IBVERBS := $(shell printf '#include <infiniband/verbs.h>\nint main(void){return IBV_WC_GENERAL_ERR;}\n' | \
                  $(CC) -x c - -c -o /dev/null 2>/dev/null && echo 1)
ifeq ($(HAVE_IBVERBS),1)
  IBV_CPPFLAGS := -DOFL_TEST_HAVE_IBVERBS
endif

PORT_SRCS    := ports/sim/ofl_sim.c ports/posix/ofl_posix.c
PORT_HDRS    := ports/sim/ofl_sim.h ports/posix/ofl_posix.h
TEST_SRCS    := $(sort $(wildcard tests/test_*.c))
TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))
SUITES       := $(patsubst tests/test_%.c,%,$(TEST_SRCS))
BENCH_SRCS   := $(sort $(wildcard tests/bench/*.c))
BENCHES      := $(patsubst tests/bench/bench_%.c,%,$(sort $(wildcard tests/bench/bench_*.c)))
EXAMPLES     := $(patsubst examples/%.c,%,$(sort $(wildcard examples/*.c)))
CHECK_SCRIPTS := $(sort $(wildcard tests/check_*.sh))
FUZZERS      := $(patsubst fuzz/%/,%,$(sort $(dir $(wildcard fuzz/*/fuzz_*.c))))

.PHONY: all lib check check-asan check-size check-valgrind cross bench bench-count bench-count-table fuzz demo install clean help \
        examples check-help FORCE

# Targets: `make help` prints the "## target text" lines of the Makefile
# and mk/*.mk; check-help (run by make check) fails when a .PHONY target of
# any of them has none.
MAKEFILES_ALL := Makefile $(sort $(wildcard mk/*.mk))
## all               (plain make) the static library and the examples
## lib               build/<cc>/liboffload.a alone
## examples          build/<cc>/examples/*
## check             every test: the suites, corpus replays, tests/check_*.sh; last line the total
## check-asan        the same under ASan + UBSan (clang)
## check-size        the unit suite at -Os (the size build: no fast paths)
## check-valgrind    the suite, corpus replays and demos under memcheck
## check-help        every .PHONY target has a line in make help
## cross             freestanding core for Cortex-M4, RV64, x86-64 kernel flags
## bench             benchmarks as ratios to baselines in the same run
## bench-count       instruction counts (callgrind): ap cache hit vs direct, dt exchange, issue 30's bars (OFL_COUNT_GATE=1: misses fail)
## bench-count-table README's issue-30 count table from the last bench-count with gcc and clang
## fuzz              AFL++ harnesses; FUZZ_SECONDS=N runs each N seconds
## demo              runs every example with --demo
## install           PREFIX=/usr/local: headers, core and port libraries, pkg-config files
## clean             removes build/
## help              this list
all: lib examples

help:
	@sed -n 's/^## \([a-z][a-z0-9-]*\) /make \1 /p' $(MAKEFILES_ALL)

# Every .PHONY target of the Makefiles has a `## target` line above.
check-help:
	@missing=$$(for f in $(MAKEFILES_ALL); do \
	    sed -e ':a' -e '/\\$$/{N;s/\\\n//;ba' -e '}' $$f | sed -n 's/^\.PHONY://p'; done | \
	    tr ' \t' '\n\n' | grep -v '^$$' | grep -vx FORCE | sort -u | while read t; do \
	    grep -qE "^## $$t( |$$)" $(MAKEFILES_ALL) || echo $$t; done | tr '\n' ' '); \
	 if [ -n "$$missing" ]; then echo "check-help: no '## target text' line (shown by make help) for: $$missing"; exit 1; fi

# ---- the library -----------------------------------------------------------

$(BUILD)/offload.o: offload.c offload.h $(BUILD)/config.stamp | $(BUILD)/.dir
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/liboffload.a: $(BUILD)/offload.o
	$(AR) rcs $@ $^

lib: $(BUILD)/liboffload.a

$(BUILD)/.dir:
	@mkdir -p $(BUILD)/examples $(BUILD)/fuzz
	@touch $@

# The detected configuration: the compiler, the flags and what was found
# (ISA-L). Rewritten only when it changes, so that the objects, which
# depend on it, rebuild when (and only when) it does: e.g. after ISA-L is
# installed, the posix port is rebuilt with OFL_POSIX_HAVE_ISAL.
CC_VERSION := $(shell $(CC) --version 2>/dev/null | head -1)
$(BUILD)/config.stamp: FORCE | $(BUILD)/.dir
	@printf '%s\n' 'CC=$(CC)' 'CC_VERSION=$(CC_VERSION)' 'HAVE_ISAL=$(HAVE_ISAL)' 'HAVE_IBVERBS=$(HAVE_IBVERBS)' \
	    'CPPFLAGS=$(CPPFLAGS)' 'CFLAGS=$(ALL_CFLAGS)' 'HOST_CFLAGS=$(HOST_CFLAGS)' \
	    'LDFLAGS=$(LDFLAGS)' 'LIBS=$(HOST_LIBS)' > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# ---- tests -----------------------------------------------------------------

# The suite list is regenerated whenever the set of tests/test_*.c changes.
$(BUILD)/suites.h: FORCE | $(BUILD)/.dir
	@printf '%s\n' $(foreach s,$(SUITES),'OFL_SUITE_ENTRY($(s))') > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# Host objects: each source is compiled once per build directory, with one
# set of flags, and linked into the test program, the harness replays and
# the examples. The core is the library's own $(BUILD)/offload.o, so every
# host program runs the object that `make lib` archives. Any header change
# rebuilds every object (the headers are few; the objects build in parallel).
HOST_HDRS   := offload.h $(PORT_HDRS) tests/test.h $(wildcard tests/support/*.h) \
               $(wildcard fuzz/*.h)
HOST_CFLAGS  = $(HOST_CPPFLAGS) $(ISAL_CPPFLAGS) $(IBV_CPPFLAGS) -I$(BUILD) -Itests -Ifuzz $(ALL_CFLAGS)
hostobj      = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
PORT_OBJS    = $(call hostobj,$(PORT_SRCS))
TEST_OBJS    = $(call hostobj,tests/main.c $(TEST_SRCS) $(TEST_SUPPORT))
FUZZ_OBJS    = $(call hostobj,fuzz/driver.c ports/sim/ofl_sim.c)

$(BUILD)/obj/%.o: %.c $(HOST_HDRS) $(BUILD)/config.stamp | $(BUILD)/.dir
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/main.o: $(BUILD)/suites.h

# Kept between runs (make would otherwise delete them as intermediates).
.SECONDARY: $(TEST_OBJS) $(PORT_OBJS) $(FUZZ_OBJS) \
            $(call hostobj,$(wildcard fuzz/*/fuzz_*.c) $(wildcard examples/*.c))

$(BUILD)/tests: $(TEST_OBJS) $(PORT_OBJS) $(BUILD)/offload.o $(BUILD)/config.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(filter %.o,$^) -o $@ $(HOST_LIBS)

# Plain (non-AFL) builds of the fuzz harnesses replay their corpora and any
# regression inputs as part of check. A pattern prerequisite substitutes only
# its first %, so the harness path uses the stem through second expansion.
.SECONDEXPANSION:
$(BUILD)/fuzz/%: $(FUZZ_OBJS) $$(call hostobj,fuzz/$$*/fuzz_$$*.c) $(BUILD)/offload.o \
                 $(BUILD)/config.stamp | $(BUILD)/.dir
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(filter %.o,$^) -o $@

# mk/check.sh runs the corpus replays, the test program and every
# tests/check_*.sh, each to its end, and closes with the grand total:
# "total: N passed, M failed".
check: $(BUILD)/tests $(addprefix $(BUILD)/fuzz/,$(FUZZERS)) examples check-help
	@if [ "$(OFL_REQUIRE_TOOLS)" = 1 ] && [ "$(HAVE_IBVERBS)" != 1 ]; then \
	    echo "FAIL verbs: <infiniband/verbs.h> not found by $(CC) (libibverbs-dev; OFL_REQUIRE_TOOLS=1)"; \
	    exit 1; fi
	@CFLAGS='$(CFLAGS)' LDFLAGS='$(LDFLAGS)' sh mk/check.sh "$(BUILD)" "$(CC)" "$(FUZZERS)" $(CHECK_SCRIPTS)

SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
check-asan:
	$(MAKE) check CC=clang BUILD=build/asan OPT="-O1 -g" \
	    CFLAGS="$(SAN)" LDFLAGS="$(SAN)"

# The unit suite on the size build (-Os: OFL_FAST_PATH 0, the general
# paths alone, as firmware builds the core); the Cortex-M run covers only
# the suites that need no posix port.
check-size:
	$(MAKE) BUILD=build/size OPT="-Os -g" build/size/tests
	build/size/tests

# The suite, the corpus replays and the demos under Valgrind's memcheck (Monocypher's
# third run): it sees reads of uninitialised memory, which ASan does not.
# Built at -O1 without -march flags so memcheck knows every instruction.
VALGRIND := valgrind -q --error-exitcode=99 --track-origins=yes \
            --leak-check=full --show-leak-kinds=definite \
            --errors-for-leak-kinds=definite
check-valgrind:
	$(MAKE) BUILD=build/valgrind OPT="-O1 -g" build/valgrind/tests \
	    $(addprefix build/valgrind/fuzz/,$(FUZZERS)) examples
	@set -e; for f in $(FUZZERS); do \
	    dirs=""; for d in fuzz/$$f/corpus fuzz/$$f/regress; do \
	        [ -d $$d ] && dirs="$$dirs $$d"; done; \
	    [ -n "$$dirs" ] && $(VALGRIND) build/valgrind/fuzz/$$f $$dirs; \
	done
	$(VALGRIND) build/valgrind/tests
	@set -e; for e in $(EXAMPLES); do echo "== $$e --demo (memcheck)"; \
	    (cd build/valgrind/examples && $(VALGRIND) ./$$e --demo >/dev/null); \
	done

# ---- cross: the core alone, freestanding, three targets ---------------------

CROSS_WARN := $(WARN) -Wvla -Wmissing-prototypes -Wstrict-prototypes \
              -Wframe-larger-than=256 -ffreestanding -nostdlib -fstack-usage
CROSS_ARM  := arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -Os
CROSS_RV   := riscv64-unknown-elf-gcc -march=rv64imac -mabi=lp64 -mcmodel=medany -O2
CROSS_KERN := gcc -mno-red-zone -mcmodel=kernel -fno-pic -mgeneral-regs-only -O2

build/cross/%.o: offload.c offload.h FORCE
	@mkdir -p build/cross
	$(CROSS_$(call upper,$*)) $(CROSS_WARN) -c offload.c -o $@
	@und=$$(nm -u $@ | awk '{print $$2}'); \
	 if [ -n "$$und" ]; then echo "cross $*: undefined symbols: $$und"; exit 1; fi
	@awk -F'\t' '{ if ($$2 + 0 > 256 || $$3 !~ /^static/) { print "cross $*: frame over 256 bytes or not static: " $$0; bad = 1 } } \
	     END { exit bad }' build/cross/$*.su
	@echo "cross $*: ok (largest frame $$(sort -t'	' -k2 -n build/cross/$*.su | tail -1 | cut -f2) bytes)"

upper = $(if $(filter arm,$(1)),ARM,$(if $(filter rv,$(1)),RV,KERN))

cross: build/cross/arm.o build/cross/rv.o build/cross/kern.o
	@arm-none-eabi-size build/cross/arm.o

# ---- bench -----------------------------------------------------------------

# Benchmarks link the baselines that are installed: ISA-L, DPDK's rte_ring.
HAVE_RTE_RING := $(shell pkg-config --exists libdpdk 2>/dev/null && \
                   printf '#include <rte_ring.h>\nint main(void){return 0;}\n' | \
                   $(CC) -x c - $$(pkg-config --cflags libdpdk) -o /dev/null 2>/dev/null && echo 1)
ifeq ($(HAVE_RTE_RING),1)
  RTE_CPPFLAGS := -DOFL_BENCH_HAVE_RTE_RING $(shell pkg-config --cflags libdpdk 2>/dev/null)
  RTE_LIBS     := $(shell pkg-config --libs libdpdk 2>/dev/null)
endif

$(BUILD)/benches.h: FORCE | $(BUILD)/.dir
	@printf '%s\n' $(foreach b,$(BENCHES),'OFL_BENCH_ENTRY($(b))') > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BUILD)/bench: $(BENCH_SRCS) tests/bench/bench.h $(PORT_SRCS) $(PORT_HDRS) \
                $(TEST_SUPPORT) offload.c offload.h $(BUILD)/benches.h \
                $(BUILD)/config.stamp
	$(CC) $(HOST_CPPFLAGS) $(ISAL_CPPFLAGS) $(RTE_CPPFLAGS) -I$(BUILD) -Itests -Itests/bench \
	    -std=c11 -Wall -Wextra -O2 -march=native -DNDEBUG $(CFLAGS) $(LDFLAGS) \
	    $(BENCH_SRCS) $(TEST_SUPPORT) $(PORT_SRCS) offload.c -o $@ \
	    $(HOST_LIBS) $(RTE_LIBS)

bench: $(BUILD)/bench
	$(BUILD)/bench

# Instruction counts under callgrind, where timing is too noisy to decide:
# the aperture cache's hit path against a direct table lookup (issue 5),
# the dt exchange (issue 6), issue 30's per-message bars (count_qp.sh: the
# library's share, how it is counted in its header). A missed issue-30
# target fails only with OFL_COUNT_GATE=1 or when the figure is in
# count_lib.sh's COUNT_GATED (the targets met, some for one compiler
# only: NAME@CC); a failure to count always fails.
# The output is also README.md's figures for this compiler
# (build/figures/counts-<cc>.txt, written when it passes; the count block
# from build/callgrind-<cc>/count-figures.txt).
bench-count:
	+@mkdir -p build/figures build/callgrind-$(CCNAME); rc=0; \
	 rm -f build/callgrind-$(CCNAME)/count-figures.txt; \
	 export OFL_COUNT_CC=$(CCNAME); \
	 { sh tests/bench/count_ap_hit.sh build/callgrind-$(CCNAME) && \
	   sh tests/bench/count_dt.sh build/callgrind-$(CCNAME) && \
	   sh tests/bench/count_qp.sh build/callgrind-$(CCNAME); } \
	     > build/figures/counts-$(CCNAME).tmp 2>&1 || rc=$$?; \
	 cat build/figures/counts-$(CCNAME).tmp; \
	 [ $$rc = 0 ] && mv build/figures/counts-$(CCNAME).tmp build/figures/counts-$(CCNAME).txt

# The README's table of issue 30's figures (figures:count block) from the
# last make bench-count CC=gcc and CC=clang.
bench-count-table:
	@sh tests/bench/count_table.sh build/callgrind-gcc build/callgrind-clang

# ---- examples and demo -------------------------------------------------------

$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(PORT_OBJS) $(BUILD)/offload.o \
                     $(BUILD)/config.stamp | $(BUILD)/.dir
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(filter %.o,$^) -o $@ $(HOST_LIBS)

examples: $(addprefix $(BUILD)/examples/,$(EXAMPLES))

# Every example runs its self-contained demonstration with --demo.
demo: examples
	@set -e; for e in $(EXAMPLES); do \
	    echo "== $$e --demo"; (cd $(BUILD)/examples && ./$$e --demo); done

# ---- fuzz ------------------------------------------------------------------

AFL_CC     ?= afl-clang-fast
FUZZ_SECONDS ?=
AFL_ENV    := AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
              AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_QUIET=1

# The core, the sim port and the driver are instrumented once (build/afl-obj)
# and linked into every harness.
AFL_CFLAGS := $(HOST_CPPFLAGS) -Ifuzz -std=c11 -O2 -g \
              -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
AFL_COMMON := build/afl-obj/fuzz/driver.o build/afl-obj/ports/sim/ofl_sim.o \
              build/afl-obj/offload.o

build/afl-obj/%.o: %.c offload.h $(PORT_HDRS) $(wildcard fuzz/*.h)
	@mkdir -p $(@D)
	$(AFL_CC) $(AFL_CFLAGS) -c $< -o $@

.SECONDARY: $(AFL_COMMON) $(patsubst %.c,build/afl-obj/%.o,$(wildcard fuzz/*/fuzz_*.c))

build/afl/%: $(AFL_COMMON) build/afl-obj/fuzz/$$*/fuzz_$$*.o
	@mkdir -p build/afl
	$(AFL_CC) $(AFL_CFLAGS) $^ -o $@

# One target per harness, so `make -j2 fuzz FUZZ_SECONDS=N` runs two at a
# time (AFL_NO_AFFINITY: they do not fight over a core binding). Each one's
# report is printed in one piece when it ends.
ifneq ($(FUZZ_SECONDS),)
fuzz: $(addprefix fuzz-run-,$(FUZZERS))
else
fuzz: $(addprefix build/afl/,$(FUZZERS))
endif

# The binaries stay after a run (they are not intermediates).
.SECONDARY: $(addprefix build/afl/,$(FUZZERS))

fuzz-run-%: build/afl/% FORCE
	@f=$*; out=build/afl/out-$$f; rm -rf $$out; \
	 dict=""; [ -f fuzz/$$f/$$f.dict ] && dict="-x fuzz/$$f/$$f.dict"; \
	 $(AFL_ENV) afl-fuzz -V $(FUZZ_SECONDS) -i fuzz/$$f/corpus -o $$out \
	     $$dict -- build/afl/$$f > $$out.log 2>&1 || \
	     { echo "== afl-fuzz $$f for $(FUZZ_SECONDS)s: FAILED"; tail -20 $$out.log; exit 1; }; \
	 crashes=$$(find $$out -path '*crashes/id*' | wc -l); \
	 hangs=$$(find $$out -path '*hangs/id*' | wc -l); \
	 execs=$$(awk -F: '/execs_done/ {gsub(/ /,"",$$2); print $$2}' $$out/default/fuzzer_stats); \
	 echo "== afl-fuzz $$f for $(FUZZ_SECONDS)s: execs $$execs, crashes $$crashes, hangs $$hangs"; \
	 if [ "$$crashes" != 0 ] || [ "$$hangs" != 0 ]; then \
	     ls $$out/default/crashes $$out/default/hangs; exit 1; fi

# ---- install -----------------------------------------------------------------

# Everything under $(PREFIX)/include/offload/ keeps the tree's layout, so the
# examples' includes ("offload.h", "ports/posix/ofl_posix.h") build unchanged
# from an install with `pkg-config --cflags --libs offload-posix`. The port
# libraries are the ports that build on a host: sim and posix. Their .pc
# files require offload (the core); offload-posix adds what the port links
# (ISA-L when it was found, pthreads).
INSTALL_INC := $(DESTDIR)$(PREFIX)/include/offload
INSTALL_LIB := $(DESTDIR)$(PREFIX)/lib
OFL_VERSION := $(shell sed -n 's/^\#define OFL_VERSION_STRING "\(.*\)"/\1/p' offload.h)

$(BUILD)/liboffload_sim.a: $(call hostobj,ports/sim/ofl_sim.c)
	$(AR) rcs $@ $^
$(BUILD)/liboffload_posix.a: $(call hostobj,ports/posix/ofl_posix.c)
	$(AR) rcs $@ $^

# pc NAME DESCRIPTION REQUIRES LIBS
install_pc = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(OFL_VERSION)|g' \
	    -e 's|@NAME@|$(1)|g' -e 's|@DESCRIPTION@|$(2)|g' -e 's|@REQUIRES@|$(3)|g' \
	    -e 's|@LIBS@|$(4)|g' offload.pc.in > $(INSTALL_LIB)/pkgconfig/$(1).pc

install: lib $(BUILD)/liboffload_sim.a $(BUILD)/liboffload_posix.a
	install -d $(INSTALL_INC)/ports/sim $(INSTALL_INC)/ports/posix $(INSTALL_LIB)/pkgconfig
	install -m 644 offload.h $(INSTALL_INC)/offload.h
	install -m 644 ports/sim/ofl_sim.h $(INSTALL_INC)/ports/sim/ofl_sim.h
	install -m 644 ports/posix/ofl_posix.h $(INSTALL_INC)/ports/posix/ofl_posix.h
	install -m 644 $(BUILD)/liboffload.a $(BUILD)/liboffload_sim.a \
	    $(BUILD)/liboffload_posix.a $(INSTALL_LIB)/
	$(call install_pc,offload,freestanding decision logic of an RDMA / TCP offload engine,,-loffload)
	$(call install_pc,offload-sim,offload test port: host memory as physical memory$(comma) DMA allow-list,offload,-loffload_sim)
	$(call install_pc,offload-posix,offload user-space port: TCP sockets as the wire,offload,-loffload_posix $(HOST_LIBS))
comma := ,

clean:
	rm -rf build

FORCE:

# ---- embedding proofs ----------------------------------------------------------
# test-cortexm, size-cortexm, test-configs, test-be, test-kmod, analyze,
# coverage, fuzz-campaign: see mk/embed.mk.
include mk/embed.mk
# guest-stage, rdma-stage, test-rdma(-posix): the QEMU guest every boot
# shares (test-kmod-boot, test-kmod-iw, test-rdma) and the Linux RDMA rigs, see
# mk/guest.mk.
include mk/guest.mk
# kmod-iw, test-kmod-iw, test-uring: the Linux RDMA device, mk/kmod-iw.mk.
include mk/kmod-iw.mk
# prove: Frama-C/Eva over the parsers, see mk/prove.mk.
include mk/prove.mk
