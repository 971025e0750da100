// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes and ptrace on one process: a tracer attached before or after
 * the probe sees none of the probe's traps, sees its own signals once,
 * and its single step over a probed instruction stops at the next one
 * with that instruction's effect, the probe counted once.  A debugger
 * reads the instruction's bytes, not our int3, and its own breakpoint
 * on a probed instruction stops it there, the probe counted once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define CALLS 200

/*
 * One probed instruction of each way utprobes runs one: emulated (push),
 * out of line and back by a jump (lea), single-stepped with a fixup of
 * the return address (call *%rax), emulated branch (jnz).  f_* runs it;
 * t_* is the same but executes an int3 of its own just before it, so
 * that a tracer stops with the ip at the probed instruction l_*; n_* is
 * where a single step of it lands.
 */
long f_push(long x), f_lea(long x), f_callr(long x), f_jnz(long x);
long t_push(long x), t_lea(long x), t_callr(long x), t_jnz(long x);
extern char l_push[], l_lea[], l_callr[], l_jnz[];
extern char n_push[], n_lea[], n_callr[], n_jnz[];

asm(".text\n"
    /* push %rbp: returns x + 2 */
    ".globl t_push\n t_push: int3\n"
    ".globl f_push\n f_push:\n"
    ".globl l_push\n l_push: push %rbp\n"
    ".globl n_push\n n_push: mov %rsp, %rbp\n"
    "	lea 2(%rdi), %rax\n pop %rbp\n ret\n"
    /* lea: returns 3x */
    ".globl t_lea\n t_lea: int3\n"
    ".globl f_lea\n f_lea:\n"
    ".globl l_lea\n l_lea: lea (%rdi,%rdi,2), %rax\n"
    ".globl n_lea\n n_lea: ret\n"
    /*
     * call *%rax to a callee that checks its return address (in %rcx):
     * returns 2x + 1, or -1 for a wrong return address
     */
    ".globl f_callr\n f_callr:\n"
    "	lea 1f(%rip), %rcx\n"
    "	lea n_callr(%rip), %rax\n"
    "	jmp l_callr\n"
    ".globl t_callr\n t_callr:\n"
    "	lea 1f(%rip), %rcx\n"
    "	lea n_callr(%rip), %rax\n"
    "	int3\n"
    ".globl l_callr\n l_callr: call *%rax\n"
    "1:	ret\n"
    ".globl n_callr\n n_callr:\n"
    "	cmp (%rsp), %rcx\n"
    "	jne 2f\n"
    "	lea 1(%rdi,%rdi), %rax\n ret\n"
    "2:	mov $-1, %rax\n ret\n"
    /* jnz, taken for odd x: x + 6, or x + 7 */
    ".globl f_jnz\n f_jnz:\n"
    "	lea 6(%rdi), %rax\n"
    "	test $1, %rdi\n"
    "	jmp l_jnz\n"
    ".globl t_jnz\n t_jnz:\n"
    "	lea 6(%rdi), %rax\n"
    "	test $1, %rdi\n"
    "	int3\n"
    ".globl l_jnz\n l_jnz: jnz n_jnz\n"
    "	add $1, %rax\n"
    ".globl n_jnz\n n_jnz: ret\n");

struct kind {
	long (*fn)(long);
	long (*traced)(long);
	char *label, *next;
	long (*expect)(long);
};

static long e_push(long x) { return x + 2; }
static long e_lea(long x) { return 3 * x; }
static long e_callr(long x) { return 2 * x + 1; }
static long e_jnz(long x) { return x + ((x & 1) ? 6 : 7); }

static const struct kind kinds[] = {
	{ f_push, t_push, l_push, n_push, e_push },
	{ f_lea, t_lea, l_lea, n_lea, e_lea },
	{ f_callr, t_callr, l_callr, n_callr, e_callr },
	{ f_jnz, t_jnz, l_jnz, n_jnz, e_jnz },
};

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	usr1_seen++;
}

/*
 * The traced child: waits for a byte, calls @k's function CALLS times,
 * raising SIGUSR1 (handled) once halfway; exits 0 if every result was
 * right and the handler ran once.
 */
static int child_calls(const struct kind *k, int go)
{
	int bad = 0;

	signal(SIGUSR1, on_usr1);
	get_byte(go);
	for (long i = 0; i < CALLS; i++) {
		if (i == CALLS / 2)
			raise(SIGUSR1);
		bad |= k->fn(i) != k->expect(i);
	}
	return bad ? 1 : usr1_seen == 1 ? 0 : 2;
}

