// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the "process" ftrace tracer: a worker process with a known
 * behaviour, driven one command at a time over a pipe, is followed while
 * the test reads the records it leaves in the trace.  Each control is
 * shown to work by a record that appears or disappears, and by the
 * worker's utrace event mask in /proc/PID/status; starting and stopping
 * the tracer many times while followed processes run leaves no engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../guest_util.h"

#define PT_EXEC		"/usr/libexec/utrace-tests/targets/pt_exec"

/* utrace event bits, as /proc/PID/status shows them */
#define EV_CLONE	0x4L
#define EV_EXEC		0x8L
#define EV_EXIT		0x10L
#define EV_DEATH	0x20L
#define EV_SYSCALL	0xc0L
#define EV_SIGNAL_ALL	0x1f00L

static int write_ctl(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/%s", name);
	return write_file(path, O_TRUNC, "%s", val);
}

static int write_ctlf(const char *name, const char *fmt, long v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	return write_ctl(name, buf);
}

static void read_ctl(const char *name, char *out, size_t size)
{
	char path[256];
	char *s;

	snprintf(path, sizeof(path), TRACEFS "/%s", name);
	s = read_all(path, 0);
	snprintf(out, size, "%s", s ? s : "");
	free(s);
}

/* The Utrace: line of a thread's /proc status; -1 if none. */
static long utrace_mask(const char *status_path)
{
	char *s = read_all(status_path, 0), *p;
	long mask = -1;

	if (s && (p = strstr(s, "\nUtrace:\t")))
		mask = strtol(p + 9, NULL, 16);
	free(s);
	return mask;
}

static long task_mask(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return utrace_mask(path);
}

/* ---- the trace ------------------------------------------------------ */

struct rec {
	char comm[32];
	int pid;
	int cpu;
	double ts;
	char body[512];
};

struct trace {
	struct rec *r;
	int n;
};

/* "  comm-PID   [CPU] FLAGS  TS: BODY" */
static int parse_line(const char *line, struct rec *r)
{
	const char *br = strstr(line, " [");
	const char *p, *q, *colon;
	size_t len;

	if (line[0] == '#' || !br)
		return -1;
	p = br;
	while (p > line && p[-1] == ' ')
		p--;
	q = p;
	while (q > line && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == p || q == line || q[-1] != '-')
		return -1;
	r->pid = atoi(q);
	for (p = line; *p == ' '; p++)
		;
	len = q - 1 - p;
	if (len >= sizeof(r->comm))
		len = sizeof(r->comm) - 1;
	memcpy(r->comm, p, len);
	r->comm[len] = '\0';
	r->cpu = atoi(br + 2);
	p = strchr(br, ']');
	if (!p)
		return -1;
	colon = strstr(p, ": ");
	if (!colon)
		return -1;
	q = colon;
	while (q > p && q[-1] != ' ')
		q--;
	r->ts = strtod(q, NULL);
	snprintf(r->body, sizeof(r->body), "%s", colon + 2);
	return 0;
}

/* The records of FILE; out of memory, the test program aborts */
static void load_trace_from(struct trace *t, const char *file)
{
	char *s = read_all(file, O_NONBLOCK), *line, *save = NULL;
	int cap = 1024;
	void *more;

	t->n = 0;
	t->r = calloc(cap, sizeof(*t->r));
	if (!s || !t->r)
		abort();
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (t->n == cap) {
			cap *= 2;
			more = realloc(t->r, cap * sizeof(*t->r));
			if (!more)
				abort();
			t->r = more;
		}
		if (!parse_line(line, &t->r[t->n]))
			t->n++;
	}
	free(s);
}

static void load_trace(struct trace *t)
{
	load_trace_from(t, TRACEFS "/trace");
}

