// SPDX-License-Identifier: GPL-2.0
/*
 * hitbench - the workloads of "make bench": a loop calling a function
 * whose first instruction is of one class, timed; probes are placed on
 * that instruction from outside (tracefs, the bench module, ptrace).
 *
 *   hitbench run FUNC CALLS [THREADS]
 *	call FUNC CALLS times in each of THREADS threads (default 1);
 *	print "calls N wall_ns N", N the calls of all threads and the
 *	time from the first thread's first call to the last one's end:
 *	the threads are started, then wait for each other, so that
 *	starting and joining them is not timed; with HITBENCH_SETTLE_MS
 *	set, it sleeps that long first (a probe's jump goes in meanwhile)
 *   hitbench syscall CALLS
 *	the same for getppid(), the floor of any trap
 *   hitbench wait THREADS
 *	start THREADS threads that block, say "ready", and exit at the
 *	end of standard input
 *   hitbench spin THREADS [SPINNING]
 *	start THREADS threads, SPINNING of them (default all) spinning
 *	and timing each turn of their loop, the others blocked, and say
 *	"ready"; then, for each line read from standard input,
 *	"start" opens a window (answered "measuring") and "stop" closes
 *	it, answered "max_gap_ns N": the longest time any thread went
 *	without a turn within the window; exit at the end of the input
 *   hitbench write FILE SOURCE
 *	open FILE truncated and write all of SOURCE to it in one write
 *	(none if SOURCE is empty: a tracefs events file is cleared),
 *	and print "wall_ns N", the time from the open to the close
 *
 * The functions: push (push %rbp) and nop (a 1-byte nop), which mainline
 * uprobes emulate; lea, mov, sub (sub $imm,%rsp), endbr (endbr64) and
 * nop5 (a 5-byte nop), which it single-steps; riprel (a rip-relative
 * load); and sled, 10000 one-byte nops that are never run, to hold
 * many probes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long bench_data = 7;

long push(long x);
long nop(long x);
long lea(long x);
long mov(long x);
long sub(long x);
long endbr(long x);
long nop5(long x);
long riprel(long x);
long sled(long x);

/*
 * FUNC(name, body): a global function holding only @body, with call
 * frame information (the stack measurement unwinds from lea's entry)
 */
#define FUNC(name, body) \
	".globl " #name "\n .type " #name ", @function\n" #name ":\n" \
	".cfi_startproc\n" body "\n.cfi_endproc\n" \
	".size " #name ", . - " #name "\n"

asm(".text\n"
    FUNC(push, "push %rbp\n .cfi_adjust_cfa_offset 8\n"
	       ".cfi_rel_offset %rbp, 0\n mov %rsp, %rbp\n"
	       "lea 1(%rdi), %rax\n pop %rbp\n .cfi_adjust_cfa_offset -8\n"
	       ".cfi_restore %rbp\n ret")
    FUNC(nop, "nop\n lea 1(%rdi), %rax\n ret")
    FUNC(lea, "lea 1(%rdi), %rax\n ret")
    FUNC(mov, "mov %rdi, %rax\n add $1, %rax\n ret")
    FUNC(sub, "sub $24, %rsp\n .cfi_adjust_cfa_offset 24\n"
	      "add $24, %rsp\n .cfi_adjust_cfa_offset -24\n"
	      "lea 1(%rdi), %rax\n ret")
    FUNC(endbr, "endbr64\n lea 1(%rdi), %rax\n ret")
    FUNC(nop5, "nopl 0x0(%rax,%rax,1)\n lea 1(%rdi), %rax\n ret")
    FUNC(riprel, "mov bench_data(%rip), %rax\n add %rdi, %rax\n"
		 "sub $6, %rax\n ret")
    FUNC(sled, ".fill 10000, 1, 0x90\n lea 1(%rdi), %rax\n ret"));

static const struct {
	const char *name;
	long (*fn)(long x);
} funcs[] = {
	{ "push", push }, { "nop", nop }, { "lea", lea }, { "mov", mov },
	{ "sub", sub }, { "endbr", endbr }, { "nop5", nop5 },
	{ "riprel", riprel }, { "sled", sled },
};