/* When the tracer attaches and when the probe goes in. */
enum order { SEIZE_THEN_PROBE, PROBE_THEN_SEIZE, PROBE_WHILE_STOPPED };

FIXTURE(traced) {
	pid_t pid;
	int go[2];
};

FIXTURE_VARIANT(traced) {
	int kind;
	enum order order;
};

FIXTURE_VARIANT_ADD(traced, push_seize_first) { 0, SEIZE_THEN_PROBE };
FIXTURE_VARIANT_ADD(traced, lea_seize_first) { 1, SEIZE_THEN_PROBE };
FIXTURE_VARIANT_ADD(traced, callr_seize_first) { 2, SEIZE_THEN_PROBE };
FIXTURE_VARIANT_ADD(traced, jnz_seize_first) { 3, SEIZE_THEN_PROBE };
FIXTURE_VARIANT_ADD(traced, push_probe_first) { 0, PROBE_THEN_SEIZE };
FIXTURE_VARIANT_ADD(traced, callr_probe_first) { 2, PROBE_THEN_SEIZE };
FIXTURE_VARIANT_ADD(traced, lea_probe_while_stopped) { 1, PROBE_WHILE_STOPPED };

FIXTURE_SETUP(traced)
{
	ASSERT_EQ(0, pipe(self->go));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0)
		_exit(child_calls(&kinds[variant->kind], self->go[0]));
}

FIXTURE_TEARDOWN(traced)
{
	events("-:pt\n");
	kill(self->pid, SIGKILL);
	waitpid(self->pid, NULL, __WALL);
}

/*
 * The probe's hits are never a stop of the tracer; the one SIGUSR1 is,
 * once, and goes on to the handler.  Before this, PTRACE_SEIZE of a
 * probed process failed with EBUSY and a probe on a traced one too.
 */
TEST_F_TIMEOUT(traced, probe_hits_unseen_by_tracer, 120)
{
	const struct kind *k = &kinds[variant->kind];
	pid_t pid = self->pid;
	int status, usr1_stops = 0, other_stops = 0;

	if (variant->order == PROBE_THEN_SEIZE)
		ASSERT_EQ(0, events("p:pt %d:%p\n", pid, k->label));
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));
	if (variant->order == PROBE_WHILE_STOPPED) {
		/* a thread in a ptrace stop is quiescent: this returns */
		ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, 0, 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSTOPPED(status));
		ASSERT_EQ(0, events("p:pt %d:%p\n", pid, k->label));
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	} else if (variant->order == SEIZE_THEN_PROBE) {
		ASSERT_EQ(0, events("p:pt %d:%p\n", pid, k->label));
	}
	put_byte(self->go[1]);
	for (;;) {
		int sig = 0;

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) == SIGUSR1) {
			usr1_stops++;
			sig = SIGUSR1;
		} else {
			TH_LOG("stop %#x at the tracer", status);
			other_stops++;
		}
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, sig));
	}
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, usr1_stops);
	EXPECT_EQ(0, other_stops);
	EXPECT_EQ(CALLS, hits("pt"));
}

/* Stop @pid, seized, for its tracer to read and write its text. */
static int interrupt(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
	    waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	return 0;
}

/*
 * Seize @pid, probe @k's instruction in it, stop it and read the word
 * there as a debugger does (into *@word).  Returns 0 or -1.
 */
static int seize_probe_peek(pid_t pid, const struct kind *k,
			    unsigned long *word)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) ||
	    events("p:pt %d:%p\n", pid, k->label) || interrupt(pid))
		return -1;
	errno = 0;
	*word = ptrace(PTRACE_PEEKTEXT, pid, k->label, 0);
	return errno ? -1 : 0;
}

/* Wait for @pid's next stop: its signal, or 0 if it has exited. */
static int next_stop(pid_t pid, int *status)
{
	if (waitpid(pid, status, 0) != pid)
		return -1;
	return WIFSTOPPED(*status) ? WSTOPSIG(*status) : 0;
}

/*
 * A debugger's own breakpoint on a probed instruction, put in and taken
 * out as debuggers do: the word read with PEEKTEXT written back with an
 * int3 in its low byte; to go on from it, the ip rewound, the word read
 * written back, a single step, the int3 again.  The debugger reads the
 * instruction's byte, not our int3 (ptrace and /proc/PID/mem alike),
 * while the process's text keeps our int3.  It stops at every call with
 * the hit counted once, its step lands after the instruction, and once
 * it takes its breakpoint out for good the calls count without a stop.
 */
