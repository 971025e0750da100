// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes torture, in the spirit of the kernel's torture tests: worker
 * processes go through the process model (fork, vfork, vfork and exec,
 * posix_spawn, clone(CLONE_VM), threads, exit, SIGSTOP/SIGCONT from
 * outside, SIGKILL, mmap/munmap of a probed file, dlopen/dlclose of a
 * probed library) while this process registers and removes pid, file
 * and return probes on them in a loop.
 * Bounded by iterations (UTP_TORTURE_ITERS, default 30), not time;
 * UTP_TORTURE_CHURN and UTP_TORTURE_KINDS choose what churns and which
 * steps the workers take.
 *
 * The probes on t_fn() give its extent (func=), so that those that only
 * count are entered by a jump while the workers fork, map and exit
 * around them.
 *
 * What must hold: every worker's calls return the right values and every
 * worker and child exits 0 (no SIGTRAP, no hang); a deterministic worker
 * probed the whole time counts exactly its calls, in its own text and in
 * a library it loads and unloads again and again; every write to
 * utprobe_events succeeds, and at the end none is left.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define CHAOS		3	/* chaos workers */
#define DET_CALLS	2000	/* calls of the deterministic worker */

/* The probed function: 2x + 1, probed or not; a frame first. */
long t_fn(long x);
extern char t_fn_end[];
__asm__(".text\n.p2align 4\n.globl t_fn\n.type t_fn,@function\nt_fn:\n"
	"	push %rbp\n	mov %rsp,%rbp\n	lea 1(%rdi,%rdi),%rax\n"
	"	pop %rbp\n	ret\n"
	".size t_fn,.-t_fn\nt_fn_end:\n	nop\n");

/* " func=START+SIZE" of t_fn() at @start, for a definition */
static const char *t_func(unsigned long start)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), " func=%#lx+%#lx", start,
		 (unsigned long)(t_fn_end - (char *)t_fn));
	return buf;
}

static int t_calls(int n)
{
	int bad = 0;

	for (long i = 0; i < n; i++)
		bad += t_fn(i) != 2 * i + 1;
	return bad;
}

static int last_status;

static int status_ok(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, __WALL) != pid)
		return 0;
	last_status = st;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void *thread_calls(void *arg)
{
	return (void *)(long)t_calls(50);
}

static int clone_calls(void *arg)
{
	return t_calls(50) ? 1 : 0;
}

static char self_path[256];
static long fn_off;		/* t_fn's file offset in self_path */
static char lib_path[300];	/* the library, in ../targets */
static long lib_off;		/* its tl_fn's file offset */

#define KINDS	9		/* kinds of chaos step */

/* dlopen() @path, call its tl_fn() @n times, dlclose(); 0 if all right. */
static int lib_calls(const char *path, int n)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	long (*fn)(long);
	int bad = 0;

	if (!h)
		return 1;
	fn = (long (*)(long))dlsym(h, "tl_fn");
	if (!fn)
		bad = 1;
	for (long i = 0; fn && i < n; i++)
		bad += fn(i) != 3 * i + 1;
	return dlclose(h) || bad;
}

/* A copy of the library only the deterministic worker loads. */
#define DET_LIB		"/tmp/libutp_torture_det.so"
#define DET_LOADS	20
#define DET_LIB_CALLS	10

/* One step of a chaos worker; 0 if all went right. */
static int chaos_step(unsigned int what)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	long page = sysconf(_SC_PAGESIZE);
	pthread_t t;
	void *ret;
	pid_t pid;

	switch (what % KINDS) {
	case 0:			/* fork */
		pid = fork();
		if (pid == 0)
			_exit(t_calls(50) ? 1 : 0);
		return pid < 0 || !status_ok(pid);
	case 1:			/* vfork, calls in the child */
		pid = vfork();
		if (pid == 0)
			_exit(t_calls(20) ? 1 : 0);
		return pid < 0 || !status_ok(pid);
	case 2:			/* vfork and exec of ourselves as a leaf */
		pid = vfork();
		if (pid == 0) {
			execl(self_path, self_path, "leaf", NULL);
			_exit(127);
		}
		return pid < 0 || !status_ok(pid);
	case 3:			/* clone(CLONE_VM) without CLONE_THREAD */
		pid = clone(clone_calls, stack + sizeof(stack),
			    CLONE_VM | SIGCHLD, NULL);
		return pid < 0 || !status_ok(pid);
	case 4:			/* a thread */
		if (pthread_create(&t, NULL, thread_calls, NULL))
			return 1;
		pthread_join(t, &ret);
		return ret != NULL;
	case 5: {		/* map the probed text again, call it, unmap */
		int fd = open(self_path, O_RDONLY);
		off_t base = fn_off & ~(page - 1);
		long (*fn)(long);
		char *p;
		int bad;

		if (fd < 0)
			return 1;
		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
			 base);
		close(fd);
		if (p == MAP_FAILED)
			return 1;
		fn = (long (*)(long))(p + (fn_off - base));
		bad = fn(7) != 15;
		munmap(p, page);
		return bad;
	}
	case 6: {		/* posix_spawn: clone(CLONE_VM | CLONE_VFORK) */
		char *argv[] = { self_path, "leaf", NULL };

		if (posix_spawn(&pid, self_path, NULL, NULL, argv, environ))
			return 1;
		return !status_ok(pid);
	}
	case 7:			/* dlopen the probed library, call, dlclose */
		return lib_calls(lib_path, 20);
	default:
		return t_calls(100) != 0;
	}
}

