// SPDX-License-Identifier: GPL-2.0
/*
 * utrace core tests, driven through the utrace_test engine module
 * (tests/modules/utrace_test): each test runs a child with a known
 * behaviour, attaches engines to it and checks the exact sequence of
 * callbacks and the exact answers of the utrace calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../guest_util.h"

#define CTL "/sys/kernel/debug/utrace_test/ctl"
#define LOG "/sys/kernel/debug/utrace_test/log"

/* event bits and actions of the contract */
enum { QUIESCE, REAP, CLONE, EXEC, EXIT, DEATH, SYSCALL_ENTRY, SYSCALL_EXIT,
	SIGNAL, SIGNAL_IGN, SIGNAL_STOP, SIGNAL_TERM, SIGNAL_CORE, JCTL };
#define EV(x) (1UL << (x))
enum { STOP, REPORT, INTERRUPT, SINGLESTEP, BLOCKSTEP, RESUME, DETACH };
#define SYSCALL_ABORT 0x10
#define SIGNAL_HOLD 0x100
enum { SIG_DELIVER = 0x00, SIG_IGN_ = 0x10, SIG_TERM_ = 0x20, SIG_CORE_ = 0x30,
	SIG_STOP_ = 0x40, SIG_TSTP_ = 0x50, SIG_HANDLER_ = 0x70 };

/* Write @fmt to the test module's ctl file: 0 or -errno. */
#define ctl(...) write_file(CTL, 0, __VA_ARGS__)

static char logbuf[65536];

static const char *read_log(void)
{
	return read_file(LOG, logbuf, sizeof(logbuf));
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait (up to ~20 s) until the log holds @needle. */
static bool log_wait(const char *needle)
{
	for (int i = 0; i < 4000; i++) {
		if (strstr(read_log(), needle))
			return true;
		msleep(5);
	}
	return false;
}

static int module_fd(void)
{
	char path[PATH_MAX];
	struct utsname u;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/utrace_test.ko",
		 u.release);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static int load_module(void)
{
	int fd = module_fd(), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload_module(void)
{
	return syscall(SYS_delete_module, "utrace_test", O_NONBLOCK) ? -errno : 0;
}

/*
 * A child that waits for go() on a pipe and then runs @fn.  Its first
 * report after go() is the exit of the read() it blocked in.
 */
static struct child spawn(void (*fn)(void *), void *arg)
{
	struct child c = fork_child();

	if (c.pid == 0) {
		fn(arg);
		syscall(SYS_exit_group, 0, 0);
	}
	/* wait until it blocks in read(): /proc/PID/syscall starts "0 " */
	for (int i = 0; i < 4000; i++) {
		char path[64], buf[64] = "";
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/syscall", c.pid);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) < 0)
				buf[0] = '\0';
			close(fd);
		}
		if (!strncmp(buf, "0 ", 2))
			break;
		usleep(2000);
	}
	return c;
}

/* spawn(), then engine 0 attached to the child with @events. */
static struct child spawn_traced(void (*fn)(void *), void *arg,
				 unsigned long events)
{
	struct child c = spawn(fn, arg);

	if (ctl("attach %d 0", c.pid) || ctl("events 0 %lu", events)) {
		kill(c.pid, SIGKILL);
		waitpid(c.pid, NULL, __WALL);
		c.pid = -1;
	}
	return c;
}

/* Is engine @id's thread held by a stop?  Waits up to 20 s for it. */
static bool held(int id)
{
	for (int i = 0; i < 4000; i++) {
		if (!ctl("examine %d", id))
			return true;
		msleep(5);
	}
	return false;
}

/*
 * spawn_traced(), then go() and wait until the child is held by engine 0
 * at its first getpid() entry (@fn must call getpid() first).
 */
static struct child spawn_stopped(void (*fn)(void *), void *arg,
				  unsigned long events)
{
	struct child c = spawn_traced(fn, arg, events | EV(SYSCALL_ENTRY));
	char line[128];

	if (c.pid < 0)
		return c;
	snprintf(line, sizeof(line), "0 syscall_entry %d action=0x5 nr=39 ",
		 c.pid);
	if (ctl("reply_once 0 %d %d", SYSCALL_ENTRY, STOP)) {
		close(c.go);
	} else {
		go(&c);
		/* logged in the callback: stopped a moment later */
		if (log_wait(line) && held(0))
			return c;
	}
	kill(c.pid, SIGKILL);
	waitpid(c.pid, NULL, __WALL);
	c.pid = -1;
	return c;
}

/* spawn_traced() in a test, which fails if the child could not be had */
static struct child traced(struct __test_metadata *_metadata,
			   void (*fn)(void *), void *arg, unsigned long events)
{
	struct child c = spawn_traced(fn, arg, events);

	ASSERT_LT(0, c.pid) TH_LOG("spawning and attaching: %m");
	return c;
}

/* spawn_stopped() in a test, which fails if the child was not held */
static struct child stopped(struct __test_metadata *_metadata,
			    void (*fn)(void *), void *arg, unsigned long events)
{
	struct child c = spawn_stopped(fn, arg, events);

	ASSERT_LT(0, c.pid) TH_LOG("holding the child at its getpid()");
	return c;
}

/* The engines' log is @fmt, with @pid as its %1$d */
static void expect_log(struct __test_metadata *_metadata, pid_t pid,
		       const char *fmt)
{
	char want[2048];

	snprintf(want, sizeof(want), fmt, pid);
	EXPECT_STREQ(want, read_log());
}

/*
 * wait() can return before the dead thread's own death report is made;
 * an engine is fully detached (utrace_barrier() says -ESRCH) only after
 * its last callback, so wait for that.
 */
static int settle(int id)
{
	int ret = 0;

	for (int i = 0; i < 4000; i++) {
		ret = ctl("barrier %d", id);
		if (ret == -ESRCH)
			break;
		msleep(5);
	}
	return ret;
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, __WALL) != pid)
		return -1;
	return status;
}

/* Children's bodies: known system calls with known arguments. */
static void body_getpid_exit3(void *arg)
{
	syscall(SYS_getpid, 11, 22);
	syscall(SYS_exit_group, 3, 0);
}

static void body_getpid_loop(void *arg)
{
	for (int i = 0; i < (long)arg; i++)
		syscall(SYS_getpid, i, 0);
	syscall(SYS_exit_group, 0, 0);
}

static void body_abort_check(void *arg)
{
	long ret = syscall(SYS_getpid, 11, 22);

	/* aborted: the call never ran and returns -ENOSYS */
	syscall(SYS_exit_group, ret == -1 && errno == ENOSYS ? 42 : 1, 0);
}

/*
 * body_spin() counts its laps in user mode here, in memory it shares
 * with the parent: a count that grows is a thread running its own code.
 */
static volatile unsigned long *spin_laps;

static void body_spin(void *arg)
{
	for (;;)
		(*spin_laps)++;
}

/* spawn_traced() a body_spin() child, spin_laps shared with it */
static struct child spawn_spinning(unsigned long events)
{
	struct child c = { .pid = -1 };
	void *p = mmap(NULL, sizeof(*spin_laps), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return c;
	spin_laps = p;
	return spawn_traced(body_spin, NULL, events);
}

/* Wait (up to ~20 s) until body_spin() has run past lap @n. */
static bool spin_past(unsigned long n)
{
	for (int i = 0; i < 4000; i++) {
		if (*spin_laps > n)
			return true;
		msleep(5);
	}
	return false;
}

static void body_fork_exit5(void *arg)
{
	pid_t g = fork();

	if (g == 0)
		syscall(SYS_exit_group, 5, 0);
	waitpid(g, NULL, 0);
	syscall(SYS_exit_group, 0, 0);
}

static void body_vfork(void *arg)
{
	pid_t g = vfork();

	if (g == 0)
		syscall(SYS_exit_group, 6, 0);
	waitpid(g, NULL, 0);
	syscall(SYS_exit_group, 0, 0);
}

static void *thread_fn(void *arg)
{
	return NULL;
}

static void body_thread(void *arg)
{
	pthread_t t;

	pthread_create(&t, NULL, thread_fn, NULL);
	pthread_join(t, NULL);
	syscall(SYS_exit_group, 0, 0);
}

static void body_exec(void *arg)
{
	execl("/bin/busybox", "true", NULL);
	_exit(99);
}

FIXTURE(utrace) {
	char dummy;
};

FIXTURE_SETUP(utrace)
{
	int ret;

	unload_module();	/* left loaded by a test that failed */
	ret = load_module();

	ASSERT_EQ(0, ret) TH_LOG("loading utrace_test.ko: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(utrace)
{
	EXPECT_EQ(0, unload_module());
}

/* Every event of a short life, in order, with exact arguments. */
TEST_F(utrace, syscall_exit_death_reap_sequence)
{
	struct child c = traced(_metadata, body_getpid_exit3, NULL,
				EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT) |
				EV(EXIT) | EV(DEATH) | EV(REAP));
	int st;

	go(&c);
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(3, WEXITSTATUS(st));
	ASSERT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=11 arg1=22\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=3 arg1=0\n"
		   "0 exit %1$d action=5 code=0x300\n"
		   "0 death %1$d group_dead=1 signal=17\n"
		   "0 reap %1$d last\n");
	/* reaped: the engine is fully detached */
	EXPECT_EQ(-ESRCH, ctl("events 0 0"));
	EXPECT_EQ(-ESRCH, ctl("control 0 %d", RESUME));
	EXPECT_EQ(-ESRCH, ctl("barrier 0"));
	EXPECT_EQ(-ESRCH, ctl("barrier_pid 0"));
	EXPECT_EQ(0, ctl("put 0"));
}

TEST_F(utrace, syscall_abort)
{
	struct child c = traced(_metadata, body_abort_check, NULL,
				EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT));
	int st;

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SYSCALL_ENTRY,
			 SYSCALL_ABORT | RESUME));
	go(&c);
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(42, WEXITSTATUS(st));
	ASSERT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=11 arg1=22\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=-38\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=42 arg1=0\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/* Engines are called in attach order; each sees the previous answer. */
