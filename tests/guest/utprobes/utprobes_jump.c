// SPDX-License-Identifier: GPL-2.0
/*
 * Probes entered by a jump: a probe that only counts, defined with its
 * function's extent (func=START+SIZE), is entered by a jmp to a stub
 * that counts in user space, where the function allows it, and by its
 * int3 where it does not, with the reason in utprobe_modes.  Counts are
 * exact either way: while the jump goes in and out under running
 * threads, in signal handlers taken in a stub, in vfork children, across
 * exec; a debugger sees the original bytes and a breakpoint it writes
 * works.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define MODES TRACEFS "/utprobe_modes"

long jt_var = 40;

/*
 * Functions with the prologues a jump is made for, and some it is not
 * made for, their bytes fixed here; each returns its argument plus a
 * constant of its own.
 */
__asm__(
	".text\n"
	/* endbr64; push %rbp: the window is exactly the jump */
	".p2align 4\n.globl jt_endbr\n.type jt_endbr,@function\njt_endbr:\n"
	"	endbr64\n	push %rbp\n	mov %rsp,%rbp\n"
	"	lea 1(%rdi),%rax\n	pop %rbp\n	ret\n"
	".size jt_endbr,.-jt_endbr\n"
	/* push %rbp; mov %rsp,%rbp; lea */
	".p2align 4\n.globl jt_push\n.type jt_push,@function\njt_push:\n"
	"	push %rbp\n	mov %rsp,%rbp\n	lea 2(%rdi),%rax\n"
	"	pop %rbp\n	ret\n"
	".size jt_push,.-jt_push\n"
	/* sub $N,%rsp, then a store to the new frame */
	".p2align 4\n.globl jt_sub\n.type jt_sub,@function\njt_sub:\n"
	"	sub $0x18,%rsp\n	mov %rdi,8(%rsp)\n	mov 8(%rsp),%rax\n"
	"	add $3,%rax\n	add $0x18,%rsp\n	ret\n"
	".size jt_sub,.-jt_sub\n"
	/* a rip-relative load first: displaced, it must read jt_var still */
	".p2align 4\n.globl jt_rip\n.type jt_rip,@function\njt_rip:\n"
	"	mov jt_var(%rip),%rax\n	add %rdi,%rax\n	ret\n"
	".size jt_rip,.-jt_rip\n"
	/* a loop that branches back into the window */
	".p2align 4\n.globl jt_branch\n.type jt_branch,@function\njt_branch:\n"
	"	xor %eax,%eax\n1:	add $1,%rax\n	cmp %rdi,%rax\n	jl 1b\n"
	"	add $4,%rax\n	ret\n"
	".size jt_branch,.-jt_branch\n"
	/* a call within the jump's length */
	".p2align 4\n.globl jt_call\n.type jt_call,@function\njt_call:\n"
	"	call jt_push\n	add $3,%rax\n	ret\n"
	".size jt_call,.-jt_call\n"
	/* too short for a jump */
	".p2align 4\n.globl jt_tiny\n.type jt_tiny,@function\njt_tiny:\n"
	"	lea 6(%rdi),%rax\n	ret\n"
	".size jt_tiny,.-jt_tiny\n"
	/* a leaf whose red zone is live at +5, where it is probed */
	".p2align 4\n.globl jt_red\n.type jt_red,@function\njt_red:\n"
	"	mov %rdi,-8(%rsp)\n	mov -8(%rsp),%rax\n	add $8,%rax\n	ret\n"
	".size jt_red,.-jt_red\n"
	/* the one a probe at +4 (after endbr64) is put in */
	".p2align 4\n.globl jt_mid\n.type jt_mid,@function\njt_mid:\n"
	"	endbr64\n	push %rbp\n	mov %rsp,%rbp\n	push %rbx\n"
	"	lea 7(%rdi),%rax\n	pop %rbx\n	pop %rbp\n	ret\n"
	".size jt_mid,.-jt_mid\n"
	/*
	 * a window that leaves the flags and rax, rcx, rdx alone; returns
	 * the flags it was called with
	 */
	".p2align 4\n.globl jt_flags\n.type jt_flags,@function\njt_flags:\n"
	"	mov %rdi,%r8\n	mov %r8,%r9\n	pushfq\n	pop %r10\n	ret\n"
	".size jt_flags,.-jt_flags\n"
	".p2align 4\n.globl jt_end\njt_end:\n"
	"	nop\n"
);

long jt_endbr(long), jt_push(long), jt_sub(long), jt_rip(long);
long jt_branch(long), jt_call(long), jt_tiny(long), jt_mid(long);
long jt_red(long), jt_flags(long);
extern char jt_end[];

struct fn {
	const char *name;
	long (*fn)(long);
	long k;			/* fn(x) == x + k (jt_branch: see there) */
	const char *mode;	/* utprobe_modes says, once looked at */
};

static const struct fn fns[] = {
	{ "jt_endbr", jt_endbr, 1, "jump" },
	{ "jt_push", jt_push, 2, "jump" },
	{ "jt_sub", jt_sub, 3, "jump" },
	{ "jt_rip", jt_rip, 40, "jump" },
	{ "jt_branch", jt_branch, 4, "trap branch" },
	{ "jt_call", jt_call, 5, "trap window" },
	{ "jt_tiny", jt_tiny, 6, "trap window" },
	{ "jt_mid", jt_mid, 7, "jump" },
	{ "jt_red", jt_red, 8, "jump" },
	/* not called by modes_and_exact_counts: see flags_and_registers */
	{ "jt_flags", jt_flags, 0, "jump" },
};

/* The size of @f's function: from it to the next one (or the end). */
static unsigned long fn_size(const struct fn *f)
{
	unsigned long start = (unsigned long)f->fn, next = (unsigned long)jt_end;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		if ((unsigned long)fns[i].fn > start &&
		    (unsigned long)fns[i].fn < next)
			next = (unsigned long)fns[i].fn;
	return next - start;
}

