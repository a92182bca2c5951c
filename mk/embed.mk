# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# Proofs of embedding (included by the Makefile): the test suite on a
# Cortex-M under QEMU, on a big-endian Linux target under qemu-user and in a
# Linux kernel module; every section configuration; static analysis;
# coverage; the fuzzing campaign. README.md, "Embedding", says how to run
# each. Nothing here names a test, a harness or a section: tests are
# tests/test_*.c, harnesses fuzz/*/fuzz_*.c, sections the banner comments of
# offload.c and the OFL_ENABLE_* macros of offload.h.

.PHONY: test-cortexm size-cortexm test-configs test-be test-arm64 test-kmod \
        test-kmod-boot analyze coverage fuzz-campaign fuzz-merge fuzz-same-code \
        readme-figures check-readme-figures

## test-cortexm      the test suite on a Cortex-M4 (QEMU mps2-an386, semihosting)
## size-cortexm      code size of offload.o at -Os per section
## test-configs      every OFL_ENABLE_* combination: allowed build, forbidden refused
## test-be           the test suite big-endian (s390x under qemu-user)
## test-arm64        the posix port's ARMv8 CRC path, gcc and clang (qemu-user)
## test-kmod         the self-test kernel module, built by kbuild (W=1)
## test-kmod-boot    boots Debian's kernel in QEMU and runs the module
## analyze           cppcheck, clang --analyze, frame sizes, undefined symbols
## coverage          line and branch coverage of offload.c per section (deterministic suites)
## fuzz-campaign     HOURS=N: AFL++ and libFuzzer, N hours each per harness
## fuzz-merge        the last campaign's finds into fuzz/<name>/corpus (FC_BUILD=its build dir)
## fuzz-same-code    REV=R: whether offload.c's fuzz builds compile to the same .text at R
## readme-figures    rewrites README.md's measured figures (sizes, frames, coverage, instruction counts)
## check-readme-figures  fails when README.md's figures differ from what the tree measures

PYTHON ?= python3

# ---- which tests a target can run -------------------------------------------
#
# A test (or tests/support) file that needs more than every target offers
# says so in a comment within its first 15 lines:
#     /* ofl-test-needs: posix */
#   posix   an operating system: files, sockets, threads, clocks, the
#           posix port (host and big-endian Linux only)
#   libc    the C library beyond what the kernel shim gives (printf family,
#           string.h, ctype.h, malloc/calloc/free, abort): FILE streams,
#           floating point, qsort, time, ... (not in the kernel module)
#   bigmem  more than 8 MiB of static data and heap (the Cortex-M image
#           has 16 MiB, the test VM of the kernel module 512 MiB)
# Host and big-endian runs provide all three, Cortex-M provides libc, the
# kernel module none. A target runs the files whose needs it provides, plus
# its port's own ports/<port>/test_*.c suites.
OFL_TEST_NEEDS := $(shell awk 'FNR <= 15 && /ofl-test-needs:/ { \
    s = $$0; sub(/.*ofl-test-needs:/, "", s); sub(/\*\/.*/, "", s); \
    gsub(/,/, " ", s); n = split(s, w, " "); \
    for (i = 1; i <= n; i++) print FILENAME ":" w[i] }' \
    $(TEST_SRCS) $(TEST_SUPPORT) /dev/null)
# $(call ofl_runnable,<features provided>,<files>): the files it can run.
ofl_runnable = $(filter-out $(foreach e,$(filter-out $(addprefix %:,$(1)),$(OFL_TEST_NEEDS)),$(firstword $(subst :, ,$(e)))),$(2))
# $(call ofl_suites_h,<test files>,<output>): the suite list of a runner.
define ofl_suites_h
	@mkdir -p $(dir $(2))
	@printf '%s\n' $(foreach s,$(patsubst test_%,%,$(basename $(notdir $(1)))),'OFL_SUITE_ENTRY($(s))') > $(2).tmp
	@cmp -s $(2).tmp $(2) || mv $(2).tmp $(2); rm -f $(2).tmp
endef

# ---- 1. Cortex-M under QEMU --------------------------------------------------