static void free_trace(struct trace *t)
{
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

static void dump_trace(struct trace *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		fprintf(stderr, "#   %s-%d [%d] %.6f: %s\n", t->r[i].comm,
			t->r[i].pid, t->r[i].cpu, t->r[i].ts, t->r[i].body);
}

/* Records of @pid (any pid if 0) whose body starts with @prefix. */
static int count(struct trace *t, int pid, const char *prefix)
{
	int i, n = 0;

	for (i = 0; i < t->n; i++)
		if ((!pid || t->r[i].pid == pid) &&
		    !strncmp(t->r[i].body, prefix, strlen(prefix)))
			n++;
	return n;
}

static int countf(struct trace *t, int pid, const char *fmt, long v)
{
	char buf[256];

	snprintf(buf, sizeof(buf), fmt, v);
	return count(t, pid, buf);
}

static void clear_trace(void)
{
	write_ctl("trace", "");
}

/* ---- the worker ----------------------------------------------------- */

struct shared {
	volatile int tid;		/* its last thread */
	volatile int child;		/* its last child */
	volatile unsigned long buf;	/* address written by 'g' */
	volatile int devnull;		/* fd written to by 'g' */
	volatile int usr1;		/* SIGUSR1 handled */
};

struct worker {
	pid_t pid;
	int cmd;
	int ack;
	int wcmd;		/* the same pipes' other ends, in the worker */
	int wack;
	struct shared *sh;
};

static struct shared *wsh;

static void on_usr1(int sig)
{
	wsh->usr1++;
}

static void *thread_fn(void *arg)
{
	wsh->tid = syscall(SYS_gettid);
	return NULL;
}

/* The pipe that lets the worker's waiting child ('p') go ('P'). */
static int waiting_child_go = -1;

static void worker_fork(int what)
{
	sigset_t all;
	int p[2];
	pid_t pid;
	char c;

	if (what == 'P') {
		if (write(waiting_child_go, "g", 1) != 1)
			_exit(1);
		close(waiting_child_go);
		waitpid(wsh->child, NULL, 0);
		return;
	}
	if (what == 'p' && pipe(p))
		_exit(1);
	pid = fork();
	if (!pid) {
		switch (what) {
		case 'k':
			/* killed by its own SIGTERM, whatever we inherited */
			signal(SIGTERM, SIG_DFL);
			sigfillset(&all);
			sigprocmask(SIG_UNBLOCK, &all, NULL);
			kill(getpid(), SIGTERM);
			_exit(1);
		case 'p':
			close(p[1]);
			if (read(p[0], &c, 1) != 1)
				_exit(1);
			close(6000);
			_exit(0);
		case 'f':
			execl(PT_EXEC, "pt_exec", (char *)NULL);
			_exit(127);
		case 'u':
			if (setuid(1000))
				_exit(1);
			close(2000);
			_exit(0);
		default:
			prctl(PR_SET_NAME, "pt_named");
			close(3000);
			_exit(0);
		}
	}
	wsh->child = pid;
	if (what == 'p') {
		close(p[0]);
		waiting_child_go = p[1];
		return;
	}
	waitpid(pid, NULL, 0);
}

static void worker_main(int cmd, int ack)
{
	static const char hello[] = "hello";
	pthread_t th;
	char c;

	wsh->devnull = open("/dev/null", O_WRONLY);
	wsh->buf = (unsigned long)hello;
	signal(SIGUSR1, on_usr1);
	while (read(cmd, &c, 1) == 1) {
		switch (c) {
		case 'g':
			syscall(SYS_getppid);
			if (write(wsh->devnull, hello, 5) != 5)
				_exit(1);
			close(1000);
			break;
		case 's':
			kill(getpid(), SIGUSR1);
			break;
		case 't':
			pthread_create(&th, NULL, thread_fn, NULL);
			pthread_join(th, NULL);
			break;
		case 'f':
		case 'u':
		case 'n':
		case 'k':
		case 'p':
		case 'P':
			worker_fork(c);
			break;
		case 'q':
			exit(7);
		default:
			close(1000 + c - '0');
			break;
		}
		if (write(ack, &c, 1) != 1)
			_exit(1);
	}
	_exit(1);
}

static int spawn_worker(struct worker *w)
{
	int cmd[2], ack[2];

	w->sh = mmap(NULL, sizeof(*w->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w->sh == MAP_FAILED || pipe(cmd) || pipe(ack))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (!w->pid) {
		close(cmd[1]);
		close(ack[0]);
		wsh = w->sh;
		worker_main(cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	w->cmd = cmd[1];
	w->ack = ack[0];
	w->wcmd = cmd[0];
	w->wack = ack[1];
	return 0;
}

/* Send the worker one command and wait until it has carried it out. */
static int command(struct worker *w, char c)
{
	char a;

	if (write(w->cmd, &c, 1) != 1)
		return -1;
	if (c == 'q')
		return 0;
	return read(w->ack, &a, 1) == 1 && a == c ? 0 : -1;
}

/* Stop the worker with 'q'; its exit status. */
static int finish_worker(struct worker *w)
{
	int status = 0;

	command(w, 'q');
	waitpid(w->pid, &status, 0);
	w->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A process outside the followed tree, busy with system calls. */
static pid_t spawn_outsider(void)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;) {
			close(4000);
			kill(getpid(), 0);
			usleep(1000);
		}
	}
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void defaults(void)
{
	write_ctl("current_tracer", "nop");
	write_ctl("process_follow_pid", "0");
	write_ctl("process_trace_syscalls", "1");
	write_ctl("process_trace_signals", "1");
	write_ctl("process_trace_lifecycle", "1");
	write_ctl("process_trace_uid_filter", "-1");
	write_ctl("process_trace_taskcomm_filter", "\n");
	clear_trace();
}

FIXTURE(pt) {
	struct worker w;
	pid_t outsider;
	struct trace t;
};

FIXTURE_SETUP(pt)
{
	memset(&self->w, 0, sizeof(self->w));
	self->outsider = 0;
	self->t.r = NULL;
	/* the tracer is built into every kernel these tests run on */
	ASSERT_EQ(0, access(TRACEFS "/process_follow_pid", F_OK))
		TH_LOG("no process tracer: %s", strerror(errno));
	defaults();
	ASSERT_EQ(0, spawn_worker(&self->w));
	ASSERT_EQ(0, write_ctlf("process_follow_pid", "%ld", self->w.pid));
}

FIXTURE_TEARDOWN(pt)
{
	defaults();
	reap(self->w.pid);
	reap(self->outsider);
	free_trace(&self->t);
}

/*
 * Lifecycle and signals, no system calls: exactly the worker's thread,
 * signal, fork, exec and exits, in order, and nothing of the processes
 * outside its tree.
 */
TEST_F(pt, exact_lifecycle_and_signal_records)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	char buf[256];
	int tid, child, i, wpid = w->pid;
	unsigned long flags;

	ASSERT_EQ(0, write_ctl("process_trace_syscalls", "0"));
	self->outsider = spawn_outsider();
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, 't'));
	tid = w->sh->tid;
	ASSERT_EQ(0, command(w, 's'));
	ASSERT_EQ(1, w->sh->usr1);
	ASSERT_EQ(0, command(w, 'f'));
	child = w->sh->child;
	ASSERT_EQ(7, finish_worker(w));
	reap(self->outsider);

	load_trace(t);
	dump_trace(t);
	ASSERT_EQ(8, t->n);
	for (i = 0; i < t->n; i++) {
		EXPECT_LT(0.0, t->r[i].ts);
		if (i)
			EXPECT_LE(t->r[i - 1].ts, t->r[i].ts);
		EXPECT_LE(0, t->r[i].cpu);
		EXPECT_NE(0, t->r[i].comm[0]);
	}
	/* the thread */
	EXPECT_EQ(0, strncmp(t->r[0].body, "fork child=", 11));
	EXPECT_EQ(tid, atoi(t->r[0].body + 11));
	flags = strtoul(strstr(t->r[0].body, "flags=") + 6, NULL, 16);
	EXPECT_NE(0UL, flags & 0x10000) TH_LOG("CLONE_THREAD in 0x%lx", flags);
	EXPECT_EQ(tid, t->r[1].pid);
	EXPECT_STREQ("exit code=0x0 status=0", t->r[1].body);
	/* the signal it sent itself */
	EXPECT_STREQ("signal signo=10 errno=0 code=0", t->r[2].body);
	/* the child that execs */
	EXPECT_EQ(0, strncmp(t->r[3].body, "fork child=", 11));
	EXPECT_EQ(child, atoi(t->r[3].body + 11));
	flags = strtoul(strstr(t->r[3].body, "flags=") + 6, NULL, 16);
	EXPECT_EQ(0UL, flags & 0x10000);
	EXPECT_EQ(SIGCHLD, (int)(flags & 0xff));
	EXPECT_EQ(child, t->r[4].pid);
	snprintf(buf, sizeof(buf), "exec comm=pt_exec filename=%s", PT_EXEC);
	EXPECT_STREQ(buf, t->r[4].body);
	EXPECT_STREQ("pt_exec", t->r[4].comm);
	EXPECT_EQ(child, t->r[5].pid);
	EXPECT_STREQ("exit code=0x300 status=3", t->r[5].body);
	/* the SIGCHLD of that child's exit (CLD_EXITED) */
	EXPECT_STREQ("signal signo=17 errno=0 code=1", t->r[6].body);
	/* and the worker's own exit */
	EXPECT_STREQ("exit code=0x700 status=7", t->r[7].body);
	/* the others are the worker's own */
	EXPECT_EQ(wpid, t->r[0].pid);
	EXPECT_EQ(wpid, t->r[2].pid);
	EXPECT_EQ(wpid, t->r[3].pid);
	EXPECT_EQ(wpid, t->r[6].pid);
	EXPECT_EQ(wpid, t->r[7].pid);
	EXPECT_STREQ("process_tracer", t->r[0].comm);
}