/* The mode utprobe_modes gives @name ("jump", "trap WHY", "none"). */
static void mode_of(const char *name, char *mode, size_t size)
{
	char buf[8192], want[80], *line;

	snprintf(mode, size, "missing");
	read_file(MODES, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s ", name);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, want, strlen(want)))
			snprintf(mode, size, "%s", line + strlen(want));
}

/*
 * Wait until @name's mode is neither "trap pending" nor "trap busy"
 * (the jump goes in from a work item), for 60 s at most (a debug kernel
 * under emulation, on a loaded host, took seconds); the mode then.
 * The tests that wait so give themselves 300 s.
 */
static const char *settled(const char *name)
{
	static char mode[64];
	int i;

	for (i = 0; i < 6000; i++) {
		mode_of(name, mode, sizeof(mode));
		if (strcmp(mode, "trap pending") && strcmp(mode, "trap busy"))
			break;
		usleep(10000);
	}
	return mode;
}

/* Wait until @name's mode is @want, for 60 s at most; the mode then. */
static const char *mode_becomes(const char *name, const char *want)
{
	static char mode[64];
	int i;

	for (i = 0; i < 6000; i++) {
		mode_of(name, mode, sizeof(mode));
		if (!strcmp(mode, want))
			break;
		usleep(10000);
	}
	return mode;
}

/* Define probe @name on @f in process @pid, at @off into it, with func=. */
static int define(const char *name, pid_t pid, const struct fn *f,
		  unsigned long off, const char *extra)
{
	unsigned long start = (unsigned long)f->fn;

	return events("p:%s %d:%#lx func=%#lx+%#lx%s%s", name, pid,
		      start + off, start, fn_size(f), extra ? " " : "",
		      extra ?: "");
}

/* The hits of mainline uprobe @name in uprobe_profile, or -1. */
static long mainline_hits(const char *name)
{
	char buf[8192], *line;
	char ev[64];
	long n = -1, h;

	read_file(TRACEFS "/uprobe_profile", buf, sizeof(buf));
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%*s %63s %ld", ev, &h) == 2 &&
		    !strcmp(ev, name))
			n = h;
	return n;
}

/*
 * Read (@write false) or write *@b at @addr of @pid's memory through
 * /proc/PID/mem, as a debugger does; 0 or -1.
 */
static int mem_access(pid_t pid, unsigned long addr, unsigned char *b,
		      bool write)
{
	char path[64];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, write ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return -1;
	n = write ? pwrite(fd, b, 1, addr) : pread(fd, b, 1, addr);
	close(fd);
	return n == 1 ? 0 : -1;
}

/* The byte at @addr of @pid's memory as a debugger reads it, or -1. */
static int mem_byte(pid_t pid, unsigned long addr)
{
	unsigned char b;

	return mem_access(pid, addr, &b, false) ? -1 : b;
}

FIXTURE(jump) {
	int unused;
};

FIXTURE_SETUP(jump)
{
	ASSERT_EQ(0, access(MODES, R_OK));
}

FIXTURE_TEARDOWN(jump)
{
	int fd = open(EVENTS, O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
}

/*
 * Each prologue: the mode expected, and as many hits as calls.  Where a
 * jump went in, the text holds a jmp where a debugger reads the
 * original instruction, and calls give the right results through the
 * stub (the rip-relative load reads jt_var).
 */
TEST_F_TIMEOUT(jump, modes_and_exact_counts, 300)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		const struct fn *f = &fns[i];
		unsigned long off = f->fn == jt_mid ? 4 : f->fn == jt_red ? 5 : 0;

		if (f->fn == jt_flags)
			continue;
		unsigned char orig = *(unsigned char *)((char *)f->fn + off);
		const char *mode;
		long n;

		ASSERT_EQ(0, define(f->name, getpid(), f, off, NULL));
		mode = settled(f->name);
		EXPECT_STREQ(f->mode, mode) TH_LOG("%s", f->name);
		if (!strcmp(f->mode, "jump")) {
			EXPECT_EQ(0xe9, *(unsigned char *)((char *)f->fn + off));
			EXPECT_EQ(orig, mem_byte(getpid(),
						 (unsigned long)f->fn + off));
		}
		for (n = 0; n < 1000; n++) {
			long want = f->fn == jt_branch ? (n > 0 ? n : 1) + 4 :
				    n + f->k;

			ASSERT_EQ(want, f->fn(n));
		}
		EXPECT_EQ(1000, hits(f->name)) TH_LOG("%s", f->name);
		ASSERT_EQ(0, events("-:%s", f->name));
		/* the text is its own again */
		EXPECT_EQ(orig, *(unsigned char *)((char *)f->fn + off));
	}
}

/*
 * Call jt_flags() with the flags @flags and known values in the
 * registers the stub saves: the flags it saw, and whether rax, rcx, rdx
 * and its red zone came through.
 */
static unsigned long call_flags(unsigned long flags, int *regs_ok)
{
	unsigned long a = 0x0123456789abcdefUL, c = 0x1111222233334444UL;
	unsigned long d = 0x5555666677778888UL, seen, top, bottom;

	/* the callee's red zone, but for the word its pushfq writes */
	__asm__ volatile(
		"	lea -256(%%rsp),%%rsp\n"
		"	movq $0x5a5a5a5a,-24(%%rsp)\n"
		"	movq $0x5b5b5b5b,-136(%%rsp)\n"
		"	push %[fl]\n"
		"	popfq\n"
		"	call jt_flags\n"
		"	cld\n"
		"	mov %%r10,%[seen]\n"
		"	mov -24(%%rsp),%[top]\n"
		"	mov -136(%%rsp),%[bottom]\n"
		"	lea 256(%%rsp),%%rsp\n"
		: "+a"(a), "+c"(c), "+d"(d), [seen] "=&r"(seen),
		  [top] "=&r"(top), [bottom] "=&r"(bottom)
		: [fl] "r"(flags), "D"(7L)
		: "r8", "r9", "r10", "memory", "cc");
	*regs_ok = a == 0x0123456789abcdefUL && c == 0x1111222233334444UL &&
		   d == 0x5555666677778888UL && top == 0x5a5a5a5a &&
		   bottom == 0x5b5b5b5b;
	return seen;
}