CM_CC     ?= arm-none-eabi-gcc
CM_CPU    ?= -mcpu=cortex-m4 -mthumb -mfloat-abi=soft
CM_BOARD  ?= mps2-an386
CM_BUILD  := build/cortexm
CM_TESTS  := $(call ofl_runnable,libc,$(TEST_SRCS)) \
             $(sort $(wildcard ports/baremetal/test_*.c))
CM_SUPPORT := $(call ofl_runnable,libc,$(TEST_SUPPORT))
CM_SRCS   := tests/main.c $(CM_TESTS) $(CM_SUPPORT) ports/sim/ofl_sim.c \
             ports/baremetal/ofl_bm.c ports/baremetal/startup_cm.c \
             ports/baremetal/semihost.c
CM_QEMU   := qemu-system-arm -M $(CM_BOARD) -nographic -monitor none \
             -serial none -semihosting-config enable=on,target=native

$(CM_BUILD)/suites.h: FORCE
	$(call ofl_suites_h,$(CM_TESTS),$@)

# The core alone, freestanding, exactly as firmware would build it.
$(CM_BUILD)/offload.o: offload.c offload.h
	@mkdir -p $(CM_BUILD)
	$(CM_CC) $(CM_CPU) -Os -g $(CROSS_WARN) -ffunction-sections \
	    -fdata-sections -c offload.c -o $@
	@und=$$(arm-none-eabi-nm -u $@); if [ -n "$$und" ]; then \
	    echo "Cortex-M offload.o references undefined symbols:"; \
	    echo "$$und"; exit 1; fi

# The test image: newlib for the tests' printf and string functions, our
# start-up code and linker script, semihosting for the console and exit.
$(CM_BUILD)/tests.elf: $(CM_BUILD)/offload.o $(CM_SRCS) $(CM_BUILD)/suites.h \
                       tests/test.h ports/baremetal/ofl_bm.h \
                       ports/baremetal/mps2.ld ports/sim/ofl_sim.h
	$(CM_CC) $(CM_CPU) -Os -g $(WARN) -I. -Itests -Iports/baremetal \
	    -I$(CM_BUILD) -ffunction-sections -fdata-sections -nostartfiles \
	    -T ports/baremetal/mps2.ld -Wl,--gc-sections \
	    -Wl,-Map,$(CM_BUILD)/tests.map $(CM_SRCS) $(CM_BUILD)/offload.o \
	    -o $@
	@arm-none-eabi-size $@

test-cortexm: $(CM_BUILD)/tests.elf
	@echo "== $(CM_BOARD): $(CM_SUITES_RUN)"
	@set -e; rc=0; timeout 600 $(CM_QEMU) -kernel $< > $(CM_BUILD)/run.log 2>&1 || rc=$$?; \
	 cat $(CM_BUILD)/run.log; \
	 last=$$(grep -E '^[0-9]+ passed, [0-9]+ failed' $(CM_BUILD)/run.log | tail -1); \
	 if [ $$rc -ne 0 ] || [ -z "$$last" ] || ! echo "$$last" | grep -q ', 0 failed$$'; then \
	     echo "test-cortexm: FAILED (qemu exit $$rc)"; exit 1; fi; \
	 echo "test-cortexm: ok on $(CM_BOARD) ($$last)"
CM_SUITES_RUN = $(patsubst test_%,%,$(basename $(notdir $(CM_TESTS))))

# Code size of offload.o at -Os for the Cortex-M4, per section (README).
size-cortexm: $(CM_BUILD)/offload.o
	@$(PYTHON) mk/ofl_embed.py size arm-none-eabi-nm $<
	@$(CM_CC) $(CM_CPU) -Os $(CROSS_WARN) -DOFL_CRC32C_SLICES=1 -c offload.c \
	    -o $(CM_BUILD)/offload-slices1.o
	@printf 'with -DOFL_CRC32C_SLICES=1: '; arm-none-eabi-size $(CM_BUILD)/offload-slices1.o | \
	    awk 'NR == 2 { print $$1 + $$2 + $$3 " bytes" }'

# Every combination of the OFL_ENABLE_* macros, for the Cortex-M4 at -Os:
# those the rules in offload.h allow build with -Werror and leave no
# undefined symbol; the others stop at the #error that names the rule.
CONFIG_JOBS ?= 2
test-configs:
	@$(PYTHON) mk/ofl_embed.py configs $(CM_CC) \
	    "$(CM_CPU) -Os $(filter-out -fstack-usage,$(CROSS_WARN))" \
	    arm-none-eabi-nm arm-none-eabi-size $(CONFIG_JOBS)