/* Wait (up to 20 s) until @pid blocks in read(), per /proc/PID/syscall. */
static bool blocked_in_read(pid_t pid)
{
	char path[64], *s;
	bool in_read = false;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (int i = 0; i < 4000 && !in_read; i++) {
		s = read_all(path, 0);
		in_read = s && !strncmp(s, "0 ", 2);
		free(s);
		if (!in_read)
			usleep(5000);
	}
	return in_read;
}

/*
 * The records of @pid must be @n, each starting with its line of @want
 * (the argument registers a system call does not use hold whatever was
 * there, so an entry's line gives only the arguments that are known).
 */
static void expect_records(struct __test_metadata *_metadata,
			   struct trace *t, int pid, char want[][128], int n)
{
	int i, k = 0;

	for (i = 0; i < t->n; i++) {
		if (t->r[i].pid != pid)
			continue;
		if (k < n)
			EXPECT_EQ(0, strncmp(t->r[i].body, want[k],
					     strlen(want[k])))
				TH_LOG("record %d of %d: \"%s\", wanted \"%s\"",
				       k, pid, t->r[i].body, want[k]);
		k++;
	}
	EXPECT_EQ(n, k) TH_LOG("records of %d", pid);
}

#define RECORD(fmt, ...) snprintf(want[n++], sizeof(want[0]), fmt, ##__VA_ARGS__)

/*
 * System calls: numbers, arguments, return values and errors.  The
 * worker's every record while it carries out 'g' and 's', exactly.
 */