/* Flags to call jt_flags() with: each arithmetic one set, and clear. */
static const unsigned long flag_sets[] = {
	0x0002, 0x08d7, 0x0cd7, 0x0001, 0x0004, 0x0010, 0x0040,
	0x0080, 0x0800, 0x0400, 0x0841,
};

/*
 * Call jt_flags(), whose probe @f is in @mode, with each of flag_sets:
 * the window sees the flags and the registers it was called with.
 */
static void flags_through(struct __test_metadata *_metadata,
			  const struct fn *f, const char *mode)
{
	const unsigned long mask = 0x0cd5;	/* OF DF SF ZF AF PF CF */
	unsigned long seen;
	size_t i;
	int ok;

	ASSERT_STREQ(mode, settled(f->name));
	for (i = 0; i < ARRAY_SIZE(flag_sets); i++) {
		seen = call_flags(flag_sets[i], &ok);
		EXPECT_EQ(flag_sets[i] & mask, seen & mask)
			TH_LOG("flags %#lx", flag_sets[i]);
		EXPECT_TRUE(ok) TH_LOG("flags %#lx", flag_sets[i]);
	}
	EXPECT_EQ((long)ARRAY_SIZE(flag_sets), hits(f->name));
}

/*
 * The stub hands the window the arithmetic flags (each of them set, and
 * each clear, with the direction flag too) and rax, rcx and rdx it was
 * entered with, and writes nothing in the function's red zone.
 */
TEST_F_TIMEOUT(jump, flags_and_registers, 300)
{
	const struct fn *f = &fns[ARRAY_SIZE(fns) - 1];

	ASSERT_TRUE(f->fn == jt_flags);
	ASSERT_EQ(0, define(f->name, getpid(), f, 0, NULL));
	flags_through(_metadata, f, "jump");
	ASSERT_EQ(0, events("-:%s", f->name));
}

#define THREADS		8

struct caller {
	pthread_t thread;
	volatile long calls;	/* jt_push() calls made and returned */
	volatile int parked;
	volatile int bad;
};

static volatile int hold, stop;
static struct caller callers[THREADS];

static void *call_loop(void *arg)
{
	struct caller *c = arg;
	long i = 0;

	while (!stop) {
		if (hold) {
			c->parked = 1;
			while (hold && !stop)
				;
			c->parked = 0;
			continue;
		}
		if (jt_push(i) != i + 2)
			c->bad = 1;
		c->calls = ++i;
	}
	return NULL;
}

static long calls_now(long *each)
{
	long sum = 0;
	int i;

	for (i = 0; i < THREADS; i++) {
		each[i] = callers[i].calls;
		sum += each[i];
	}
	return sum;
}

static void park(int on)
{
	int i;

	hold = on;
	for (i = 0; on && i < THREADS; i++)
		while (!callers[i].parked)
			sched_yield();
}

/* Rounds of the placement test: UTP_JUMP_ROUNDS, 100 unless set. */
static int rounds(void)
{
	const char *env = getenv("UTP_JUMP_ROUNDS");

	return env ? atoi(env) : 100;
}

/*
 * 8 threads call jt_push() while its probe goes in, is entered by a
 * jump, and comes out, 100 times: every call begun after the write that
 * placed it returned is counted, and none begun before it began; the
 * threads stopped inside the window go on in the stub.  Calls keep
 * returning the right value throughout.
 */
TEST_F_TIMEOUT(jump, in_and_out_under_threads, 600)
{
	long before[THREADS], after[THREADS], end[THREADS];
	int i, round, n = rounds(), jumped = 0;

	stop = 0;
	for (i = 0; i < THREADS; i++) {
		callers[i].calls = 0;
		ASSERT_EQ(0, pthread_create(&callers[i].thread, NULL,
					    call_loop, &callers[i]));
	}
	for (round = 0; round < n; round++) {
		long long since = 0, upto = 0, h;

		calls_now(before);
		ASSERT_EQ(0, define("jt_loop", getpid(), &fns[1], 0, NULL));
		calls_now(after);
		jumped += !strcmp(settled("jt_loop"), "jump");
		park(1);
		calls_now(end);
		h = hits("jt_loop");
		for (i = 0; i < THREADS; i++) {
			since += end[i] - after[i] - 1;
			upto += end[i] - before[i];
		}
		if (h < since || h > upto)
			TH_LOG("round %d: %lld hits, %lld calls since the write returned, %lld since it began",
			       round, h, since + THREADS, upto);
		ASSERT_GE(h, since);
		ASSERT_LE(h, upto);
		ASSERT_EQ(0, events("-:jt_loop"));
		/* out: calls from here on are not counted, nor trapped */
		EXPECT_EQ(0x55, *(unsigned char *)jt_push);
		park(0);
	}
	stop = 1;
	for (i = 0; i < THREADS; i++) {
		pthread_join(callers[i].thread, NULL);
		EXPECT_EQ(0, callers[i].bad);
	}
	/* most rounds got their jump in under 8 running threads */
	EXPECT_GE(jumped, n * 9 / 10) TH_LOG("%d of %d rounds jumped", jumped, n);
}

static volatile long in_handler;

static void on_alarm(int sig)
{
	if (jt_red(5) != 13)
		abort();
	in_handler++;
}

/*
 * A thread takes signals all the time, in the stub too, and its handler
 * calls the probed function as well: every call is counted once.  The
 * probe is where the function's red zone is live (jt_red + 5): the stub
 * never writes below the stack pointer it was entered with.
 */
TEST_F_TIMEOUT(jump, signals_in_the_stub, 300)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct timespec t0, t1;
	long calls = 0;

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, define("jt_sig", getpid(), &fns[8], 5, NULL));
	ASSERT_STREQ("jump", settled("jt_sig"));
	in_handler = 0;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ASSERT_EQ(calls + 8, jt_red(calls));
		calls++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t1.tv_sec - t0.tv_sec < 2);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
	EXPECT_GT(in_handler, 10);
	EXPECT_EQ(calls + in_handler, hits("jt_sig"));
}

/* @n calls of jt_push(): 0 if each returned what it should, else 3. */
static int call_push(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (jt_push(i) != i + 2)
			return 3;
	return 0;
}

