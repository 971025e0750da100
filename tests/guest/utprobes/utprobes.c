// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes tests: probes defined through tracefs on instructions of each
 * class in a child process, with exact hit counts, unchanged behaviour,
 * text restored on removal, and an errno for each kind of bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define CALLS 500

/*
 * Probed code.  Each function holds one instruction of a class at the
 * label the test probes; each returns a value the child checks, so an
 * instruction run wrongly out of line shows.
 */
long utp_data = 5;

long f_nop(long x);
long f_push(long x);
long f_step(long x);
long f_riprel_load(long x);
long f_riprel_store(long x);
long f_call(long x);
long f_ret(long x);
long f_jmp(long x);
long f_jcc(long x);
long f_pop(long x);
long f_refused(long x);
long f_call_reg(long x);
long f_call_mem(long x);
long f_jmp_reg(long x);
long f_jmp_mem(long x);
long f_pushf(long x);
long f_loop(long x);
long f_jrcxz(long x);
long f_jmp32(long x);
long f_jcc32(long x);
long f_loop_self(long x);
extern char l_nop[], l_push[], l_step[], l_load[], l_store[], l_call[];
extern char l_ret[], l_jmp[], l_jcc[], l_pop[], l_syscall[], l_ud2[];
extern char l_int3[], l_call_reg[], l_call_mem[], l_jmp_reg[], l_jmp_mem[];
extern char l_pushf[], l_loop[], l_jrcxz[], l_jmp32[], l_jcc32[];
extern char l_loop_self[];

asm(".text\n"
    /* nop: emulated; returns x + 1 */
    ".globl f_nop\n f_nop:\n"
    ".globl l_nop\n l_nop: nop\n"
    "	lea 1(%rdi), %rax\n ret\n"
    /* push %rbp: emulated; returns x + 2 */
    ".globl f_push\n f_push:\n"
    ".globl l_push\n l_push: push %rbp\n"
    "	mov %rsp, %rbp\n lea 2(%rdi), %rax\n pop %rbp\n ret\n"
    /* lea: single-stepped; returns 3x */
    ".globl f_step\n f_step:\n"
    ".globl l_step\n l_step: lea (%rdi,%rdi,2), %rax\n ret\n"
    /* rip-relative load: returns utp_data + x */
    ".globl f_riprel_load\n f_riprel_load:\n"
    ".globl l_load\n l_load: mov utp_data(%rip), %rax\n"
    "	add %rdi, %rax\n ret\n"
    /* rip-relative store: utp_data = x; returns utp_data */
    ".globl f_riprel_store\n f_riprel_store:\n"
    ".globl l_store\n l_store: mov %rdi, utp_data(%rip)\n"
    "	mov utp_data(%rip), %rax\n ret\n"
    /* call rel32: returns 2x + 1 */
    ".globl f_call\n f_call:\n"
    ".globl l_call\n l_call: call 1f\n"
    "	add $1, %rax\n ret\n"
    "1:	lea (%rdi,%rdi), %rax\n ret\n"
    /* ret: returns x + 4 */
    ".globl f_ret\n f_ret:\n"
    "	lea 4(%rdi), %rax\n"
    ".globl l_ret\n l_ret: ret\n"
    /* jmp: returns x + 5 (the skipped add would make it x + 1005) */
    ".globl f_jmp\n f_jmp:\n"
    "	lea 5(%rdi), %rax\n"
    ".globl l_jmp\n l_jmp: jmp 1f\n"
    "	add $1000, %rax\n"
    "1:	ret\n"
    /* jcc, taken for odd x: returns x + 6, or x + 7 for even x */
    ".globl f_jcc\n f_jcc:\n"
    "	lea 6(%rdi), %rax\n"
    "	test $1, %rdi\n"
    ".globl l_jcc\n l_jcc: jnz 1f\n"
    "	add $1, %rax\n"
    "1:	ret\n"
    /* pop: single-stepped; returns x + 8 */
    ".globl f_pop\n f_pop:\n"
    "	lea 8(%rdi), %rax\n push %rax\n"
    ".globl l_pop\n l_pop: pop %rdx\n"
    "	mov %rdx, %rax\n ret\n"
    /*
     * The single-stepped classes.  call *%rax: the callee checks that
     * its return address is the probed call's next instruction, and
     * returns 2x + 1 (-1 for a wrong return address).
     */
    ".globl f_call_reg\n f_call_reg:\n"
    "	lea utp_callee(%rip), %rax\n"
    "	lea 1f(%rip), %rcx\n"
    ".globl l_call_reg\n l_call_reg: call *%rax\n"
    "1:	ret\n"
    /* call *mem(%rip): the same through a pointer; returns 2x + 1 */
    ".globl f_call_mem\n f_call_mem:\n"
    "	lea 1f(%rip), %rcx\n"
    ".globl l_call_mem\n l_call_mem: call *utp_callee_ptr(%rip)\n"
    "1:	ret\n"
    "utp_callee:\n"
    "	cmp (%rsp), %rcx\n"
    "	jne 1f\n"
    "	lea 1(%rdi,%rdi), %rax\n ret\n"
    "1:	mov $-1, %rax\n ret\n"
    /* jmp *%rdx: returns x + 9 (the skipped add would make it x + 1009) */
    ".globl f_jmp_reg\n f_jmp_reg:\n"
    "	lea 9(%rdi), %rax\n"
    "	lea 1f(%rip), %rdx\n"
    ".globl l_jmp_reg\n l_jmp_reg: jmp *%rdx\n"
    "	add $1000, %rax\n"
    "1:	ret\n"
    /* jmp *mem(%rip): returns x + 10 */
    ".globl f_jmp_mem\n f_jmp_mem:\n"
    "	lea 10(%rdi), %rax\n"
    ".globl l_jmp_mem\n l_jmp_mem: jmp *utp_jmp_ptr(%rip)\n"
    "	add $1000, %rax\n"
    ".globl utp_jmp_target\n utp_jmp_target: ret\n"
    /*
     * pushf, with the carry flag set to bit 0 of x: returns the pushed
     * CF and TF bits (x & 1; TF, 0x100, never), then pops the flags
     * back, which a TF left in the pushed word would turn into a trap.
     */
    ".globl f_pushf\n f_pushf:\n"
    "	bt $0, %rdi\n"
    ".globl l_pushf\n l_pushf: pushf\n"
    "	mov (%rsp), %rax\n"
    "	popf\n"
    "	and $0x101, %eax\n ret\n"
    /* loop, taken once and then not: two hits a call; returns x + 2 */
    ".globl f_loop\n f_loop:\n"
    "	mov $2, %ecx\n"
    "	mov %rdi, %rax\n"
    "1:	add $1, %rax\n"
    ".globl l_loop\n l_loop: loop 1b\n"
    "	ret\n"
    /*
     * loop to itself, single-stepped: taken twice, then falls through;
     * hit three times a call, returns x + 5
     */
    ".globl f_loop_self\n f_loop_self:\n"
    "	mov $3, %ecx\n"
    "	lea 5(%rdi), %rax\n"
    ".globl l_loop_self\n l_loop_self: loop l_loop_self\n"
    "	ret\n"
    /* jrcxz, taken for even x: returns x + 11, or x + 12 for odd x */
    ".globl f_jrcxz\n f_jrcxz:\n"
    "	mov %rdi, %rcx\n"
    "	and $1, %ecx\n"
    "	lea 11(%rdi), %rax\n"
    ".globl l_jrcxz\n l_jrcxz: jrcxz 1f\n"
    "	add $1, %rax\n"
    "1:	ret\n"
    /* jmp rel32 (e9), emulated: returns x + 13 */
    ".globl f_jmp32\n f_jmp32:\n"
    "	lea 13(%rdi), %rax\n"
    ".globl l_jmp32\n l_jmp32: .byte 0xe9\n .long 1f - . - 4\n"
    "	add $1000, %rax\n"
    "1:	ret\n"
    /* jz rel32 (0f 84), taken for even x: returns x + 14, or x + 15 */
    ".globl f_jcc32\n f_jcc32:\n"
    "	lea 14(%rdi), %rax\n"
    "	test $1, %rdi\n"
    ".globl l_jcc32\n l_jcc32: .byte 0x0f, 0x84\n .long 1f - . - 4\n"
    "	add $1, %rax\n"
    "1:	ret\n"
    ".data\n"
    "utp_callee_ptr: .quad utp_callee\n"
    "utp_jmp_ptr: .quad utp_jmp_target\n"
    ".text\n"
    /* instructions that cannot be probed; never called */
    ".globl f_refused\n f_refused:\n"
    ".globl l_syscall\n l_syscall: syscall\n"
    ".globl l_ud2\n l_ud2: ud2\n"
    ".globl l_int3\n l_int3: int3\n"
    "	ret\n"
    /* a load that faults on a bad pointer: run through its slot */
    ".globl f_fault\n f_fault:\n"
    ".globl l_fault\n l_fault: mov (%rdi), %rax\n ret\n");