TEST_F(pt, syscall_records)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	int i, tid, child, outsider, wpid = w->pid, n = 0;
	char want[32][128];

	self->outsider = spawn_outsider();
	outsider = self->outsider;
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, 'g'));
	ASSERT_EQ(0, command(w, 's'));
	/* its last records come after the ack: wait for the next read() */
	ASSERT_TRUE(blocked_in_read(wpid));
	load_trace(t);
	/* the read() of 'g', begun before the tracer started */
	RECORD("syscall_exit nr=%d ret=1 error=0", SYS_read);
	RECORD("syscall_enter nr=%d args=", SYS_getppid);
	RECORD("syscall_exit nr=%d ret=%d error=0", SYS_getppid, getpid());
	RECORD("syscall_enter nr=%d args=0x%x,0x%lx,0x5,", SYS_write,
	       w->sh->devnull, w->sh->buf);
	RECORD("syscall_exit nr=%d ret=5 error=0", SYS_write);
	RECORD("syscall_enter nr=%d args=0x3e8,", SYS_close);
	RECORD("syscall_exit nr=%d ret=-9 error=-9", SYS_close);
	RECORD("syscall_enter nr=%d args=0x%x,", SYS_write, w->wack);
	RECORD("syscall_exit nr=%d ret=1 error=0", SYS_write);
	RECORD("syscall_enter nr=%d args=0x%x,", SYS_read, w->wcmd);
	/* 's': glibc's kill(getpid(), SIGUSR1), the signal, the handler's return */
	RECORD("syscall_exit nr=%d ret=1 error=0", SYS_read);
	RECORD("syscall_enter nr=%d args=", SYS_getpid);
	RECORD("syscall_exit nr=%d ret=%d error=0", SYS_getpid, wpid);
	RECORD("syscall_enter nr=%d args=0x%x,0xa,", SYS_kill, wpid);
	RECORD("syscall_exit nr=%d ret=0 error=0", SYS_kill);
	RECORD("signal signo=10 errno=0 code=0");
	RECORD("syscall_enter nr=%d args=", SYS_rt_sigreturn);
	/* rt_sigreturn() restores kill()'s return and no system call */
	RECORD("syscall_exit nr=-1 ret=0 error=0");
	RECORD("syscall_enter nr=%d args=0x%x,", SYS_write, w->wack);
	RECORD("syscall_exit nr=%d ret=1 error=0", SYS_write);
	RECORD("syscall_enter nr=%d args=0x%x,", SYS_read, w->wcmd);
	expect_records(_metadata, t, wpid, want, n);
	EXPECT_EQ(n, t->n);
	free_trace(t);

	ASSERT_EQ(0, command(w, 't'));
	tid = w->sh->tid;
	ASSERT_EQ(0, command(w, 'f'));
	child = w->sh->child;
	reap(self->outsider);
	load_trace(t);

	/*
	 * The thread, every record: back from clone3() in the child, the
	 * setup of this static glibc's start_thread() (rseq, robust list,
	 * signal mask), its gettid(), the teardown (madvise() of the stack,
	 * not built into these kernels) and its exit.
	 */
	n = 0;
	RECORD("syscall_exit nr=%d ret=0 error=0", SYS_clone3);
	RECORD("syscall_enter nr=%d args=", SYS_rseq);
	RECORD("syscall_exit nr=%d ret=0 error=0", SYS_rseq);
	RECORD("syscall_enter nr=%d args=", SYS_set_robust_list);
	RECORD("syscall_exit nr=%d ret=0 error=0", SYS_set_robust_list);
	RECORD("syscall_enter nr=%d args=0x2,", SYS_rt_sigprocmask);
	RECORD("syscall_exit nr=%d ret=0 error=0", SYS_rt_sigprocmask);
	RECORD("syscall_enter nr=%d args=", SYS_gettid);
	RECORD("syscall_exit nr=%d ret=%d error=0", SYS_gettid, tid);
	RECORD("syscall_enter nr=%d args=0x0,", SYS_rt_sigprocmask);
	RECORD("syscall_exit nr=%d ret=0 error=0", SYS_rt_sigprocmask);
	RECORD("syscall_enter nr=%d args=", SYS_madvise);
	RECORD("syscall_exit nr=%d ret=-38 error=-38", SYS_madvise);
	RECORD("syscall_enter nr=%d args=0x0,", SYS_exit);
	RECORD("exit code=0x0 status=0");
	expect_records(_metadata, t, tid, want, n);
	/* the exec'd child's close(5000) */
	EXPECT_EQ(1, count(t, child, "syscall_enter nr=3 args=0x1388,"));
	EXPECT_EQ(1, count(t, child, "syscall_exit nr=3 ret=-9 error=-9"));
	EXPECT_EQ(1, count(t, child, "exec comm=pt_exec"));
	/* nothing from outside the tree */
	EXPECT_EQ(0, count(t, outsider, ""));
	EXPECT_EQ(0, count(t, getpid(), ""));
	for (i = 0; i < t->n; i++) {
		int pid = t->r[i].pid;

		EXPECT_TRUE(pid == wpid || pid == tid || pid == child)
			TH_LOG("record of %d: %s", pid, t->r[i].body);
	}
}