# ---- 2. big-endian: the whole suite on s390x under qemu-user ----------------

BE_CC    ?= s390x-linux-gnu-gcc
BE_QEMU  ?= qemu-s390x
BE_BUILD := build/be-s390x

# The host rules build the binaries (same sources, same flags), statically
# linked so that qemu-user needs no s390x sysroot.
test-be:
	@order=$$(echo __BYTE_ORDER__ | $(BE_CC) -E -P -x c - | tr -d ' '); \
	 [ "$$order" = 4321 ] || { echo "test-be: $(BE_CC) is not big-endian ($$order)"; exit 1; }; \
	 echo "== $(BE_CC): big-endian (__BYTE_ORDER__ 4321), run by $(BE_QEMU)"
	$(MAKE) --no-print-directory CC=$(BE_CC) BUILD=$(BE_BUILD) LDFLAGS=-static \
	    $(BE_BUILD)/tests $(addprefix $(BE_BUILD)/fuzz/,$(FUZZERS))
	@set -e; for f in $(FUZZERS); do \
	    dirs=""; for d in fuzz/$$f/corpus fuzz/$$f/regress; do \
	        [ -d $$d ] && dirs="$$dirs $$d"; done; \
	    [ -n "$$dirs" ] && $(BE_QEMU) $(BE_BUILD)/fuzz/$$f $$dirs; \
	done; \
	$(BE_QEMU) $(BE_BUILD)/tests | tee $(BE_BUILD)/run.log; \
	grep -Eq '^[0-9]+ passed, 0 failed$$' $(BE_BUILD)/run.log

# ---- 2b. arm64: the posix port's CRC32C instructions, gcc and clang ---------
#
# The posix port picks the ARMv8 CRC32C instructions on arm64 through each
# compiler's builtins. Both compilers build the test program for
# aarch64-linux-gnu (static; the linker's getaddrinfo warning is
# expected), and qemu-aarch64 runs the suites that touch the CPU path:
# posix (every CRC path against the portable one) and base.
A64_GCC   ?= aarch64-linux-gnu-gcc
A64_CLANG ?= clang --target=aarch64-linux-gnu
A64_QEMU  ?= qemu-aarch64

test-arm64:
	$(MAKE) --no-print-directory CC="$(A64_GCC)" BUILD=build/arm64-gcc \
	    LDFLAGS=-static build/arm64-gcc/tests
	$(MAKE) --no-print-directory CC="$(A64_CLANG)" BUILD=build/arm64-clang \
	    LDFLAGS=-static build/arm64-clang/tests
	@set -e; for b in build/arm64-gcc build/arm64-clang; do \
	    echo "== $$b/tests posix base, run by $(A64_QEMU)"; \
	    $(A64_QEMU) $$b/tests posix base | tee $$b/run.log; \
	    grep -q '^posix port crc32c: armv8-crc$$' $$b/run.log; \
	    grep -Eq '^[0-9]+ passed, 0 failed$$' $$b/run.log; done

# ---- 3. Linux kernel module --------------------------------------------------
#
# The kernel is Debian's: the newest version with both headers and an image
# installed (override KVER, or KDIR and KIMAGE).
ifeq ($(origin KVER),undefined)
KVER := $(shell for d in /usr/src/linux-headers-*; do \
            v=$$(echo $$d | sed 's|.*/linux-headers-||'); \
            [ -f /boot/vmlinuz-$$v ] && [ -f $$d/Module.symvers ] && echo $$v; \
        done | sort -V | tail -1)
endif
KDIR   ?= /usr/src/linux-headers-$(KVER)
KIMAGE ?= /boot/vmlinuz-$(KVER)
KM_BUILD   := build/kmod
KM_TESTS   := $(call ofl_runnable,,$(TEST_SRCS)) $(sort $(wildcard ports/linux/test_*.c))
KM_SUPPORT := $(call ofl_runnable,,$(TEST_SUPPORT))
KM_SRC     := $(KM_BUILD)/src
# kbuild's extra warnings (W=1: -Wmissing-prototypes, -Wold-style-definition,
# ...) apply; the core and the port must pass them too.
KM_W       ?= 1