long f_fault(long *p);
extern char l_fault[];

/*
 * push and call (emulated) with the stack pointer at @sp, where nothing
 * can be written: they fault, the stack pointer is put back by the
 * handler's siglongjmp().
 */
asm(".text\n"
    ".globl f_push_at\n f_push_at:\n"
    "	mov %rdi, %rsp\n"
    ".globl l_push_at\n l_push_at: push %rbp\n"
    "	ud2\n"
    ".globl f_call_at\n f_call_at:\n"
    "	mov %rdi, %rsp\n"
    ".globl l_call_at\n l_call_at: call 1f\n"
    "1:	ud2\n");
void f_push_at(void *sp);
void f_call_at(void *sp);
extern char l_push_at[], l_call_at[];

/* x + 1020; x + 20 when a handler moves the thread past the add */
long f_skip(long x);
extern char l_skip[], l_skip_to[];
asm(".text\n"
    ".globl f_skip\n f_skip:\n"
    "	lea 20(%rdi), %rax\n"
    ".globl l_skip\n l_skip: add $1000, %rax\n"
    ".globl l_skip_to\n l_skip_to: ret\n");

struct probe_case {
	const char *name;
	long (*fn)(long);
	char *label;
	long (*expect)(long);
	int per_call;		/* hits a call */
};

static long e_nop(long x) { return x + 1; }
static long e_push(long x) { return x + 2; }
static long e_step(long x) { return 3 * x; }
static long e_load(long x) { return 5 + x; }
static long e_store(long x) { return x; }
static long e_call(long x) { return 2 * x + 1; }
static long e_ret(long x) { return x + 4; }
static long e_jmp(long x) { return x + 5; }
static long e_jcc(long x) { return x + ((x & 1) ? 6 : 7); }
static long e_pop(long x) { return x + 8; }
static long e_call_ind(long x) { return 2 * x + 1; }
static long e_jmp_reg(long x) { return x + 9; }
static long e_jmp_mem(long x) { return x + 10; }
static long e_pushf(long x) { return x & 1; }
static long e_loop(long x) { return x + 2; }
static long e_jrcxz(long x) { return x + ((x & 1) ? 12 : 11); }
static long e_jmp32(long x) { return x + 13; }
static long e_jcc32(long x) { return x + ((x & 1) ? 15 : 14); }
static long e_loop_self(long x) { return x + 5; }

enum { C_NOP, C_PUSH, C_LEA, C_LOAD, C_STORE, C_CALL, C_RET, C_JMP, C_JCC,
	C_POP, C_CALL_REG, C_CALL_MEM, C_JMP_REG, C_JMP_MEM, C_PUSHF, C_LOOP,
	C_JRCXZ, C_JMP32, C_JCC32, C_LOOP_SELF };

static const struct probe_case cases[] = {
	{ "nop", f_nop, l_nop, e_nop, 1 },
	{ "push", f_push, l_push, e_push, 1 },
	{ "lea", f_step, l_step, e_step, 1 },
	{ "riprel_load", f_riprel_load, l_load, e_load, 1 },
	{ "riprel_store", f_riprel_store, l_store, e_store, 1 },
	{ "call", f_call, l_call, e_call, 1 },
	{ "ret", f_ret, l_ret, e_ret, 1 },
	{ "jmp", f_jmp, l_jmp, e_jmp, 1 },
	{ "jcc", f_jcc, l_jcc, e_jcc, 1 },
	{ "pop", f_pop, l_pop, e_pop, 1 },
	{ "call_reg", f_call_reg, l_call_reg, e_call_ind, 1 },
	{ "call_mem", f_call_mem, l_call_mem, e_call_ind, 1 },
	{ "jmp_reg", f_jmp_reg, l_jmp_reg, e_jmp_reg, 1 },
	{ "jmp_mem", f_jmp_mem, l_jmp_mem, e_jmp_mem, 1 },
	{ "pushf", f_pushf, l_pushf, e_pushf, 1 },
	{ "loop", f_loop, l_loop, e_loop, 2 },
	{ "jrcxz", f_jrcxz, l_jrcxz, e_jrcxz, 1 },
	{ "jmp32", f_jmp32, l_jmp32, e_jmp32, 1 },
	{ "jcc32", f_jcc32, l_jcc32, e_jcc32, 1 },
	{ "loop_self", f_loop_self, l_loop_self, e_loop_self, 3 },
};

static long per_call(const struct probe_case *c)
{
	return c->per_call;
}

struct run {
	const struct probe_case *c;
	int calls;
	int bad;
};

static void *run_calls(void *arg)
{
	struct run *r = arg;

	for (long i = 0; i < r->calls; i++)
		if (r->c->fn(i) != r->c->expect(i))
			r->bad++;
	return NULL;
}

/*
 * A child that waits for go(), then runs @c's function @calls times in
 * each of @threads threads and exits 0 if every result was right.
 */
static struct child spawn(const struct probe_case *c, int calls, int threads)
{
	struct child ch = fork_child();

	if (ch.pid == 0) {
		struct run r[2] = { { c, calls, 0 }, { c, calls, 0 } };
		pthread_t t;

		if (threads > 1)
			pthread_create(&t, NULL, run_calls, &r[1]);
		run_calls(&r[0]);
		if (threads > 1)
			pthread_join(t, NULL);
		_exit(r[0].bad + r[1].bad ? 1 : 0);
	}
	return ch;
}

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

/*
 * Tests that take long on the debug kernel (KASAN, kmemleak) under
 * emulation: more than the harness's default 30 s.
 */