/* trace_pipe gives the same records, consumed as read. */
TEST_F(pt, trace_pipe)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	int wpid = w->pid;

	ASSERT_EQ(0, write_ctl("process_trace_syscalls", "0"));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(7, finish_worker(w));
	load_trace_from(t, TRACEFS "/trace_pipe");
	EXPECT_EQ(1, count(t, wpid, "exit code=0x700 status=7"));
	EXPECT_EQ(1, t->n);
	free_trace(t);
	load_trace(t);
	EXPECT_EQ(0, t->n);
}

/*
 * Set a control, have the worker carry out @cmd (so that it goes back to
 * user mode, where it drops events it lost) and give its event mask.
 */
static long mask_after(struct worker *w, const char *ctl, const char *val,
		       char cmd)
{
	if (write_ctl(ctl, val) || command(w, cmd))
		return -1;
	return task_mask(w->pid);
}

/* System calls switched off and on, on a followed worker. */
TEST_F(pt, toggle_syscalls)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	long mask;

	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, '1'));
	mask = task_mask(w->pid);
	EXPECT_EQ(EV_SYSCALL, mask & EV_SYSCALL) TH_LOG("mask %lx", mask);
	/* out of the mask: the worker does not enter utrace for them */
	mask = mask_after(w, "process_trace_syscalls", "0", '2');
	EXPECT_EQ(0, mask & EV_SYSCALL) TH_LOG("mask %lx", mask);
	EXPECT_EQ(EV_CLONE | EV_DEATH, mask & (EV_CLONE | EV_DEATH));
	mask = mask_after(w, "process_trace_syscalls", "1", '3');
	EXPECT_EQ(EV_SYSCALL, mask & EV_SYSCALL) TH_LOG("mask %lx", mask);
	load_trace(t);
	EXPECT_EQ(1, count(t, w->pid, "syscall_enter nr=3 args=0x3e9,"));
	EXPECT_EQ(0, count(t, w->pid, "syscall_enter nr=3 args=0x3ea,"));
	EXPECT_EQ(2, count(t, w->pid, "syscall_exit nr=3 ret=-9 error=-9"));
	EXPECT_EQ(1, count(t, w->pid, "syscall_enter nr=3 args=0x3eb,"));
}

TEST_F(pt, toggle_signals)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	long mask;

	ASSERT_EQ(0, write_ctl("process_trace_signals", "0"));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, 's'));
	mask = task_mask(w->pid);
	EXPECT_EQ(0, mask & EV_SIGNAL_ALL) TH_LOG("mask %lx", mask);
	mask = mask_after(w, "process_trace_signals", "1", 's');
	EXPECT_EQ(EV_SIGNAL_ALL, mask & EV_SIGNAL_ALL) TH_LOG("mask %lx", mask);
	ASSERT_EQ(0, write_ctl("process_trace_signals", "0"));
	ASSERT_EQ(0, command(w, 's'));
	mask = mask_after(w, "process_trace_signals", "0", '0');
	EXPECT_EQ(0, mask & EV_SIGNAL_ALL) TH_LOG("mask %lx", mask);
	EXPECT_EQ(3, w->sh->usr1);
	load_trace(t);
	EXPECT_EQ(1, count(t, w->pid, "signal signo=10 "));
	/* the kill() calls were all recorded, so the worker was followed */
	EXPECT_EQ(3, countf(t, w->pid, "syscall_enter nr=%ld ", SYS_kill));
}

TEST_F(pt, toggle_lifecycle)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	int c1, c2;
	long mask;

	ASSERT_EQ(0, write_ctl("process_trace_lifecycle", "0"));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, 'f'));
	c1 = w->sh->child;
	mask = task_mask(w->pid);
	EXPECT_EQ(0, mask & (EV_EXEC | EV_EXIT)) TH_LOG("mask %lx", mask);
	EXPECT_EQ(EV_CLONE, mask & EV_CLONE);
	mask = mask_after(w, "process_trace_lifecycle", "1", 'f');
	c2 = w->sh->child;
	EXPECT_EQ(EV_EXEC | EV_EXIT, mask & (EV_EXEC | EV_EXIT));
	load_trace(t);
	/* the first child was followed (its system calls), silently */
	EXPECT_EQ(1, count(t, c1, "syscall_enter nr=3 args=0x1388,"));
	EXPECT_EQ(0, countf(t, w->pid, "fork child=%ld ", c1));
	EXPECT_EQ(0, count(t, c1, "exec "));
	EXPECT_EQ(0, count(t, c1, "exit "));
	EXPECT_EQ(1, countf(t, w->pid, "fork child=%ld ", c2));
	EXPECT_EQ(1, count(t, c2, "exec comm=pt_exec "));
	EXPECT_EQ(1, count(t, c2, "exit code=0x300 status=3"));
}

/*
 * A filter set to @on lets through only the records of the child that
 * the worker's command @cmd creates, which matches it and closes fd
 * @fd; the worker's own close(1001) is filtered out.  Back at @off, the
 * worker's close(1002) is recorded.
 */