/* Exits 0, or 10 + the kind of the first step that went wrong. */
static void chaos_worker(int iters, unsigned int seed)
{
	/* which kinds of step: a mask of 1 << kind, all by default */
	const char *env = getenv("UTP_TORTURE_KINDS");
	unsigned int kinds = env ? strtoul(env, NULL, 0) : (1U << KINDS) - 1;

	for (int i = 0; i < iters * 4; i++) {
		unsigned int what = rand_r(&seed);

		if (!(kinds & (1U << (what % KINDS))))
			continue;
		if (chaos_step(what)) {
			/* a TAP comment: the child's status, if there was one */
			printf("# chaos step %u (kind %u) failed: status %#x\n",
			       i, what % KINDS, last_status);
			fflush(stdout);
			_exit(10 + what % KINDS);
		}
	}
	_exit(0);
}

/* the debug kernel under emulation needs minutes, not the default 30 s */
FIXTURE(torture) {
	char dummy;
};

FIXTURE_SETUP(torture)
{
}

FIXTURE_TEARDOWN(torture)
{
}

TEST_F_TIMEOUT(torture, churn, 400)
{
	int iters = getenv("UTP_TORTURE_ITERS") ?
		    atoi(getenv("UTP_TORTURE_ITERS")) : 30;
	/*
	 * What churns: 1 pid probes, 2 file, 4 return, 8 SIGSTOP, 16 SIGKILL,
	 * 32 probes on the library
	 */
	int churn = getenv("UTP_TORTURE_CHURN") ?
		    atoi(getenv("UTP_TORTURE_CHURN")) : 63;
	pid_t chaos[CHAOS], det, victim = 0;
	int go[2], det_go[2], writes = 0;
	bool pp = false, fp = false, rp = false, lp = false, vic = false;
	double worst = 0, t0;
	unsigned int seed = 1;
	char buf[4096];

	ASSERT_LT(0, readlink("/proc/self/exe", self_path,
			      sizeof(self_path) - 1));
	fn_off = self_offset((void *)t_fn, NULL, 0);
	ASSERT_LT(0, fn_off);
	snprintf(lib_path, sizeof(lib_path), "%.*s/../targets/libutp_torture.so",
		 (int)(strrchr(self_path, '/') - self_path), self_path);
	{
		void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);

		ASSERT_NE(NULL, h) TH_LOG("%s", dlerror());
		lib_off = self_offset(dlsym(h, "tl_fn"), NULL, 0);
		ASSERT_LT(0, lib_off);
		ASSERT_EQ(0, dlclose(h));
	}
	ASSERT_EQ(0, copy(lib_path, DET_LIB));
	ASSERT_EQ(0, write_file(EVENTS, O_TRUNC, ""));

	/* the deterministic worker, probed from before it calls to after */
	ASSERT_EQ(0, pipe(det_go));
	det = fork();
	ASSERT_LE(0, det);
	if (det == 0) {
		char c;

		int bad;

		if (read(det_go[0], &c, 1) != 1)
			_exit(2);
		bad = t_calls(DET_CALLS);
		for (int i = 0; i < DET_LOADS; i++)
			bad += lib_calls(DET_LIB, DET_LIB_CALLS);
		_exit(bad ? 1 : 0);
	}
	ASSERT_EQ(0, events("p:det %d:%p%s\n", det, t_fn,
			    t_func((unsigned long)t_fn)));
	ASSERT_EQ(0, events("p:detlib %s:%#lx\n", DET_LIB, lib_off));

	ASSERT_EQ(0, pipe(go));
	for (int i = 0; i < CHAOS; i++) {
		chaos[i] = fork();
		ASSERT_LE(0, chaos[i]);
		if (chaos[i] == 0) {
			char c;

			if (read(go[0], &c, 1) != 1)
				_exit(2);
			chaos_worker(iters, 1000 + i);
		}
	}
	close(go[0]);
	ASSERT_EQ(CHAOS, write(go[1], "ggg", CHAOS));
	ASSERT_EQ(1, write(det_go[1], "g", 1));

	for (int i = 0; i < iters; i++) {
		pid_t w = chaos[rand_r(&seed) % CHAOS];
		int r;

/*
 * Add a probe: a worker that has exited is -ESRCH (a probe on a file
 * needs no worker).  Its removal then finds no probe, -ENOENT.
 */
#define CHURN(have, ...) do {						\
		t0 = now();						\
		r = events(__VA_ARGS__);				\
		if (now() - t0 > worst)					\
			worst = now() - t0;				\
		EXPECT_TRUE(r == 0 || r == -ESRCH) TH_LOG("write %d: %d", i, r); \
		have = r == 0;						\
		writes++;						\
	} while (0)