TEST_F_TIMEOUT(traced, debugger_breakpoint_on_probe, 120)
{
	const struct kind *k = &kinds[variant->kind];
	unsigned long addr = (unsigned long)k->label, orig;
	struct user_regs_struct regs;
	int status, sig, stops = 0, usr1 = 0, fd;
	pid_t pid = self->pid;
	unsigned char byte;
	char path[64];
	siginfo_t si;

	/* the jnz's next instruction depends on the call */
	if (variant->kind == 3)
		SKIP(return, "the jnz steps to one of two places");
	ASSERT_EQ(0, seize_probe_peek(pid, k, &orig));
	/* our text, a copy of the child's, has no probe */
	EXPECT_EQ(*(unsigned long *)addr, orig);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pread(fd, &byte, 1, (off_t)addr));
	close(fd);
	EXPECT_EQ(*k->label, (char)byte);
	ASSERT_EQ(0, text_read(pid, k->label, &byte, 1));
	EXPECT_EQ(0xcc, byte);

	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, (orig & ~0xffUL) | 0xcc));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	put_byte(self->go[1]);
	while ((sig = next_stop(pid, &status)) > 0) {
		if (sig == SIGUSR1) {
			usr1++;
			ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, SIGUSR1));
			continue;
		}
		ASSERT_EQ(SIGTRAP, sig);
		ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
		ASSERT_EQ(SI_KERNEL, si.si_code);
		ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &regs));
		ASSERT_EQ(addr + 1, regs.rip);
		stops++;
		EXPECT_EQ(stops, hits("pt"));

		regs.rip = addr;
		ASSERT_EQ(0, ptrace(PTRACE_SETREGS, pid, 0, &regs));
		ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, orig));
		ASSERT_EQ(0, ptrace(PTRACE_SINGLESTEP, pid, 0, 0));
		ASSERT_EQ(SIGTRAP, next_stop(pid, &status));
		ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
		EXPECT_EQ(TRAP_TRACE, si.si_code);
		ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &regs));
		EXPECT_EQ((unsigned long)k->next, regs.rip);
		EXPECT_EQ(stops, hits("pt"));
		if (stops < CALLS / 4) {
			ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr,
					    (orig & ~0xffUL) | 0xcc));
		} else {
			/* out for good: the probe's int3 stays */
			ASSERT_EQ(0, text_read(pid, k->label, &byte, 1));
			EXPECT_EQ(0xcc, byte);
		}
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	}
	EXPECT_EQ(0, sig);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(CALLS / 4, stops);
	EXPECT_EQ(1, usr1);
	EXPECT_EQ(CALLS, hits("pt"));
}

/*
 * A probe removed while a debugger's breakpoint is on it leaves the
 * int3 in the text, the debugger's now: the child stops there, and the
 * debugger's removal puts the instruction's byte back.
 */
TEST_F_TIMEOUT(traced, probe_removed_under_debugger_breakpoint, 120)
{
	const struct kind *k = &kinds[variant->kind];
	unsigned long addr = (unsigned long)k->label, orig;
	struct user_regs_struct regs;
	int status, sig, stops = 0;
	pid_t pid = self->pid;
	unsigned char byte;

	ASSERT_EQ(0, seize_probe_peek(pid, k, &orig));
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, (orig & ~0xffUL) | 0xcc));
	ASSERT_EQ(0, events("-:pt\n"));
	ASSERT_EQ(0, text_read(pid, k->label, &byte, 1));
	EXPECT_EQ(0xcc, byte);
	EXPECT_EQ((orig & ~0xffUL) | 0xcc,
		  (unsigned long)ptrace(PTRACE_PEEKTEXT, pid, addr, 0));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));

	put_byte(self->go[1]);
	while ((sig = next_stop(pid, &status)) > 0) {
		if (sig == SIGTRAP) {
			stops++;
			ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &regs));
			ASSERT_EQ(addr + 1, regs.rip);
			regs.rip = addr;
			ASSERT_EQ(0, ptrace(PTRACE_SETREGS, pid, 0, &regs));
			ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, orig));
			ASSERT_EQ(0, text_read(pid, k->label, &byte, 1));
			EXPECT_EQ(*k->label, (char)byte);
			sig = 0;
		}
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, sig));
	}
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, stops);
}

/*
 * A debugger's patch of a probed instruction (lea (%rdi,%rdi,2) made
 * lea (%rdi,%rdi,1): its first byte, the REX prefix, unchanged) is the
 * new instruction: it runs, in the text as written, and the probe's
 * point is gone, never hit.
 */