static long (*fn)(long x);
static long calls;
static long bad;
static int threads = 1;
static int waiting;
static struct {
	unsigned long long start, end;
} span[64];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *loop(void *arg)
{
	long n = (long)arg, b = 0;

	/*
	 * Wait, spinning, until every thread is here: a thread woken from
	 * a futex under emulation starts late by more than a short run of
	 * the unprobed loop lasts.
	 */
	__atomic_add_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&waiting, __ATOMIC_ACQUIRE) < threads)
		;
	span[n].start = now_ns();
	for (long i = 0; i < calls; i++)
		b += fn(i) != i + 1;
	span[n].end = now_ns();
	__atomic_add_fetch(&bad, b, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * The main thread's loop, 16 KiB below main's frame: a probe copying
 * the top of the stack at each hit (8 KiB in make bench) finds that much
 * above the loop, where main's own frame is near the stack's end
 */
static __attribute__((noinline)) void deep_loop(void)
{
	volatile char room[16384];

	/* every page of it there: the copy takes no page it would fault in */
	for (size_t i = 0; i < sizeof(room); i += 1024)
		room[i] = 0;
	loop((void *)0);
	room[sizeof(room) - 1] = room[0];
}

static void *blocked(void *arg)
{
	int *fd = arg;
	char x;

	/* until the main thread closes the pipe */
	while (read(fd[0], &x, 1) > 0)
		;
	return NULL;
}

/* hitbench spin: the measuring window, 0 while not open (or closed) */
static volatile unsigned long long win_start, win_end;
static volatile int spin_stop;
static struct {
	volatile unsigned long long last, max_gap;
} gaps[64];

static void *spin(void *arg)
{
	long n = (long)arg;
	unsigned long long last = now_ns();

	while (!spin_stop) {
		unsigned long long t = now_ns(), s = win_start, e = win_end;

		if (s) {
			/* the part of the gap since the last turn in the window */
			unsigned long long lo = last > s ? last : s;
			unsigned long long hi = e && t > e ? e : t;

			if (hi > lo && hi - lo > gaps[n].max_gap)
				gaps[n].max_gap = hi - lo;
		}
		last = t;
		gaps[n].last = t;
	}
	return NULL;
}

static int spin_main(int threads, int n)
{
	pthread_t t[64];
	char line[32];
	int fd[2];

	if (n < 1 || n > threads || threads > 64 || pipe(fd))
		return 2;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, i < n ? spin : blocked,
				   i < n ? (void *)i : (void *)fd))
			return 2;
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long max = 0, e;

		if (!strncmp(line, "start", 5)) {
			for (int i = 0; i < n; i++)
				gaps[i].max_gap = 0;
			win_end = 0;
			win_start = now_ns();
			printf("measuring\n");
		} else if (!strncmp(line, "stop", 4)) {
			e = now_ns();
			win_end = e;
			/* each thread's last gap of the window ends after it */
			for (int i = 0; i < n; i++)
				while (gaps[i].last <= e)
					sched_yield();
			win_start = 0;
			for (int i = 0; i < n; i++)
				if (gaps[i].max_gap > max)
					max = gaps[i].max_gap;
			printf("max_gap_ns %llu\n", max);
		}
		fflush(stdout);
	}
	spin_stop = 1;
	close(fd[1]);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* hitbench write: 0, or 1 with the failed call on stderr */
static int write_main(const char *file, const char *source)
{
	static char buf[4 << 20];
	unsigned long long t0, t1;
	ssize_t len = 0, r;
	int in = open(source, O_RDONLY), out;

	while (in >= 0 && len < (ssize_t)sizeof(buf) &&
	       (r = read(in, buf + len, sizeof(buf) - len)) > 0)
		len += r;
	if (in < 0 || len == sizeof(buf)) {
		fprintf(stderr, "hitbench: %s: %s\n", source,
			in < 0 ? strerror(errno) : "too large");
		return 1;
	}
	close(in);
	t0 = now_ns();
	out = open(file, O_WRONLY | O_TRUNC);
	r = out < 0 ? -1 : len ? write(out, buf, len) : 0;
	if (out < 0 || r != len || close(out)) {
		fprintf(stderr, "hitbench: %s: %s\n", file,
			r < 0 || out < 0 ? strerror(errno) : "short write");
		return 1;
	}
	t1 = now_ns();
	printf("wall_ns %llu\n", t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	pthread_t t[64];

	if (argc >= 3 && !strcmp(argv[1], "syscall")) {
		calls = atol(argv[2]);
		t0 = now_ns();
		for (long i = 0; i < calls; i++)
			syscall(SYS_getppid);
		t1 = now_ns();
		printf("calls %ld wall_ns %llu\n", calls, t1 - t0);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "wait")) {
		int fd[2], n = atoi(argv[2]);
		char x;

		if (n < 1 || n > 64 || pipe(fd))
			return 2;
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, blocked, fd);
		printf("ready\n");
		fflush(stdout);
		while (read(0, &x, 1) > 0)
			;
		close(fd[1]);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "write"))
		return write_main(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "spin"))
		return spin_main(atoi(argv[2]),
				 argc > 3 ? atoi(argv[3]) : atoi(argv[2]));
	if (argc < 4 || strcmp(argv[1], "run"))
		return 2;
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(argv[2], funcs[i].name))
			fn = funcs[i].fn;
	calls = atol(argv[3]);
	if (argc > 4)
		threads = atoi(argv[4]);
	if (!fn || calls < 1 || threads < 1 || threads > 64)
		return 2;
	/* time for a probe to be entered by a jump before the loop begins */
	if (getenv("HITBENCH_SETTLE_MS"))
		usleep(atoi(getenv("HITBENCH_SETTLE_MS")) * 1000);
	for (long i = 1; i < threads; i++)
		if (pthread_create(&t[i], NULL, loop, (void *)i))
			return 2;
	deep_loop();
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	t0 = span[0].start;
	t1 = span[0].end;
	for (int i = 1; i < threads; i++) {
		if (span[i].start < t0)
			t0 = span[i].start;
		if (span[i].end > t1)
			t1 = span[i].end;
	}
	printf("calls %ld wall_ns %llu\n", calls * threads, t1 - t0);
	return bad ? 1 : 0;
}