# Vendors the core and the port into a module tree the way a driver author
# would (copies, unchanged), adds the self-test, and builds it with kbuild.
# The core, the port, the module glue and the test code must build without
# a warning.
test-kmod:
	@[ -n "$(KVER)" ] && [ -f $(KDIR)/Makefile ] || { \
	    echo "test-kmod: no kernel headers with a matching /boot/vmlinuz-* (apt-get install linux-headers-amd64 linux-image-amd64)"; exit 1; }
	@rm -rf $(KM_SRC); mkdir -p $(KM_SRC)/tests/support $(KM_SRC)/ports/sim
	@cp offload.c offload.h $(KM_SRC)/
	@cp ports/linux/Kbuild ports/linux/ofl_linux.[ch] ports/linux/ofl_selftest.c $(KM_SRC)/
	@cp -r ports/linux/shim $(KM_SRC)/
	@cp tests/main.c tests/test.h $(KM_TESTS) $(KM_SRC)/tests/
	@cp $(KM_SUPPORT) $(wildcard tests/support/*.h) $(KM_SRC)/tests/support/ 2>/dev/null || true
	@cp ports/sim/ofl_sim.[ch] $(KM_SRC)/ports/sim/
	$(call ofl_suites_h,$(KM_TESTS),$(KM_SRC)/tests/suites.h)
	@echo "== kbuild against $(KDIR): suites $(patsubst test_%,%,$(basename $(notdir $(KM_TESTS))))"
	@rc=0; env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL \
	    make -C $(KDIR) M=$(CURDIR)/$(KM_SRC) W=$(KM_W) -j2 modules > $(KM_BUILD)/kbuild.log 2>&1 || rc=$$?; \
	 grep -E '^ *(CC|LD) \[M\]' $(KM_BUILD)/kbuild.log; \
	 [ $$rc -eq 0 ] || { cat $(KM_BUILD)/kbuild.log; echo "test-kmod: kbuild failed"; exit 1; }
	@if grep -E '(offload|ofl_linux|ofl_selftest)\.[ch]:[0-9]+:[0-9]+: (warning|error)' $(KM_BUILD)/kbuild.log; then \
	    echo "test-kmod: the core or the port is not warning-free under the kernel's flags (W=$(KM_W))"; exit 1; fi
	@if grep -E 'warning:' $(KM_BUILD)/kbuild.log; then \
	    echo "test-kmod: the test code is not warning-free under the kernel's flags (W=$(KM_W)); a frame over 2048 bytes: make large test objects static"; exit 1; fi
	@echo "kbuild W=$(KM_W): no warning (core, port and test code)"
	@cp $(KM_SRC)/offload_selftest.ko $(KM_BUILD)/
	@modinfo $(KM_BUILD)/offload_selftest.ko 2>/dev/null | grep -E '^(vermagic|license)' || true
	@echo "test-kmod: built $(KM_BUILD)/offload_selftest.ko for $(KVER)"

# Boots the Debian kernel under QEMU in the guest every boot shares
# (mk/guest.mk: mk/guest/stage.sh's base layer, mk/guest/boot.sh) with the
# module and ports/linux/boot.sh, which loads it; the verdict is the
# module's own "N passed, M failed" line, read from the serial console. TCG
# by default (about 10 s here; nested KVM is not reliable on CI machines):
# KM_QEMU_ACCEL="-enable-kvm -cpu host" to try.
KM_QEMU_ACCEL ?= -accel tcg -cpu max
test-kmod-boot: test-kmod guest-stage
	@rc=0; $(GUEST_BOOT) -M 512 -l $(KM_BUILD)/boot.log -m $(KM_BUILD)/offload_selftest.ko \
	    $(KIMAGE) $(GUEST) ports/linux/boot.sh || rc=$$?; \
	 grep -aE '^ofl-boot:|offload_selftest: ' $(KM_BUILD)/boot.log | tr -d '\r'; \
	 last=$$(tr -d '\r' < $(KM_BUILD)/boot.log | grep -aE '^offload_selftest: [0-9]+ passed, [0-9]+ failed$$' | tail -1); \
	 if [ -z "$$last" ] || ! echo "$$last" | grep -q ', 0 failed$$'; then \
	     echo "test-kmod-boot: FAILED (qemu exit $$rc; full console in $(KM_BUILD)/boot.log)"; \
	     tail -40 $(KM_BUILD)/boot.log; exit 1; fi; \
	 echo "test-kmod-boot: ok ($$last)"

# ---- 4. static analysis and limits --------------------------------------------
#
# cppcheck: warning, style, performance and portability checks on the
# default configuration (the OFL_TYPES_HEADER / __KERNEL__ / C++ branches of
# offload.h only choose headers). One check is off: variableScope, because
# the house style, like the kernel's, declares variables at the top of a
# block.
# clang --analyze: the default checkers, with small functions (<= 10 basic
# blocks) always inlined: with the default (3) the analyzer does not follow
# tpt_find_valid() and reports a NULL tpt that that function rules out.
CPPCHECK_FLAGS := --enable=warning,style,performance,portability --std=c11 \
                  --inline-suppr --error-exitcode=1 --quiet -I. \
                  -UOFL_TYPES_HEADER -U__KERNEL__ -U__cplusplus \
                  --suppress=variableScope
ANALYZER_FLAGS := --analyze -Xclang -analyzer-output=text -std=c11 -I. \
                  -Xclang -analyzer-config -Xclang ipa-always-inline-size=10

# The analyzers and the hosted builds are independent: each is a target of
# its own, run two at a time (-O keeps each one's output in one piece).
ANALYZE_SLICES := 16 1 8
HOSTED_CCS     := gcc clang arm-none-eabi-gcc
HOSTED_LEVELS  := O1 O2 O3 Os
HOSTED_JOBS    := $(foreach c,$(HOSTED_CCS),$(foreach o,$(HOSTED_LEVELS),analyze-hosted-$(c)-$(o)))

analyze:
	@mkdir -p build/analyze build/limits
	@echo "== cppcheck $$(cppcheck --version | cut -d' ' -f2) offload.c; clang --analyze offload.c (OFL_CRC32C_SLICES $(ANALYZE_SLICES))"
	@$(MAKE) --no-print-directory -s -j2 -O analyze-cppcheck \
	    $(addprefix analyze-clang-,$(ANALYZE_SLICES))
	@echo "== -fstack-usage and undefined symbols, freestanding, per target and -O level"
	@mkdir -p $(FIG); rc=0; $(PYTHON) mk/ofl_embed.py limits 2 > $(FIG)/frames.tmp || rc=$$?; \
	 cat $(FIG)/frames.tmp; [ $$rc = 0 ] && mv $(FIG)/frames.tmp $(FIG)/frames.txt
	@echo "== undefined symbols, hosted (no -ffreestanding: a vendor's own flags)"
	@$(MAKE) --no-print-directory -s -j2 -O $(HOSTED_JOBS)
	@echo "hosted builds: no undefined symbols"

analyze-cppcheck:
	@cppcheck $(CPPCHECK_FLAGS) offload.c && echo "cppcheck: clean"

# The slice count changes only ofl_crc32c_update (and its table): the default
# (16) analyzes the whole file, the others that function alone.
ANALYZE_ONLY_1 := -Xclang -analyze-function=ofl_crc32c_update
ANALYZE_ONLY_8 := $(ANALYZE_ONLY_1)
analyze-clang-%:
	@clang $(ANALYZER_FLAGS) $(ANALYZE_ONLY_$*) -DOFL_CRC32C_SLICES=$* offload.c -o /dev/null \
	     > build/analyze/slices-$*.log 2>&1; rc=$$?; \
	 if [ $$rc != 0 ] || [ -s build/analyze/slices-$*.log ]; then \
	   cat build/analyze/slices-$*.log; \
	   echo "clang --analyze (slices $*): FAILED"; exit 1; fi; \
	 echo "clang --analyze (slices $*): clean"

analyze-hosted-%:
	@cc=$(patsubst %-$(lastword $(subst -, ,$*)),%,$*); o=-$(lastword $(subst -, ,$*)); \
	 command -v $$cc >/dev/null || { echo "SKIP $$cc: not installed"; \
	   [ "$$OFL_REQUIRE_TOOLS" != 1 ]; exit $$?; }; \
	 ex=; case $$cc in arm-*) ex="-mcpu=cortex-m4 -mthumb";; esac; \
	 obj=build/limits/hosted-$$cc$$o.o; \
	 $$cc $$ex $$o -std=c11 -I. -c offload.c -o $$obj || exit 1; \
	 und=$$(nm -u $$obj | awk '{print $$2}' | tr '\n' ' '); \
	 if [ -n "$$und" ]; then echo "hosted $$cc $$o: undefined symbols: $$und"; exit 1; fi

# (Not .PHONY: make skips the pattern rules for phony targets.)

# ---- 5. coverage ------------------------------------------------------------------
#
# Line and branch coverage of offload.c, per section (the banner comments of
# offload.c), from the deterministic part of `make check`: the corpus
# replays and every suite without the posix need, built with gcc --coverage
# at -O0. The posix suites, the examples and the check scripts are left
# out: they run over real sockets and threads, where the TCP stack's
# chunking changes from run to run which branches of offload.c run, and the
# figure in README.md must be the same on every run (check-readme-figures).
# The qp fast paths' differential (tests/check_fastpath.sh, seeded, no
# sockets) runs too, its fast copy built with --coverage at -O0 as the
# suites are (COV_FASTPATH_SEEDS seeds): some of the whole-message paths'
# branches are taken only by its hostile streams, which hold each answer
# to the general path's.
# -fprofile-update=atomic keeps the counters exact should a measured test
# ever use threads. Fails when a section with code is below COVERAGE_LINES %
# of lines or COVERAGE_BRANCHES % of branches.
COV_BUILD         := build/coverage
COVERAGE_LINES    ?= 95
COVERAGE_BRANCHES ?= 90
COV_FASTPATH_SEEDS := 400
COV_SUITES        := $(patsubst tests/test_%.c,%,$(call ofl_runnable,libc bigmem,$(TEST_SRCS)))
FIG               := build/figures

coverage:
	@rm -rf $(COV_BUILD)
	$(MAKE) --no-print-directory CC=gcc BUILD=$(COV_BUILD) OPT="-O0 -g" \
	    CFLAGS="--coverage -fprofile-update=atomic" LDFLAGS="--coverage" \
	    $(COV_BUILD)/tests $(addprefix $(COV_BUILD)/fuzz/,$(FUZZERS))
	@OFL_CHECK_SUITES="$(COV_SUITES)" sh mk/check.sh $(COV_BUILD) gcc "$(FUZZERS)" \
	    > $(COV_BUILD)/check.log 2>&1 || { cat $(COV_BUILD)/check.log; \
	    echo "coverage: the measured run failed"; exit 1; }
	@FP_FAST_CFLAGS="--coverage -fprofile-update=atomic" FP_LDFLAGS="--coverage" \
	    CFLAGS=-O0 FASTPATH_SEEDS=$(COV_FASTPATH_SEEDS) \
	    sh tests/check_fastpath.sh $(COV_BUILD) gcc > $(COV_BUILD)/fastpath.log 2>&1 || \
	    { cat $(COV_BUILD)/fastpath.log; echo "coverage: the measured run failed"; exit 1; }
	@tail -1 $(COV_BUILD)/fastpath.log
	@tail -1 $(COV_BUILD)/check.log
	@gcovr -r . --filter 'offload\.c$$' --json $(COV_BUILD)/coverage.json $(COV_BUILD)
	@gcovr -r . --filter 'offload\.c$$' --html-details $(COV_BUILD)/coverage.html $(COV_BUILD) >/dev/null 2>&1 || true
	@echo "== coverage of offload.c by section (corpus replays and suites $(COV_SUITES); gcc -O0 --coverage; details: $(COV_BUILD)/coverage.html)"
	@mkdir -p $(FIG); rc=0; $(PYTHON) mk/ofl_embed.py coverage $(COV_BUILD)/coverage.json \
	    $(COVERAGE_LINES) $(COVERAGE_BRANCHES) > $(FIG)/coverage.tmp || rc=$$?; \
	 cat $(FIG)/coverage.tmp; [ $$rc = 0 ] && mv $(FIG)/coverage.tmp $(FIG)/coverage.txt

# ---- 6. the fuzzing campaign ----------------------------------------------------------
#
# Every harness is built three ways: AFL++ persistent mode with ASan+UBSan
# (afl-clang-fast and fuzz/driver.c), an AFL++ CMPLOG build handed to
# afl-fuzz with -c, and libFuzzer with ASan+UBSan. `make fuzz-campaign
# HOURS=N` runs the harnesses in turn; each gets N hours of AFL++ and N hours
# of libFuzzer side by side (2 cores), AFL++ importing libFuzzer's finds.
# The table (execs, paths, crashes) goes to fuzz/README.md; crashes are
# listed for a regression input in fuzz/<name>/regress/.
HOURS    ?= 0.5
FC_BUILD := build/fuzz-campaign
FC_DEPS   = fuzz/driver.c $(wildcard fuzz/*.h) $(PORT_SRCS) $(PORT_HDRS) offload.c offload.h
FC_FLAGS := $(HOST_CPPFLAGS) -Ifuzz -std=c11 -O2 -g -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
FC_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
# The three builds' compilers and flags, here once: the rules below and
# make fuzz-same-code use them.
FC_CC_AFL       = env AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1 $(AFL_CC) $(FC_FLAGS)
FC_CC_CMPLOG    = env AFL_LLVM_CMPLOG=1 AFL_QUIET=1 $(AFL_CC) $(FC_FLAGS)
FC_CC_LIBFUZZER = clang $(FC_FLAGS) -fsanitize=fuzzer $(FC_SAN)

$(FC_BUILD)/%.afl: fuzz/%/fuzz_$$*.c $(FC_DEPS)
	@mkdir -p $(FC_BUILD)
	$(FC_CC_AFL) fuzz/driver.c $< ports/sim/ofl_sim.c offload.c -o $@
$(FC_BUILD)/%.cmplog: fuzz/%/fuzz_$$*.c $(FC_DEPS)
	@mkdir -p $(FC_BUILD)
	$(FC_CC_CMPLOG) fuzz/driver.c $< ports/sim/ofl_sim.c offload.c -o $@
$(FC_BUILD)/%.libfuzzer: fuzz/%/fuzz_$$*.c $(FC_DEPS)
	@mkdir -p $(FC_BUILD)
	$(FC_CC_LIBFUZZER) $< ports/sim/ofl_sim.c offload.c -o $@

# make fuzz-same-code REV=R: whether offload.c's three fuzz builds compile
# to the same .text at R as in the work tree (fuzz/same_code.sh).
fuzz-same-code:
	@FC_CC_AFL='$(FC_CC_AFL)' FC_CC_CMPLOG='$(FC_CC_CMPLOG)' \
	    FC_CC_LIBFUZZER='$(FC_CC_LIBFUZZER)' sh fuzz/same_code.sh $(REV)

FC_BINS := $(foreach f,$(FUZZERS),$(FC_BUILD)/$(f).afl $(FC_BUILD)/$(f).cmplog $(FC_BUILD)/$(f).libfuzzer)
fuzz-campaign: $(FC_BINS)
	@$(PYTHON) mk/ofl_embed.py fuzz-campaign $(HOURS) $(FC_BUILD) $(FUZZERS)

# The finds of the campaign in $(FC_BUILD) (its libFuzzer corpus and its
# AFL++ queue) merged into fuzz/<name>/corpus by its own libFuzzer binary
# (-merge=1 keeps only inputs that add coverage). It builds nothing: the
# binaries must be the campaign's. FC_BUILD may name another worktree's.
fuzz-merge:
	@$(PYTHON) mk/ofl_embed.py fuzz-merge $(FC_BUILD) $(FUZZERS)

# ---- 7. the README's measured figures ----------------------------------------------
#
# Every measured table of README.md sits between <!-- figures:NAME:begin -->
# and <!-- figures:NAME:end --> and is written by a command, never by hand:
#   size      make size-cortexm (arm-none-eabi-gcc -Os, per section)
#   frames    the -fstack-usage table of make analyze (mk/ofl_embed.py limits)
#   coverage  make coverage (the deterministic suites and the corpus replays)
#   counts    make bench-count CC=gcc and CC=clang (callgrind): ap and dt
#   count     the same runs: issue 30's bars (tests/bench/count_table.sh)
# Each command leaves its output in build/figures/NAME.txt when it passes.
# A figure file is remade when any tracked file (but the READMEs) is newer,
# so within one CI run check-readme-figures reuses what make analyze, make
# coverage and make bench-count measured a moment before.
#
# make readme-figures        remeasures everything and rewrites README.md
# make check-readme-figures  splices into a copy and fails on any difference
FIG_SRCS  := $(wildcard $(filter-out README.md fuzz/README.md,$(shell git ls-files 2>/dev/null)))
FIG_FILES := $(FIG)/size.txt $(FIG)/frames.txt $(FIG)/coverage.txt \
             $(FIG)/counts-gcc.txt $(FIG)/counts-clang.txt

$(FIG)/size.txt: $(FIG_SRCS)
	@mkdir -p $(FIG)
	$(MAKE) --no-print-directory size-cortexm > $@.tmp
	@mv $@.tmp $@
$(FIG)/frames.txt: $(FIG_SRCS)
	@mkdir -p $(FIG)
	$(PYTHON) mk/ofl_embed.py limits 2 > $@.tmp || { cat $@.tmp; exit 1; }
	@mv $@.tmp $@
$(FIG)/coverage.txt: $(FIG_SRCS)
	$(MAKE) --no-print-directory coverage
$(FIG)/counts-%.txt: $(FIG_SRCS)
	$(MAKE) --no-print-directory bench-count CC=$*
$(FIG)/counts.txt: $(FIG)/counts-gcc.txt $(FIG)/counts-clang.txt
	$(PYTHON) mk/ofl_embed.py counts gcc=$(FIG)/counts-gcc.txt \
	    clang=$(FIG)/counts-clang.txt > $@.tmp || { cat $@.tmp; exit 1; }
	@mv $@.tmp $@
$(FIG)/count.txt: $(FIG)/counts-gcc.txt $(FIG)/counts-clang.txt
	sh tests/bench/count_table.sh build/callgrind-gcc build/callgrind-clang > $@.tmp
	@mv $@.tmp $@

# $(call fig_splice,README): every figures block of README from $(FIG).
define fig_splice
	@set -e; for n in size frames coverage counts count; do \
	    $(PYTHON) mk/ofl_embed.py splice $(1) $$n $(FIG)/$$n.txt >/dev/null; done
endef

# Every figure is measured (make -k: a failing command stops only its own
# figure); the blocks measured are rewritten, and the command fails naming
# those whose command failed (their blocks stay as they were).
readme-figures:
	@rm -f $(FIG_FILES) $(FIG)/counts.txt $(FIG)/count.txt
	@rc=0; $(MAKE) --no-print-directory -k $(FIG_FILES) || rc=1; \
	 $(MAKE) --no-print-directory -k $(FIG)/counts.txt $(FIG)/count.txt || rc=1; \
	 missing=; for n in size frames coverage counts count; do \
	     if [ -f $(FIG)/$$n.txt ]; then $(PYTHON) mk/ofl_embed.py splice README.md $$n $(FIG)/$$n.txt || rc=1; \
	     else missing="$$missing $$n"; fi; done; \
	 git diff --stat README.md 2>/dev/null || true; \
	 if [ -n "$$missing" ]; then \
	     echo "readme-figures: FAILED: not measured (their command failed above), left as they were:$$missing"; exit 1; fi; \
	 [ $$rc = 0 ] && echo "readme-figures: README.md rewritten from build/figures/"

check-readme-figures:
	@$(MAKE) --no-print-directory $(FIG_FILES)
	@$(MAKE) --no-print-directory $(FIG)/counts.txt $(FIG)/count.txt
	@cp README.md $(FIG)/README.md
	$(call fig_splice,$(FIG)/README.md)
	@if ! diff -u README.md $(FIG)/README.md; then \
	    echo "check-readme-figures: README.md's figures differ from what this tree measures (diff above)."; \
	    echo "Run 'make readme-figures' and commit README.md."; exit 1; fi
	@echo "check-readme-figures: README.md's figures (size, frames, coverage, counts, count) match the tree"