static void filter_case(struct __test_metadata *_metadata,
			FIXTURE_DATA(pt) *self, const char *ctl,
			const char *on, const char *off, char cmd, int fd)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	int child;

	ASSERT_EQ(0, write_ctl(ctl, on));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, cmd));
	child = w->sh->child;
	ASSERT_EQ(0, command(w, '1'));
	load_trace(t);
	EXPECT_EQ(1, countf(t, child, "syscall_enter nr=3 args=0x%lx,", fd));
	EXPECT_EQ(1, count(t, child, "exit code=0x0 status=0"));
	EXPECT_EQ(0, count(t, w->pid, ""));
	EXPECT_EQ(t->n, count(t, child, ""));
	free_trace(t);
	clear_trace();
	ASSERT_EQ(0, write_ctl(ctl, off));
	ASSERT_EQ(0, command(w, '2'));
	load_trace(t);
	EXPECT_EQ(1, count(t, w->pid, "syscall_enter nr=3 args=0x3ea,"));
}

/* uid 1000: only the child after its setuid(1000) */
TEST_F(pt, uid_filter)
{
	filter_case(_metadata, self, "process_trace_uid_filter", "1000", "-1",
		    'u', 2000);
}

/* name pt_named: only the child after its prctl(PR_SET_NAME) */
TEST_F(pt, taskcomm_filter)
{
	char val[64];

	ASSERT_EQ(0, write_ctl("process_trace_taskcomm_filter", "pt_named\n"));
	read_ctl("process_trace_taskcomm_filter", val, sizeof(val));
	EXPECT_STREQ("pt_named\n", val);
	filter_case(_metadata, self, "process_trace_taskcomm_filter",
		    "pt_named\n", "\n", 'n', 3000);
}

/* A new follow_pid applies at once: the old tree is dropped. */
TEST_F(pt, follow_pid_change)
{
	struct worker *w = &self->w, w2;
	struct trace *t = &self->t;

	ASSERT_EQ(0, spawn_worker(&w2));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, '1'));
	ASSERT_EQ(0, command(&w2, '1'));
	ASSERT_EQ(0, write_ctlf("process_follow_pid", "%ld", w2.pid));
	ASSERT_EQ(0, command(w, '2'));
	ASSERT_EQ(0, command(&w2, '2'));
	EXPECT_EQ(0, task_mask(w->pid));
	EXPECT_NE(0, task_mask(w2.pid));
	load_trace(t);
	EXPECT_EQ(1, count(t, w->pid, "syscall_enter nr=3 args=0x3e9,"));
	EXPECT_EQ(0, count(t, w2.pid, "syscall_enter nr=3 args=0x3e9,"));
	EXPECT_EQ(0, count(t, w->pid, "syscall_enter nr=3 args=0x3ea,"));
	EXPECT_EQ(1, count(t, w2.pid, "syscall_enter nr=3 args=0x3ea,"));
	EXPECT_EQ(7, finish_worker(&w2));
}

/* Bad values are refused and change nothing. */
TEST_F(pt, bad_values)
{
	static const struct { const char *file, *val; int err; } bad[] = {
		{ "process_trace_syscalls", "abc", EINVAL },
		{ "process_trace_syscalls", "2", EINVAL },
		{ "process_trace_syscalls", "-1", EINVAL },
		{ "process_trace_signals", "yes", EINVAL },
		{ "process_trace_lifecycle", "1x", EINVAL },
		{ "process_trace_uid_filter", "abc", EINVAL },
		{ "process_trace_uid_filter", "-2", EINVAL },
		{ "process_trace_uid_filter", "4294967295", EINVAL },
		{ "process_trace_taskcomm_filter", "0123456789abcdefXYZ", EINVAL },
		{ "process_follow_pid", "abc", EINVAL },
		{ "process_follow_pid", "-5", EINVAL },
		{ "process_follow_pid", "99999999", ESRCH },
	};
	char before[64], after[64];
	unsigned int i;

	ASSERT_EQ(0, write_ctl("process_trace_uid_filter", "1000"));
	ASSERT_EQ(0, write_ctl("process_trace_taskcomm_filter", "abc"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		read_ctl(bad[i].file, before, sizeof(before));
		EXPECT_EQ(-bad[i].err, write_ctl(bad[i].file, bad[i].val))
			TH_LOG("%s <- %s", bad[i].file, bad[i].val);
		read_ctl(bad[i].file, after, sizeof(after));
		EXPECT_STREQ(before, after);
	}
	read_ctl("process_trace_uid_filter", after, sizeof(after));
	EXPECT_STREQ("1000\n", after);
	read_ctl("process_trace_taskcomm_filter", after, sizeof(after));
	EXPECT_STREQ("abc\n", after);
	read_ctl("process_follow_pid", after, sizeof(after));
	EXPECT_EQ(self->w.pid, atoi(after));
	read_ctl("process_trace_README", after, sizeof(after));
	EXPECT_NE(0, after[0]);
}

/*
 * A child killed by a signal: its exit record gives the signal, and the
 * worker's SIGCHLD says CLD_KILLED.  Every record, exactly.
 */
TEST_F(pt, exit_by_signal_record)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	char want[8][128];
	int child, n = 0;

	ASSERT_EQ(0, write_ctl("process_trace_syscalls", "0"));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, 'k'));
	child = w->sh->child;
	ASSERT_EQ(7, finish_worker(w));
	load_trace(t);
	dump_trace(t);
	ASSERT_EQ(5, t->n);
	EXPECT_EQ(0, strncmp(t->r[0].body, "fork child=", 11));
	EXPECT_EQ(child, atoi(t->r[0].body + 11));
	RECORD("signal signo=%d errno=0 code=0", SIGTERM);
	RECORD("exit code=0x%x signal=%d", SIGTERM, SIGTERM);
	expect_records(_metadata, t, child, want, n);
	EXPECT_EQ(child, t->r[1].pid);
	EXPECT_EQ(child, t->r[2].pid);
	EXPECT_STREQ("signal signo=17 errno=0 code=2", t->r[3].body);
	EXPECT_STREQ("exit code=0x700 status=7", t->r[4].body);
}