TEST_F(utrace, attach_order)
{
	struct child c = spawn(body_getpid_loop, (void *)1);

	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, ctl("attach %d %d", c.pid, i));
		ASSERT_EQ(0, ctl("events %d %lu", i, EV(SYSCALL_ENTRY)));
	}
	ASSERT_EQ(0, ctl("reply 1 %d %d", SYSCALL_ENTRY, REPORT));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	expect_log(_metadata, c.pid,
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "1 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "2 syscall_entry %1$d action=0x1 nr=39 arg0=0 arg1=0\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n"
		   "1 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n"
		   "2 syscall_entry %1$d action=0x1 nr=231 arg0=0 arg1=0\n");
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, ctl("put %d", i));
}

/* An engine attached during a report first sees the next event. */
TEST_F(utrace, attach_during_report_sees_next_event)
{
	struct child c = traced(_metadata, body_getpid_loop, (void *)1,
				EV(SYSCALL_ENTRY));
	char line[128];

	ASSERT_EQ(0, ctl("hold 0 %d", SYSCALL_ENTRY));
	go(&c);
	snprintf(line, sizeof(line), "0 syscall_entry %d action=0x5 nr=39", c.pid);
	/* engine 0's callback is held: attach inside the report */
	ASSERT_TRUE(log_wait(line));
	ASSERT_EQ(0, ctl("attach %d 1", c.pid));
	ASSERT_EQ(0, ctl("events 1 %lu", EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT)));
	ASSERT_EQ(0, ctl("release 0 %d", SYSCALL_ENTRY));
	ASSERT_EQ(0, reap(c.pid));
	expect_log(_metadata, c.pid,
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "1 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n"
		   "1 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n");
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("put 1"));
}

static const char *proc_state(pid_t pid, char *buf, size_t len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Utrace:", 7))
			snprintf(buf, len, "%s", line);
	fclose(f);
	return buf;
}

/*
 * UTRACE_STOP at syscall entry holds the thread; it is not a ptrace
 * stop: wait() sees nothing, and a tracer that attaches meanwhile and
 * asks for a stop gets it only once RESUME lets the thread go.
 */
TEST_F(utrace, stop_at_syscall_entry_then_resume)
{
	struct child c = traced(_metadata, body_getpid_loop, (void *)3,
				EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT));
	char line[128], st[300];
	int status;

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SYSCALL_ENTRY, STOP));
	EXPECT_STREQ("Utrace:\tc0\n", proc_state(c.pid, st, sizeof(st)));
	go(&c);
	snprintf(line, sizeof(line), "0 syscall_entry %d action=0x5 nr=39 arg0=0", c.pid);
	ASSERT_TRUE(log_wait(line));
	msleep(200);
	/* held: no exit report for that call */
	snprintf(line, sizeof(line), "0 syscall_exit %d action=5 nr=39", c.pid);
	EXPECT_EQ(NULL, strstr(read_log(), line));
	EXPECT_EQ(0, ctl("control 0 %d", STOP));	/* stopped already */
	EXPECT_EQ(0, ctl("examine 0"));
	EXPECT_EQ(0, waitpid(c.pid, &status, WNOHANG | WUNTRACED | __WALL));
	EXPECT_EQ(0, ptrace(PTRACE_SEIZE, c.pid, 0, 0));
	EXPECT_EQ(0, ptrace(PTRACE_INTERRUPT, c.pid, 0, 0));
	EXPECT_EQ(0, waitpid(c.pid, &status, WNOHANG | __WALL));
	/* not stopped for the tracer: its requests find no tracee */
	EXPECT_EQ(-1, ptrace(PTRACE_PEEKUSER, c.pid, 0, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	EXPECT_EQ(c.pid, waitpid(c.pid, &status, __WALL));
	EXPECT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(PTRACE_EVENT_STOP, status >> 16);
	EXPECT_EQ(0, ptrace(PTRACE_DETACH, c.pid, 0, 0));
	EXPECT_EQ(0, reap(c.pid));
	EXPECT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=1 arg1=0\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=2 arg1=0\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/* SIGKILL ends a utrace stop; the held call never runs. */
TEST_F(utrace, sigkill_wakes_stopped_thread)
{
	struct child c = stopped(_metadata, body_getpid_loop, (void *)3,
				 EV(SYSCALL_EXIT) | EV(EXIT) | EV(DEATH));
	int status;

	ASSERT_EQ(0, kill(c.pid, SIGKILL));
	status = reap(c.pid);
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=-38\n"
		   "0 exit %1$d action=5 code=0x9\n"
		   "0 death %1$d group_dead=1 signal=17\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * utrace_control(STOP) on a thread running in user mode: -EINPROGRESS,
 * then it stops at its next return to user mode and reports QUIESCE.
 */
TEST_F(utrace, control_stop_running_thread)
{
	struct child c = spawn_spinning(EV(QUIESCE));
	char line[128], st[300] = "";
	int i, ret = -1, status;

	ASSERT_LT(0, c.pid);
	/* the engine keeps wanting the stop each time it is asked */
	ASSERT_EQ(0, ctl("reply 0 %d %d", QUIESCE, STOP));
	go(&c);
	ASSERT_TRUE(spin_past(0));		/* running in user mode */
	EXPECT_EQ(-EINVAL, ctl("examine 0"));
	EXPECT_EQ(-EINPROGRESS, ctl("control 0 %d", STOP));
	for (i = 0; i < 2000 && ret; i++) {
		ret = ctl("control 0 %d", STOP);
		msleep(5);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, ctl("examine 0"));
	snprintf(line, sizeof(line), "0 quiesce %d action=5 event=0x0\n", c.pid);
	EXPECT_NE(NULL, strstr(read_log(), line)) TH_LOG("log:\n%s", logbuf);
	EXPECT_EQ(0, waitpid(c.pid, &status, WNOHANG | WUNTRACED | __WALL));
	/* detaching the only stopping engine lets it run */
	EXPECT_EQ(0, ctl("control 0 %d", DETACH));
	EXPECT_EQ(-ESRCH, ctl("control 0 %d", RESUME));
	EXPECT_EQ(-ESRCH, ctl("events 0 1"));
	/* its events are gone at once: the mask is lowered by DETACH */
	EXPECT_STREQ("Utrace:\t0\n", proc_state(c.pid, st, sizeof(st)));
	/*
	 * The thread drops the engine at its next safe point, once woken;
	 * until then utrace_barrier() finds no callback and answers 0.
	 */
	for (i = 0; i < 2000; i++) {
		ret = ctl("barrier 0");
		if (ret != 0)
			break;
		msleep(5);
	}
	EXPECT_EQ(-ESRCH, ret);
	EXPECT_EQ(0, kill(c.pid, SIGKILL));
	status = reap(c.pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(0, ctl("put 0"));
}

/* Attach answers: lookup, exclusive, kernel thread, zombie, ptraced. */
TEST_F(utrace, attach_errors)
{
	struct child c = spawn(body_getpid_loop, (void *)0);
	pid_t z;

	EXPECT_EQ(-ENOENT, ctl("lookup %d 0", c.pid));
	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	EXPECT_EQ(0, ctl("lookup %d 0", c.pid));
	EXPECT_EQ(-EEXIST, ctl("attach %d 0 exclusive", c.pid));
	EXPECT_EQ(-EPERM, ctl("attach 2 1"));		/* kthreadd */
	EXPECT_EQ(-ESRCH, ctl("attach 999999 1"));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	EXPECT_EQ(0, ctl("put 0"));

	z = fork();
	if (z == 0)
		_exit(0);
	/* a zombie: dead, not reaped */
	for (int i = 0; i < 1000; i++) {
		char path[64], buf[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", z);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		if (strstr(buf, ") Z "))
			break;
		msleep(5);
	}
	EXPECT_EQ(-EPERM, ctl("attach %d 1", z));
	reap(z);

	/* a ptraced thread, in a ptrace stop, takes an engine as any other */
	z = fork();
	if (z == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(z, waitpid(z, NULL, WUNTRACED));
	EXPECT_EQ(0, ctl("attach %d 1", z));
	kill(z, SIGKILL);
	reap(z);
	EXPECT_EQ(0, ctl("put 1"));
}

/* CLONE reports fork, vfork and threads; the callback attaches to the child. */
TEST_F(utrace, clone_fork_child_followed)
{
	struct child c = spawn(body_fork_exit5, NULL);
	char want[256];
	const char *log;
	int g;

	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	ASSERT_EQ(0, ctl("attach_child 0 %lu", EV(EXIT) | EV(DEATH)));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(CLONE)));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	ASSERT_EQ(-ESRCH, settle(1));
	log = read_log();
	ASSERT_EQ(1, sscanf(log, "0 clone %*d action=5 child=%d vm=0 vfork=0 thread=0", &g))
		TH_LOG("log:\n%s", log);
	snprintf(want, sizeof(want),
		 "0 clone %1$d action=5 child=%2$d vm=0 vfork=0 thread=0\n"
		 "1 exit %2$d action=5 code=0x500\n"
		 "1 death %2$d group_dead=1 signal=17\n", c.pid, g);
	EXPECT_STREQ(want, log);
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("put 1"));
}

TEST_F(utrace, clone_vfork_and_thread)
{
	struct child c = traced(_metadata, body_vfork, NULL, EV(CLONE));
	struct child t;
	char want[128];
	int g = 0;

	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	ASSERT_EQ(1, sscanf(read_log(), "0 clone %*d action=5 child=%d", &g))
		TH_LOG("log:\n%s", logbuf);
	snprintf(want, sizeof(want),
		 "0 clone %d action=5 child=%d vm=1 vfork=1 thread=0\n",
		 c.pid, g);
	EXPECT_STREQ(want, logbuf);
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("clear"));

	t = spawn(body_thread, NULL);
	ASSERT_EQ(0, ctl("attach %d 0", t.pid));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(CLONE)));
	go(&t);
	ASSERT_EQ(0, reap(t.pid));
	ASSERT_EQ(1, sscanf(read_log(), "0 clone %*d action=5 child=%d", &g))
		TH_LOG("log:\n%s", logbuf);
	snprintf(want, sizeof(want),
		 "0 clone %d action=5 child=%d vm=1 vfork=0 thread=1\n",
		 t.pid, g);
	EXPECT_STREQ(want, logbuf);
	EXPECT_EQ(0, ctl("put 0"));
}