/*
 * A fork's child has the original text (a probe on a process is not
 * its children's), a vfork child runs on the parent's text and is
 * counted, and a child that execs leaves its count behind.
 */
TEST_F_TIMEOUT(jump, fork_vfork_exec, 300)
{
	int st, pipefd[2];
	long long h;
	pid_t pid;
	char c;

	ASSERT_EQ(0, define("jt_fork", getpid(), &fns[1], 0, NULL));
	ASSERT_STREQ("jump", settled("jt_fork"));
	h = hits("jt_fork");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (*(unsigned char *)jt_push != 0x55)
			_exit(2);
		_exit(call_push(100));
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(h, hits("jt_fork"));

	pid = vfork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(call_push(100));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(h + 100, hits("jt_fork"));
	ASSERT_EQ(0, events("-:jt_fork"));

	/* a child probed on its own, calling 300 times, then exec */
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(4);
		if (call_push(300))
			_exit(3);
		execl("/bin/true", "true", NULL);
		_exit(5);
	}
	close(pipefd[0]);
	ASSERT_EQ(0, define("jt_exec", pid, &fns[1], 0, NULL));
	ASSERT_STREQ("jump", settled("jt_exec"));
	ASSERT_EQ(1, write(pipefd[1], "g", 1));
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(300, hits("jt_exec"));
	EXPECT_STREQ("none", settled("jt_exec"));
}

/* What a process that forks all the time tells the test. */
struct forker {
	volatile int stop;
	volatile long forks;
	volatile long bad;	/* children that did not exit 0 */
	volatile int status;	/* the first one's wait status */
};

static void forker(struct forker *f)
{
	int st;

	while (!f->stop) {
		pid_t pid = fork();

		if (pid < 0)
			_exit(2);
		if (!pid)
			_exit(call_push(20));
		if (waitpid(pid, &st, 0) != pid)
			_exit(3);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (!f->bad++)
				f->status = st;
		}
		f->forks++;
	}
	_exit(0);
}

/*
 * A process forks again and again while a jump goes in and out of its
 * text, each child calling the probed function: a fork may copy the
 * text between the two steps of a write, the tail in under the int3,
 * and the child must get the whole original back (no SIGTRAP, right
 * values), however far the write had gone.  Rounds: UTP_JUMP_ROUNDS.
 */
TEST_F_TIMEOUT(jump, forks_while_the_jump_goes_in_and_out, 600)
{
	struct forker *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i, st, n = rounds(), jumped = 0;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, f);
	memset(f, 0, sizeof(*f));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		forker(f);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, define("jt_forker", pid, &fns[1], 0, NULL));
		jumped += !strcmp(settled("jt_forker"), "jump");
		ASSERT_EQ(0, events("-:jt_forker"));
	}
	f->stop = 1;
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, f->bad) TH_LOG("%ld of %ld children failed, the first with status %#x",
				   f->bad, f->forks, f->status);
	EXPECT_LT(0, f->forks);
	/* the jump went in under the forks, most rounds */
	EXPECT_GE(jumped, n / 2) TH_LOG("%d of %d rounds jumped", jumped, n);
	TH_LOG("%ld forks, %d of %d rounds jumped", f->forks, jumped, n);
	munmap(f, sizeof(*f));
}

/* The first of jt_push()'s 5 bytes that @pid's memory holds otherwise, or -1. */
static int push_differs(pid_t pid)
{
	int k;

	for (k = 0; k < 5; k++)
		if (mem_byte(pid, (unsigned long)jt_push + k) !=
		    ((unsigned char *)jt_push)[k])
			return k;
	return -1;
}

/* SIGKILL @pid and reap it: its wait status. */
static int kill_reap(pid_t pid)
{
	int st = -1;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return st;
}

/* Threads calling jt_push() until killed; exits 3 on a wrong value. */
static void spin_callers(int nthreads)
{
	int i;

	stop = 0;
	hold = 0;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&callers[i].thread, NULL, call_loop,
				   &callers[i]))
			_exit(2);
	for (;;) {
		usleep(1000);
		for (i = 0; i < nthreads; i++)
			if (callers[i].bad)
				_exit(3);
	}
}

/*
 * The writer of a removal is killed at some moment of it, while the
 * jump goes out under running threads or while the int3 goes (a probe
 * entered by a jump, or one that only traps, in turn): whatever
 * the moment, the text ends up as it was once the probe is gone (a
 * killed writer's page lookups fail, so the bytes must go back
 * another way), and the threads never meet an int3 without a probe.
 * Rounds: UTP_JUMP_ROUNDS, each killing the writer a little later.
 */
TEST_F_TIMEOUT(jump, writer_killed_during_removal, 600)
{
	unsigned long at = (unsigned long)jt_push;
	int i, k, st, n = rounds(), jumped = 0, r;
	pid_t pid, writer;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		spin_callers(4);
	for (i = 0; i < n; i++) {
		/* odd rounds: an int3 alone, no extent given */
		if (i % 2) {
			ASSERT_EQ(0, events("p:jt_kw %d:%#lx", pid, at));
		} else {
			ASSERT_EQ(0, define("jt_kw", pid, &fns[1], 0, NULL));
		}
		jumped += !strcmp(settled("jt_kw"), "jump");
		writer = fork();
		ASSERT_LE(0, writer);
		if (!writer)
			_exit(events("-:jt_kw") ? 1 : 0);
		usleep((i % 20) * 500);
		kill(writer, SIGKILL);
		ASSERT_EQ(writer, waitpid(writer, &st, 0));
		/* gone with the writer's write, or still there */
		r = events("-:jt_kw");
		ASSERT_TRUE(r == 0 || r == -ENOENT) TH_LOG("round %d: %d", i, r);
		st = 0;
		ASSERT_EQ(0, waitpid(pid, &st, WNOHANG))
			TH_LOG("round %d: the callers ended, status %#x", i,
			       st);
		/* no probe left: the bytes read are the text's own */
		k = push_differs(pid);
		ASSERT_EQ(-1, k) TH_LOG("round %d: byte %d", i, k);
	}
	st = kill_reap(pid);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		TH_LOG("status %#x", st);
	/* the even rounds' probes went in as jumps, most of them */
	EXPECT_GE(jumped, n / 4) TH_LOG("%d of %d rounds jumped", jumped, n);
}

