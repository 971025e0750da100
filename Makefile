# utrace and a uprobes engine for Linux 6.12: build, boot and test.
#
# The two commands a user types are "make run" and "make check"; every
# target first makes sure the Debian packages it needs are installed.
# See README.md.

FLAVOUR  ?= normal
B        := build
KSRC     := $(B)/linux
KOBJ     := $(B)/obj-$(FLAVOUR)
SELFTESTS := $(KSRC)/tools/testing/selftests
CHECK_TIMEOUT ?= 1800
# the debug kernel's suite (KASAN, lockdep) runs several times slower on TCG
DEBUG_CHECK_TIMEOUT ?= 3600
RUN_TIMEOUT   ?= 300
CMD      ?=

CC       := gcc
CXX      := g++
CFLAGS   := -O2 -g -Wall -Wextra -Werror
GUEST_CFLAGS := $(CFLAGS) -Wno-unused-parameter -Wno-clobbered -static -pthread -I$(SELFTESTS)
CHECK_LIBS = $(shell pkg-config --cflags --libs check)
# what the tests linked with uprobe-cli's resolver need (libstdc++: its
# C++ demangler)
RESOLVE_LIBS = -ldw -lelf -lstdc++

HOST_TESTS := $(patsubst tests/host/%.c,$(B)/host/%,$(wildcard tests/host/*.c))
# the CLI's Check tests again, on a CLI built with AddressSanitizer and UBSan
SAN_TESTS := $(B)/host/check_cli_san $(B)/host/check_fetch_san \
	     $(B)/host/check_resolve_san $(B)/host/check_sdt_san \
	     $(B)/host/check_filter_san
HOST_TESTS += $(SAN_TESTS)
# the guest tests by subject, each installed as t/NAME
GUEST_DIRS := system utrace utprobes cli
GUEST_TESTS := $(foreach d,$(GUEST_DIRS), \
	$(patsubst tests/guest/$(d)/%.c,$(B)/tests/t/%,$(wildcard tests/guest/$(d)/*.c)) \
	$(patsubst tests/guest/$(d)/%.sh,$(B)/tests/t/%.sh,$(wildcard tests/guest/$(d)/*.sh)))
GUEST_HDRS := $(wildcard tests/guest/*.h tests/guest/*/*.h tests/targets/*.h)
# what only the kernel without utrace runs (make check FLAVOUR=noutrace)
NOUTRACE_TESTS := $(patsubst tests/noutrace/%.sh,$(B)/tests/noutrace/%.sh,$(wildcard tests/noutrace/*.sh))
HARNESS_TESTS := $(patsubst tests/harness/%.c,$(B)/tests/harness/%,$(wildcard tests/harness/*.c))
BENCH_PROGS := $(patsubst tests/bench/%.c,$(B)/tests/bench/%,$(wildcard tests/bench/*.c))
# programs the guest tests probe: dynamically linked, PIE
# A shared library the torture test dlopen()s (its workers are dynamic).
TARGET_LIBS := $(B)/tests/targets/libutp_torture.so
TARGET_PROGS := $(patsubst tests/targets/%.c,$(B)/tests/targets/%,$(wildcard tests/targets/*.c)) \
		$(patsubst tests/targets/%.cc,$(B)/tests/targets/%,$(wildcard tests/targets/*.cc)) \
		$(B)/tests/targets/probe_target_static \
		$(B)/tests/targets/values_target_stripped \
		$(B)/tests/targets/stack_target_static \
		$(B)/tests/targets/stack_target_stripped \
		$(B)/tests/targets/stack_target_fp
VERDICT_SRCS := scripts/verdict/verdict.c scripts/verdict/verdict.h
# The kernel's own ptrace and x86 selftests that build for 64-bit, run by
# tests/guest/system/kselftests.sh: dynamically linked, built as their own
# Makefiles build them, against this kernel's uapi headers.
KST_X86 := single_step_syscall sigreturn ptrace_syscall syscall_nt \
	   syscall_numbering syscall_arg_fault sigtrap_loop mov_ss_trap
KST_PTRACE := get_syscall_info peeksiginfo vmaccess get_set_sud
KST_PROGS := $(KST_X86:%=$(B)/tests/kselftests/%_64) \
	     $(KST_PTRACE:%=$(B)/tests/kselftests/%)
KHDR := $(B)/tests/khdr

.PHONY: all deps kernel modules tools image run shell check check-host \
	host-tap expected-lists check-debug check-harness bench benchmarks-md \
	clean distclean

all: image

deps:
	@scripts/deps.sh

# kernel.sh decides itself whether anything needs rebuilding.
kernel: deps
	@scripts/kernel.sh $(FLAVOUR)

modules: kernel
	@scripts/modules.sh $(FLAVOUR)

# ---- host programs ------------------------------------------------------

$(B)/host/verdict: $(VERDICT_SRCS) scripts/verdict/main.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ scripts/verdict/verdict.c scripts/verdict/main.c

$(B)/host/check_verdict: tests/host/check_verdict.c tests/host/check_main.h $(VERDICT_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iscripts/verdict -o $@ $< scripts/verdict/verdict.c $(CHECK_LIBS)

# uprobe-cli, built with the kernel's x86 instruction decoder from KSRC
CLI_OBJ := $(abspath $(B))/host/cli
CLI_VERSION = $(shell $(MAKE) -s --no-print-directory -C tools/uprobe-cli version)
CLI_SRCS := $(wildcard tools/uprobe-cli/*.c tools/uprobe-cli/*.h tools/uprobe-cli/Makefile)

$(CLI_OBJ)/uprobe-cli: $(CLI_SRCS) $(KSRC)/.extracted
	@$(MAKE) --no-print-directory -C tools/uprobe-cli O=$(CLI_OBJ) \
		KSRC=$(abspath $(KSRC))

# and once more with the sanitizers, any error of theirs fatal
SAN_CFLAGS := -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	      -fsanitize=address,undefined -fno-sanitize-recover=all
CLI_SAN := $(abspath $(B))/host/cli-san

$(CLI_SAN)/uprobe-cli: $(CLI_SRCS) $(KSRC)/.extracted
	@$(MAKE) --no-print-directory -C tools/uprobe-cli O=$(CLI_SAN) \
		KSRC=$(abspath $(KSRC)) CFLAGS="$(SAN_CFLAGS)"

$(CLI_OBJ)/uprobe-cli.1: tools/uprobe-cli/uprobe-cli.rst
	@$(MAKE) --no-print-directory -C tools/uprobe-cli O=$(CLI_OBJ) man

# ELF files the resolver and fetch tests read: sample.c and args.c built
# several ways
ELF_FIX := $(abspath $(B))/host/elf
$(ELF_FIX)/.built: tests/host/elf/sample.c tests/host/elf/args.c \
		tests/host/elf/ver.c tests/host/elf/sdt_sem.c \
		tests/host/elf/sdt_plain.c tests/host/elf/dup_a.c \
		tests/host/elf/dup_b.c tests/host/elf/jtab.c \
		tests/host/elf/lto_a.c tests/host/elf/lto_b.c \
		tests/host/elf/cxx_names.cc tests/targets/inline_target.c
	@mkdir -p $(@D)
	cd $(@D) && cp $(abspath tests/host/elf/sdt_sem.c) \
		$(abspath tests/host/elf/sdt_plain.c) . && \
	$(CC) -g -O2 -o sdt_fix sdt_sem.c sdt_plain.c && \
	cp $(abspath tests/host/elf/dup_a.c) $(abspath tests/host/elf/dup_b.c) . && \
	$(CC) -g -O2 -o dup_statics dup_a.c dup_b.c && \
	$(CXX) -g -O2 -o cxx_names $(abspath tests/host/elf/cxx_names.cc) && \
	cp $(abspath tests/targets/inline_target.c) . && \
	$(CC) -g -O2 -o inline_target inline_target.c && \
	cp $(abspath tests/host/elf/lto_a.c) $(abspath tests/host/elf/lto_b.c) . && \
	$(CC) -g -O2 -flto -o lto_inlined lto_a.c lto_b.c && \
	cp $(abspath tests/host/elf/jtab.c) . && \
	$(CC) -g -O2 -o jtab_pie jtab.c && \
	$(CC) -g -O2 -DJTAB_ABS -fno-pie -no-pie -o jtab_nopie jtab.c && \
	cp $(abspath tests/host/elf/ver.c) ver.c && \
	printf 'V1 { global: ver_func; ver2; local: *; };\nV2 { global: ver_func; ver2; } V1;\n' \
		> ver.map && \
	$(CC) -g -O2 -shared -fPIC -Wl,--version-script=ver.map -o libver.so ver.c && \
	cp $(abspath tests/host/elf/args.c) args.c && \
	$(CC) -g -O0 -o args_O0 args.c && \
	$(CC) -g -O2 -o args_pie args.c && \
	$(CC) -g -O2 -fno-pie -no-pie -o args_nopie args.c && \
	$(CC) -g -O2 -o args_stripped args.c && \
	objcopy --only-keep-debug args_stripped args_stripped.debug && \
	strip -g -s args_stripped && \
	objcopy --add-gnu-debuglink=args_stripped.debug args_stripped && \
	cp $(abspath $<) sample.c && \
	$(CC) -g -O2 -o sample_pie sample.c && \
	$(CC) -g -O2 -fno-pie -no-pie -o sample_nopie sample.c && \
	$(CC) -g -O2 -o sample_stripped sample.c && \
	objcopy --only-keep-debug sample_stripped sample_stripped.debug && \
	strip -g -s sample_stripped && \
	objcopy --add-gnu-debuglink=sample_stripped.debug sample_stripped && \
	$(CC) -g -O2 -Wl,--build-id -o sample_stripped_buildid sample.c && \
	objcopy --only-keep-debug sample_stripped_buildid \
		sample_stripped_buildid.debug && \
	strip -g -s sample_stripped_buildid && \
	id=$$(readelf -n sample_stripped_buildid | \
		awk '/Build ID:/ { print $$3 }') && \
	mkdir -p debug/.build-id/$${id%"$${id#??}"} && \
	cp sample_stripped_buildid.debug \
		debug/.build-id/$${id%"$${id#??}"}/$${id#??}.debug && \
	$(CC) -g -O2 -shared -fPIC -o libsample.so sample.c && \
	touch .built

$(B)/host/check_resolve: tests/host/check_resolve.c tests/host/check_main.h $(CLI_OBJ)/uprobe-cli $(ELF_FIX)/.built
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/uprobe-cli -DFIXTURES='"$(ELF_FIX)"' -o $@ $< \
		$(CLI_OBJ)/resolve.o $(CLI_OBJ)/sdt.o $(CLI_OBJ)/segments.o $(CLI_OBJ)/binary.o $(CLI_OBJ)/jumpwindow.o $(CLI_OBJ)/inlined.o $(CLI_OBJ)/symbols.o $(CLI_OBJ)/insn.o $(CLI_OBJ)/inat.o \
		$(RESOLVE_LIBS) $(CHECK_LIBS)

$(B)/host/check_sdt: tests/host/check_sdt.c tests/host/check_main.h $(CLI_OBJ)/uprobe-cli $(ELF_FIX)/.built
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/uprobe-cli -DFIXTURES='"$(ELF_FIX)"' -o $@ $< \
		$(CLI_OBJ)/resolve.o $(CLI_OBJ)/sdt.o $(CLI_OBJ)/segments.o $(CLI_OBJ)/binary.o $(CLI_OBJ)/jumpwindow.o $(CLI_OBJ)/inlined.o $(CLI_OBJ)/symbols.o $(CLI_OBJ)/insn.o \
		$(CLI_OBJ)/inat.o $(RESOLVE_LIBS) $(CHECK_LIBS)

$(B)/host/check_sdt_san: tests/host/check_sdt.c tests/host/check_main.h $(CLI_SAN)/uprobe-cli $(ELF_FIX)/.built
	$(CC) $(SAN_CFLAGS) -Itools/uprobe-cli -DFIXTURES='"$(ELF_FIX)"' -o $@ $< \
		$(CLI_SAN)/resolve.o $(CLI_SAN)/sdt.o $(CLI_SAN)/segments.o $(CLI_SAN)/binary.o $(CLI_SAN)/jumpwindow.o $(CLI_SAN)/inlined.o $(CLI_SAN)/symbols.o $(CLI_SAN)/insn.o \
		$(CLI_SAN)/inat.o $(RESOLVE_LIBS) $(CHECK_LIBS)

$(B)/host/check_fetch: tests/host/check_fetch.c tests/host/check_main.h $(CLI_OBJ)/uprobe-cli $(ELF_FIX)/.built
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/uprobe-cli -DFIXTURES='"$(ELF_FIX)"' -o $@ $< \
		$(CLI_OBJ)/dwarfvar.o $(CLI_OBJ)/resolve.o $(CLI_OBJ)/sdt.o $(CLI_OBJ)/segments.o $(CLI_OBJ)/binary.o $(CLI_OBJ)/jumpwindow.o $(CLI_OBJ)/inlined.o $(CLI_OBJ)/symbols.o $(CLI_OBJ)/insn.o \
		$(CLI_OBJ)/inat.o $(RESOLVE_LIBS) $(CHECK_LIBS)

$(B)/host/check_fetch_san: tests/host/check_fetch.c tests/host/check_main.h $(CLI_SAN)/uprobe-cli $(ELF_FIX)/.built
	$(CC) $(SAN_CFLAGS) -Itools/uprobe-cli -DFIXTURES='"$(ELF_FIX)"' -o $@ $< \
		$(CLI_SAN)/dwarfvar.o $(CLI_SAN)/resolve.o $(CLI_SAN)/sdt.o $(CLI_SAN)/segments.o $(CLI_SAN)/binary.o $(CLI_SAN)/jumpwindow.o $(CLI_SAN)/inlined.o $(CLI_SAN)/symbols.o $(CLI_SAN)/insn.o \
		$(CLI_SAN)/inat.o $(RESOLVE_LIBS) $(CHECK_LIBS)

$(B)/host/check_resolve_san: tests/host/check_resolve.c tests/host/check_main.h $(CLI_SAN)/uprobe-cli $(ELF_FIX)/.built
	$(CC) $(SAN_CFLAGS) -Itools/uprobe-cli -DFIXTURES='"$(ELF_FIX)"' -o $@ $< \
		$(CLI_SAN)/resolve.o $(CLI_SAN)/sdt.o $(CLI_SAN)/segments.o $(CLI_SAN)/binary.o $(CLI_SAN)/jumpwindow.o $(CLI_SAN)/inlined.o $(CLI_SAN)/symbols.o $(CLI_SAN)/insn.o $(CLI_SAN)/inat.o \
		$(RESOLVE_LIBS) $(CHECK_LIBS)

$(B)/host/check_cli_san: tests/host/check_cli.c tests/host/check_main.h $(CLI_SAN)/uprobe-cli $(ELF_FIX)/.built
	$(CC) $(SAN_CFLAGS) -DFIXTURES='"$(ELF_FIX)"' -DCLI='"$(CLI_SAN)/uprobe-cli"' \
		-DCLI_VERSION='"$(CLI_VERSION)"' -o $@ $< -ldw $(CHECK_LIBS)

$(B)/host/check_cli: tests/host/check_cli.c tests/host/check_main.h $(CLI_OBJ)/uprobe-cli $(ELF_FIX)/.built
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFIXTURES='"$(ELF_FIX)"' -DCLI='"$(CLI_OBJ)/uprobe-cli"' \
		-DCLI_VERSION='"$(CLI_VERSION)"' -o $@ $< -ldw $(CHECK_LIBS)

# --filter's parser and checks, uprobe-cli's filter.c on its own
$(B)/host/check_filter: tests/host/check_filter.c tests/host/check_main.h \
		tools/uprobe-cli/filter.c tools/uprobe-cli/filter.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/uprobe-cli -o $@ $< tools/uprobe-cli/filter.c \
		$(CHECK_LIBS)

$(B)/host/check_filter_san: tests/host/check_filter.c tests/host/check_main.h \
		tools/uprobe-cli/filter.c tools/uprobe-cli/filter.h
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -Itools/uprobe-cli -o $@ $< tools/uprobe-cli/filter.c \
		$(CHECK_LIBS)

# stacks counted, folded, tabled and drawn: uprobe-cli's stackcount.c
$(B)/host/check_stack: tests/host/check_stack.c tests/host/check_main.h \
		tools/uprobe-cli/stackcount.c tools/uprobe-cli/stack.h \
		$(CLI_OBJ)/uprobe-cli
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/uprobe-cli -I$(KSRC)/tools/bpf/bpftool \
		-idirafter $(KSRC)/tools/include -o $@ $< \
		tools/uprobe-cli/stackcount.c $(CLI_OBJ)/json_writer.o \
		$(CHECK_LIBS)

# the latency histograms' arithmetic, uprobe-cli's hist.c on its own
$(B)/host/check_hist: tests/host/check_hist.c tests/host/check_main.h tools/uprobe-cli/hist.c \
		tools/uprobe-cli/hist.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/uprobe-cli -o $@ $< tools/uprobe-cli/hist.c \
		$(CHECK_LIBS)

tools: deps $(B)/host/verdict $(CLI_OBJ)/uprobe-cli $(CLI_OBJ)/uprobe-cli.1 \
	$(HOST_TESTS)

# ---- guest programs (static, with the kernel's kselftest harness) -------

define guest_rules
$(B)/tests/t/%: tests/guest/$(1)/%.c $(GUEST_HDRS) $(KSRC)/.extracted
	@mkdir -p $$(@D)
	$$(CC) $$(GUEST_CFLAGS) -o $$@ $$<

$(B)/tests/t/%.sh: tests/guest/$(1)/%.sh
	@mkdir -p $$(@D)
	install -m 0755 $$< $$@
endef
$(foreach d,$(GUEST_DIRS),$(eval $(call guest_rules,$(d))))

# records read from trace_pipe_raw as a tool reads them
$(B)/tests/t/utprobes_stack: tests/guest/utprobes/utprobes_stack.c \
		$(GUEST_HDRS) $(KSRC)/.extracted
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $< -ltraceevent

$(B)/tests/noutrace/%.sh: tests/noutrace/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/tests/harness/%: tests/harness/%.c $(KSRC)/.extracted
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(B)/tests/bench/%: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

$(B)/tests/targets/%: tests/targets/%.c $(wildcard tests/targets/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIE -pie -o $@ $<

# probe_target linked statically, to run in a container's root that
# holds nothing else
$(B)/tests/targets/probe_target_static: tests/targets/probe_target.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static-pie -o $@ $<

# values_target without its debug information (symbols kept), and that
# apart, for a debuginfod server to serve by build id: not NAME.debug,
# which libdwfl would find next to the binary
$(B)/tests/targets/values_target_stripped: $(B)/tests/targets/values_target
	objcopy --only-keep-debug $< $@.dwarf
	strip --strip-debug -o $@ $<

# stack_target as Debian builds programs, without frame pointers; a
# static twin, and a copy stripped of every symbol that finds its debug
# file by its debuglink, next to it
$(B)/tests/targets/stack_target: CFLAGS += -fomit-frame-pointer
$(B)/tests/targets/stack_target_static: tests/targets/stack_target.c \
		tests/targets/ret_funcs.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fomit-frame-pointer -static-pie -o $@ $<

$(B)/tests/targets/stack_target_stripped: $(B)/tests/targets/stack_target
	objcopy --only-keep-debug $< $@.debug
	strip --strip-all -o $@ $<
	objcopy --add-gnu-debuglink=$@.debug $@

# and a twin that keeps frame pointers, leaves included, for --fp
$(B)/tests/targets/stack_target_fp: tests/targets/stack_target.c \
		tests/targets/ret_funcs.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fPIE -pie -o $@ $<

# gdb's tests need probed() to begin with its frame-pointer prologue
$(B)/tests/targets/gdb_target: CFLAGS += -O0 -fcf-protection=none \
	-fno-omit-frame-pointer

$(B)/tests/targets/lib%.so: tests/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<

# The torture's workers dlopen() a library: linked dynamically.
$(B)/tests/t/utprobes_torture: tests/guest/utprobes/utprobes_torture.c \
		$(GUEST_HDRS) $(KSRC)/.extracted
	@mkdir -p $(@D)
	$(CC) $(filter-out -static,$(GUEST_CFLAGS)) -o $@ $<

$(B)/tests/targets/%: tests/targets/%.cc
	@mkdir -p $(@D)
	$(CXX) $(CFLAGS) -fPIE -pie -o $@ $<

# uapi headers need no configured kernel: one install serves every flavour
$(KHDR)/.done: $(KSRC)/.extracted
	@$(MAKE) -s --no-print-directory -C $(KSRC) O=$(abspath $(B))/khdr-obj \
		ARCH=x86 headers_install INSTALL_HDR_PATH=$(abspath $(KHDR))
	@touch $@

$(B)/tests/kselftests/%_64: $(SELFTESTS)/x86/%.c $(KHDR)/.done
	@mkdir -p $(@D)
	$(CC) -O2 -g -std=gnu99 -pthread -Wall -isystem $(KHDR)/include -no-pie \
		-o $@ $< -lrt -ldl

$(B)/tests/kselftests/%: $(SELFTESTS)/ptrace/%.c $(KHDR)/.done
	@mkdir -p $(@D)
	$(CC) -std=c99 -pthread -Wall -isystem $(KHDR)/include -o $@ $<

# Both come out of kernel.sh; listed so the rules above can name them.
$(KSRC)/.extracted: ;

image: modules
	@$(MAKE) --no-print-directory $(GUEST_TESTS) $(NOUTRACE_TESTS) \
		$(HARNESS_TESTS) $(BENCH_PROGS) \
		$(TARGET_PROGS) $(TARGET_LIBS) $(KST_PROGS) \
		$(CLI_OBJ)/uprobe-cli
	@scripts/mkimage.sh $(FLAVOUR)

# ---- running it -----------------------------------------------------------

run: image tools
	@scripts/qemu-run.sh -f $(FLAVOUR) -t $(RUN_TIMEOUT) -n run $(CMD); \
	st=$$?; [ $$st = 0 ] || [ $$st = 124 ] || exit $$st; \
	build/host/verdict $$([ $$st = 124 ] && echo --timed-out $(RUN_TIMEOUT)) \
		$(B)/logs-$(FLAVOUR)/run.out $(B)/logs-$(FLAVOUR)/run.console

shell: image
	@scripts/qemu-run.sh -f $(FLAVOUR) -s

# Host unit tests (Check programs and shell scripts) print TAP into
# host.tap.  "make check" folds it together with the guest's results into
# one verdict; "make check-host" judges it alone.  bench_json.sh runs the
# guest's jsoncheck, a static program, here.
#
# The host tests do not depend on the kernel's flavour: their results
# are kept in $(HOST_TAP) and run again only when something they test
# changed (the CI runs make check on three kernels), or when one failed.
HOST_TAP := $(B)/logs-host/host.tap
HOST_INPUTS := $(HOST_TESTS) $(wildcard tests/host/*.sh tests/host/elf/*) \
	$(CLI_OBJ)/uprobe-cli $(CLI_OBJ)/uprobe-cli.1 $(CLI_SAN)/uprobe-cli \
	$(wildcard scripts/*.sh scripts/bench-md tools/uprobe-cli/*) \
	$(wildcard kernel/uprobes/*) \
	$(B)/host/verdict $(B)/tests/bench/jsoncheck
$(HOST_TAP): $(HOST_INPUTS)
	@mkdir -p $(@D)
	@for t in $(HOST_TESTS) $(wildcard tests/host/*.sh); do \
		echo "# run: host/$${t##*/}"; \
		CK_TAP_LOG_FILE_NAME=- CK_VERBOSITY=silent $$t; \
		echo "# exit: host/$${t##*/} $$?"; \
	done | tee $@.new
	@# a failure is run again next time
	@if grep -q '^not ok\|^# exit: .* [1-9][0-9]*$$' $@.new; then \
		mv $@.new $@.failed; cp $@.failed $@; touch -d @0 $@; \
	else mv $@.new $@; fi

host-tap: kernel tools $(B)/tests/bench/jsoncheck
	@if $(MAKE) --no-print-directory -q $(HOST_TAP) 2> /dev/null; then \
		echo "# host tests: nothing they test changed since their last run, whose results these are"; \
		cat $(HOST_TAP); \
	else \
		$(MAKE) --no-print-directory $(HOST_TAP); \
	fi
	@mkdir -p $(B)/logs-$(FLAVOUR)
	@cp $(HOST_TAP) $(B)/logs-$(FLAVOUR)/host.tap

check-host: expected-lists host-tap
	@build/host/verdict --tap --no-guest \
		--expect $(B)/logs-$(FLAVOUR)/host.expected \
		$(B)/logs-$(FLAVOUR)/host.tap /dev/null

# Every test program must run: the verdict fails one missing from the
# image or the host run against these lists.  The kernel without utrace
# runs the smoke test and what checks that utrace is really gone.
# The debug kernel under TCG runs the kernel's selftests with probes
# (kselftests_probed.sh) but not once more without them, which takes
# over 5 minutes there: that run is the normal kernel's and the kernel
# without utrace's.  Nor does it run the lockdown test, which would close
# debugfs to the kmemleak scan that follows the run, nor the debuginfod
# test, whose work (a server, a client's downloads) is all in user space,
# its one probe placed as every other test's, nor the benchmark's smoke
# test: it spawns thousands of short processes, three minutes there,
# over kernel paths that the engine's own tests (jump, system-call
# entry, placement among spinning threads, whole programs) take there;
# nor the CLI's stacks test, three and a half minutes there, nearly all
# of it the tool's unwinding in user space: the kernel's side of it (a
# record's stack copy and registers, callers= through the frame
# pointers, the ring buffer's lost records) is utprobes_stack's there.
ifeq ($(FLAVOUR),debug)
GUEST_SKIP = t/kselftests.sh t/utprobes_lockdown_final \
	t/uprobe_cli_debuginfod.sh t/bench_smoke.sh t/uprobe_cli_stack.sh
# the normal kernel runs these with probes: 276 s and 32 s of the debug
# kernel's time, their own size and their own 30 s attach timeout; and
# it writes the largest batch of definitions, removed in time quadratic
# in the number of events (mainline's event removal); and it fills a
# process with 65536 points, which takes the debug kernel two minutes;
# and it counts every function of libc (those with "mem" in their name
# here, each compared with mainline: memcpy's and mempcpy's kinds are
# there), and top probes every
# function of its target's libraries too (its own here); count --by's
# default table of 16384 values takes it a minute to make and free
GUEST_ENV = KSELFTESTS_SKIP='syscall_numbering_64 vmaccess' \
	UTP_EDGES_BATCH=5000 UTP_RET_POINTS_MAX=4096 UTP_JUMP_ROUNDS=20 \
	UTP_WHOLE_GLOB='*mem*' UTP_WHOLE_EVERY=1 \
	UTP_TOP_SPECS=/usr/libexec/utrace-tests/targets/top_target:\* \
	UTP_BY_SIZE=128
endif
ifeq ($(FLAVOUR),noutrace)
EXPECTED_GUEST = t/smoke $(patsubst $(B)/tests/%,%,$(NOUTRACE_TESTS))
GUEST_SUITE = $(addprefix /usr/libexec/utrace-tests/,$(EXPECTED_GUEST))
else
EXPECTED_GUEST = $(filter-out $(GUEST_SKIP),$(patsubst $(B)/tests/%,%,$(GUEST_TESTS)))
GUEST_SUITE =
endif
EXPECTED_HOST = $(patsubst %,host/%,$(notdir $(HOST_TESTS) $(wildcard tests/host/*.sh)))

expected-lists:
	@mkdir -p $(B)/logs-$(FLAVOUR)
	@printf '%s\n' $(EXPECTED_HOST) > $(B)/logs-$(FLAVOUR)/host.expected
	@printf '%s\n' $(EXPECTED_HOST) $(EXPECTED_GUEST) \
		> $(B)/logs-$(FLAVOUR)/check.expected

check: expected-lists host-tap image
	@scripts/check.sh -f $(FLAVOUR) -t $(CHECK_TIMEOUT) \
		-H $(B)/logs-$(FLAVOUR)/host.tap \
		-E $(B)/logs-$(FLAVOUR)/check.expected \
		$(if $(GUEST_SKIP),"UTRACE_TEST_SKIP='$(GUEST_SKIP)'") \
		$(if $(GUEST_ENV),"$(GUEST_ENV)") \
		/usr/libexec/utrace-tests/run-tests $(GUEST_SUITE)

check-debug:
	@$(MAKE) --no-print-directory check FLAVOUR=debug \
		CHECK_TIMEOUT=$(DEBUG_CHECK_TIMEOUT)

# Per-hit costs against mainline uprobes and ptrace, in one guest run, and
# the untraced system call loop with and without CONFIG_UTRACE; then the
# tables of BENCHMARKS.md from the run's build/bench.json.
bench: image tools
	@$(MAKE) --no-print-directory image FLAVOUR=noutrace
	@scripts/bench.sh
	@scripts/bench-md $(B)/bench.json BENCHMARKS.md

# The tables of BENCHMARKS.md again from the last run's build/bench.json.
benchmarks-md:
	@scripts/bench-md $(B)/bench.json BENCHMARKS.md

# Proves the harness fails a run for each way a run can go wrong.
check-harness: image tools
	@$(MAKE) --no-print-directory image FLAVOUR=debug
	@scripts/check-harness.sh $(FLAVOUR)

clean:
	rm -rf $(B)/host $(B)/tests $(B)/modules-* $(B)/image-* $(B)/logs-*

distclean:
	rm -rf $(B)