TEST_F(utrace, exec_reported)
{
	struct child c = traced(_metadata, body_exec, NULL,
				EV(EXEC) | EV(EXIT));

	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	expect_log(_metadata, c.pid,
		   "0 exec %1$d action=5 comm=busybox fmt=1\n"
		   "0 exit %1$d action=5 code=0x0\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/* Detaching in report_death means no report_reap. */
TEST_F(utrace, detach_in_death_means_no_reap)
{
	struct child c = traced(_metadata, body_getpid_loop, (void *)0,
				EV(DEATH) | EV(REAP));

	ASSERT_EQ(0, ctl("reply 0 %d %d", DEATH, DETACH));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	ASSERT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 death %d group_dead=1 signal=17\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * The /proc status line follows the event mask; a detach clears it at
 * once, the thread still asleep (in read(), until go()).
 */
TEST_F(utrace, proc_status_line)
{
	struct child c = spawn(body_getpid_loop, (void *)2);
	char st[300];

	EXPECT_STREQ("Utrace:\t0\n", proc_state(c.pid, st, sizeof(st)));
	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(EXIT) | EV(SYSCALL_ENTRY)));
	EXPECT_STREQ("Utrace:\t50\n", proc_state(c.pid, st, sizeof(st)));
	ASSERT_EQ(0, ctl("control 0 %d", DETACH));
	EXPECT_STREQ("Utrace:\t0\n", proc_state(c.pid, st, sizeof(st)));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	EXPECT_STREQ("", read_log());
	EXPECT_EQ(0, ctl("put 0"));
}


/* Signal reports: the default action comes in, the engine may change it. */
/* Dispositions and the mask come from whoever ran us: start clean. */
static void default_signal(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	handled = 1;
}

static void body_handler(void *arg)
{
	default_signal(SIGUSR1);
	signal(SIGUSR1, on_usr1);
	syscall(SYS_kill, getpid(), SIGUSR1);
	syscall(SYS_exit_group, handled ? 7 : 1, 0);
}

static void body_kill_self(void *arg)
{
	long sig = (long)arg;

	default_signal(sig);
	if (sig == SIGUSR2)
		signal(SIGUSR2, SIG_IGN);
	syscall(SYS_kill, getpid(), sig);
	syscall(SYS_exit_group, 8, 0);
}

static int run_signal_child(void (*fn)(void *), void *arg, unsigned long events,
			    int event, int reply)
{
	struct child c = spawn(fn, arg);
	int st;

	if (ctl("attach %d 0", c.pid) || ctl("events 0 %lu", events) ||
	    (event >= 0 && ctl("reply 0 %d %d", event, reply))) {
		fprintf(stderr, "# utrace_test: %m\n");
		kill(c.pid, SIGKILL);
		reap(c.pid);
		return -1;
	}
	go(&c);
	st = reap(c.pid);
	settle(0);
	ctl("put 0");
	return st;
}

/* Is the log @fmt, with the child's pid (the log's first TID) as %1$d? */
static bool log_is(const char *fmt)
{
	const char *log = read_log();
	char want[1024];
	int pid = -1;

	if (sscanf(log, "%*d %*s %d", &pid) != 1)
		return false;
	snprintf(want, sizeof(want), fmt, pid);
	if (strcmp(want, log))
		fprintf(stderr, "# log:\n%s# wanted:\n%s", log, want);
	return !strcmp(want, log);
}

TEST_F(utrace, signal_handler_delivered_and_setup_reported)
{
	int st = run_signal_child(body_handler, NULL, EV(SIGNAL), -1, 0);

	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(7, WEXITSTATUS(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x5 signo=10 code=0\n"
			   "0 signal %1$d action=0x75 signo=0 code=0\n"));
}

TEST_F(utrace, engine_ignores_fatal_signal)
{
	int st = run_signal_child(body_kill_self, (void *)SIGTERM,
				  EV(SIGNAL_TERM), SIGNAL_TERM, SIG_IGN_ | RESUME);

	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(8, WEXITSTATUS(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x25 signo=15 code=0\n"));
}

/* A callback's signal action stands when it detaches in the same answer. */
TEST_F(utrace, engine_ignores_fatal_signal_and_detaches)
{
	int st = run_signal_child(body_kill_self, (void *)SIGTERM,
				  EV(SIGNAL_TERM), SIGNAL_TERM,
				  SIG_IGN_ | DETACH);

	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(8, WEXITSTATUS(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x25 signo=15 code=0\n"));
}

TEST_F(utrace, fatal_signal_reported_then_kills)
{
	int st = run_signal_child(body_kill_self, (void *)SIGTERM,
				  EV(SIGNAL_TERM), -1, 0);

	ASSERT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(SIGTERM, WTERMSIG(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x25 signo=15 code=0\n"));
}

/* A QUIESCE report before the signal's does not change its action. */
TEST_F(utrace, signal_action_survives_quiesce_report)
{
	int st = run_signal_child(body_kill_self, (void *)SIGTERM,
				  EV(QUIESCE) | EV(SIGNAL_TERM), -1, 0);

	ASSERT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(SIGTERM, WTERMSIG(st));
	EXPECT_TRUE(log_is("0 quiesce %1$d action=5 event=0x800\n"
			   "0 signal %1$d action=0x25 signo=15 code=0\n"
			   "0 quiesce %1$d action=5 event=0x20\n"));
}

TEST_F(utrace, ignored_signal_reported)
{
	int st = run_signal_child(body_kill_self, (void *)SIGUSR2,
				  EV(SIGNAL_IGN), -1, 0);

	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(8, WEXITSTATUS(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x15 signo=12 code=0\n"));
}

TEST_F(utrace, core_signal_reported)
{
	int st = run_signal_child(body_kill_self, (void *)SIGQUIT,
				  EV(SIGNAL_CORE), -1, 0);

	ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("status %#x log:\n%s", st, read_log());
	EXPECT_EQ(SIGQUIT, WTERMSIG(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x35 signo=3 code=0\n"));
}

TEST_F(utrace, stop_signal_reported_and_ignored)
{
	int st = run_signal_child(body_kill_self, (void *)SIGTSTP,
				  EV(SIGNAL_STOP), SIGNAL_STOP, SIG_IGN_ | RESUME);

	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(8, WEXITSTATUS(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x55 signo=20 code=0\n"));
}

TEST_F(utrace, engine_turns_delivery_into_termination)
{
	int st = run_signal_child(body_handler, NULL, EV(SIGNAL), SIGNAL,
				  SIG_TERM_ | RESUME);

	ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(SIGUSR1, WTERMSIG(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x5 signo=10 code=0\n"));
}

/*
 * An engine answers a handled signal's report with @action, a stop:
 * the child stops with @stopsig, and after SIGCONT goes on without
 * running the handler.
 */
static void delivery_into_stop(struct __test_metadata *_metadata,
			       void (*body)(void *), int action, int stopsig)
{
	struct child c = traced(_metadata, body, NULL, EV(SIGNAL));
	int st;

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SIGNAL, action | RESUME));
	go(&c);
	ASSERT_EQ(c.pid, waitpid(c.pid, &st, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(stopsig, WSTOPSIG(st));
	ASSERT_EQ(0, kill(c.pid, SIGCONT));
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(1, WEXITSTATUS(st));		/* the handler never ran */
	EXPECT_TRUE(log_is("0 signal %1$d action=0x5 signo=10 code=0\n"));
	EXPECT_EQ(0, ctl("put 0"));
}

TEST_F(utrace, engine_turns_delivery_into_stop)
{
	delivery_into_stop(_metadata, body_handler, SIG_STOP_, SIGSTOP);
}

/* UTRACE_SIGNAL_HOLD with UTRACE_STOP: the signal waits for the resume. */
TEST_F(utrace, held_signal_delivered_after_resume)
{
	struct child c = traced(_metadata, body_handler, NULL, EV(SIGNAL));
	char line[128];
	int st;

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SIGNAL,
			 SIGNAL_HOLD | SIG_DELIVER | STOP));
	go(&c);
	snprintf(line, sizeof(line), "0 signal %d action=0x5 signo=10", c.pid);
	ASSERT_TRUE(log_wait(line));
	EXPECT_TRUE(held(0));		/* stopped, the signal held */
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(7, WEXITSTATUS(st));	/* the handler ran, once */
	expect_log(_metadata, c.pid,
		   "0 signal %1$d action=0x5 signo=10 code=0\n"
		   "0 signal %1$d action=0x5 signo=10 code=0\n"
		   "0 signal %1$d action=0x75 signo=0 code=0\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/* Six instructions between two system calls: six single-step traps. */
static void body_step(void *arg)
{
	asm volatile("mov $39, %%eax\n\t"
		     "mov $11, %%edi\n\t"
		     "mov $22, %%esi\n\t"
		     "syscall\n\t"
		     "nop\n\t"
		     "nop\n\t"
		     "nop\n\t"
		     "xor %%esi, %%esi\n\t"
		     "mov $231, %%eax\n\t"
		     "mov $0, %%edi\n\t"
		     "syscall\n\t"
		     ::: "rax", "rdi", "rsi", "rcx", "r11", "memory");
}

/*
 * Engine 0 steps the child from its getpid() entry with @action and
 * answers each of @traps SIGTRAPs: exactly those are reported before the
 * exit_group() entry.
 */
static void step_from_getpid(struct __test_metadata *_metadata,
			     void (*body)(void *), int action, int traps)
{
	struct child c = traced(_metadata, body, NULL,
				EV(SYSCALL_ENTRY) | EV(SIGNAL_CORE));
	char want[1024];
	int n = 0;

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SYSCALL_ENTRY, action));
	ASSERT_EQ(0, ctl("steps 0 %d %d", traps, action == BLOCKSTEP));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	ASSERT_EQ(-ESRCH, settle(0));
	n += snprintf(want + n, sizeof(want) - n,
		      "0 syscall_entry %d action=0x5 nr=39 arg0=11 arg1=22\n",
		      c.pid);
	for (int i = 0; i < traps; i++)
		n += snprintf(want + n, sizeof(want) - n,
			      "0 signal %d action=0x35 signo=5 code=2\n", c.pid);
	snprintf(want + n, sizeof(want) - n,
		 "0 syscall_entry %d action=0x5 nr=231 arg0=0 arg1=0\n", c.pid);
	EXPECT_STREQ(want, read_log());
	EXPECT_EQ(0, ctl("put 0"));
}

TEST_F(utrace, single_step_traps_each_instruction)
{
	step_from_getpid(_metadata, body_step, SINGLESTEP, 6);
}

/* Two taken jumps between two system calls, for block-stepping. */
static void body_blockstep(void *arg)
{
	asm volatile("mov $39, %%eax\n\t"
		     "mov $11, %%edi\n\t"
		     "mov $22, %%esi\n\t"
		     "syscall\n\t"
		     "nop\n\t"
		     "jmp 1f\n\t"
		     "nop\n\t"
		     "1: nop\n\t"
		     "nop\n\t"
		     "jmp 2f\n\t"
		     "nop\n\t"
		     "2: xor %%esi, %%esi\n\t"
		     "mov $231, %%eax\n\t"
		     "mov $0, %%edi\n\t"
		     "syscall\n\t"
		     ::: "rax", "rdi", "rsi", "rcx", "r11", "memory");
}

/*
 * Block-step @body_blockstep under ptrace from the entry of its getpid():
 * the number of TRAP_TRACE stops before it exits.  The CPU decides where
 * a block step traps (QEMU's emulation ignores the branch flag and traps
 * after every instruction), so this is what utrace must match.
 */
static int ptrace_blockstep_traps(void)
{
	siginfo_t si;
	int st, traps = 0;
	pid_t pid = fork();

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		body_blockstep(NULL);
		_exit(1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -1;
	for (;;) {		/* to the entry of getpid() */
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			return -1;
		if (ptrace(PTRACE_PEEKUSER, pid,
			   offsetof(struct user_regs_struct, orig_rax),
			   NULL) == SYS_getpid)
			break;
	}
	for (;;) {
		if (ptrace(PTRACE_SINGLEBLOCK, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid)
			return -1;
		if (WIFEXITED(st))
			return traps;
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP ||
		    ptrace(PTRACE_GETSIGINFO, pid, NULL, &si))
			return -1;
		if (si.si_code == TRAP_TRACE)
			traps++;
	}
}

/* UTRACE_BLOCKSTEP traps exactly as often as ptrace's block step. */
TEST_F(utrace, block_step_traps_as_ptrace_does)
{
	int traps = ptrace_blockstep_traps();

	ASSERT_LT(0, traps);
	step_from_getpid(_metadata, body_blockstep, BLOCKSTEP, traps);
}

/* -EINPROGRESS: clearing events while the engine's callback runs. */
TEST_F(utrace, set_events_einprogress_and_ealready)
{
	struct child c = traced(_metadata, body_getpid_loop, (void *)1,
				EV(SYSCALL_ENTRY) | EV(DEATH));
	char line[128];

	ASSERT_EQ(0, ctl("hold 0 %d", SYSCALL_ENTRY));
	ASSERT_EQ(0, ctl("hold 0 %d", DEATH));
	go(&c);
	snprintf(line, sizeof(line), "0 syscall_entry %d action=0x5 nr=39", c.pid);
	ASSERT_TRUE(log_wait(line));
	EXPECT_EQ(-EINPROGRESS, ctl("events 0 %lu", EV(DEATH)));
	EXPECT_EQ(0, ctl("release 0 %d", SYSCALL_ENTRY));
	/* in report_death: a detach answers -EALREADY */
	snprintf(line, sizeof(line), "0 death %d", c.pid);
	ASSERT_TRUE(log_wait(line));
	EXPECT_EQ(-EALREADY, ctl("control 0 %d", DETACH)) TH_LOG("%s", read_log());
	EXPECT_EQ(0, ctl("release 0 %d", DEATH));
	ASSERT_EQ(0, reap(c.pid));
	EXPECT_EQ(-ESRCH, settle(0));
	EXPECT_EQ(0, ctl("put 0"));
}

/* After the death report, asking for it again answers -EALREADY. */
TEST_F(utrace, death_events_after_death_ealready)
{
	struct child c = traced(_metadata, body_getpid_loop, (void *)0, EV(EXIT));
	char line[128];

	ASSERT_EQ(0, ctl("reply 0 %d %d", EXIT, STOP));
	go(&c);
	/* held in report_exit, then let go to die as a zombie */
	snprintf(line, sizeof(line), "0 exit %d", c.pid);
	ASSERT_TRUE(log_wait(line));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(REAP)));
	ASSERT_EQ(0, ctl("control 0 %d", RESUME));
	for (int i = 0; i < 2000; i++) {
		char path[64], buf[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", c.pid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		if (strstr(buf, ") Z "))
			break;
		msleep(5);
	}
	EXPECT_EQ(-EALREADY, ctl("events 0 %lu", EV(REAP) | EV(DEATH)));
	ASSERT_EQ(0, reap(c.pid));
	EXPECT_EQ(-ESRCH, settle(0));
	snprintf(line, sizeof(line), "0 exit %1$d action=5 code=0x0\n0 reap %1$d last\n",
		 c.pid);
	EXPECT_STREQ(line, read_log());
	EXPECT_EQ(0, ctl("put 0"));
}

/* Threads: an engine attached from the clone report follows each one. */
static void *thread_getpid(void *arg)
{
	syscall(SYS_getpid, (long)arg, 0);
	return NULL;
}

static void body_two_threads(void *arg)
{
	pthread_t a, b;

	pthread_create(&a, NULL, thread_getpid, (void *)100);
	pthread_create(&b, NULL, thread_getpid, (void *)101);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	syscall(SYS_exit_group, 0, 0);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

TEST_F(utrace, threads_followed_from_clone)
{
	struct child c = spawn(body_two_threads, NULL);

	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	ASSERT_EQ(0, ctl("attach_child 0 %lu", EV(SYSCALL_ENTRY) | EV(DEATH)));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(CLONE)));
	go(&c);
	ASSERT_EQ(0, reap(c.pid));
	read_log();
	EXPECT_EQ(2, count(logbuf, "vm=1 vfork=0 thread=1\n")) TH_LOG("%s", logbuf);
	EXPECT_EQ(1, count(logbuf, "nr=39 arg0=100 arg1=0\n")) TH_LOG("%s", logbuf);
	EXPECT_EQ(1, count(logbuf, "nr=39 arg0=101 arg1=0\n")) TH_LOG("%s", logbuf);
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("put 1"));
}

/*
 * exec from a multi-threaded process kills the other threads, whatever
 * the engines say: a thread held by UTRACE_STOP dies too.
 */
static void *thread_block(void *arg)
{
	syscall(SYS_getpid, 200, 0);	/* held here by the engine */
	return NULL;
}

/* Execs once the test, which sees the thread held, says so on fd @arg. */
static void body_mt_exec(void *arg)
{
	pthread_t t;
	char x;

	pthread_create(&t, NULL, thread_block, NULL);
	if (read((int)(long)arg, &x, 1) != 1)
		_exit(98);
	execl("/bin/busybox", "true", NULL);
	_exit(99);
}

TEST_F(utrace, exec_kills_thread_held_by_stop)
{
	int p[2], st, tid = 0;
	struct child c;
	char line[64];

	ASSERT_EQ(0, pipe(p));
	c = spawn(body_mt_exec, (void *)(long)p[0]);
	close(p[0]);
	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	/* the child's engine inherits engine 0's replies: stop at entry */
	ASSERT_EQ(0, ctl("reply 0 %d %d", SYSCALL_ENTRY, STOP));
	ASSERT_EQ(0, ctl("attach_child 0 %lu", EV(SYSCALL_ENTRY) | EV(DEATH)));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(CLONE)));
	go(&c);
	/* the thread is held at its first system call: then exec */
	ASSERT_TRUE(log_wait("\n1 syscall_entry ")) TH_LOG("%s", logbuf);
	EXPECT_TRUE(held(1));
	ASSERT_EQ(1, write(p[1], "x", 1));
	close(p[1]);
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(-ESRCH, settle(1));
	read_log();
	ASSERT_EQ(1, sscanf(strstr(logbuf, "child=") ?: "", "child=%d", &tid));
	/* held at the thread's first system call (glibc's, whichever) */
	snprintf(line, sizeof(line), "\n1 syscall_entry %d action=0x5 nr=", tid);
	EXPECT_NE(NULL, strstr(logbuf, line)) TH_LOG("%s", logbuf);
	EXPECT_EQ(1, count(logbuf, "1 syscall_entry ")) TH_LOG("%s", logbuf);
	snprintf(line, sizeof(line), "\n1 death %d group_dead=0 signal=-1\n", tid);
	EXPECT_NE(NULL, strstr(logbuf, line)) TH_LOG("%s", logbuf);
	EXPECT_EQ(3, count(logbuf, "\n")) TH_LOG("%s", logbuf);
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("put 1"));
}

/* UTRACE_STOP from a vfork's clone report: stopped before the wait. */
TEST_F(utrace, vfork_parent_stops_before_waiting)
{
	struct child c = traced(_metadata, body_vfork, NULL, EV(CLONE));
	char line[64];

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", CLONE, STOP));
	go(&c);
	snprintf(line, sizeof(line), "0 clone %d", c.pid);
	ASSERT_TRUE(log_wait(line));
	EXPECT_TRUE(held(0));	/* held, though the vfork child ran and exited */
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	ASSERT_EQ(0, reap(c.pid));
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * SIGSTOP and SIGCONT reach a thread held by UTRACE_STOP without ending
 * the hold; once let go it runs on and exits normally.
 */
TEST_F(utrace, sigstop_sigcont_while_held)
{
	struct child c = stopped(_metadata, body_getpid_loop, (void *)3, 0);
	int status;

	ASSERT_EQ(0, kill(c.pid, SIGSTOP));
	ASSERT_EQ(0, kill(c.pid, SIGCONT));
	msleep(100);
	EXPECT_EQ(0, ctl("examine 0"));		/* still held */
	/* neither stopped nor continued for wait(): held, as before */
	EXPECT_EQ(0, waitpid(c.pid, &status,
			     WNOHANG | WUNTRACED | WCONTINUED | __WALL));
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	EXPECT_EQ(0, reap(c.pid));
	EXPECT_EQ(0, ctl("put 0"));
}

/* Write @val to the sysfs file @path; the old value into @old if given. */
static int sysfs_set(const char *path, const char *val, char *old, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	if (old) {
		n = read(fd, old, len - 1);
		old[n > 0 ? n : 0] = '\0';
		old[strcspn(old, "\n")] = '\0';
	}
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The freezer (as in a suspend) freezes a thread held by UTRACE_STOP: the
 * hold is a freezable sleep, so freezing does not fail with -EBUSY after
 * the freeze timeout.  Thawed, the thread is still held, and runs on
 * when let go.  pm_test "freezer" freezes every user task, then thaws
 * them at once, with no device or platform step.
 */
TEST_F(utrace, freezer_freezes_held_thread)
{
	struct child c = stopped(_metadata, body_getpid_loop, (void *)2, 0);
	char test[64], timeout[64];
	struct timespec t0, t1;
	int ret, status;

	ASSERT_EQ(0, sysfs_set("/sys/module/suspend/parameters/pm_test_delay",
			       "0", NULL, 0));
	ASSERT_EQ(0, sysfs_set("/sys/power/pm_freeze_timeout", "3000",
			       timeout, sizeof(timeout)));
	ASSERT_EQ(0, sysfs_set("/sys/power/pm_test", "freezer",
			       test, sizeof(test)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = sysfs_set("/sys/power/state", "freeze", NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sysfs_set("/sys/power/pm_test", "none", NULL, 0);
	sysfs_set("/sys/power/pm_freeze_timeout", timeout, NULL, 0);
	EXPECT_EQ(0, ret);
	/* a refused freeze takes the whole timeout */
	EXPECT_GT(2, t1.tv_sec - t0.tv_sec);

	EXPECT_EQ(0, ctl("examine 0"));		/* still held */
	/* neither gone nor in a job-control stop */
	EXPECT_EQ(0, waitpid(c.pid, &status, WNOHANG | WUNTRACED | __WALL));
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	EXPECT_EQ(0, reap(c.pid));
	EXPECT_EQ(0, ctl("put 0"));
	expect_log(_metadata, c.pid,
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=1 arg1=0\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n");
}

/* Wait until @pid blocks in system call @nr (per /proc/PID/syscall). */
static bool wait_in_syscall(pid_t pid, int nr)
{
	char path[64], buf[64], want[16];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	snprintf(want, sizeof(want), "%d ", nr);
	for (int i = 0; i < 4000; i++) {
		int fd = open(path, O_RDONLY);

		buf[0] = '\0';
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) < 0)
				buf[0] = '\0';
			close(fd);
		}
		if (!strncmp(buf, want, strlen(want)))
			return true;
		msleep(5);
	}
	return false;
}

static void body_sleep(void *arg)
{
	struct timespec ts = { 3600, 0 };

	nanosleep(&ts, NULL);
	syscall(SYS_exit_group, 0, 0);
}

/*
 * UTRACE_INTERRUPT breaks a blocking system call to make the quiesce
 * report; the call is restarted afterwards (no signal is involved).
 */
TEST_F(utrace, interrupt_blocked_syscall)
{
	struct child c = traced(_metadata, body_sleep, NULL,
				EV(QUIESCE) | EV(SYSCALL_EXIT));
	char want[512];
	int st;

	go(&c);
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_clock_nanosleep));
	EXPECT_EQ(0, ctl("control 0 %d", INTERRUPT));
	snprintf(want, sizeof(want), "0 quiesce %d action=5 event=0x0\n", c.pid);
	ASSERT_TRUE(log_wait(want));
	/* the sleep went on: restarted, not ended */
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_restart_syscall));
	/*
	 * QUIESCE engines hear of every event first: the read's exit, the
	 * sleep's entry, its interrupted exit, the interrupt's own report
	 * (event 0) and the entry of restart_syscall.
	 */
	expect_log(_metadata, c.pid,
		   "0 quiesce %1$d action=5 event=0x80\n"
		   "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "0 quiesce %1$d action=5 event=0x40\n"
		   "0 quiesce %1$d action=5 event=0x80\n"
		   "0 syscall_exit %1$d action=5 nr=230 ret=-516\n"
		   "0 quiesce %1$d action=5 event=0x0\n"
		   "0 quiesce %1$d action=5 event=0x40\n");
	kill(c.pid, SIGKILL);
	st = reap(c.pid);
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(0, ctl("put 0"));
}

/* Job control: the stop and the continue are reported, with CLD codes. */
TEST_F(utrace, jctl_stop_and_continue)
{
	struct child c = traced(_metadata, body_sleep, NULL, EV(JCTL));
	char stopped[128], want[256];
	int st;

	go(&c);
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_clock_nanosleep));
	ASSERT_EQ(0, kill(c.pid, SIGSTOP));
	ASSERT_EQ(c.pid, waitpid(c.pid, &st, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(st));
	snprintf(stopped, sizeof(stopped), "0 jctl %d action=5 type=%d notify=%d\n",
		 c.pid, CLD_STOPPED, CLD_STOPPED);
	ASSERT_TRUE(log_wait(stopped));
	ASSERT_EQ(0, kill(c.pid, SIGCONT));
	/* back to sleep: the continue was reported first */
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_restart_syscall));
	snprintf(want, sizeof(want), "%s0 jctl %d action=5 type=%d notify=%d\n",
		 stopped, c.pid, CLD_CONTINUED, CLD_CONTINUED);
	EXPECT_STREQ(want, read_log());
	kill(c.pid, SIGKILL);
	st = reap(c.pid);
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(0, ctl("put 0"));
}

/* UTRACE_REPORT makes a running thread report QUIESCE and go on. */
TEST_F(utrace, report_running_thread)
{
	struct child c = spawn_spinning(EV(QUIESCE));
	char want[128];
	unsigned long laps;
	int st;

	ASSERT_LT(0, c.pid);
	go(&c);
	ASSERT_TRUE(spin_past(0));		/* running in user mode */
	EXPECT_EQ(0, ctl("control 0 %d", REPORT));
	snprintf(want, sizeof(want), "0 quiesce %d action=5 event=0x0\n", c.pid);
	ASSERT_TRUE(log_wait(want)) TH_LOG("log: %s", read_log());
	/* it goes on: laps after the report was logged */
	laps = *spin_laps;
	EXPECT_TRUE(spin_past(laps));
	EXPECT_EQ(-EINVAL, ctl("examine 0"));	/* running: not stopped */
	EXPECT_STREQ(want, read_log());
	kill(c.pid, SIGKILL);
	st = reap(c.pid);
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(0, ctl("put 0"));
}

/* A handler for SIGUSR1, then a long sleep: exits 7 if the handler ran. */
static void body_sleep_handler(void *arg)
{
	struct timespec ts = { 3600, 0 };

	default_signal(SIGUSR1);
	signal(SIGUSR1, on_usr1);
	nanosleep(&ts, NULL);
	syscall(SYS_exit_group, handled ? 7 : 1, 0);
}

/*
 * UTRACE_INTERRUPT with a signal engine: report_signal() with
 * UTRACE_SIGNAL_REPORT and no signal; the sleep is restarted.  The next
 * interrupt's report sends a signal, which is then reported and handled.
 */
TEST_F(utrace, interrupt_reports_signal_and_injects)
{
	struct child c = traced(_metadata, body_sleep_handler, NULL, EV(SIGNAL));
	char report[128];
	int st;

	go(&c);
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_clock_nanosleep));
	EXPECT_EQ(0, ctl("control 0 %d", INTERRUPT));
	snprintf(report, sizeof(report), "0 signal %d action=0x65 signo=0 code=0\n",
		 c.pid);
	ASSERT_TRUE(log_wait(report));
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_restart_syscall));
	EXPECT_STREQ(report, read_log());

	ASSERT_EQ(0, ctl("inject 0 %d", SIGUSR1));
	EXPECT_EQ(0, ctl("control 0 %d", INTERRUPT));
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(7, WEXITSTATUS(st));
	/* the injected signal: reported (si_code SI_KERNEL) and handled */
	EXPECT_TRUE(log_is("0 signal %1$d action=0x65 signo=0 code=0\n"
			   "0 signal %1$d action=0x65 signo=0 code=0\n"
			   "0 signal %1$d action=0x5 signo=10 code=128\n"
			   "0 signal %1$d action=0x75 signo=0 code=0\n"));
	EXPECT_EQ(-EINVAL, ctl("inject 0 %d", 65));
	EXPECT_EQ(0, ctl("put 0"));
}