/* Write byte @b at @addr of @pid's memory as a debugger does; 0 or -1. */
static int mem_poke(pid_t pid, unsigned long addr, unsigned char b)
{
	return mem_access(pid, addr, &b, true);
}

static volatile long spins;

static void *spin_only(void *arg)
{
	for (;;)
		spins++;
	return NULL;
}

/*
 * A debugger's breakpoint written at the point while the jump is being
 * placed (its threads looked at, the bytes going in): the breakpoint is
 * never hidden under a jump, whenever it came.  The mode ends as a
 * trap, the debugger reads its int3 there, and once the probe and the
 * breakpoint are gone the text is the original.  Rounds:
 * UTP_JUMP_ROUNDS, the breakpoint a little later each time.
 */
TEST_F_TIMEOUT(jump, debugger_breakpoint_during_placement, 600)
{
	unsigned long at = (unsigned long)jt_push;
	int i, k, st, n = rounds();
	char mode[64];
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pthread_t t;

		for (k = 0; k < 3; k++)
			pthread_create(&t, NULL, spin_only, NULL);
		spin_only(NULL);
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, define("jt_dw", pid, &fns[1], 0, NULL));
		usleep((i % 20) * 250);
		ASSERT_EQ(0, mem_poke(pid, at, 0xcc));
		settled("jt_dw");
		mode_of("jt_dw", mode, sizeof(mode));
		EXPECT_STRNE("jump", mode) TH_LOG("round %d", i);
		EXPECT_EQ(0xcc, mem_byte(pid, at)) TH_LOG("round %d", i);
		ASSERT_EQ(0, events("-:jt_dw"));
		/* the debugger's int3 stayed through the removal */
		EXPECT_EQ(0xcc, mem_byte(pid, at)) TH_LOG("round %d", i);
		ASSERT_EQ(0, mem_poke(pid, at, ((unsigned char *)jt_push)[0]));
		k = push_differs(pid);
		ASSERT_EQ(-1, k) TH_LOG("round %d: byte %d", i, k);
	}
	st = kill_reap(pid);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		TH_LOG("status %#x", st);
}

/*
 * In a child: a copy of jt_push()'s page mapped from the binary, probed
 * (by a jump if @jump, else by its int3 alone); the mapping made
 * unexecutable (as a loader applying text relocations or a patcher
 * does), the probe removed meanwhile, then executable again: the copy
 * must run right, no int3 or jump tail left.  Exits 0 if so.
 */
static void unexec_child(bool jump)
{
	long page = sysconf(_SC_PAGESIZE), off, base;
	char path[256];
	long (*fn)(long);
	int fd, i;
	char *p;

	off = self_offset((void *)jt_push, path, sizeof(path));
	base = off & ~(page - 1);
	fd = open(path, O_RDONLY);
	if (off < 0 || fd < 0)
		_exit(2);
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, base);
	if (p == MAP_FAILED)
		_exit(2);
	fn = (long (*)(long))(p + (off - base));
	if (jump ? events("p:jt_nx %d:%p func=%p+%#lx", getpid(), fn, fn,
			  fn_size(&fns[1])) :
		   events("p:jt_nx %d:%p", getpid(), fn))
		_exit(3);
	if (jump && strcmp(settled("jt_nx"), "jump"))
		_exit(4);
	for (i = 0; i < 10; i++)
		if (fn(i) != i + 2)
			_exit(5);
	if (hits("jt_nx") != 10)
		_exit(6);
	if (mprotect(p, page, PROT_READ))
		_exit(7);
	if (events("-:jt_nx"))
		_exit(8);
	if (mprotect(p, page, PROT_READ | PROT_EXEC))
		_exit(9);
	for (i = 0; i < 10; i++)
		if (fn(i) != i + 2)
			_exit(10);
	_exit(0);
}

/* Removal while the probed text is not executable: see unexec_child(). */
TEST_F_TIMEOUT(jump, removal_while_the_text_is_not_executable, 300)
{
	int st, jump;
	pid_t pid;

	for (jump = 0; jump < 2; jump++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			unexec_child(jump);
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		EXPECT_EQ(0, st) TH_LOG("by %s: status %#x",
					jump ? "a jump" : "its int3", st);
	}
}

/*
 * A second probe at the point, or one inside the window: the jump goes
 * out, and each probe counts every call.  When they go, the first gets
 * its jump back.
 */
TEST_F_TIMEOUT(jump, second_probe_takes_the_trap, 300)
{
	int i;

	ASSERT_EQ(0, define("jt_a", getpid(), &fns[1], 0, NULL));
	ASSERT_STREQ("jump", settled("jt_a"));
	for (i = 0; i < 10; i++)
		jt_push(i);
	ASSERT_EQ(0, define("jt_b", getpid(), &fns[1], 0, NULL));
	EXPECT_STREQ("trap shared", settled("jt_a"));
	EXPECT_STREQ("trap shared", settled("jt_b"));
	for (i = 0; i < 10; i++)
		jt_push(i);
	EXPECT_EQ(20, hits("jt_a"));
	EXPECT_EQ(10, hits("jt_b"));
	ASSERT_EQ(0, events("-:jt_b"));
	EXPECT_STREQ("jump", settled("jt_a"));
	/* mov %rsp,%rbp, the window's second instruction */
	ASSERT_EQ(0, define("jt_c", getpid(), &fns[1], 1, NULL));
	EXPECT_STREQ("trap point", settled("jt_a"));
	for (i = 0; i < 10; i++)
		jt_push(i);
	EXPECT_EQ(30, hits("jt_a"));
	EXPECT_EQ(10, hits("jt_c"));
}

#define SYSCALL_HANDLERS "/sys/module/utprobes/parameters/syscall_handlers"