/*
 * A child the followed process had before the tracer started is not
 * followed: it leaves no record and carries no engine; the worker's
 * SIGCHLD when it exits is recorded.
 */
TEST_F(pt, children_from_before_not_followed)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	int child;

	ASSERT_EQ(0, write_ctl("process_trace_syscalls", "0"));
	ASSERT_EQ(0, command(w, 'p'));
	child = w->sh->child;
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	EXPECT_NE(0, task_mask(w->pid));
	EXPECT_EQ(0, task_mask(child));
	ASSERT_EQ(0, command(w, 'P'));
	ASSERT_EQ(7, finish_worker(w));
	load_trace(t);
	dump_trace(t);
	ASSERT_EQ(2, t->n);
	EXPECT_STREQ("signal signo=17 errno=0 code=1", t->r[0].body);
	EXPECT_STREQ("exit code=0x700 status=7", t->r[1].body);
	EXPECT_EQ(0, count(t, child, ""));
}

/* Wait (up to 20 s) until @pid's event mask is 0. */
static long wait_mask_zero(pid_t pid)
{
	long mask = task_mask(pid);

	for (int i = 0; i < 4000 && mask; i++) {
		usleep(5000);
		mask = task_mask(pid);
	}
	return mask;
}

/*
 * Stopping the tracer wakes a followed thread blocked in read(): it
 * drops its engine with no command sent, and its read() goes on
 * (restarted, not failed: the worker would exit).  Nothing is recorded
 * after the stop.
 */
TEST_F(pt, stop_wakes_blocked_thread)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;

	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, '1'));
	ASSERT_NE(0, task_mask(w->pid));
	ASSERT_EQ(0, write_ctl("current_tracer", "nop"));
	EXPECT_EQ(0, wait_mask_zero(w->pid));
	clear_trace();
	ASSERT_EQ(0, command(w, '2'));
	ASSERT_EQ(7, finish_worker(w));
	load_trace(t);
	EXPECT_EQ(0, t->n);
}

static char proc_state(pid_t pid)
{
	char path[64], *s, *p, st = '?';

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	s = read_all(path, 0);
	if (s && (p = strrchr(s, ')')) && p[1] == ' ')
		st = p[2];
	free(s);
	return st;
}

/*
 * A followed thread in a job-control stop stays stopped when the tracer
 * stops, and its mask is zero at once (utrace lowers it on the detach);
 * continued, it drops its engine and goes on, unrecorded.
 */
TEST_F(pt, stop_leaves_job_stopped_thread_stopped)
{
	struct worker *w = &self->w;
	struct trace *t = &self->t;
	long mask;
	int st;

	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	ASSERT_EQ(0, command(w, '1'));
	mask = task_mask(w->pid);
	ASSERT_NE(0, mask);
	ASSERT_EQ(0, kill(w->pid, SIGSTOP));
	ASSERT_EQ(w->pid, waitpid(w->pid, &st, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(st));
	ASSERT_EQ(0, write_ctl("current_tracer", "nop"));
	EXPECT_EQ('T', proc_state(w->pid));
	EXPECT_EQ(0, waitpid(w->pid, &st, WNOHANG | WCONTINUED));
	EXPECT_EQ(0, task_mask(w->pid));
	clear_trace();
	ASSERT_EQ(0, kill(w->pid, SIGCONT));
	ASSERT_EQ(w->pid, waitpid(w->pid, &st, WCONTINUED));
	EXPECT_TRUE(WIFCONTINUED(st));
	EXPECT_EQ(0, wait_mask_zero(w->pid));
	ASSERT_EQ(0, command(w, '2'));
	ASSERT_EQ(7, finish_worker(w));
	load_trace(t);
	EXPECT_EQ(0, t->n);
}

/* ---- on and off, many times ----------------------------------------- */

static void *busy_thread(void *arg)
{
	syscall(SYS_gettid);
	return NULL;
}

static void busy_usr1(int sig)
{
}

/* A workload that forks, execs, signals itself and makes threads. */
static pid_t spawn_busy(void)
{
	pid_t pid = fork();
	pthread_t th;

	if (pid)
		return pid;
	signal(SIGUSR1, busy_usr1);
	for (;;) {
		pid_t c = fork();

		if (!c) {
			execl(PT_EXEC, "pt_exec", (char *)NULL);
			_exit(127);
		}
		waitpid(c, NULL, 0);
		kill(getpid(), SIGUSR1);
		if (!pthread_create(&th, NULL, busy_thread, NULL))
			pthread_join(th, NULL);
	}
}

/* Threads (of every process) whose Utrace line is not 0. */
static int attached_threads(char *first, size_t size)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *p, *e;
	char path[600];
	int n = 0;
	long mask;

	if (!proc)
		return -1;
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		task = opendir(path);
		if (!task)
			continue;
		while ((e = readdir(task))) {
			if (e->d_name[0] < '0' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/status",
				 p->d_name, e->d_name);
			mask = utrace_mask(path);
			if (mask > 0) {
				if (!n)
					snprintf(first, size, "%s: %lx", path,
						 mask);
				n++;
			}
		}
		closedir(task);
	}
	closedir(proc);
	return n;
}