/* SIGUSR1 under handler a, twice: the exit code lists the handlers run. */
static volatile sig_atomic_t handlers_run;

static void on_usr1_a(int sig)
{
	handlers_run = handlers_run * 10 + 1;
}

static void on_usr1_b(int sig)
{
	handlers_run = handlers_run * 10 + 2;
}

static void body_two_signals(void *arg)
{
	default_signal(SIGUSR1);
	signal(SIGUSR1, on_usr1_a);
	syscall(SYS_kill, getpid(), SIGUSR1);
	syscall(SYS_kill, getpid(), SIGUSR1);
	syscall(SYS_exit_group, handlers_run, 0);
}

/* return_ka: one delivery runs another handler; the sigaction stays. */
TEST_F(utrace, return_ka_changes_one_delivery)
{
	struct child c = traced(_metadata, body_two_signals, NULL, EV(SIGNAL));
	int st;

	ASSERT_EQ(0, ctl("handler 0 %lu", (unsigned long)on_usr1_b));
	go(&c);
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(21, WEXITSTATUS(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x5 signo=10 code=0\n"
			   "0 signal %1$d action=0x75 signo=0 code=0\n"
			   "0 signal %1$d action=0x5 signo=10 code=0\n"
			   "0 signal %1$d action=0x75 signo=0 code=0\n"));
	EXPECT_EQ(0, ctl("put 0"));
}