/*
 * The event of a probe in jump mode goes on: the counting stub goes out
 * first, and the hits trap, or, with utprobes.syscall_handlers, a stub
 * that calls the handler by a system call comes in; every call is
 * recorded, with the argument it was made with.  Off again, the counting
 * jump comes back.  A return probe never jumps.  Each switch is made
 * after the write that asks for it, the listing showing the old mode
 * until then: the test waits for the new one.
 */
TEST_F_TIMEOUT(jump, event_on_calls_from_the_stub, 300)
{
	char buf[1 << 16], want[32], *p, *eol;
	int i, records = 0;

	ASSERT_EQ(0, define("jt_ev", getpid(), &fns[1], 0, "v=%di:s64"));
	ASSERT_STREQ("jump", settled("jt_ev"));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_ev/enable", 0,
				"1"));
	EXPECT_STREQ("trap handler", mode_becomes("jt_ev", "trap handler"));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_ev/enable", 0,
				"0"));
	ASSERT_STREQ("jump", mode_becomes("jt_ev", "jump"));
	ASSERT_EQ(0, write_file(SYSCALL_HANDLERS, 0, "1"));
	ASSERT_EQ(0, write_file(TRACEFS "/trace", O_TRUNC, "%s", ""));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_ev/enable", 0,
				"1"));
	EXPECT_STREQ("syscall", mode_becomes("jt_ev", "syscall"));
	for (i = 0; i < 50; i++)
		ASSERT_EQ(i + 2, jt_push(i));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_ev/enable", 0,
				"0"));
	ASSERT_EQ(0, write_file(SYSCALL_HANDLERS, 0, "0"));
	read_file(TRACEFS "/trace", buf, sizeof(buf));
	/* in the order of the calls, each with its argument */
	for (p = buf; (p = strstr(p, "jt_ev: (")); p = eol) {
		eol = strchrnul(p, '\n');
		snprintf(want, sizeof(want), " v=%d", records++);
			EXPECT_EQ(0, strncmp(eol - strlen(want), want, strlen(want)))
			TH_LOG("record %d: %.*s", records, (int)(eol - p), p);
	}
	EXPECT_EQ(50, records);
	EXPECT_STREQ("jump", mode_becomes("jt_ev", "jump"));
	for (i = 0; i < 50; i++)
		jt_push(i);
	EXPECT_EQ(100, hits("jt_ev"));
	ASSERT_EQ(0, events("r:jt_ret %d:%#lx func=%#lx+%#lx", getpid(),
			    (unsigned long)jt_endbr, (unsigned long)jt_endbr,
			    fn_size(&fns[0])));
	EXPECT_STREQ("trap handler", settled("jt_ret"));
}

/*
 * A stub that calls the handler keeps the flags, rax, rcx and rdx (the
 * system call's own registers among them) and the red zone as a counting
 * one does, and the handler sees the registers of the call.
 */
TEST_F_TIMEOUT(jump, syscall_flags_and_registers, 300)
{
	const struct fn *f = &fns[ARRAY_SIZE(fns) - 1];
	char buf[1 << 16], path[256], *p;
	int records = 0;

	ASSERT_TRUE(f->fn == jt_flags);
	ASSERT_EQ(0, define(f->name, getpid(), f, 0, "d=%di:s64 c=%cx:x64"));
	snprintf(path, sizeof(path), TRACEFS "/events/utprobes/%s/enable",
		 f->name);
	ASSERT_EQ(0, write_file(TRACEFS "/trace", O_TRUNC, "%s", ""));
	ASSERT_EQ(0, write_file(SYSCALL_HANDLERS, 0, "1"));
	ASSERT_EQ(0, write_file(path, 0, "1"));
	flags_through(_metadata, f, "syscall");
	ASSERT_EQ(0, write_file(SYSCALL_HANDLERS, 0, "0"));
	read_file(TRACEFS "/trace", buf, sizeof(buf));
	for (p = buf; (p = strstr(p, " d=7 c=0x1111222233334444\n")); p++)
		records++;
	EXPECT_EQ((int)ARRAY_SIZE(flag_sets), records) TH_LOG("%.400s", buf);
	ASSERT_EQ(0, write_file(path, 0, "0"));
	ASSERT_EQ(0, events("-:%s", f->name));
}

/* The system call a handler stub makes. */
#define NR_UPROBE	336

/* Run @fn in a child: its wait status. */
static int in_child(void (*fn)(void))
{
	pid_t pid = fork();
	int st = -1;

	if (!pid) {
		fn();
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	return st;
}

/* The stubs' call from elsewhere: exits 0 if it fails with ENXIO. */
static void call_uprobe(void)
{
	long r = syscall(NR_UPROBE);

	_exit(r == -1 && errno == ENXIO ? 0 : 1);
}

/*
 * Allow exit_group and nothing else (the stubs' call is let through by
 * seccomp itself), then call the probed function.
 */
static void sandboxed_calls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	long i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		_exit(2);
	for (i = 0; i < 10; i++)
		if (jt_push(i) != i + 2)
			syscall(__NR_exit_group, 3);
	syscall(__NR_exit_group, 0);
}

/* The first handler stub in this process's stub areas, or NULL. */
static unsigned char *sys_stub(void)
{
	static const unsigned char head[] = {
		0x48, 0x8d, 0x64, 0x24, 0x80, 0x50, 0x51, 0x41, 0x53, 0xb8,
		NR_UPROBE & 0xff, NR_UPROBE >> 8, 0, 0, 0x0f, 0x05,
	};
	unsigned long lo, hi, a;
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned char *found = NULL;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[utprobes-jump]") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		for (a = lo; a + sizeof(head) <= hi && !found; a += 128)
			if (!memcmp((void *)a, head, sizeof(head)))
				found = (unsigned char *)a;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * The stubs' system call from anywhere else fails with ENXIO (libbpf
 * calls it to see whether the kernel has it), in a process with handler
 * stubs too; a process whose seccomp filter allows
 * nothing but exit_group still calls the handler from its stub.  A
 * thread that comes back to a stub after its probe has gone (from a
 * signal handler, say; called here) goes on through it.
 */