static long slab_objects(const char *cache)
{
	char path[128], *s;
	long n = -1;

	/* a shrink also empties KASAN's quarantine of freed objects */
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache);
	write_file(path, O_TRUNC, "1");
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/objects", cache);
	if (access(path, F_OK))
		return -1;
	s = read_all(path, 0);
	if (s)
		n = atol(s);
	free(s);
	return n;
}

TEST_F_TIMEOUT(pt, on_off_100_times, 540)
{
	char first[700] = "";
	pid_t busy[2];
	long before, after;
	int i, n, seen = 0;

	/* every user thread, those started later included */
	ASSERT_EQ(0, write_ctl("process_follow_pid", "0"));
	EXPECT_EQ(0, attached_threads(first, sizeof(first))) TH_LOG("%s", first);
	before = slab_objects("utrace_engine");
	busy[0] = spawn_busy();
	busy[1] = spawn_busy();
	for (i = 0; i < 100; i++) {
		/* half the time without system calls: no report at all */
		if (i == 50)
			ASSERT_EQ(0, write_ctl("process_trace_syscalls", "0"));
		ASSERT_EQ(0, write_ctl("current_tracer", "process"));
		if (task_mask(busy[i & 1]) > 0)
			seen++;
		if (i % 10 == 0)
			usleep(20000);
		ASSERT_EQ(0, write_ctl("current_tracer", "nop"));
	}
	reap(busy[0]);
	reap(busy[1]);
	/* a detached engine goes when its thread next leaves the kernel */
	for (i = 0; i < 50; i++) {
		n = attached_threads(first, sizeof(first));
		if (!n)
			break;
		usleep(100000);
	}
	EXPECT_EQ(0, n) TH_LOG("%d threads, first %s", n, first);
	EXPECT_EQ(100, seen);
	/*
	 * The engine cache is not merged with others: its objects are the
	 * engines.  Every flavour has slab statistics (config/base.config).
	 */
	ASSERT_LE(0, before);
	after = slab_objects("utrace_engine");
	for (i = 0; i < 100 && after != before; i++) {
		usleep(100000);
		after = slab_objects("utrace_engine");
	}
	EXPECT_EQ(before, after) TH_LOG("utrace engines allocated: %ld before, %ld after",
					before, after);
}

/* What a reader of "trace" in the followed tree saw. */
struct reader_report {
	int eof;		/* read to its end, within READER_CAP bytes */
	int getppid;		/* records of its own getppid() calls */
	long bytes;
};

#define READER_CAP	(4L << 20)
#define READER_CALLS	5

/*
 * Make READER_CALLS getppid() calls, then read "trace" to its end (or
 * READER_CAP bytes), as "cat trace" from the followed shell does.
 */
static void reader_main(int go_fd, int report_fd)
{
	static char buf[READER_CAP + 1];
	struct reader_report r = {};
	char *p;
	ssize_t n;
	int fd, i;

	get_byte(go_fd);
	for (i = 0; i < READER_CALLS; i++)
		syscall(SYS_getppid);
	fd = open(TRACEFS "/trace", O_RDONLY);
	if (fd < 0)
		_exit(2);
	while (r.bytes < READER_CAP &&
	       (n = read(fd, buf + r.bytes, READER_CAP - r.bytes)) > 0)
		r.bytes += n;
	r.eof = r.bytes < READER_CAP;
	close(fd);
	buf[r.bytes] = '\0';
	for (p = buf; (p = strstr(p, "syscall_enter nr=")); p++)
		if (atoi(p + strlen("syscall_enter nr=")) == SYS_getppid)
			r.getppid++;
	if (write(report_fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

/*
 * A process of the followed tree reads "trace": its own accesses to the
 * tracing files are not recorded while it has the file open, so that
 * the read ends, and what it reads holds what was recorded before, its
 * own system calls among them.
 */
TEST(reader_in_the_followed_tree_reads_to_the_end)
{
	struct reader_report r = {};
	int go[2], report[2], st;
	pid_t pid;

	defaults();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		reader_main(go[0], report[1]);
	ASSERT_EQ(0, write_ctlf("process_follow_pid", "%ld", pid));
	ASSERT_EQ(0, write_ctl("current_tracer", "process"));
	put_byte(go[1]);
	ASSERT_EQ((ssize_t)sizeof(r), read(report[0], &r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	TH_LOG("%ld bytes read", r.bytes);
	EXPECT_EQ(1, r.eof);
	EXPECT_EQ(READER_CALLS, r.getppid);
	defaults();
}

TEST_HARNESS_MAIN
