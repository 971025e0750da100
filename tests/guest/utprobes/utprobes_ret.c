// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes return probes, defined through tracefs (r:NAME PID:ADDR) on
 * functions of a child process: for each workload the returns equal the
 * calls that returned, the calls longjmp() skipped are counted unwound,
 * none stays pending, the nesting bound holds, and the child's results
 * are right.  The durations land in the right log2 bucket.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"
#include "../../targets/ret_funcs.h"

#define N 200
#define DEPTH 1000
#define TOO_DEEP 5000
#define JUMP_DEPTH 5
#define SLEEP_MS 300
#define DEPTH_MAX 4096		/* UTPROBE_RET_DEPTH_MAX */
/* points per process at most, return sites included */
#define POINTS_MAX_PARAM "/sys/module/utprobes/parameters/points_max"

/* The bound the kernel has now, its text in @buf (@size bytes): 0 if none */
static long points_max(char *buf, size_t size)
{
	read_file(POINTS_MAX_PARAM, buf, size);
	return atol(buf);
}

static void on_usr1(int sig)
{
	if (rp_leaf(sig) != 2 * sig + 1)
		_exit(3);
}

PROBED long rp_raiser(long x)
{
	raise(SIGUSR1);
	KEEP(x);
	return x + 7;
}

PROBED void rp_jump(jmp_buf *jb, int depth)
{
	if (depth < 0)
		return;
	if (!depth)
		longjmp(*jb, 1);
	rp_jump(jb, depth - 1);
	KEEP(depth);
}

PROBED pid_t rp_fork(void)
{
	pid_t pid = fork();

	KEEP(pid);
	return pid;
}

PROBED void rp_exiter(int code)
{
	KEEP(code);
	_exit(code);
}

/*
 * rp_tail(x) jumps to rp_leaf(x + 1), which returns 2x + 3 for both:
 * a tail call, the two calls with one return address in one slot.
 */
long rp_tail(long x);
asm(".text\n"
    ".globl rp_tail\n"
    ".type rp_tail, @function\n"
    "rp_tail:\n"
    "	lea 1(%rdi), %rdi\n"
    "	jmp rp_leaf\n"
    ".size rp_tail, . - rp_tail\n");

/*
 * rp_vfork() calls vfork() and returns its result, in the parent and in
 * the child, which share the stack: vfork_once() calls it and in the
 * child exits at once by a bare system call, with no stack write that
 * would change the parent's frames.  Written in asm so that nothing
 * else touches the stack.  Returns the child's pid in the parent.
 */
long rp_vfork(void);
long vfork_once(void);
asm(".text\n"
    ".globl rp_vfork\n"
    ".type rp_vfork, @function\n"
    "rp_vfork:\n"
    "	sub $8, %rsp\n"
    "	call vfork\n"
    "	add $8, %rsp\n"
    "	ret\n"
    ".size rp_vfork, . - rp_vfork\n"
    ".globl vfork_once\n"
    ".type vfork_once, @function\n"
    "vfork_once:\n"
    "	sub $8, %rsp\n"
    "	call rp_vfork\n"
    "	add $8, %rsp\n"
    "	test %rax, %rax\n"
    "	jnz 1f\n"
    "	mov $60, %eax\n"		/* exit(0) */
    "	xor %edi, %edi\n"
    "	syscall\n"
    "1:	ret\n"
    ".size vfork_once, . - vfork_once\n");

/* Workloads: each returns the number of wrong results. */
static int w_calls(void)
{
	int bad = 0;

	for (long i = 0; i < N; i++)
		bad += rp_leaf(i) != 2 * i + 1;
	return bad;
}

static void *outer_loop(void *arg)
{
	long bad = 0;

	for (long i = 0; i < N; i++)
		bad += rp_outer(i) != 4 * i + 11;
	return (void *)bad;
}

static int w_nested(void)
{
	return (int)(long)outer_loop(NULL);
}

static int w_threads(void)
{
	pthread_t t;
	void *r;
	long bad;

	if (pthread_create(&t, NULL, outer_loop, NULL))
		return 1;
	bad = (long)outer_loop(NULL);
	pthread_join(t, &r);
	return bad + (long)r;
}

