// SPDX-License-Identifier: GPL-2.0
/*
 * utprobe_session: probes owned by an open file, removed with their
 * events when its last reference goes, however its process ends; and
 * the pids of utprobe_events in pid namespaces.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define SESSION TRACEFS "/utprobe_session"
#define INSTANCE TRACEFS "/instances/utp_session_test"
#define CALLS 25
/* how long the kernel may take to let go of a process or an event */
#define BOUND_S 10.0

/* The probed function: not inlined, not merged. */
static __attribute__((noinline)) int probed(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

static int calls(int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += probed(i);
	return sum;
}

/*
 * A child that calls probed() @n times each time it reads a byte from
 * @go, and answers each round with a byte on @done; exits at EOF.
 */
static pid_t target(int go[2], int done[2], int n)
{
	pid_t pid;
	char c;

	if (pipe(go) || pipe(done))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	close(go[1]);
	close(done[0]);
	while (read(go[0], &c, 1) == 1) {
		calls(n);
		put_byte(done[1]);
	}
	_exit(0);
}

/* One round of the target's calls */
static void round_trip(int go[2], int done[2])
{
	put_byte(go[1]);
	get_byte(done[0]);
}

/* Ends the target: its status, as wait gives it */
static int target_end(pid_t pid, int go[2], int done[2])
{
	int st = -1;

	close(go[1]);
	close(done[0]);
	waitpid(pid, &st, 0);
	return st;
}

/* Is @name in @buf, a listing of probes? */
static int in_list(const char *buf, const char *name)
{
	char want[80];

	snprintf(want, sizeof(want), ":%s ", name);
	return !!strstr(buf, want);
}

/* Is @name listed in utprobe_events? */
static int listed(const char *name)
{
	char buf[8192];

	return in_list(read_file(EVENTS, buf, sizeof(buf)), name);
}

/* Is @name listed by the session open as @fd (its own probes)? */
static int session_lists(int fd, const char *name)
{
	char buf[8192];
	ssize_t n, len = 0;

	if (lseek(fd, 0, SEEK_SET))
		return -1;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	return in_list(buf, name);
}

/* Wait (BOUND_S at most) until @cond holds; its value then */
#define within_bound(cond) ({					\
	double t0 = now();					\
								\
	while (!(cond) && now() - t0 < BOUND_S)			\
		usleep(10000);					\
	(cond);							\
})

/* Wait until @pid has no engine: 1 if so */
#define engine_gone(pid)	within_bound(no_engine(pid))

/* Is the byte at probed() in @pid the file's again (no int3)? */
static int text_original(pid_t pid)
{
	unsigned char byte;

	return !text_read(pid, (void *)probed, &byte, 1) &&
	       byte == *(unsigned char *)probed;
}

/* Does the event utprobes/@name exist? */
static int event_exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/utprobes/%s", name);
	return !access(path, F_OK);
}

/* Wait until event @name is gone: 1 if so */
#define event_gone(name)	within_bound(!event_exists(name))

static int session_write(int fd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return write(fd, buf, strlen(buf)) < 0 ? -errno : 0;
}

/*
 * A session's probes count while it is open, are listed by it and by
 * utprobe_events, and are gone, engine and int3 with them, at its close.
 */
TEST(close_removes)
{
	int go[2], done[2], fd;
	pid_t pid;

	pid = target(go, done, CALLS);
	ASSERT_LT(0, pid);
	fd = open(SESSION, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_write(fd, "p:sess_a %d:%p\n", pid, probed));
	EXPECT_TRUE(listed("sess_a"));
	EXPECT_TRUE(session_lists(fd, "sess_a"));
	EXPECT_TRUE(event_exists("sess_a"));
	round_trip(go, done);
	EXPECT_EQ(CALLS, hits("sess_a"));
	EXPECT_FALSE(text_original(pid));
	close(fd);
	EXPECT_FALSE(listed("sess_a"));
	EXPECT_FALSE(event_exists("sess_a"));
	EXPECT_TRUE(engine_gone(pid));
	EXPECT_TRUE(text_original(pid));
	/* the target runs on, untouched */
	round_trip(go, done);
	EXPECT_EQ(0, target_end(pid, go, done));
}

/*
 * A tool killed with SIGKILL: its probes go with its session; a probe
 * of utprobe_events, written by the same tool, stays.
 */