/* In a process group of its own, whose parent is in another: not orphaned. */
static void body_handler_own_pgrp(void *arg)
{
	setpgid(0, 0);
	body_handler(arg);
}

/* The same with SIGTSTP, in a process group that is not orphaned. */
TEST_F(utrace, engine_turns_delivery_into_tstp)
{
	delivery_into_stop(_metadata, body_handler_own_pgrp, SIG_TSTP_,
			   SIGTSTP);
}

/* Core dumps allowed (the guest's core_pattern is /tmp/core.%p). */
static void body_handler_may_dump(void *arg)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_CORE, &rl))
		syscall(SYS_exit_group, 2, 0);
	body_handler(NULL);
}

/* An engine turns a handled signal into a core dump. */
TEST_F(utrace, engine_turns_delivery_into_core_dump)
{
	struct child c = traced(_metadata, body_handler_may_dump, NULL, EV(SIGNAL));
	char core[64];
	int st;

	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SIGNAL, SIG_CORE_ | RESUME));
	go(&c);
	st = reap(c.pid);
	snprintf(core, sizeof(core), "/tmp/core.%d", c.pid);
	EXPECT_EQ(0, access(core, F_OK));
	unlink(core);
	ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(SIGUSR1, WTERMSIG(st));
	EXPECT_TRUE(WCOREDUMP(st));
	EXPECT_TRUE(log_is("0 signal %1$d action=0x5 signo=10 code=0\n"));
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * utrace_finish_examine() notices a thread that ran since
 * utrace_prepare_examine(): SIGKILL wakes the stopped child meanwhile.
 */