FIXTURE(slow) {
	char dummy;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

FIXTURE(utprobes) {
	char dummy;
};

FIXTURE_SETUP(utprobes)
{
	int fd = open(EVENTS, O_WRONLY | O_TRUNC);

	ASSERT_LE(0, fd) TH_LOG("%s: %s", EVENTS, strerror(errno));
	close(fd);
}

FIXTURE_TEARDOWN(utprobes)
{
	int fd = open(EVENTS, O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
}

FIXTURE_VARIANT(utprobes) {
	int which;
	int threads;
};

#define CASE(n, w, t) \
	FIXTURE_VARIANT_ADD(utprobes, n) { .which = w, .threads = t }
CASE(nop, C_NOP, 1);
CASE(push, C_PUSH, 1);
CASE(lea, C_LEA, 1);
CASE(riprel_load, C_LOAD, 1);
CASE(riprel_store, C_STORE, 1);
CASE(call, C_CALL, 1);
CASE(ret, C_RET, 1);
CASE(jmp, C_JMP, 1);
CASE(jcc, C_JCC, 1);
CASE(pop, C_POP, 1);
CASE(call_reg, C_CALL_REG, 1);
CASE(call_mem, C_CALL_MEM, 1);
CASE(jmp_reg, C_JMP_REG, 1);
CASE(jmp_mem, C_JMP_MEM, 1);
CASE(pushf, C_PUSHF, 1);
CASE(loop, C_LOOP, 1);
CASE(jrcxz, C_JRCXZ, 1);
CASE(jmp32, C_JMP32, 1);
CASE(jcc32, C_JCC32, 1);
CASE(loop_self, C_LOOP_SELF, 1);
CASE(nop_2threads, C_NOP, 2);
CASE(lea_2threads, C_LEA, 2);
CASE(riprel_load_2threads, C_LOAD, 2);
CASE(call_2threads, C_CALL, 2);
CASE(jcc_2threads, C_JCC, 2);
CASE(call_reg_2threads, C_CALL_REG, 2);
CASE(pushf_2threads, C_PUSHF, 2);

/*
 * Hits equal calls, results are right, and once the probe is removed
 * the child's text is the original again.
 */
TEST_F(utprobes, hits_equal_calls)
{
	const struct probe_case *c = &cases[variant->which];
	struct child ch = spawn(c, CALLS, variant->threads);
	unsigned char orig = *(unsigned char *)c->label;
	unsigned char byte = 0;
	int st;

	ASSERT_NE(0xcc, orig);
	ASSERT_EQ(0, events("p:%s %d:%p", c->name, ch.pid, c->label));
	/* the child's copy of the page has the int3, ours does not */
	ASSERT_EQ(0, text_read(ch.pid, c->label, &byte, 1));
	EXPECT_EQ(0xcc, byte);
	EXPECT_EQ(orig, *(unsigned char *)c->label);
	go(&ch);
	st = reap(ch.pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(CALLS * variant->threads * per_call(c), hits(c->name));
	EXPECT_EQ(0, events("-:%s", c->name));
	EXPECT_EQ(-1, hits(c->name));
}

/*
 * The same child code, for the tests that are not per-class: an
 * emulated instruction, one that runs through its slot and one that is
 * single-stepped.
 */
static const struct probe_case *const nop_case = &cases[C_NOP];
static const struct probe_case *const slot_case = &cases[C_LEA];
static const struct probe_case *const stepped_case = &cases[C_PUSHF];

static void fill_capdata(struct __user_cap_data_struct *d, int bit)
{
	d[bit / 32].effective &= ~(1U << (bit % 32));
}

FIXTURE(input) {
	pid_t pid;
	int go;
	char before[4096];
};

FIXTURE_SETUP(input)
{
	struct child ch = spawn(nop_case, 1, 1);
	int fd = open(EVENTS, O_WRONLY | O_TRUNC);

	ASSERT_LE(0, fd);
	close(fd);
	self->pid = ch.pid;
	self->go = ch.go;
	ASSERT_EQ(0, events("p:ok %d:%p", self->pid, l_nop));
	read_file(EVENTS, self->before, sizeof(self->before));
}

FIXTURE_TEARDOWN(input)
{
	int fd;

	close(self->go);
	kill(self->pid, SIGKILL);
	reap(self->pid);
	fd = open(EVENTS, O_WRONLY | O_TRUNC);
	if (fd >= 0)
		close(fd);
}

/* Each bad definition gets its errno and leaves the probes as they were. */
TEST_F(input, bad_input_gets_its_errno_and_changes_nothing)
{
	char after[4096], buf[128];
	int pid = self->pid;
	const struct { int err; const char *fmt; void *addr; } bad[] = {
		{ -EINVAL, "p:x", NULL },
		{ -EINVAL, "q:x %d:%p", l_step },
		{ -EINVAL, "p:1x %d:%p", l_step },
		{ -EINVAL, "p:x-y %d:%p", l_step },
		{ -EINVAL, "p:x %d", NULL },
		{ -EINVAL, "p:x %d:zz", NULL },
		{ -EINVAL, "-:ok extra", NULL },
		{ -EEXIST, "p:ok %d:%p", l_step },
		{ -ENOENT, "-:nosuch", NULL },
		{ -ESRCH, "p:x 999999:%p", l_step },
		{ -EFAULT, "p:x %d:%p", &utp_data },
		{ -EFAULT, "p:x %d:0x10", NULL },
		{ -EOPNOTSUPP, "p:x %d:%p", l_syscall },
		{ -EOPNOTSUPP, "p:x %d:%p", l_ud2 },
		{ -EBUSY, "p:x %d:%p", l_int3 },	/* an int3 not ours */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (strstr(bad[i].fmt, "999999"))
			snprintf(buf, sizeof(buf), bad[i].fmt, bad[i].addr);
		else
			snprintf(buf, sizeof(buf), bad[i].fmt, pid,
				 bad[i].addr);
		EXPECT_EQ(bad[i].err, events("%s", buf)) TH_LOG("%s", buf);
		EXPECT_STREQ(self->before, read_file(EVENTS, after,
						     sizeof(after)));
	}
}

/* The int3 state of @addr in @pid: 1 if it holds one, 0 if not, -1. */
static int has_int3(pid_t pid, void *addr)
{
	unsigned char byte;

	return text_read(pid, addr, &byte, 1) ? -1 : byte == 0xcc;
}

/*
 * The lines of one write are applied in order up to the first that
 * fails, whose errno the write returns: a probe added and removed
 * again, one added, then one refused and one never looked at.
 */
TEST_F(input, multi_line_write_applied_up_to_first_failure)
{
	char after[4096], want[4096 + 128];
	int pid = self->pid;

	EXPECT_EQ(-EEXIST, events("p:a %d:%p\np:b %d:%p\n-:a\n"
				  "p:ok %d:%p\np:c %d:%p\n",
				  pid, l_step, pid, l_call, pid, l_jmp,
				  pid, l_jcc));
	snprintf(want, sizeof(want), "%sp:b %d:%p\n", self->before, pid,
		 l_call);
	EXPECT_STREQ(want, read_file(EVENTS, after, sizeof(after)));
	EXPECT_EQ(0, has_int3(pid, l_step));
	EXPECT_EQ(1, has_int3(pid, l_call));
	EXPECT_EQ(0, has_int3(pid, l_jmp));
	EXPECT_EQ(0, has_int3(pid, l_jcc));
	EXPECT_EQ(0, hits("b"));
	EXPECT_EQ(-1, hits("a"));
	EXPECT_EQ(-1, hits("c"));
	/* a blank line and a comment are no commands */
	EXPECT_EQ(0, events("-:b\n\n# comment\np:c %d:%p", pid, l_jcc));
	snprintf(want, sizeof(want), "%sp:c %d:%p\n", self->before, pid,
		 l_jcc);
	EXPECT_STREQ(want, read_file(EVENTS, after, sizeof(after)));
	EXPECT_EQ(0, has_int3(pid, l_call));
	EXPECT_EQ(1, has_int3(pid, l_jcc));
}

/*
 * Removals that follow each other in a write go together, yet as if each
 * were done in turn: those before the first that fails are gone, that
 * one and those after stay; a probe named twice is gone at the first,
 * and the second finds none; one whose event is on is busy.
 */
TEST_F(input, removals_in_a_row_stop_at_the_first_failure)
{
	const char *en = "/sys/kernel/tracing/events/utprobes/e/enable";
	char after[4096], want[4096 + 256];
	int pid = self->pid;

	ASSERT_EQ(0, events("p:a %d:%p\np:b %d:%p\np:c %d:%p\np:d %d:%p\n"
			    "p:e %d:%p\n",
			    pid, l_step, pid, l_call, pid, l_jmp, pid, l_jcc,
			    pid, l_ret));
	EXPECT_EQ(-ENOENT, events("-:a\n-:nosuch\n-:b\n"));
	EXPECT_EQ(-ENOENT, events("-:b\n-:b\n-:c\n"));
	ASSERT_EQ(0, write_file(en, 0, "1"));
	EXPECT_EQ(-EBUSY, events("-:c\n-:e\n-:d\n"));
	snprintf(want, sizeof(want), "%sp:d %d:%p\np:e %d:%p\n",
		 self->before, pid, l_jcc, pid, l_ret);
	EXPECT_STREQ(want, read_file(EVENTS, after, sizeof(after)));
	EXPECT_EQ(0, has_int3(pid, l_step));
	EXPECT_EQ(0, has_int3(pid, l_call));
	EXPECT_EQ(0, has_int3(pid, l_jmp));
	EXPECT_EQ(1, has_int3(pid, l_jcc));
	EXPECT_EQ(1, has_int3(pid, l_ret));
	EXPECT_EQ(-1, hits("a"));
	EXPECT_EQ(-1, hits("c"));
	EXPECT_EQ(0, hits("d"));
	ASSERT_EQ(0, write_file(en, 0, "0"));
	EXPECT_EQ(0, events("-:e\n-:d\n"));
	EXPECT_STREQ(self->before, read_file(EVENTS, after, sizeof(after)));
}

/* Without CAP_SYS_ADMIN: -EPERM, even for root. */
TEST_F(input, no_cap_sys_admin_eperm)
{
	char after[4096];
	pid_t p = fork();

	if (p == 0) {
		struct __user_cap_header_struct h = {
			_LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];

		if (syscall(SYS_capget, &h, d))
			_exit(10);
		fill_capdata(d, CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &h, d))
			_exit(11);
		_exit(events("p:x %d:%p", self->pid, l_step) == -EPERM ? 0 : 1);
	}
	EXPECT_EQ(0, reap(p));
	EXPECT_STREQ(self->before, read_file(EVENTS, after, sizeof(after)));
}

/*
 * A pid-scoped probe does not follow fork: the child has no int3 and its
 * calls are not counted.  With two threads, the second one hits the
 * probe while the first forks.
 */
static void child_forks(const struct probe_case *c, int threads, int go_fd)
{
	struct run other = { c, CALLS, 0 };
	int bad = 0, st;
	pthread_t t;
	pid_t g;
	char x;

	if (read(go_fd, &x, 1) != 1)
		_exit(100);
	if (threads > 1 && pthread_create(&t, NULL, run_calls, &other))
		_exit(101);
	g = fork();
	for (long i = 0; i < CALLS; i++)
		bad += c->fn(i) != c->expect(i);
	if (g == 0)
		_exit(bad || *(unsigned char *)c->label == 0xcc ? 1 : 0);
	if (threads > 1)
		pthread_join(t, NULL);
	if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
		bad++;
	_exit(bad || other.bad ? 1 : 0);
}

TEST_F(utprobes, fork_child_not_probed)
{
	const struct probe_case *c = &cases[variant->which];
	int p[2], st;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		child_forks(c, variant->threads, p[0]);
	}
	close(p[0]);
	ASSERT_EQ(0, events("p:%s %d:%p", c->name, pid, c->label));
	ASSERT_EQ(1, write(p[1], "g", 1));
	close(p[1]);
	st = reap(pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(CALLS * variant->threads * per_call(c), hits(c->name));
}

/* exec drops the old image's probes; the new image runs untouched. */
TEST(exec_drops_probes)
{
	int p[2], st, fd = open(EVENTS, O_WRONLY | O_TRUNC);
	pid_t pid;
	char x;

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(100);
		slot_case->fn(1);
		execl("/bin/busybox", "true", NULL);
		_exit(99);
	}
	close(p[0]);
	ASSERT_EQ(0, events("p:e %d:%p", pid, slot_case->label));
	ASSERT_EQ(1, write(p[1], "g", 1));
	close(p[1]);
	st = reap(pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(1, hits("e"));
	EXPECT_EQ(0, events("-:e"));
}

/* SIGKILL a child hitting a probe as fast as it can. */
static void *hit_forever(void *arg)
{
	const struct probe_case *c = arg;

	for (long i = 0;; i++)
		if (c->fn(i) != c->expect(i))
			_exit(1);
	return NULL;
}

/*
 * Two threads each make exactly KILL_CALLS calls and block: the hits
 * equal the calls.  Let go, they hit the probe as fast as they can, and
 * SIGKILL comes once they have hit it as often again.  For an emulated
 * instruction, one run through its slot and one single-stepped.
 */
#define KILL_CALLS 200

struct kill_run {
	const struct probe_case *c;
	int done;		/* written when the counted calls are made */
	int more;		/* read before hitting forever */
};

static void *count_then_hit(void *arg)
{
	struct kill_run *k = arg;
	char x;

	for (long i = 0; i < KILL_CALLS; i++)
		if (k->c->fn(i) != k->c->expect(i))
			_exit(1);
	if (write(k->done, "d", 1) != 1 || read(k->more, &x, 1) != 1)
		_exit(2);
	return hit_forever((void *)k->c);
}

TEST(sigkill_while_hitting)
{
	static const int which[] = { C_NOP, C_LEA, C_PUSHF };

	for (int k = 0; k < 3; k++) {
		const struct probe_case *c = &cases[which[k]];
		int fd = open(EVENTS, O_WRONLY | O_TRUNC), st, done[2], more[2];
		char x[2];
		pid_t pid;

		ASSERT_LE(0, fd);
		close(fd);
		ASSERT_EQ(0, pipe(done));
		ASSERT_EQ(0, pipe(more));
		pid = fork();
		if (pid == 0) {
			struct kill_run r = { c, done[1], more[0] };
			pthread_t t;

			if (read(more[0], x, 1) != 1)
				_exit(100);
			pthread_create(&t, NULL, count_then_hit, &r);
			count_then_hit(&r);
		}
		close(done[1]);
		close(more[0]);
		ASSERT_EQ(0, events("p:k %d:%p", pid, c->label));
		ASSERT_EQ(1, write(more[1], "g", 1));
		ASSERT_EQ(1, read(done[0], x, 1));
		ASSERT_EQ(1, read(done[0], x, 1));
		EXPECT_EQ(2 * KILL_CALLS, hits("k")) TH_LOG("%s", c->name);
		ASSERT_EQ(2, write(more[1], "gg", 2));
		for (int i = 0; i < 4000 && hits("k") < 4 * KILL_CALLS; i++)
			usleep(5000);
		ASSERT_EQ(0, kill(pid, SIGKILL));
		st = reap(pid);
		ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("status %#x", st);
		EXPECT_EQ(SIGKILL, WTERMSIG(st));
		EXPECT_EQ(0, events("-:k"));
		close(done[0]);
		close(more[1]);
	}
}

/*
 * Queued signals sent by another thread arrive at any point, mid-step
 * too; each is delivered once, after the step, and its handler hits the
 * same probe.  The probe is on pushf, which is single-stepped: a signal
 * frame built with the step's trap flag, or a pushed word that kept it,
 * would trap the child.
 */
static volatile int handled;
static volatile int handler_bad;

static void on_rt(int sig)
{
	if (stepped_case->fn(handled) != stepped_case->expect(handled))
		handler_bad++;
	handled++;
}

struct sender {
	pid_t tid;
	int n;
};

static void *send_signals(void *arg)
{
	struct sender *s = arg;

	for (int i = 0; i < s->n; i++) {
		while (syscall(SYS_tgkill, getpid(), s->tid, SIGRTMIN) &&
		       errno == EAGAIN)
			sched_yield();
		usleep(200);
	}
	return NULL;
}

#define SIGNALS 100

TEST_F_TIMEOUT(slow, signals_mid_step_delivered_after, 120)
{
	int p[2], q[2], st, fd = open(EVENTS, O_WRONLY | O_TRUNC);
	long calls = 0;
	pid_t pid;
	char x;

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pipe(q));
	pid = fork();
	if (pid == 0) {
		struct sender s = { gettid(), SIGNALS };
		int bad = 0;
		pthread_t t;
		long i;

		signal(SIGRTMIN, on_rt);
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(100);
		pthread_create(&t, NULL, send_signals, &s);
		for (i = 0; i < 4 * CALLS || handled < SIGNALS; i++)
			bad += stepped_case->fn(i) != stepped_case->expect(i);
		pthread_join(t, NULL);
		i += handled;	/* the handlers' calls */
		if (write(q[1], &i, sizeof(i)) != sizeof(i))
			_exit(4);
		/* exit code: 0 when right, else which check failed */
		_exit(bad ? 1 : handler_bad ? 2 : handled != SIGNALS ? 3 : 0);
	}
	close(p[0]);
	close(q[1]);
	ASSERT_EQ(0, events("p:s %d:%p", pid, stepped_case->label));
	ASSERT_EQ(1, write(p[1], "g", 1));
	close(p[1]);
	EXPECT_EQ((ssize_t)sizeof(calls), read(q[0], &calls, sizeof(calls)));
	close(q[0]);
	st = reap(pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_LE(4 * CALLS + SIGNALS, calls);
	EXPECT_EQ(calls, hits("s"));
	EXPECT_EQ(0, events("-:s"));
}

/* The sample module counts exactly, and can go while its probe is live. */
static int load_sample_params(pid_t pid, void *addr, const char *extra)
{
	char path[256], params[160];
	struct utsname u;
	int fd, ret;

	uname(&u);
	snprintf(path, sizeof(path),
		 "/lib/modules/%s/extra/utprobe_count.ko", u.release);
	snprintf(params, sizeof(params), "pid=%d addr=%lu %s", pid,
		 (unsigned long)addr, extra);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int load_sample(pid_t pid, void *addr)
{
	return load_sample_params(pid, addr, "");
}

static long long sample_param(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path),
		 "/sys/module/utprobe_count/parameters/%s", name);
	return atoll(read_file(path, buf, sizeof(buf)));
}

TEST(sample_module_counts_exactly)
{
	struct child ch = spawn(slot_case, CALLS, 2);
	int st;

	ASSERT_EQ(0, load_sample(ch.pid, slot_case->label));
	go(&ch);
	st = reap(ch.pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(2 * CALLS, sample_param("hits"));
	EXPECT_EQ(2 * CALLS, sample_param("engine_hits"));
	EXPECT_EQ(0, syscall(SYS_delete_module, "utprobe_count", O_NONBLOCK));
	EXPECT_EQ(-EINVAL, load_sample(0, NULL));
}

/* Unload while two threads hit the probe: they go on, unprobed. */
TEST(sample_module_unloads_with_live_probe)
{
	struct child ch;
	int st;

	ch = spawn(slot_case, 20 * CALLS, 2);
	ASSERT_EQ(0, load_sample(ch.pid, slot_case->label));
	go(&ch);
	for (int i = 0; i < 2000 && sample_param("hits") < 100; i++)
		usleep(5000);
	EXPECT_LE(100, sample_param("hits"));
	EXPECT_EQ(0, syscall(SYS_delete_module, "utprobe_count", O_NONBLOCK));
	st = reap(ch.pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x, signal %d", st,
					  WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * Several probes on one address (tests/modules/utp_multi): their
 * handlers run in registration order at each hit and each probe counts
 * every hit.  With handler 1 moving the ip past the probed add, the add
 * is skipped, and handler 2 still runs.
 */
static long e_skip(long x) { return x + 1020; }
static long e_skipped(long x) { return x + 20; }

static int load_multi(pid_t pid, int n, int jump_by)
{
	char path[256], params[200];
	struct utsname u;
	int fd, ret;

	uname(&u);
	snprintf(path, sizeof(path),
		 "/lib/modules/%s/extra/utp_multi.ko", u.release);
	snprintf(params, sizeof(params),
		 "pid=%d addr=%lu n=%d jump_by=%d jump_to=%lu", pid,
		 (unsigned long)l_skip, n, jump_by, (unsigned long)l_skip_to);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

#define MULTI_CALLS 10

TEST(several_probes_on_one_address)
{
	for (int jump = 0; jump < 2; jump++) {
		const struct probe_case c = {
			"skip", f_skip, l_skip, jump ? e_skipped : e_skip, 1
		};
		char buf[128], want[128] = "";
		struct child ch = spawn(&c, MULTI_CALLS, 1);
		int st;

		ASSERT_EQ(0, load_multi(ch.pid, 3, jump ? 1 : -1));
		go(&ch);
		st = reap(ch.pid);
		ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
		EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("jump %d", jump);
		for (int i = 0; i < MULTI_CALLS; i++)
			strcat(want, "012");
		strcat(want, "\n");
		EXPECT_STREQ(want, read_file("/sys/module/utp_multi/parameters/order",
					     buf, sizeof(buf)));
		snprintf(want, sizeof(want), "%d,%d,%d\n", MULTI_CALLS,
			 MULTI_CALLS, MULTI_CALLS);
		EXPECT_STREQ(want, read_file("/sys/module/utp_multi/parameters/hits",
					     buf, sizeof(buf)));
		EXPECT_EQ(0, syscall(SYS_delete_module, "utp_multi",
				     O_NONBLOCK));
	}
}

/*
 * Probes on files, with the dynamically linked PIE target program: its
 * own function and libc's getppid(), found by file offset.
 */
#define TARGET "/usr/libexec/utrace-tests/targets/probe_target"

struct where {
	char path[1024];
	unsigned long offset;
	unsigned long addr;
};

struct target {
	pid_t pid;
	FILE *out;
	int in;
	struct where self, libc;
};

/* Start the target with @mode and @n; read where its functions are. */
static int start_target(struct target *t, const char *mode, const char *n,
			const char *fork_arg)
{
	int out[2], in[2];
	char what[8];

	if (pipe(out) || pipe(in))
		return -1;
	t->pid = fork();
	if (t->pid == 0) {
		dup2(out[1], 1);
		dup2(in[0], 0);
		close(out[0]);
		close(in[1]);
		execl(TARGET, TARGET, mode, n, fork_arg, NULL);
		_exit(99);
	}
	close(out[1]);
	close(in[0]);
	t->out = fdopen(out[0], "r");
	t->in = in[1];
	if (!strcmp(mode, "run") || !strcmp(mode, "print"))
		return 0;
	for (int i = 0; i < 2; i++) {
		struct where w;

		if (fscanf(t->out, "%7s %1023s %lx %lx", what, w.path,
			   &w.offset, &w.addr) != 4)
			return -1;
		if (!strcmp(what, "self"))
			t->self = w;
		else
			t->libc = w;
	}
	return 0;
}

static int finish_target(struct target *t)
{
	int st;

	/* a target that does not wait may have gone: no SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	if (t->in >= 0 && write(t->in, "go\n", 3) != 3 && errno != EPIPE)
		return -1;
	close(t->in);
	t->in = -1;
	fclose(t->out);
	if (waitpid(t->pid, &st, 0) != t->pid)
		return -1;
	return st;
}

static void clear_probes(void)
{
	int fd = open(EVENTS, O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
}

/* A probe on a file covers processes started later, and their children. */
TEST(file_probe_covers_new_processes_and_children)
{
	struct target t;

	clear_probes();
	ASSERT_EQ(0, start_target(&t, "offsets", "0", NULL));
	ASSERT_EQ(0, finish_target(&t));
	ASSERT_EQ(0, events("p:self %s:%#lx", t.self.path, t.self.offset));
	ASSERT_EQ(0, events("p:libc %s:%#lx", t.libc.path, t.libc.offset));
	ASSERT_EQ(0, start_target(&t, "run", "300", "fork"));
	EXPECT_EQ(0, finish_target(&t));
	EXPECT_EQ(600, hits("self"));
	EXPECT_EQ(600, hits("libc"));
	clear_probes();
}

/* ... and processes that run it already; and pid probes work on PIE. */
TEST(file_probe_covers_running_process)
{
	unsigned char byte = 0;
	struct target t;

	clear_probes();
	ASSERT_EQ(0, start_target(&t, "wait", "300", NULL));
	ASSERT_EQ(0, events("p:self %s:%#lx", t.self.path, t.self.offset));
	ASSERT_EQ(0, events("p:libc %s:%#lx", t.libc.path, t.libc.offset));
	ASSERT_EQ(0, events("p:pie %d:%#lx", t.pid, t.self.addr));
	EXPECT_EQ(0, text_read(t.pid, (void *)t.self.addr, &byte, 1));
	EXPECT_EQ(0xcc, byte);
	EXPECT_EQ(0, finish_target(&t));
	EXPECT_EQ(300, hits("self"));
	EXPECT_EQ(300, hits("libc"));
	EXPECT_EQ(300, hits("pie"));
	clear_probes();
}

/* Once the probe is removed, the text is the file's bytes again. */
TEST(removal_restores_file_bytes)
{
	unsigned char mem[16], file[16];
	struct target t;
	int ffd;

	clear_probes();
	ASSERT_EQ(0, start_target(&t, "wait", "300", NULL));
	ASSERT_EQ(0, events("p:self %s:%#lx", t.self.path, t.self.offset));
	ASSERT_EQ(0, events("p:libc %s:%#lx", t.libc.path, t.libc.offset));
	ASSERT_EQ(0, events("-:self"));
	ASSERT_EQ(0, events("-:libc"));
	ffd = open(t.self.path, O_RDONLY);
	ASSERT_LE(0, ffd);
	EXPECT_EQ(0, text_read(t.pid, (void *)t.self.addr, mem, 16));
	EXPECT_EQ(16, pread(ffd, file, 16, t.self.offset));
	EXPECT_EQ(0, memcmp(mem, file, 16));
	close(ffd);
	ffd = open(t.libc.path, O_RDONLY);
	ASSERT_LE(0, ffd);
	EXPECT_EQ(0, text_read(t.pid, (void *)t.libc.addr, mem, 16));
	EXPECT_EQ(16, pread(ffd, file, 16, t.libc.offset));
	EXPECT_EQ(0, memcmp(mem, file, 16));
	close(ffd);
	EXPECT_EQ(0, finish_target(&t));
}

/* Bad files and offsets, each with its errno, nothing changed. */
TEST(file_probe_bad_input)
{
	char before[4096], after[4096];
	struct target t;

	clear_probes();
	ASSERT_EQ(0, start_target(&t, "offsets", "0", NULL));
	ASSERT_EQ(0, finish_target(&t));
	ASSERT_EQ(0, events("p:ok %s:%#lx", t.self.path, t.self.offset));
	read_file(EVENTS, before, sizeof(before));
	EXPECT_EQ(-ENOENT, events("p:x /no/such/file:0x10"));
	EXPECT_EQ(-EINVAL, events("p:x /tmp:0x10"));
	EXPECT_EQ(-EINVAL, events("p:x %s:", t.self.path));
	EXPECT_EQ(-EINVAL, events("p:x %s:zz", t.self.path));
	EXPECT_EQ(-ENXIO, events("p:x %s:0x7fffffff", t.self.path));
	EXPECT_EQ(-ENOEXEC, events("p:x /etc/passwd:0"));
	EXPECT_EQ(-EFAULT, events("p:x %s:0", t.self.path));
	EXPECT_EQ(-EEXIST, events("p:ok %s:%#lx", t.self.path, t.self.offset));
	EXPECT_STREQ(before, read_file(EVENTS, after, sizeof(after)));
	clear_probes();
}

/*
 * A handler unregisters its own probe at the 100th hit.  (One thread:
 * hits already under way in other threads would still be counted.)
 */
TEST(unregister_from_handler)
{
	struct child ch = spawn(slot_case, CALLS, 1);
	char params[64];
	int st;

	snprintf(params, sizeof(params), "oneshot=100");
	ASSERT_EQ(0, load_sample_params(ch.pid, slot_case->label, params));
	go(&ch);
	st = reap(ch.pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(100, sample_param("hits"));
	EXPECT_EQ(100, sample_param("engine_hits"));
	EXPECT_EQ(0, syscall(SYS_delete_module, "utprobe_count", O_NONBLOCK));
}

/* The first hit's handler registers a probe elsewhere, which then counts. */
TEST(register_from_handler)
{
	char params[64], x;
	unsigned char byte = 0;
	int go1[2], go2[2], st;
	pid_t pid;

	ASSERT_EQ(0, pipe(go1));
	ASSERT_EQ(0, pipe(go2));
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		if (read(go1[0], &x, 1) != 1)
			_exit(100);
		bad += nop_case->fn(1) != nop_case->expect(1);
		if (read(go2[0], &x, 1) != 1)
			_exit(101);
		for (long i = 0; i < CALLS; i++)
			bad += slot_case->fn(i) != slot_case->expect(i);
		_exit(bad ? 1 : 0);
	}
	snprintf(params, sizeof(params), "chain=%lu",
		 (unsigned long)slot_case->label);
	ASSERT_EQ(0, load_sample_params(pid, nop_case->label, params));
	ASSERT_EQ(1, write(go1[1], "g", 1));
	/* the second probe is in once its int3 is */
	for (int i = 0; i < 4000 && byte != 0xcc; i++) {
		usleep(5000);
		ASSERT_EQ(0, text_read(pid, slot_case->label, &byte, 1));
	}
	EXPECT_EQ(0xcc, byte);
	ASSERT_EQ(1, write(go2[1], "g", 1));
	st = reap(pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(1, sample_param("hits"));
	EXPECT_EQ(CALLS, sample_param("chain_hits"));
	EXPECT_EQ(0, syscall(SYS_delete_module, "utprobe_count", O_NONBLOCK));
}

/* Mainline uprobes (tracefs uprobe_events), side by side with ours. */
#define MAINLINE "/sys/kernel/tracing/uprobe_events"


/* The hit count of mainline uprobe event @event, or -1. */
static long long mainline_hits(const char *event)
{
	char buf[4096], *line, name[256], file[1024];
	long long n;

	read_file("/sys/kernel/tracing/uprobe_profile", buf, sizeof(buf));
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%1023s %255s %lld", file, name, &n) == 3 &&
		    !strcmp(name, event))
			return n;
	return -1;
}

static void mainline_clear(void)
{
	write_file("/sys/kernel/tracing/events/utp_mainline/enable", 0, "0");
	write_file(MAINLINE, O_TRUNC, "");
}

/*
 * work() is "lea 1(%rdi),%rax; ret": one engine on each instruction, in
 * both orders; each counts every call.  Ours on an instruction that
 * holds a mainline breakpoint is refused.
 */
TEST(mainline_uprobes_side_by_side)
{
	struct target t;
	int lea_len = 4;

	clear_probes();
	mainline_clear();
	ASSERT_EQ(0, start_target(&t, "offsets", "0", NULL));
	ASSERT_EQ(0, finish_target(&t));
	for (int order = 0; order < 2; order++) {
		unsigned long ours = t.self.offset + (order ? lea_len : 0);
		unsigned long theirs = t.self.offset + (order ? 0 : lea_len);
		struct target r;

		ASSERT_EQ(0, write_file(MAINLINE, O_APPEND,
					"p:utp_mainline/utp_work %s:%#lx\n",
					t.self.path, theirs));
		ASSERT_EQ(0, write_file("/sys/kernel/tracing/events/utp_mainline/enable",
					0, "1"));
		ASSERT_EQ(0, events("p:ours %s:%#lx", t.self.path, ours));
		ASSERT_EQ(0, start_target(&r, "run", "300", "fork"));
		EXPECT_EQ(0, finish_target(&r));
		EXPECT_EQ(600, hits("ours"));
		EXPECT_EQ(600, mainline_hits("utp_work"));
		clear_probes();
		mainline_clear();
	}

	/* the same instruction: a running process has mainline's int3 there */
	ASSERT_EQ(0, start_target(&t, "wait", "10", NULL));
	ASSERT_EQ(0, write_file(MAINLINE, O_APPEND,
				"p:utp_mainline/utp_work %s:%#lx\n",
				t.self.path, t.self.offset));
	ASSERT_EQ(0, write_file("/sys/kernel/tracing/events/utp_mainline/enable",
				0, "1"));
	EXPECT_EQ(-EBUSY, events("p:ours %s:%#lx", t.self.path, t.self.offset));
	EXPECT_EQ(-1, hits("ours"));
	EXPECT_EQ(0, finish_target(&t));
	EXPECT_EQ(10, mainline_hits("utp_work"));
	mainline_clear();
}

/* Each hit is a utprobes:utprobe_hit trace event with pid, tid, probe, ip. */
TEST(trace_event_per_hit)
{
	static char buf[1 << 20];
	struct child ch = spawn(nop_case, 50, 1);
	char want[128], *p;
	int n = 0, st;

	clear_probes();
	ASSERT_EQ(0, write_file("/sys/kernel/tracing/trace", O_TRUNC, ""));
	ASSERT_EQ(0, write_file("/sys/kernel/tracing/events/utprobes/utprobe_hit/enable",
				0, "1"));
	ASSERT_EQ(0, events("p:tev %d:%p", ch.pid, nop_case->label));
	go(&ch);
	st = reap(ch.pid);
	EXPECT_EQ(0, write_file("/sys/kernel/tracing/events/utprobes/utprobe_hit/enable",
				0, "0"));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	snprintf(want, sizeof(want), "utprobe_hit: pid=%d tid=%d probe=tev ip=%p\n",
		 ch.pid, ch.pid, nop_case->label);
	read_file("/sys/kernel/tracing/trace", buf, sizeof(buf));
	for (p = buf; (p = strstr(p, want)); p += strlen(want))
		n++;
	EXPECT_EQ(50, n);
	/* and no other hit event */
	for (n = 0, p = buf; (p = strstr(p, "utprobe_hit: ")); p++)
		n++;
	EXPECT_EQ(50, n);
	EXPECT_EQ(50, hits("tev"));
	clear_probes();
}

/* The probed program's output is byte-identical with and without probes. */
static size_t target_output(char *buf, size_t size)
{
	struct target t;
	size_t n;

	if (start_target(&t, "print", "300", NULL))
		return 0;
	n = fread(buf, 1, size, t.out);
	return finish_target(&t) ? 0 : n;
}

TEST(output_unchanged_by_probes)
{
	static char plain[8192], probed[8192];
	size_t n_plain, n_probed;
	struct target t;

	clear_probes();
	ASSERT_EQ(0, start_target(&t, "offsets", "0", NULL));
	ASSERT_EQ(0, finish_target(&t));
	n_plain = target_output(plain, sizeof(plain));
	ASSERT_LT((size_t)0, n_plain);
	ASSERT_EQ(0, events("p:self %s:%#lx", t.self.path, t.self.offset));
	ASSERT_EQ(0, events("p:ret %s:%#lx", t.self.path, t.self.offset + 4));
	n_probed = target_output(probed, sizeof(probed));
	EXPECT_EQ(n_plain, n_probed);
	EXPECT_EQ(0, memcmp(plain, probed, n_plain));
	EXPECT_EQ(300, hits("self"));
	EXPECT_EQ(300, hits("ret"));
	clear_probes();
}

/* A thread hitting the sample module's probe in a loop. */
static void *nop_forever(void *arg)
{
	return hit_forever((void *)nop_case);
}

/*
 * SIGKILL while a removal waits for a handler that sleeps: the removal
 * waits out the hits under way, one of them in the sample module's
 * handler, sleeping, in a process that dies meanwhile.  The process
 * dies, the removal ends, the module unloads; nothing hangs.
 */
TEST_F_TIMEOUT(slow, sigkill_during_removal_and_handler, 120)
{
	int go_fd[2], st;
	pid_t pid, writer;
	char x;

	clear_probes();
	ASSERT_EQ(0, pipe(go_fd));
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		if (read(go_fd[0], &x, 1) != 1)
			_exit(100);
		pthread_create(&t, NULL, nop_forever, NULL);
		hit_forever((void *)slot_case);
	}
	ASSERT_EQ(0, load_sample_params(pid, nop_case->label, "sleep_ms=300"));
	ASSERT_EQ(1, write(go_fd[1], "g", 1));
	for (int i = 0; i < 2000 && sample_param("hits") < 1; i++)
		usleep(5000);
	ASSERT_LE(1, sample_param("hits"));
	ASSERT_EQ(0, events("p:s %d:%p", pid, slot_case->label));
	writer = fork();
	if (writer == 0)
		_exit(events("-:s") ? 1 : 0);
	/* the removal waits for the sleeping handler: kill meanwhile */
	usleep(50000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	st = reap(pid);
	ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(SIGKILL, WTERMSIG(st));
	st = reap(writer);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, syscall(SYS_delete_module, "utprobe_count", O_NONBLOCK));
	clear_probes();
}

/* tree=PID: a probe on a file for one process tree only. */
TEST(file_probe_scoped_to_tree)
{
	struct target a, b;

	clear_probes();
	ASSERT_EQ(0, start_target(&a, "wait", "300", "fork"));
	ASSERT_EQ(0, start_target(&b, "wait", "300", "fork"));
	ASSERT_EQ(0, events("p:tree %s:%#lx tree=%d", a.self.path,
			    a.self.offset, a.pid));
	EXPECT_EQ(-EINVAL, events("p:bad %d:%#lx tree=%d", a.pid,
				  a.self.addr, a.pid));
	EXPECT_EQ(-ESRCH, events("p:bad %s:%#lx tree=999999", a.self.path,
				 a.self.offset));
	EXPECT_EQ(0, finish_target(&a));
	EXPECT_EQ(0, finish_target(&b));
	/* a and its child: 2 x 300; b and its child: none */
	EXPECT_EQ(600, hits("tree"));
	clear_probes();
}

/* A vfork child runs in the probed mm: its hits are handled and counted. */
TEST(vfork_child_hits_probe)
{
	int go_fd[2], st;
	pid_t pid;
	char x;

	clear_probes();
	ASSERT_EQ(0, pipe(go_fd));
	pid = fork();
	if (pid == 0) {
		pid_t v;
		int bad = 0;

		if (read(go_fd[0], &x, 1) != 1)
			_exit(100);
		for (int i = 0; i < 10; i++)
			bad += slot_case->fn(i) != slot_case->expect(i);
		v = vfork();
		if (v == 0)
			_exit(slot_case->fn(4) == slot_case->expect(4) ? 0 : 1);
		if (waitpid(v, &st, 0) != v || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		_exit(bad ? 1 : 0);
	}
	ASSERT_EQ(0, events("p:v %d:%p", pid, slot_case->label));
	ASSERT_EQ(1, write(go_fd[1], "g", 1));
	st = reap(pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(11, hits("v"));
	clear_probes();
}

static sigjmp_buf fault_jb;
static volatile unsigned long fault_ip;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	fault_ip = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	siglongjmp(fault_jb, 1);
}

/*
 * An instruction that faults where it runs out of line faults as if at
 * its own address: the handler sees the probed ip, and a good pointer
 * afterwards gives the right value.
 */
TEST(fault_seen_at_the_probed_address)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO };
	int st, p[2];
	char x;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	if (pid == 0) {
		long v = 42;

		sigaction(SIGSEGV, &sa, NULL);
		if (read(p[0], &x, 1) != 1)
			_exit(100);
		if (!sigsetjmp(fault_jb, 1))
			f_fault(NULL);
		if (fault_ip != (unsigned long)l_fault)
			_exit(1);
		_exit(f_fault(&v) == 42 ? 0 : 2);
	}
	ASSERT_EQ(0, events("p:fault %d:%p", pid, l_fault));
	ASSERT_EQ(1, write(p[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("ip %s", WEXITSTATUS(st) == 1 ?
					      "not the probed one" : "ok");
	EXPECT_EQ(2, hits("fault"));
	EXPECT_EQ(0, events("-:fault"));
}

/* The start of the process's first [utprobes] area, or NULL. */
static unsigned char *xol_area(void)
{
	char line[256];
	unsigned long start = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[utprobes]")) {
			sscanf(line, "%lx-", &start);
			break;
		}
	fclose(f);
	return (unsigned char *)start;
}

/*
 * A slot outlives its point: the code stays, and a thread may still run
 * it.  After the probe is removed, a fault there is the slot's own: the
 * kernel must not take it for the gone point's (its ip is not moved to
 * the old probed address), and the slot still runs the instruction.
 */
TEST(slot_run_after_removal)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO };
	int st, go[2], done[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	if (pid == 0) {
		long (*slot)(long *), v = 42;
		unsigned char *area;
		char x;

		sigaction(SIGSEGV, &sa, NULL);
		if (read(go[0], &x, 1) != 1 || f_fault(&v) != 42)
			_exit(100);
		if (write(done[1], "d", 1) != 1 || read(go[0], &x, 1) != 1)
			_exit(101);
		/* one point here, so one slot: the first */
		area = xol_area();
		if (!area || memcmp(area, l_fault, 3))
			_exit(1);
		slot = (long (*)(long *))area;
		if (slot(&v) != 42)
			_exit(2);
		fault_ip = 0;
		if (!sigsetjmp(fault_jb, 1))
			slot(NULL);
		_exit(fault_ip == (unsigned long)area ? 0 : 3);
	}
	ASSERT_EQ(0, events("p:gone %d:%p", pid, l_fault));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(done[0], &st, 1));
	EXPECT_EQ(1, hits("gone"));
	EXPECT_EQ(0, events("-:gone"));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
}

static volatile unsigned long fault_addr;
static volatile int fault_code;

static void on_segv_addr(int sig, siginfo_t *si, void *uc)
{
	fault_ip = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	fault_addr = (unsigned long)si->si_addr;
	fault_code = si->si_code;
	siglongjmp(fault_jb, 1);
}

/* Run @fn with the stack at @sp; 0 if it faulted as @code at @addr, @ip. */
static int stack_fault(void (*fn)(void *), void *sp, char *ip, void *addr,
		       int code)
{
	fault_ip = fault_addr = 0;
	fault_code = 0;
	if (!sigsetjmp(fault_jb, 1))
		fn(sp);
	if (fault_ip != (unsigned long)ip)
		return 1;
	return fault_addr == (unsigned long)addr && fault_code == code ? 0 : 2;
}

/*
 * An emulated push or call whose stack cannot be written faults as it
 * does unprobed: SIGSEGV at the probed ip, with the real si_addr and
 * si_code, and the hit is counted once.
 */
TEST(emulated_stack_fault_is_the_real_one)
{
	struct sigaction sa = { .sa_sigaction = on_segv_addr,
				.sa_flags = SA_SIGINFO | SA_ONSTACK };
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	int st, p[2], ready[2];
	char x;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	if (pid == 0) {
		char *top = none + 4096;

		sigaltstack(&ss, NULL);
		sigaction(SIGSEGV, &sa, NULL);
		/* unprobed first: what the machine itself reports */
		if (stack_fault(f_push_at, top, l_push_at, top - 8,
				SEGV_ACCERR) ||
		    stack_fault(f_call_at, top, l_call_at, top - 8,
				SEGV_ACCERR))
			_exit(1);
		if (write(ready[1], "r", 1) != 1 || read(p[0], &x, 1) != 1)
			_exit(100);
		if (stack_fault(f_push_at, top, l_push_at, top - 8,
				SEGV_ACCERR))
			_exit(2);
		if (stack_fault(f_call_at, top, l_call_at, top - 8,
				SEGV_ACCERR))
			_exit(3);
		_exit(0);
	}
	close(ready[1]);
	/* EOF if the unprobed run went wrong: the status then tells */
	read(ready[0], &x, 1);
	ASSERT_EQ(0, events("p:pushat %d:%p", pid, l_push_at));
	ASSERT_EQ(0, events("p:callat %d:%p", pid, l_call_at));
	ASSERT_EQ(1, write(p[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(1, hits("pushat"));
	EXPECT_EQ(1, hits("callat"));
	clear_probes();
}

TEST_HARNESS_MAIN