TEST(sigkill_removes)
{
	int go[2], done[2], ready[2], st;
	pid_t pid, tool;

	pid = target(go, done, CALLS);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pipe(ready));
	tool = fork();
	ASSERT_LE(0, tool);
	if (tool == 0) {
		int fd = open(SESSION, O_RDWR | O_CLOEXEC);

		if (fd < 0 || session_write(fd, "p:sess_k %d:%p\n", pid, probed))
			_exit(10);
		if (events("p:sess_keep %d:%p\n", pid, probed))
			_exit(11);
		put_byte(ready[1]);
		pause();
		_exit(12);
	}
	close(ready[1]);
	get_byte(ready[0]);
	round_trip(go, done);
	EXPECT_EQ(CALLS, hits("sess_k"));
	EXPECT_EQ(CALLS, hits("sess_keep"));
	EXPECT_EQ(0, kill(tool, SIGKILL));
	ASSERT_EQ(tool, waitpid(tool, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	EXPECT_FALSE(listed("sess_k"));
	EXPECT_FALSE(event_exists("sess_k"));
	EXPECT_TRUE(listed("sess_keep"));
	round_trip(go, done);
	EXPECT_EQ(2 * CALLS, hits("sess_keep"));
	EXPECT_EQ(0, events("-:sess_keep\n"));
	EXPECT_TRUE(engine_gone(pid));
	EXPECT_TRUE(text_original(pid));
	EXPECT_EQ(0, target_end(pid, go, done));
	close(ready[0]);
}

/* An open file shared after fork: the probes stay until the last close */
TEST(shared_until_last_close)
{
	int go[2], done[2], sync[2], fd, st;
	pid_t pid, other;

	pid = target(go, done, CALLS);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pipe(sync));
	fd = open(SESSION, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_write(fd, "p:sess_s %d:%p\n", pid, probed));
	other = fork();
	ASSERT_LE(0, other);
	if (other == 0) {
		close(sync[1]);
		get_byte(sync[0]);
		_exit(0);
	}
	close(sync[0]);
	close(fd);
	EXPECT_TRUE(listed("sess_s"));
	round_trip(go, done);
	EXPECT_EQ(CALLS, hits("sess_s"));
	put_byte(sync[1]);
	ASSERT_EQ(other, waitpid(other, &st, 0));
	EXPECT_FALSE(listed("sess_s"));
	EXPECT_TRUE(engine_gone(pid));
	EXPECT_EQ(0, target_end(pid, go, done));
	close(sync[1]);
}

/*
 * A session removes only its own probes; utprobe_events may remove a
 * session's; O_TRUNC of a session removes nothing.
 */
TEST(own_probes_only)
{
	int go[2], done[2], fd, fd2;
	pid_t pid;

	pid = target(go, done, CALLS);
	ASSERT_LT(0, pid);
	fd = open(SESSION, O_RDWR);
	ASSERT_LE(0, fd);
	fd2 = open(SESSION, O_RDWR | O_TRUNC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, events("p:sess_g %d:%p\n", pid, probed));
	ASSERT_EQ(0, session_write(fd, "p:sess_o %d:%p\n", pid, probed));
	EXPECT_EQ(-ENOENT, session_write(fd, "-:sess_g\n"));
	EXPECT_EQ(-ENOENT, session_write(fd2, "-:sess_o\n"));
	EXPECT_EQ(-EEXIST, session_write(fd2, "p:sess_o %d:%p\n", pid,
					 probed));
	EXPECT_FALSE(session_lists(fd2, "sess_o"));
	EXPECT_TRUE(session_lists(fd, "sess_o"));
	EXPECT_FALSE(session_lists(fd, "sess_g"));
	close(fd2);
	EXPECT_TRUE(listed("sess_o"));
	EXPECT_TRUE(listed("sess_g"));
	/* removed by name, then its session ends with nothing left */
	EXPECT_EQ(0, events("-:sess_o\n"));
	EXPECT_EQ(-ENOENT, session_write(fd, "-:sess_o\n"));
	ASSERT_EQ(0, session_write(fd, "p:sess_o2 %d:%p\n", pid, probed));
	EXPECT_EQ(0, session_write(fd, "-:sess_o2\n"));
	close(fd);
	EXPECT_TRUE(listed("sess_g"));
	round_trip(go, done);
	EXPECT_EQ(CALLS, hits("sess_g"));
	EXPECT_EQ(0, events("-:sess_g\n"));
	EXPECT_TRUE(engine_gone(pid));
	EXPECT_EQ(0, target_end(pid, go, done));
}

/*
 * A session ends while its probe's event is on in a trace instance: the
 * probe leaves the process at once; its event stays, empty, until the
 * instance lets it go.
 */
/*
 * A session on @pid's probed() whose event is on in INSTANCE (made
 * anew): its file, or -1.
 */