TEST_F(utrace, examine_sees_thread_that_woke)
{
	struct child c = stopped(_metadata, body_getpid_exit3, NULL, 0);
	pid_t killer;

	ASSERT_EQ(0, ctl("examine 0"));
	killer = fork();
	if (killer == 0) {
		msleep(200);
		kill(c.pid, SIGKILL);
		_exit(0);
	}
	EXPECT_EQ(-EAGAIN, ctl("examine 0 2000"));
	EXPECT_EQ(0, reap(killer));
	EXPECT_TRUE(WIFSIGNALED(reap(c.pid)));
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * exit_group() and a fatal signal kill a thread held by UTRACE_STOP, as
 * exec does: the held thread's exit report gives the group's exit code,
 * and the engine holding it cannot keep it alive.
 */
struct mt_end {
	int fd;
};

/* A thread held at its first system call; the main thread waits on fd. */
static void body_mt_end(void *arg)
{
	struct mt_end *m = arg;
	pthread_t t;
	char x;

	default_signal(SIGTERM);
	pthread_create(&t, NULL, thread_block, NULL);
	if (read(m->fd, &x, 1) != 1)
		_exit(98);
	syscall(SYS_exit_group, 5, 0);
}

static void held_thread_killed(struct __test_metadata *_metadata,
			       bool by_signal)
{
	int p[2], st, tid = 0;
	struct mt_end m;
	struct child c;
	char want[256], *line;

	ASSERT_EQ(0, pipe(p));
	m.fd = p[0];
	c = spawn(body_mt_end, &m);
	close(p[0]);
	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	ASSERT_EQ(0, ctl("reply 0 %d %d", SYSCALL_ENTRY, STOP));
	ASSERT_EQ(0, ctl("attach_child 0 %lu", EV(SYSCALL_ENTRY) | EV(EXIT)));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(CLONE)));
	go(&c);
	ASSERT_TRUE(log_wait("\n1 syscall_entry ")) TH_LOG("%s", logbuf);
	EXPECT_TRUE(held(1));
	if (by_signal) {
		ASSERT_EQ(0, kill(c.pid, SIGTERM));
	} else {
		ASSERT_EQ(1, write(p[1], "x", 1));
	}
	st = reap(c.pid);
	close(p[1]);
	if (by_signal) {
		ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("status %#x", st);
		EXPECT_EQ(SIGTERM, WTERMSIG(st));
	} else {
		ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
		EXPECT_EQ(5, WEXITSTATUS(st));
	}
	ASSERT_EQ(-ESRCH, settle(1));
	read_log();
	ASSERT_EQ(1, sscanf(strstr(logbuf, "child=") ?: "", "child=%d", &tid));
	/* the clone, the held entry (glibc's first call, whichever), the exit */
	EXPECT_EQ(3, count(logbuf, "\n")) TH_LOG("%s", logbuf);
	snprintf(want, sizeof(want),
		 "0 clone %d action=5 child=%d vm=1 vfork=0 thread=1\n"
		 "1 syscall_entry %d action=0x5 nr=", c.pid, tid, tid);
	EXPECT_EQ(0, strncmp(want, logbuf, strlen(want))) TH_LOG("%s", logbuf);
	line = strrchr(logbuf, '\n');
	while (line > logbuf && line[-1] != '\n')
		line--;
	snprintf(want, sizeof(want), "1 exit %d action=5 code=%#x\n", tid,
		 by_signal ? SIGTERM : 5 << 8);
	EXPECT_STREQ(want, line);
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("put 1"));
}