TEST_F_TIMEOUT(jump, syscall_only_from_a_stub, 300)
{
	char buf[1 << 16], *p;
	int st, records = 0, go[2];
	long (*stub)(long);
	unsigned char first;
	pid_t pid;

	st = in_child(call_uprobe);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("status %#x", st);
	ASSERT_EQ(0, write_file(SYSCALL_HANDLERS, 0, "1"));
	first = *(volatile unsigned char *)jt_push;
	ASSERT_EQ(0, define("jt_sc", getpid(), &fns[1], 0, "v=%di:s64"));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_sc/enable", 0,
				"1"));
	ASSERT_STREQ("syscall", settled("jt_sc"));
	EXPECT_EQ(7, jt_push(5));
	st = in_child(call_uprobe);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("status %#x", st);
	/* the stub is jt_push()'s first instructions, then the rest of it */
	stub = (long (*)(long))sys_stub();
	ASSERT_NE(NULL, stub);
	EXPECT_EQ(8, stub(6));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_sc/enable", 0,
				"0"));
	ASSERT_EQ(0, events("-:jt_sc"));
	/* the text is its own again */
	EXPECT_EQ(first, *(volatile unsigned char *)jt_push);
	EXPECT_EQ(10, stub(8));
	/* once the process has let go of its engines too */
	usleep(200000);
	EXPECT_EQ(11, stub(9));

	/* a child that sandboxes itself once its probe has its stub */
	ASSERT_EQ(0, write_file(TRACEFS "/trace", O_TRUNC, "%s", ""));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (!pid) {
		if (read(go[0], &st, 1) != 1)
			_exit(4);
		sandboxed_calls();
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, define("jt_sb", pid, &fns[1], 0, "v=%di:s64"));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_sb/enable", 0,
				"1"));
	EXPECT_STREQ("syscall", settled("jt_sb"));
	ASSERT_EQ(1, write(go[1], "g", 1));
	waitpid(pid, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("status %#x", st);
	read_file(TRACEFS "/trace", buf, sizeof(buf));
	for (p = buf; (p = strstr(p, "jt_sb: (")); p++)
		records++;
	EXPECT_EQ(10, records);
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/jt_sb/enable", 0,
				"0"));
	ASSERT_EQ(0, events("-:jt_sb"));
	ASSERT_EQ(0, write_file(SYSCALL_HANDLERS, 0, "0"));
}

/* Shared by the debugged child and its debugger. */
struct shared {
	volatile long calls;
	volatile int go;	/* the child calls from here on */
	volatile int stop;
};

/* The debugged child: calls jt_push() from sh->go until sh->stop. */
static void debuggee(struct shared *sh)
{
	long n = 0;

	while (!sh->go)
		;
	while (!sh->stop) {
		if (jt_push(n) != n + 2)
			_exit(3);
		sh->calls = ++n;
	}
	_exit(0);
}

/*
 * Fork a debuggee sharing *@shp, probe its jt_push() as @name, and let
 * it call once the jump is in: its pid, or -1 (the mode in @mode).
 */
static pid_t debuggee_start(struct shared **shp, const char *name,
			    const char **mode)
{
	struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	*mode = "no memory";
	if (sh == MAP_FAILED)
		return -1;
	*shp = sh;
	pid = fork();
	if (!pid)
		debuggee(sh);
	*mode = "no probe";
	if (pid < 0 || define(name, pid, &fns[1], 0, NULL))
		return -1;
	*mode = settled(name);
	if (strcmp(*mode, "jump"))
		return -1;
	sh->go = 1;
	return pid;
}

/* Stop the debuggee: its exit status. */
static int debuggee_end(struct shared *sh, pid_t pid)
{
	int st = -1;

	sh->stop = 1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * A debugger of a process with a jump: it reads the original bytes,
 * the process goes back to its int3 while traced, and a breakpoint the
 * debugger writes at the function stops the thread there; once it
 * detaches, counts are still exact.
 */
TEST_F_TIMEOUT(jump, debugger, 300)
{
	unsigned long addr = (unsigned long)jt_push, word, orig;
	struct user_regs_struct regs;
	struct shared *sh;
	const char *mode;
	int st, i;
	pid_t pid;

	pid = debuggee_start(&sh, "jt_dbg", &mode);
	ASSERT_LT(0, pid) TH_LOG("%s", mode);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(((unsigned char *)jt_push)[i], mem_byte(pid, addr + i));

	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, addr, 0);
	ASSERT_EQ(0, errno);
	EXPECT_EQ(*(unsigned long *)jt_push, orig);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	/* the debugger's read has the process looked at: traced, it traps */
	EXPECT_STREQ("trap ptrace", mode_becomes("jt_dbg", "trap ptrace"));

	/* a breakpoint at the function, as gdb writes one */
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	word = (orig & ~0xffUL) | 0xcc;
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, word));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFSTOPPED(st));
	EXPECT_EQ(SIGTRAP, WSTOPSIG(st));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &regs));
	EXPECT_EQ(addr + 1, regs.rip);
	/* out again, back to the breakpoint's address, on */
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, addr, orig));
	regs.rip = addr;
	ASSERT_EQ(0, ptrace(PTRACE_SETREGS, pid, 0, &regs));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, 0, 0));
	usleep(200000);
	EXPECT_EQ(0, debuggee_end(sh, pid));
	/* the call the breakpoint stopped was counted once */
	EXPECT_EQ(sh->calls, hits("jt_dbg"));
	munmap(sh, 4096);
}

/*
 * A write into a window through /proc/PID/mem (the bytes a debugger
 * read there): the jump goes out of the page first, for good, and the
 * process goes on with every call counted.
 */
TEST_F_TIMEOUT(jump, mem_write_takes_the_jump_out, 300)
{
	unsigned long addr = (unsigned long)jt_push;
	unsigned char window[8];
	struct shared *sh;
	const char *mode;
	char path[64];
	pid_t pid;
	int fd;

	pid = debuggee_start(&sh, "jt_mem", &mode);
	ASSERT_LT(0, pid) TH_LOG("%s", mode);
	usleep(100000);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	/* the last three bytes of the window, the instructions' own */
	ASSERT_EQ(8, pread(fd, window, 8, addr));
	EXPECT_EQ(0, memcmp(window, (void *)jt_push, 8));
	ASSERT_EQ(3, pwrite(fd, window + 5, 3, addr + 5));
	close(fd);
	EXPECT_STREQ("trap debugger", settled("jt_mem"));
	usleep(100000);
	EXPECT_EQ(0, debuggee_end(sh, pid));
	EXPECT_EQ(sh->calls, hits("jt_mem"));
	munmap(sh, 4096);
}