static int session_traced(pid_t pid)
{
	int fd;

	rmdir(INSTANCE);
	if (mkdir(INSTANCE, 0700))
		return -1;
	fd = open(SESSION, O_RDWR);
	if (fd >= 0 &&
	    (session_write(fd, "p:sess_e %d:%p\n", pid, probed) ||
	     write_file(INSTANCE "/events/utprobes/sess_e/enable", O_TRUNC,
			"1"))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* How many times @what is in @s */
static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

TEST(event_in_use_outlives)
{
	int go[2], done[2], fd;
	static char buf[65536];
	pid_t pid;

	pid = target(go, done, CALLS);
	ASSERT_LT(0, pid);
	fd = session_traced(pid);
	ASSERT_LE(0, fd);
	round_trip(go, done);
	close(fd);
	EXPECT_FALSE(listed("sess_e"));
	EXPECT_TRUE(engine_gone(pid));
	EXPECT_TRUE(text_original(pid));
	EXPECT_TRUE(event_exists("sess_e"));
	/* a new probe cannot take the name meanwhile */
	EXPECT_EQ(-EEXIST, events("p:sess_e %d:%p\n", pid, probed));
	round_trip(go, done);
	/* the records of the calls before stay, and no more come */
	read_file(INSTANCE "/trace", buf, sizeof(buf));
	EXPECT_EQ(CALLS, count_of(buf, "sess_e: ("));
	EXPECT_EQ(0, write_file(INSTANCE "/events/utprobes/sess_e/enable",
				O_TRUNC, "0"));
	EXPECT_TRUE(event_gone("sess_e"));
	EXPECT_EQ(0, rmdir(INSTANCE));

	/* and the instance's removal lets go of it too */
	fd = session_traced(pid);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_TRUE(event_exists("sess_e"));
	EXPECT_EQ(0, rmdir(INSTANCE));
	EXPECT_TRUE(event_gone("sess_e"));
	EXPECT_TRUE(engine_gone(pid));
	EXPECT_EQ(0, target_end(pid, go, done));
}

/* The "PID:" of probe @name in utprobe_events as we see it, or -1 */
static int shown_pid(const char *name)
{
	char buf[8192], want[80], *p;
	int pid = -1;

	read_file(EVENTS, buf, sizeof(buf));
	snprintf(want, sizeof(want), ":%s ", name);
	p = strstr(buf, want);
	if (p)
		sscanf(p + strlen(want), "%d:", &pid);
	return pid;
}

/*
 * Pids of utprobe_events in pid namespaces: a writer in a child pid
 * namespace names a process by its number there; each reader sees the
 * number its own namespace gives (0 for one it cannot see).
 */
TEST(pid_namespace)
{
	int go[2], done[2], report[2], back[2], st;
	pid_t outer, inner, child;

	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(back));
	outer = fork();
	ASSERT_LE(0, outer);
	if (outer == 0) {
		/* the next child is pid 1 of a new namespace */
		if (unshare(CLONE_NEWPID))
			_exit(20);
		child = fork();
		if (child < 0)
			_exit(21);
		if (child == 0) {
			int seen[3];

			inner = target(go, done, CALLS);
			if (inner != 2)
				_exit(22);
			if (events("p:sess_ns %d:%p\n", inner, probed))
				_exit(23);
			round_trip(go, done);
			seen[0] = shown_pid("sess_ns");
			seen[1] = shown_pid("sess_out");
			seen[2] = hits("sess_ns");
			if (write(report[1], seen, sizeof(seen)) != sizeof(seen))
				_exit(24);
			/* until the outside has looked */
			get_byte(back[0]);
			_exit(target_end(inner, go, done) ? 25 : 0);
		}
		waitpid(child, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 26);
	}
	{
		int seen[3] = { -1, -1, -1 };
		char path[64], buf[2048], want[64];
		int outside;

		/* probed by us, seen from inside: not there */
		ASSERT_EQ(0, events("p:sess_out %d:%p\n", getpid(), probed));
		close(report[1]);
		ASSERT_EQ((ssize_t)sizeof(seen), read(report[0], seen, sizeof(seen)));
		EXPECT_EQ(2, seen[0]);
		EXPECT_EQ(0, seen[1]);
		EXPECT_EQ(CALLS, seen[2]);
		outside = shown_pid("sess_ns");
		EXPECT_LT(2, outside);
		/* our number of the process that is 2 in its namespace */
		snprintf(path, sizeof(path), "/proc/%d/status", outside);
		snprintf(want, sizeof(want), "\nNSpid:\t%d\t2\n", outside);
		EXPECT_NE(NULL, strstr(read_file(path, buf, sizeof(buf)), want));
		EXPECT_EQ(getpid(), shown_pid("sess_out"));
		EXPECT_EQ(0, events("-:sess_ns\n-:sess_out\n"));
		put_byte(back[1]);
	}
	ASSERT_EQ(outer, waitpid(outer, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

TEST_HARNESS_MAIN