TEST_F_TIMEOUT(traced, debugger_patch_replaces_probe, 120)
{
	const struct kind *k = &kinds[variant->kind];
	unsigned long addr = (unsigned long)k->label, orig, patched;
	unsigned char now[4];
	pid_t pid = self->pid;
	int status, sig;

	if (variant->kind != 1)
		SKIP(return, "the lea is patched");
	ASSERT_EQ(0, seize_probe_peek(pid, k, &orig));
	ASSERT_EQ(0x7f048d48UL, orig & 0xffffffffUL);
	patched = (orig & ~0xff000000UL) | 0x3f000000UL;
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, patched));
	EXPECT_EQ(patched, (unsigned long)ptrace(PTRACE_PEEKTEXT, pid, addr, 0));
	ASSERT_EQ(0, text_read(pid, k->label, now, sizeof(now)));
	EXPECT_EQ(0, memcmp(now, &patched, sizeof(now)));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	put_byte(self->go[1]);
	while ((sig = next_stop(pid, &status)) > 0)
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0,
				    sig == SIGUSR1 ? SIGUSR1 : 0));
	/* every call returned 2x, not 3x: the child says so */
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status));
	EXPECT_EQ(0, hits("pt"));
}

/*
 * The traced child of the single-step tests: waits for a byte, calls
 * @k's traced entry once (its int3 stops the child for the tracer with
 * the ip at the probed instruction), exits 0 if the result was right.
 */
static int child_once(const struct kind *k, int go)
{
	get_byte(go);
	return k->traced(7) == k->expect(7) ? 0 : 1;
}

FIXTURE(step) {
	pid_t pid;
	int go[2];
};

FIXTURE_VARIANT(step) {
	int kind;
	int probed;
};

FIXTURE_VARIANT_ADD(step, push) { 0, 1 };
FIXTURE_VARIANT_ADD(step, lea) { 1, 1 };
FIXTURE_VARIANT_ADD(step, callr) { 2, 1 };
FIXTURE_VARIANT_ADD(step, jnz) { 3, 1 };
/* the same steps with no probe: what the probed ones must equal */
FIXTURE_VARIANT_ADD(step, push_unprobed) { 0, 0 };
FIXTURE_VARIANT_ADD(step, callr_unprobed) { 2, 0 };

FIXTURE_SETUP(step)
{
	ASSERT_EQ(0, pipe(self->go));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0)
		_exit(child_once(&kinds[variant->kind], self->go[0]));
}

FIXTURE_TEARDOWN(step)
{
	events("-:ps\n");
	kill(self->pid, SIGKILL);
	waitpid(self->pid, NULL, __WALL);
}

/*
 * PTRACE_SINGLESTEP with the ip at a probed instruction steps exactly
 * that instruction: the tracer stops at the next one (TRAP_TRACE), with
 * the instruction's effect on the registers and the stack, and the
 * probe counts the hit once.  A foreign int3 (the child's own) still
 * reaches the tracer.
 */
TEST_F_TIMEOUT(step, singlestep_over_probed_instruction, 120)
{
	const struct kind *k = &kinds[variant->kind];
	struct user_regs_struct before, after;
	pid_t pid = self->pid;
	unsigned long word;
	siginfo_t si;
	int status;

	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));
	if (variant->probed)
		ASSERT_EQ(0, events("p:ps %d:%p\n", pid, k->label));
	put_byte(self->go[1]);

	/* the child's own int3: a SIGTRAP stop, ip at the probed insn */
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &before));
	ASSERT_EQ((unsigned long)k->label, before.rip);
	if (variant->probed)
		EXPECT_EQ(0, hits("ps"));

	ASSERT_EQ(0, ptrace(PTRACE_SINGLESTEP, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
	EXPECT_EQ(TRAP_TRACE, si.si_code);
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &after));
	EXPECT_EQ((unsigned long)k->next, after.rip);
	if (variant->probed)
		EXPECT_EQ(1, hits("ps"));

	switch (variant->kind) {
	case 0:		/* push %rbp */
		EXPECT_EQ(before.rsp - 8, after.rsp);
		word = ptrace(PTRACE_PEEKDATA, pid, after.rsp, 0);
		EXPECT_EQ(before.rbp, word);
		break;
	case 1:		/* lea (%rdi,%rdi,2), %rax */
		EXPECT_EQ(21ULL, after.rax);
		EXPECT_EQ(before.rsp, after.rsp);
		break;
	case 2:		/* call *%rax: the return address is the real one */
		EXPECT_EQ(before.rsp - 8, after.rsp);
		word = ptrace(PTRACE_PEEKDATA, pid, after.rsp, 0);
		EXPECT_EQ((unsigned long)k->label + 2, word);
		break;
	case 3:		/* jnz, taken for 7 */
		EXPECT_EQ(before.rsp, after.rsp);
		break;
	}
	/* the arithmetic flags: CF PF AF ZF SF OF */
	EXPECT_EQ(before.eflags & 0x8d5, after.eflags & 0x8d5);

	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	if (variant->probed)
		EXPECT_EQ(1, hits("ps"));
}