TEST_F(utrace, exit_group_kills_thread_held_by_stop)
{
	held_thread_killed(_metadata, false);
}

TEST_F(utrace, fatal_signal_kills_thread_held_by_stop)
{
	held_thread_killed(_metadata, true);
}

/*
 * SIGKILL is never reported as a signal, even to an engine that asks
 * for every signal event: only the exit and the death are.
 */
TEST_F(utrace, sigkill_not_reported_as_signal)
{
	struct child c = traced(_metadata, body_sleep, NULL,
				EV(SIGNAL) | EV(SIGNAL_IGN) |
				EV(SIGNAL_STOP) | EV(SIGNAL_TERM) |
				EV(SIGNAL_CORE) | EV(EXIT) | EV(DEATH));
	int st;

	go(&c);
	ASSERT_TRUE(wait_in_syscall(c.pid, SYS_clock_nanosleep));
	ASSERT_EQ(0, kill(c.pid, SIGKILL));
	st = reap(c.pid);
	ASSERT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(SIGKILL, WTERMSIG(st));
	ASSERT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 exit %1$d action=5 code=0x9\n"
		   "0 death %1$d group_dead=1 signal=17\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/* getpid(11, 22), which exits 42 if it returned @arg (the test's pid). */
static void body_getpid_is(void *arg)
{
	long r = syscall(SYS_getpid, 11, 22);

	syscall(SYS_exit_group, r == (long)arg ? 42 : 1, 0);
}

/*
 * Registers changed at system call entry take effect: getpid() turned
 * into getppid(), whose exit reports the new number; exit_group(3)
 * given 9 as its argument.
 */
TEST_F(utrace, registers_changed_at_syscall_entry)
{
	struct child c = traced(_metadata, body_getpid_is, (void *)(long)getpid(),
				EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT));
	char want[512];
	int st;

	ASSERT_EQ(0, ctl("entry_regs 0 %d %d 11", SYS_getpid, SYS_getppid));
	go(&c);
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(42, WEXITSTATUS(st));
	ASSERT_EQ(-ESRCH, settle(0));
	snprintf(want, sizeof(want),
		 "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		 "0 syscall_entry %1$d action=0x5 nr=39 arg0=11 arg1=22\n"
		 "0 syscall_exit %1$d action=5 nr=110 ret=%2$d\n"
		 "0 syscall_entry %1$d action=0x5 nr=231 arg0=42 arg1=0\n",
		 c.pid, getpid());
	EXPECT_STREQ(want, read_log());
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("clear"));

	c = traced(_metadata, body_getpid_exit3, NULL, EV(SYSCALL_ENTRY));
	ASSERT_EQ(0, ctl("entry_regs 0 %d %d 9", SYS_exit_group,
			 SYS_exit_group));
	go(&c);
	st = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(9, WEXITSTATUS(st));
	ASSERT_EQ(-ESRCH, settle(0));
	expect_log(_metadata, c.pid,
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=11 arg1=22\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=3 arg1=0\n");
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * The parent reaps the child while its death report is held: the reap
 * report waits until the death report has returned, then comes once.
 */
TEST_F(utrace, reap_while_death_report_runs)
{
	struct child c = traced(_metadata, body_getpid_loop, (void *)0,
				EV(DEATH) | EV(REAP));
	char line[128], want[256];
	pid_t r = 0;
	int st = -1;

	ASSERT_EQ(0, ctl("hold 0 %d", DEATH));
	go(&c);
	snprintf(line, sizeof(line), "0 death %d group_dead=1 signal=17\n", c.pid);
	ASSERT_TRUE(log_wait(line));
	/* a zombie already: wait() takes it while the report is held */
	for (int i = 0; i < 2000 && !r; i++) {
		r = waitpid(c.pid, &st, WNOHANG | __WALL);
		if (!r)
			msleep(5);
	}
	EXPECT_EQ(c.pid, r);
	EXPECT_EQ(0, st);
	msleep(100);
	EXPECT_STREQ(line, read_log());		/* no reap report yet */
	EXPECT_EQ(0, ctl("release 0 %d", DEATH));
	if (r != c.pid)
		reap(c.pid);
	ASSERT_EQ(-ESRCH, settle(0));
	snprintf(want, sizeof(want), "%s0 reap %d last\n", line, c.pid);
	EXPECT_STREQ(want, read_log());
	EXPECT_EQ(0, ctl("put 0"));
}

/*
 * Two engines stop one thread: each RESUME releases only the stop of
 * the engine that sends it, and the thread runs once neither stops it.
 * At the next entry, engine 0's STOP and engine 1's weaker REPORT: the
 * stop wins until engine 0 lets go.
 */
TEST_F(utrace, two_engines_stop_each_releases_its_own)
{
	struct child c = spawn(body_getpid_loop, (void *)2);
	char line[128];

	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, ctl("attach %d %d", c.pid, i));
		ASSERT_EQ(0, ctl("events %d %lu", i,
				 EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT)));
		ASSERT_EQ(0, ctl("reply_once %d %d %d", i, SYSCALL_ENTRY, STOP));
	}
	go(&c);
	snprintf(line, sizeof(line), "1 syscall_entry %d action=0x0 nr=39 arg0=0 ",
		 c.pid);
	ASSERT_TRUE(log_wait(line)) TH_LOG("%s", logbuf);
	ASSERT_TRUE(held(0));
	ASSERT_EQ(0, ctl("reply_once 0 %d %d", SYSCALL_ENTRY, STOP));
	ASSERT_EQ(0, ctl("reply_once 1 %d %d", SYSCALL_ENTRY, REPORT));
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	msleep(100);
	EXPECT_EQ(0, ctl("examine 0"));		/* engine 1 still stops it */
	snprintf(line, sizeof(line), "syscall_exit %d action=5 nr=39", c.pid);
	EXPECT_EQ(NULL, strstr(read_log(), line));
	EXPECT_EQ(0, ctl("control 1 %d", RESUME));
	snprintf(line, sizeof(line), "1 syscall_entry %d action=0x0 nr=39 arg0=1 ",
		 c.pid);
	ASSERT_TRUE(log_wait(line)) TH_LOG("%s", logbuf);
	ASSERT_TRUE(held(0));
	msleep(100);
	EXPECT_EQ(0, ctl("examine 0"));		/* REPORT does not undo STOP */
	EXPECT_EQ(0, ctl("control 0 %d", RESUME));
	ASSERT_EQ(0, reap(c.pid));
	expect_log(_metadata, c.pid,
		   "0 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "1 syscall_exit %1$d action=5 nr=0 ret=1\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=0 arg1=0\n"
		   "1 syscall_entry %1$d action=0x0 nr=39 arg0=0 arg1=0\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "1 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=39 arg0=1 arg1=0\n"
		   "1 syscall_entry %1$d action=0x0 nr=39 arg0=1 arg1=0\n"
		   "0 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "1 syscall_exit %1$d action=5 nr=39 ret=%1$d\n"
		   "0 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n"
		   "1 syscall_entry %1$d action=0x5 nr=231 arg0=0 arg1=0\n");
	EXPECT_EQ(0, ctl("put 0"));
	EXPECT_EQ(0, ctl("put 1"));
}