static int w_recursion(void)
{
	int bad = 0;

	for (int i = 0; i < 3; i++)
		bad += rp_rec(DEPTH) != DEPTH;
	return bad;
}

static int w_too_deep(void)
{
	return rp_rec(TOO_DEEP) != TOO_DEEP;
}

static int w_signal(void)
{
	int bad = 0;

	signal(SIGUSR1, on_usr1);
	for (long i = 0; i < N; i++)
		bad += rp_raiser(i) != i + 7;
	return bad;
}

static int w_longjmp(void)
{
	jmp_buf jb;
	volatile int i;

	for (i = 0; i < N; i++)
		if (!setjmp(jb))
			rp_jump(&jb, JUMP_DEPTH);
	return i != N;
}

static int w_fork(void)
{
	int bad = 0, st;

	for (int i = 0; i < N / 10; i++) {
		pid_t pid = rp_fork();

		if (pid == 0)
			_exit(rp_leaf(1) == 3 ? 0 : 1);
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad;
}

static int w_tail(void)
{
	int bad = 0;

	for (long i = 0; i < N; i++)
		bad += rp_tail(i) != 2 * i + 3;
	return bad;
}

#define VFORKS 20

static int w_vfork(void)
{
	int bad = 0, st;

	for (int i = 0; i < VFORKS; i++) {
		long pid = vfork_once();

		if (pid <= 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad;
}

static int w_exit(void)
{
	int bad = w_calls();

	rp_exiter(bad ? 1 : 0);
	return 1;
}

static int w_sleep(void)
{
	int bad = 0;

	for (int i = 0; i < 5; i++)
		bad += rp_sleep(SLEEP_MS) != SLEEP_MS;
	return bad;
}

/*
 * The number of return sites of w_sites(): set by the test, a sixteenth
 * more than the points a process may have.
 */
static long sites;

/*
 * Calls of rp_leaf() from @sites different return addresses, in code
 * made at run time: push %rbx; mov %rdi,%rbx; @sites times call *%rbx
 * and a nop (where each call returns); pop %rbx; ret.  A process picks
 * its return addresses: the points they need are bounded.
 */
static int w_sites(void)
{
	size_t len = 4 + 3 * sites + 2;
	unsigned char *code, *p;

	code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	p = code;
	*p++ = 0x53;
	*p++ = 0x48;
	*p++ = 0x89;
	*p++ = 0xfb;
	for (long i = 0; i < sites; i++) {
		*p++ = 0xff;
		*p++ = 0xd3;
		*p++ = 0x90;
	}
	*p++ = 0x5b;
	*p++ = 0xc3;
	((void (*)(void *))code)((void *)rp_leaf);
	return 0;
}

struct expect {
	const char *name;
	void *fn;
	long calls, returns, unwound, missed;
};

/*
 * The child runs the workload, then calls rp_leaf() once from main(),
 * above every frame of the workload (which sweeps away the notes of
 * calls unwound), says so and waits to be let go, so that the pending
 * counts are read while it lives.
 */
static pid_t spawn(int (*work)(void), int *go, int *done)
{
	int g[2], d[2];
	pid_t pid;
	char x;

	if (pipe(g) || pipe(d))
		abort();
	pid = fork();
	if (pid == 0) {
		int bad;

		close(g[1]);
		close(d[0]);
		if (read(g[0], &x, 1) != 1)
			_exit(100);
		bad = work();
		bad += rp_leaf(0) != 1;
		if (write(d[1], "d", 1) != 1 || read(g[0], &x, 1) != 1)
			_exit(101);
		_exit(bad ? 1 : 0);
	}
	close(g[0]);
	close(d[1]);
	*go = g[1];
	*done = d[0];
	return pid;
}

FIXTURE(ret) {
	long old_max;		/* the points' bound to restore, or 0 */
};

/* No utprobes defined: opening utprobe_events with O_TRUNC removes them. */
static int clear_probes(void)
{
	int fd = open(EVENTS, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

FIXTURE_VARIANT(ret) {
	int (*work)(void);
	bool exits;		/* the workload exits the child */
	bool bound;		/* past the points' bound: e[0] from it */
	struct expect e[3];
};

/*
 * The variant past the points' bound takes the bound the kernel has,
 * set first from UTP_RET_POINTS_MAX if given: each point costs the
 * debug kernel under emulation 2 ms, which it pays for a smaller one.
 */
FIXTURE_SETUP(ret)
{
	const char *max = getenv("UTP_RET_POINTS_MAX");
	char buf[32];

	ASSERT_EQ(0, clear_probes()) TH_LOG("%s", EVENTS);
	self->old_max = 0;
	if (!variant->bound || !max)
		return;
	self->old_max = points_max(buf, sizeof(buf));
	ASSERT_LT(0, self->old_max) TH_LOG("%s: '%s'", POINTS_MAX_PARAM, buf);
	ASSERT_EQ(0, write_file(POINTS_MAX_PARAM, O_TRUNC, "%s", max));
}

FIXTURE_TEARDOWN(ret)
{
	clear_probes();
	if (self->old_max)
		write_file(POINTS_MAX_PARAM, O_TRUNC, "%ld", self->old_max);
}

/*
 * Past the bound of @max points, with a sixteenth more return sites:
 * rp_leaf()'s entry is the first point, the sites the others; the
 * calls from the sites left over are missed, and the sweep's call, the
 * last, too.
 */
static void expect_bound(struct expect *e, long max)
{
	sites = max + max / 16;
	e->calls = sites + 1;
	e->returns = max - 1;
	e->unwound = 0;
	e->missed = sites + 1 - (max - 1);
}

/* rp_leaf gets one more call: the sweep from main() */
FIXTURE_VARIANT_ADD(ret, calls) {
	.work = w_calls,
	.e = { { "leaf", rp_leaf, N + 1, N + 1, 0, 0 } },
};

FIXTURE_VARIANT_ADD(ret, nested) {
	.work = w_nested,
	.e = { { "outer", rp_outer, N, N, 0, 0 },
	       { "inner", rp_inner, 2 * N, 2 * N, 0, 0 },
	       { "leaf", rp_leaf, 2 * N + 1, 2 * N + 1, 0, 0 } },
};

FIXTURE_VARIANT_ADD(ret, threads) {
	.work = w_threads,
	.e = { { "outer", rp_outer, 2 * N, 2 * N, 0, 0 },
	       { "inner", rp_inner, 4 * N, 4 * N, 0, 0 },
	       { "leaf", rp_leaf, 4 * N + 1, 4 * N + 1, 0, 0 } },
};

FIXTURE_VARIANT_ADD(ret, recursion_1000) {
	.work = w_recursion,
	.e = { { "rec", rp_rec, 3 * (DEPTH + 1), 3 * (DEPTH + 1), 0, 0 } },
};

/* the innermost calls past the bound run, but are not followed */
FIXTURE_VARIANT_ADD(ret, deeper_than_the_bound) {
	.work = w_too_deep,
	.e = { { "rec", rp_rec, TOO_DEEP + 1, DEPTH_MAX, 0,
		 TOO_DEEP + 1 - DEPTH_MAX } },
};

FIXTURE_VARIANT_ADD(ret, signal_handler) {
	.work = w_signal,
	.e = { { "raiser", rp_raiser, N, N, 0, 0 },
	       { "leaf", rp_leaf, N + 1, N + 1, 0, 0 } },
};

/* every rp_jump() call is skipped by the longjmp() */
FIXTURE_VARIANT_ADD(ret, longjmp) {
	.work = w_longjmp,
	.e = { { "jump", rp_jump, N * (JUMP_DEPTH + 1), 0,
		 N * (JUMP_DEPTH + 1), 0 },
	       { "leaf", rp_leaf, 1, 1, 0, 0 } },
};

/* the children return from rp_fork() too, unprobed (a pid probe) */
FIXTURE_VARIANT_ADD(ret, fork) {
	.work = w_fork,
	.e = { { "fork", rp_fork, N / 10, N / 10, 0, 0 },
	       { "leaf", rp_leaf, 1, 1, 0, 0 } },
};

/* a tail call: rp_tail()'s and rp_leaf()'s calls return at once */
FIXTURE_VARIANT_ADD(ret, tail_call) {
	.work = w_tail,
	.e = { { "tail", rp_tail, N, N, 0, 0 },
	       { "leaf", rp_leaf, N + 1, N + 1, 0, 0 } },
};

/*
 * A vfork child gets a copy of its parent's notes: it returns from
 * rp_vfork() as well as the parent, and both returns are followed.
 */
FIXTURE_VARIANT_ADD(ret, vfork) {
	.work = w_vfork,
	.e = { { "vfork", rp_vfork, VFORKS, 2 * VFORKS, 0, 0 },
	       { "leaf", rp_leaf, 1, 1, 0, 0 } },
};

/*
 * Each return address is a point, rp_leaf()'s entry the first: past
 * the bound the calls are not followed (nor the sweep's, the last).
 * The counts: expect_bound().
 */
FIXTURE_VARIANT_ADD(ret, more_return_sites_than_the_bound) {
	.work = w_sites,
	.bound = true,
	.e = { { "leaf", rp_leaf } },
};

/* the process exits inside rp_exiter(): nothing stays pending */
FIXTURE_VARIANT_ADD(ret, exit_inside) {
	.work = w_exit,
	.exits = true,
	.e = { { "exiter", rp_exiter, 1, 0, 0, 0 },
	       { "leaf", rp_leaf, N, N, 0, 0 } },
};

static void check_counts(struct __test_metadata *_metadata,
			 const struct expect *e)
{
	struct ret_line r;

	ASSERT_EQ(0, ret_line(e->name, &r)) TH_LOG("no line for %s", e->name);
	EXPECT_EQ(e->calls, hits(e->name)) TH_LOG("%s calls", e->name);
	EXPECT_EQ(e->returns, r.returns) TH_LOG("%s returns", e->name);
	EXPECT_EQ(e->unwound, r.unwound) TH_LOG("%s unwound", e->name);
	EXPECT_EQ(e->missed, r.missed) TH_LOG("%s missed", e->name);
	EXPECT_EQ(0, r.pending) TH_LOG("%s pending", e->name);
}

/* slow on a debug kernel under emulation: thousands of traps */
TEST_F_TIMEOUT(ret, returns_equal_calls, 540)
{
	struct expect e[3];
	int go, done, st, i;
	char x, buf[32];
	long max;
	pid_t pid;

	memcpy(e, variant->e, sizeof(e));
	if (variant->bound) {
		max = points_max(buf, sizeof(buf));
		ASSERT_LT(0, max) TH_LOG("%s: '%s'", POINTS_MAX_PARAM, buf);
		expect_bound(&e[0], max);
	}
	pid = spawn(variant->work, &go, &done);
	for (i = 0; i < 3 && e[i].name; i++)
		ASSERT_EQ(0, events("r:%s %d:%p", e[i].name, pid, e[i].fn));
	ASSERT_EQ(1, write(go, "g", 1));
	if (!variant->exits) {
		/* counted while the child lives: nothing left pending */
		ASSERT_EQ(1, read(done, &x, 1));
		for (i = 0; i < 3 && e[i].name; i++)
			check_counts(_metadata, &e[i]);
		ASSERT_EQ(1, write(go, "g", 1));
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(0, WEXITSTATUS(st));
	for (i = 0; i < 3 && e[i].name; i++)
		check_counts(_metadata, &e[i]);
	close(go);
	close(done);
}

FIXTURE(one) {
	char dummy;
};

FIXTURE_SETUP(one)
{
	ASSERT_EQ(0, clear_probes()) TH_LOG("%s", EVENTS);
}

FIXTURE_TEARDOWN(one)
{
	clear_probes();
}

/*
 * A call sleeping 300 ms lands in bucket 29: 2^28 <= ns < 2^29, which
 * leaves 237 ms for the traps around it on a slow kernel.
 */
TEST_F(one, latency_bucket)
{
	struct ret_line r;
	int go, done, st;
	char x;
	pid_t pid = spawn(w_sleep, &go, &done);

	ASSERT_EQ(0, events("r:sleep %d:%p", pid, rp_sleep));
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(1, read(done, &x, 1));
	ASSERT_EQ(0, ret_line("sleep", &r));
	EXPECT_EQ(5, r.returns);
	EXPECT_LE(SLEEP_MS * 1000000ULL, r.min_ns);
	EXPECT_LE(r.min_ns, r.max_ns);
	EXPECT_STREQ("29:5", r.hist);
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(go);
	close(done);
}

/* Definitions read back as written; an entry probe has no line. */
TEST_F(one, listed)
{
	char buf[4096], want[256];
	struct ret_line r;

	ASSERT_EQ(0, events("r:leaf %d:%p", getpid(), rp_leaf));
	ASSERT_EQ(0, events("p:plain %d:%p", getpid(), rp_inner));
	snprintf(want, sizeof(want), "r:leaf %d:%p\np:plain %d:%p\n",
		 getpid(), rp_leaf, getpid(), rp_inner);
	EXPECT_STREQ(want, read_file(EVENTS, buf, sizeof(buf)));
	ASSERT_EQ(0, ret_line("leaf", &r));
	EXPECT_EQ(0, r.returns);
	EXPECT_EQ(-1, ret_line("plain", &r));
	EXPECT_EQ(3, rp_leaf(1));
	EXPECT_EQ(1, hits("leaf"));
	ASSERT_EQ(0, ret_line("leaf", &r));
	EXPECT_EQ(1, r.returns);
	EXPECT_EQ(0, r.pending);
}

/*
 * Each return of a followed call is a utprobes:utprobe_ret trace event:
 * the function, the return address, the return value.  The child's
 * N calls of w_calls() return to one address with 2i + 1; the sweep
 * from main() returns to another with 1.
 */
TEST_F(one, trace_event_per_return)
{
	static char buf[1 << 20];
	unsigned long ret_ip[N + 2], rax[N + 2];
	char want[160], *p;
	int go, done, st, n = 0;
	char x;
	pid_t pid = spawn(w_calls, &go, &done);

	ASSERT_EQ(0, write_file(TRACEFS "/trace", O_TRUNC, ""));
	ASSERT_EQ(0, write_file(TRACEFS "/events/utprobes/utprobe_ret/enable",
				0, "1"));
	ASSERT_EQ(0, events("r:leaf %d:%p", pid, rp_leaf));
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(1, read(done, &x, 1));
	EXPECT_EQ(0, write_file(TRACEFS "/events/utprobes/utprobe_ret/enable",
				0, "0"));
	snprintf(want, sizeof(want),
		 "utprobe_ret: pid=%d tid=%d probe=leaf func=%#lx ret_ip=",
		 pid, pid, (unsigned long)rp_leaf);
	read_file(TRACEFS "/trace", buf, sizeof(buf));
	for (p = buf; (p = strstr(p, want)) && n < N + 2; n++) {
		unsigned long long ns = 0;

		p += strlen(want);
		EXPECT_EQ(3, sscanf(p, "%lx rax=%lx ns=%llu", &ret_ip[n],
				    &rax[n], &ns));
		EXPECT_LT(0ULL, ns);
	}
	ASSERT_EQ(N + 1, n);
	for (int i = 0; i < N; i++) {
		EXPECT_EQ((unsigned long)(2 * i + 1), rax[i]);
		EXPECT_EQ(ret_ip[0], ret_ip[i]);
	}
	EXPECT_EQ(1UL, rax[N]);
	EXPECT_NE(ret_ip[0], ret_ip[N]);
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(go);
	close(done);
}

/*
 * Compare the text of @pid, its mapping of our own program, with the
 * file: the number of bytes that differ, or -1.
 */
static long text_differs(pid_t pid)
{
	unsigned long start, end, pgoff;
	char path[64], line[512], perms[8];
	long diff = -1;
	FILE *maps;
	int exe;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	exe = open("/proc/self/exe", O_RDONLY);
	while (maps && exe >= 0 && fgets(line, sizeof(line), maps)) {
		static unsigned char a[1 << 16], b[1 << 16];

		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &pgoff) != 4 || strcmp(perms, "r-xp") ||
		    !strstr(line, "utprobes_ret"))
			continue;
		diff = 0;
		for (unsigned long o = 0; o < end - start; o += sizeof(a)) {
			size_t len = end - start - o < sizeof(a) ?
				     end - start - o : sizeof(a);

			if (text_read(pid, (void *)(start + o), a, len) ||
			    pread(exe, b, len, pgoff + o) != (ssize_t)len)
				return -1;
			for (size_t i = 0; i < len; i++)
				diff += a[i] != b[i];
		}
	}
	if (maps)
		fclose(maps);
	close(exe);
	return diff;
}

/*
 * Removing a return probe takes its int3 out of its entry; the return
 * sites stay while the process has a return probe, and go with its
 * last one: once all are gone, the live child's text is the file's
 * again, byte for byte.
 */
TEST_F(one, removal_restores_return_sites)
{
	int go, done, st;
	char x;
	pid_t pid = spawn(w_nested, &go, &done);

	ASSERT_EQ(0, events("r:outer %d:%p", pid, rp_outer));
	ASSERT_EQ(0, events("r:inner %d:%p", pid, rp_inner));
	ASSERT_EQ(0, events("r:leaf %d:%p", pid, rp_leaf));
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(1, read(done, &x, 1));
	/*
	 * An int3 on each entry, and on the five return sites: rp_outer's
	 * two calls of rp_inner, rp_inner's of rp_leaf, the workload's of
	 * rp_outer and the child's sweep call of rp_leaf.
	 */
	EXPECT_EQ(3 + 5, text_differs(pid));
	ASSERT_EQ(0, events("-:inner"));
	EXPECT_EQ(2 + 5, text_differs(pid));
	ASSERT_EQ(0, events("-:outer"));
	EXPECT_EQ(1 + 5, text_differs(pid));
	/* the last return probe: every return site goes with it */
	ASSERT_EQ(0, events("-:leaf"));
	EXPECT_EQ(0, text_differs(pid));
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(go);
	close(done);
}

/*
 * A return probe removed while a call it follows sleeps: the threads are
 * not stopped to forget the call, whose note stays behind the probe's
 * back and must run nothing of the probe (freed by then) when the call
 * returns through the return site, which another return probe keeps.
 * With that one removed too, the text is the file's again.
 */
TEST_F(one, removed_while_its_call_sleeps)
{
	struct ret_line r;
	int go, done, st;
	char x;
	pid_t pid = spawn(w_sleep, &go, &done);

	ASSERT_EQ(0, events("r:sleep %d:%p", pid, rp_sleep));
	ASSERT_EQ(0, events("r:keep %d:%p", pid, rp_leaf));
	ASSERT_EQ(1, write(go, "g", 1));
	/*
	 * One of its calls under way, its note made (after its hit is
	 * counted: the hit alone does not say so); on a slow machine, the
	 * first may have returned already and the next be under way.
	 */
	for (int i = 0; i < 2000; i++) {
		ASSERT_EQ(0, ret_line("sleep", &r));
		if (r.pending == 1)
			break;
		usleep(5000);
	}
	EXPECT_EQ(1, r.pending);
	ASSERT_EQ(0, events("-:sleep"));
	ASSERT_EQ(1, read(done, &x, 1));
	ASSERT_EQ(0, ret_line("keep", &r));
	EXPECT_EQ(1, r.returns);
	EXPECT_EQ(0, r.pending);
	EXPECT_LT(0, text_differs(pid));
	ASSERT_EQ(0, events("-:keep"));
	EXPECT_EQ(0, text_differs(pid));
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(go);
	close(done);
}

/* The points' bound takes 1 to 2^20, and refuses the rest unchanged */
TEST(points_max_parameter)
{
	static const char *const bad[] = { "0", "1048577", "-1", "many" };
	char before[32], after[32];

	ASSERT_LT(0, points_max(before, sizeof(before)))
		TH_LOG("%s: '%s'", POINTS_MAX_PARAM, before);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, write_file(POINTS_MAX_PARAM, O_TRUNC, "%s",
					      bad[i])) TH_LOG("'%s'", bad[i]);
		points_max(after, sizeof(after));
		EXPECT_STREQ(before, after);
	}
	EXPECT_EQ(0, write_file(POINTS_MAX_PARAM, O_TRUNC, "%d", 1 << 20));
	EXPECT_EQ(1 << 20, points_max(after, sizeof(after)));
	EXPECT_EQ(0, write_file(POINTS_MAX_PARAM, O_TRUNC, "%s", before));
}

TEST_HARNESS_MAIN