/*
 * A file probe on our own binary reaches every child: PTRACE_TRACEME
 * in one (which once failed with EBUSY, the child having engines) works,
 * and the child's hits stay the probe's.
 */
TEST(traceme_in_probed_child)
{
	char path[256];
	long off = self_offset(l_lea, path, sizeof(path));
	int status, stops = 0;
	pid_t pid;

	ASSERT_LT(0, off);
	ASSERT_EQ(0, events("p:pm %s:%#lx\n", path, off));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		long bad = 0;

		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(3);
		raise(SIGSTOP);
		for (long i = 0; i < CALLS; i++)
			bad |= f_lea(i) != 3 * i;
		_exit(bad ? 1 : 0);
	}
	for (;;) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) != SIGSTOP)
			stops++;
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	}
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, stops);
	EXPECT_EQ(CALLS, hits("pm"));
	EXPECT_EQ(0, events("-:pm\n"));
}

/*
 * Run as the program a traced child executes (UTP_PTRACE_EXEC set):
 * CALLS calls of the lea function, exit 0 if every result was right.
 */
static void __attribute__((constructor)) exec_child(void)
{
	long bad = 0;

	if (!getenv("UTP_PTRACE_EXEC"))
		return;
	for (long i = 0; i < CALLS; i++)
		bad |= f_lea(i) != 3 * i;
	_exit(bad ? 1 : 0);
}

/*
 * A traced child executes a program with a file probe, its tracer
 * asking for exec event stops, as strace -f does.  That stop runs the
 * new image's mmap work before utrace's exec report, which once made
 * the new engine leave with the old image: the int3 stayed, the child
 * died of SIGTRAP.  Now the one stop is the exec event's, the child
 * exits 0 and every call is a hit.
 */
TEST(exec_under_tracer)
{
	char path[256];
	long off = self_offset(l_lea, path, sizeof(path));
	int go[2], status, exec_stops = 0, other_stops = 0;
	pid_t pid;

	ASSERT_LT(0, off);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, events("p:pe %s:%#lx\n", path, off));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *argv[] = { path, NULL };
		char *envp[] = { "UTP_PTRACE_EXEC=1", NULL };

		get_byte(go[0]);
		execve(path, argv, envp);
		_exit(4);
	}
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXEC));
	put_byte(go[1]);
	for (;;) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFSTOPPED(status))
			break;
		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8))
			exec_stops++;
		else
			other_stops++;
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	}
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, exec_stops);
	EXPECT_EQ(0, other_stops);
	EXPECT_EQ(CALLS, hits("pe"));
	EXPECT_EQ(0, events("-:pe\n"));
}

static volatile sig_atomic_t traps;

static void on_trap(int sig)
{
	traps++;
}

/*
 * A tracer that resumes a syscall stop with SIGTRAP makes the kernel
 * send it with SI_KERNEL, as an int3's is.  It is the thread's, not a
 * hit: once the engine took it for one (and moved the ip back a byte).
 */
TEST(tracer_sigtrap_at_syscall_stop_delivered)
{
	int go[2], status, injected = 0, trap_stops = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		long bad = 0;

		signal(SIGTRAP, on_trap);
		get_byte(go[0]);
		bad |= f_lea(2) != 6;
		syscall(SYS_getppid);
		bad |= f_lea(3) != 9;
		_exit(bad ? 1 : traps == 1 ? 0 : 2);
	}
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACESYSGOOD));
	ASSERT_EQ(0, events("p:pi %d:%p\n", pid, l_lea));
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, pid, 0, 0));
	put_byte(go[1]);
	for (;;) {
		struct __ptrace_syscall_info si;
		int sig = 0;

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si),
				   &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_EXIT && !injected &&
			    ptrace(PTRACE_PEEKUSER, pid,
				   offsetof(struct user_regs_struct, orig_rax),
				   0) == SYS_getppid) {
				sig = SIGTRAP;
				injected = 1;
			}
		} else if (WSTOPSIG(status) == SIGTRAP) {
			trap_stops++;
			sig = SIGTRAP;
		}
		ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, pid, 0, sig));
	}
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, injected);
	EXPECT_EQ(1, trap_stops);
	EXPECT_EQ(2, hits("pi"));
	EXPECT_EQ(0, events("-:pi\n"));
}

TEST_HARNESS_MAIN