/*
 * utrace_barrier() waits out a callback in flight, so the module can go
 * while its engine's callback sleeps: rmmod detaches, waits, unloads.
 */
TEST(rmmod_with_callbacks_in_flight)
{
	struct child c = spawn(body_getpid_loop, (void *)200);
	char line[64];
	int status;

	ASSERT_EQ(0, load_module());
	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT)));
	ASSERT_EQ(0, ctl("slow 0 20"));
	go(&c);
	snprintf(line, sizeof(line), "0 syscall_entry %d", c.pid);
	ASSERT_TRUE(log_wait(line));
	ASSERT_EQ(0, unload_module());
	status = reap(c.pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * utrace and ptrace on one thread (Documentation/trace/utrace.rst,
 * "utrace and ptrace").  The child is seized by the test while blocked
 * before its body, engine 0 attached with @events; the tracer's stops
 * are counted by signal and each continued with its signal.  Return
 * the child's wait status.  @seen_first, if not NULL, is set when the
 * engine's report of a SIGUSR1 was in the log at the tracer's stop.
 */
static int run_traced_signal_child(void (*fn)(void *), void *arg,
				   unsigned long events, int event, int reply,
				   int *stops, bool *seen_first)
{
	struct child c = spawn(fn, arg);
	char line[128];
	int st;

	if (ctl("attach %d 0", c.pid) || ctl("events 0 %lu", events) ||
	    (event >= 0 && ctl("reply 0 %d %d", event, reply)) ||
	    ptrace(PTRACE_SEIZE, c.pid, 0, 0)) {
		fprintf(stderr, "# attach: %m\n");
		kill(c.pid, SIGKILL);
		reap(c.pid);
		return -1;
	}
	snprintf(line, sizeof(line), "0 signal %d action=0x5 signo=10 ",
		 c.pid);
	go(&c);
	for (;;) {
		if (waitpid(c.pid, &st, __WALL) != c.pid)
			return -1;
		if (!WIFSTOPPED(st))
			break;
		stops[WSTOPSIG(st) & 0x7f]++;
		if (seen_first && WSTOPSIG(st) == SIGUSR1)
			*seen_first = strstr(read_log(), line);
		if (ptrace(PTRACE_CONT, c.pid, 0, WSTOPSIG(st)))
			return -1;
	}
	settle(0);
	ctl("put 0");
	return st;
}

/*
 * A signal the engine leaves for delivery reaches the tracer's
 * signal-delivery stop after the engine's report of it, then the
 * handler; a ptraced thread takes an engine (once refused: EBUSY).
 */
TEST_F(utrace, ptrace_sees_signal_after_engine)
{
	int stops[NSIG] = { 0 };
	bool seen_first = false;
	int st;

	st = run_traced_signal_child(body_handler, NULL, EV(SIGNAL), -1, 0,
				     stops, &seen_first);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(7, WEXITSTATUS(st));
	EXPECT_EQ(1, stops[SIGUSR1]);
	EXPECT_TRUE(seen_first);
	EXPECT_TRUE(log_is("0 signal %1$d action=0x5 signo=10 code=0\n"
			   "0 signal %1$d action=0x75 signo=0 code=0\n"));
}

/* A signal the engine ignores is never shown to the tracer. */
TEST_F(utrace, ptrace_never_sees_signal_engine_ignores)
{
	int stops[NSIG] = { 0 };
	int st;

	st = run_traced_signal_child(body_kill_self, (void *)SIGTERM,
				     EV(SIGNAL_TERM), SIGNAL_TERM,
				     SIG_IGN_ | RESUME, stops, NULL);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(8, WEXITSTATUS(st));
	for (int i = 0; i < NSIG; i++) {
		EXPECT_EQ(0, stops[i]) TH_LOG("a stop for signal %d", i);
	}
	EXPECT_TRUE(log_is("0 signal %1$d action=0x25 signo=15 code=0\n"));
}

/*
 * System calls: ptrace's entry stop comes before the engine's entry
 * report, and its exit stop before the engine's exit report.
 */
TEST_F(utrace, ptrace_syscall_stops_before_engine_reports)
{
	struct child c = spawn(body_getpid_exit3, NULL);
	char entry[128], exit_[128];
	int st, entries = 0, exits = 0;

	ASSERT_EQ(0, ctl("attach %d 0", c.pid));
	ASSERT_EQ(0, ctl("events 0 %lu", EV(SYSCALL_ENTRY) | EV(SYSCALL_EXIT)));
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, c.pid, 0, PTRACE_O_TRACESYSGOOD));
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, c.pid, 0, 0));
	ASSERT_EQ(c.pid, waitpid(c.pid, &st, __WALL));
	ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, c.pid, 0, 0));
	snprintf(entry, sizeof(entry), "0 syscall_entry %d action=0x5 nr=39 arg0=11",
		 c.pid);
	snprintf(exit_, sizeof(exit_), "0 syscall_exit %d action=5 nr=39 ",
		 c.pid);
	go(&c);
	for (;;) {
		struct __ptrace_syscall_info si;

		ASSERT_EQ(c.pid, waitpid(c.pid, &st, __WALL));
		if (!WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80) &&
		    ptrace(PTRACE_GET_SYSCALL_INFO, c.pid, sizeof(si), &si) > 0) {
			if (si.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    si.entry.nr == SYS_getpid) {
				EXPECT_EQ(NULL, strstr(read_log(), entry));
				entries++;
			} else if (si.op == PTRACE_SYSCALL_INFO_EXIT &&
				   entries && !exits) {
				EXPECT_NE(NULL, strstr(read_log(), entry));
				EXPECT_EQ(NULL, strstr(read_log(), exit_));
				exits++;
			}
		}
		ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, c.pid, 0, 0));
	}
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(3, WEXITSTATUS(st));
	EXPECT_EQ(1, entries);
	EXPECT_EQ(1, exits);
	EXPECT_NE(NULL, strstr(read_log(), exit_));
	settle(0);
	ctl("put 0");
}

TEST_HARNESS_MAIN