#define UNCHURN(have, ...) do {						\
		t0 = now();						\
		r = events(__VA_ARGS__);				\
		if (now() - t0 > worst)					\
			worst = now() - t0;				\
		EXPECT_EQ(have ? 0 : -ENOENT, r) TH_LOG("write %d", i); \
		writes++;						\
	} while (0)
		if (churn & 1)
			CHURN(pp, "p:pp %d:%p%s\n", w, t_fn,
			      t_func((unsigned long)t_fn));
		/* probes on the file need no worker: they always go in */
		if (churn & 2) {
			CHURN(fp, "p:fp %s:%#lx%s\n", self_path, fn_off,
			      t_func(fn_off));
			EXPECT_TRUE(fp);
		}
		if (churn & 4) {
			CHURN(rp, "r:rp %s:%#lx\n", self_path, fn_off);
			EXPECT_TRUE(rp);
		}
		if (churn & 32) {
			CHURN(lp, "p:lp %s:%#lx\n", lib_path, lib_off);
			EXPECT_TRUE(lp);
		}
		if ((churn & 8) && i % 3 == 0)
			kill(w, SIGSTOP);
		if (churn & 1) {
			UNCHURN(pp, "-:pp\n");
			CHURN(pp, "p:pp %d:%p%s\n", w, t_fn,
			      t_func((unsigned long)t_fn));
		}
		if ((churn & 8) && i % 3 == 0)
			kill(w, SIGCONT);
		if (churn & 2)
			UNCHURN(fp, "-:fp\n");
		if (churn & 4)
			UNCHURN(rp, "-:rp\n");
		if (churn & 32)
			UNCHURN(lp, "-:lp\n");
		if (churn & 1)
			UNCHURN(pp, "-:pp\n");
		/* a victim probed while it hits, then killed */
		if ((churn & 16) && i % 10 == 0) {
			if (victim) {
				kill(victim, SIGKILL);
				waitpid(victim, NULL, 0);
			}
			victim = fork();
			ASSERT_LE(0, victim);
			if (victim == 0)
				for (;;)
					t_calls(1000);
			CHURN(vic, "p:vic %d:%p%s\n", victim, t_fn,
			      t_func((unsigned long)t_fn));
			UNCHURN(vic, "-:vic\n");
		}
	}
	if (victim) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
	}
	for (int w = 0; w < CHAOS; w++) {
		int ok = status_ok(chaos[w]);

		EXPECT_TRUE(ok) TH_LOG("chaos worker %d: status %#x", w,
				       last_status);
	}
	EXPECT_TRUE(status_ok(det));
	EXPECT_EQ(DET_CALLS, hits("det"));
	/* placed again at each dlopen(), wherever the library lands */
	EXPECT_EQ(DET_LOADS * DET_LIB_CALLS, hits("detlib"));
	EXPECT_EQ(0, events("-:det\n"));
	EXPECT_EQ(0, events("-:detlib\n"));
	unlink(DET_LIB);
	EXPECT_STREQ("", read_file(EVENTS, buf, sizeof(buf)));
	TH_LOG("%d writes, the longest %.3f s", writes, worst);
}

int main(int argc, char **argv)
{
	/* a leaf exec'd by a chaos worker */
	if (argc == 2 && !strcmp(argv[1], "leaf"))
		return t_calls(30) ? 1 : 0;
	return test_harness_run(argc, argv);
}