#define SPAWNS		16
#define SPAWN_CALLS	20000

/*
 * A probe on this file, in every process that maps it: this one, whose
 * 8 threads call jt_push() throughout, and 16 more started 4 at a time
 * by posix_spawn() (CLONE_VM | CLONE_VFORK: each child runs in this
 * process's memory, where the jumps are, until it execs this file
 * again, whose probe then goes in, by a trap and then a jump), each
 * calling it SPAWN_CALLS times.  Every call counts once: each child's
 * count is folded in when it exits.
 */
TEST_F_TIMEOUT(jump, posix_spawn_of_a_probed_file, 600)
{
	char path[256], calls[16], *argv[] = { path, "--spawned", calls, NULL };
	long off, size = fn_size(&fns[1]), each[THREADS];
	pid_t pids[4];
	int i, k, st;

	off = self_offset((void *)jt_push, path, sizeof(path));
	ASSERT_LT(0, off);
	snprintf(calls, sizeof(calls), "%d", SPAWN_CALLS);
	ASSERT_EQ(0, events("p:jt_file %s:%#lx func=%#lx+%#lx", path, off,
			    off, size));
	ASSERT_STREQ("jump", settled("jt_file"));
	stop = 0;
	for (i = 0; i < THREADS; i++) {
		callers[i].calls = 0;
		ASSERT_EQ(0, pthread_create(&callers[i].thread, NULL,
					    call_loop, &callers[i]));
	}
	for (k = 0; k < SPAWNS; k += 4) {
		for (i = 0; i < 4; i++)
			ASSERT_EQ(0, posix_spawn(&pids[i], path, NULL, NULL,
						 argv, environ));
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
			EXPECT_EQ(0, st) TH_LOG("child %d of %d", k + i, SPAWNS);
		}
	}
	park(1);
	EXPECT_EQ(calls_now(each) + SPAWNS * SPAWN_CALLS, hits("jt_file"));
	park(0);
	stop = 1;
	for (i = 0; i < THREADS; i++) {
		pthread_join(callers[i].thread, NULL);
		EXPECT_EQ(0, callers[i].bad);
	}
	ASSERT_EQ(0, events("-:jt_file"));
}

static int scan_pipe[2];

static void *stack_sleeper(void *arg)
{
	get_byte(scan_pipe[0]);
	return NULL;
}

/*
 * A thread's stack lies just below a readable mapping holding words
 * that look like a signal frame whose saved ip is inside the window:
 * the stack is searched for signal frames only up to the end of its
 * own mapping, so the jump goes in.
 */
TEST_F_TIMEOUT(jump, stack_search_stays_in_the_stack, 300)
{
	size_t stack = 256 * 1024, page = getpagesize();
	unsigned long *fake;
	pthread_attr_t attr;
	pthread_t t;
	char *map;

	map = mmap(NULL, stack + page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	/* what utp_jump_sigframe_ip() takes for a frame: a flag word... */
	fake = (unsigned long *)(map + stack);
	fake[9] = 0;
	/* ... the word below the saved ip above it, and the saved ip */
	fake[29] = ~0UL;
	fake[30] = (unsigned long)jt_push + 1;
	ASSERT_EQ(0, mprotect(fake, page, PROT_READ));
	ASSERT_EQ(0, pipe(scan_pipe));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstack(&attr, map, stack));
	ASSERT_EQ(0, pthread_create(&t, &attr, stack_sleeper, NULL));
	ASSERT_EQ(0, define("jt_scan", getpid(), &fns[1], 0, NULL));
	EXPECT_STREQ("jump", settled("jt_scan"));
	EXPECT_EQ(12, jt_push(10));
	EXPECT_EQ(1, hits("jt_scan"));
	put_byte(scan_pipe[1]);
	EXPECT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, events("-:jt_scan"));
	close(scan_pipe[0]);
	close(scan_pipe[1]);
	munmap(map, stack + page);
}

/*
 * A mainline uprobe placed inside a window (perf probe or bpftrace on
 * the same function): the jump goes out before mainline's int3 goes in,
 * and both engines count every call.  Last: the process keeps int3s
 * from then on.
 */
TEST_F_TIMEOUT(jump, mainline_uprobe_in_the_window, 300)
{
	char path[256], def[512];
	long off;
	int i;

	ASSERT_EQ(0, define("jt_ml", getpid(), &fns[1], 0, NULL));
	ASSERT_STREQ("jump", settled("jt_ml"));
	for (i = 0; i < 10; i++)
		jt_push(i);
	/* at jt_push + 1, mov %rsp,%rbp: inside the jump's bytes */
	off = self_offset((char *)jt_push + 1, path, sizeof(path));
	ASSERT_LT(0, off);
	snprintf(def, sizeof(def), "p:jtml/inside %s:%#lx\n", path, off);
	ASSERT_EQ(0, write_file(TRACEFS "/uprobe_events", O_APPEND, "%s", def));
	ASSERT_EQ(0, write_file(TRACEFS "/events/jtml/enable", 0, "1"));
	EXPECT_STREQ("trap uprobes", settled("jt_ml"));
	for (i = 0; i < 20; i++)
		ASSERT_EQ(i + 2, jt_push(i));
	EXPECT_EQ(30, hits("jt_ml"));
	EXPECT_EQ(20, mainline_hits("inside"));
	ASSERT_EQ(0, write_file(TRACEFS "/events/jtml/enable", 0, "0"));
	ASSERT_EQ(0, write_file(TRACEFS "/uprobe_events", O_APPEND,
				"-:jtml/inside\n"));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(i + 2, jt_push(i));
	EXPECT_EQ(35, hits("jt_ml"));
}

/* This file started by posix_spawn_of_a_probed_file: calls, and exits */
int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--spawned"))
		return call_push(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
