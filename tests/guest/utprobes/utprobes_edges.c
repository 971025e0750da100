// SPDX-License-Identifier: GPL-2.0
/*
 * What a user or a container can do to utprobe_events that must neither
 * crash nor stall the kernel: unmount the file system of a probed file
 * (plainly, lazily, under a session), write the largest batch a write
 * takes with the soft-lockup watchdog at the kernel's default threshold
 * while others read the listings, and write a NUL byte.
 *
 * The batch's size is its bytes (the largest write accepted) unless
 * UTP_EDGES_BATCH names a number of definitions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define TARGET "/usr/libexec/utrace-tests/targets/probe_target_static"
#define MNT "/tmp/utp_edges"
#define PROG MNT "/prog"
#define SESSION TRACEFS "/utprobe_session"
#define WRITE_MAX (1 << 20)

/* work()'s file offset in probe_target_static, from its own "offsets" */
static long target_offset(const char *prog)
{
	char cmd[512], line[512], path[256];
	unsigned long off = 0, addr;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s offsets", prog);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "self %255s %lx %lx", path, &off, &addr) == 3)
			break;
	if (p)
		pclose(p);
	return off ? (long)off : -1;
}

/* Run @prog's work() @n times: its exit status */
static int run_prog(const char *prog, int n)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s run %d", prog, n);
	return system(cmd);
}

/*
 * A copy of the target, running: it has printed where work() is and
 * waits for a line on stdin, then calls work() @n times.  Its pid, and
 * the pipe to its stdin in *@in; -1 if it did not start.
 */
static pid_t start_waiting(const char *prog, int n, int *in)
{
	char count[16], c;
	int p[2], o[2];
	pid_t pid;

	if (pipe(p) || pipe(o))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[0], 0);
		dup2(o[1], 1);
		close(p[1]);
		close(o[0]);
		snprintf(count, sizeof(count), "%d", n);
		execl(prog, prog, "wait", count, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	close(o[1]);
	*in = p[1];
	/* its first line: it runs from the file system now */
	while (read(o[0], &c, 1) == 1 && c != '\n')
		;
	close(o[0]);
	return c == '\n' ? pid : -1;
}

static int finish_waiting(pid_t pid, int in)
{
	int st = -1;

	if (write(in, "\n", 1) != 1)
		return -1;
	close(in);
	waitpid(pid, &st, 0);
	return st;
}

FIXTURE(umount) {
	long off;
};

FIXTURE_SETUP(umount)
{
	mkdir(MNT, 0755);
	ASSERT_EQ(0, mount("tmpfs", MNT, "tmpfs", 0, "size=16m"));
	ASSERT_EQ(0, copy(TARGET, PROG));
	self->off = target_offset(PROG);
	ASSERT_LT(0, self->off);
}

FIXTURE_TEARDOWN(umount)
{
	events("-:um_plain\n");
	events("-:um_lazy\n");
	umount2(MNT, MNT_DETACH);
}

/*
 * A probed file keeps its file system mounted, as an open file does:
 * umount fails with EBUSY while the probe is there, and the probe
 * counts on; once it is removed, umount succeeds.
 */
TEST_F(umount, plain_umount_is_busy_while_probed)
{
	ASSERT_EQ(0, events("p:um_plain %s:%#lx\n", PROG, self->off));
	EXPECT_EQ(-1, umount(MNT));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, run_prog(PROG, 5));
	EXPECT_EQ(5, hits("um_plain"));
	ASSERT_EQ(0, events("-:um_plain\n"));
	EXPECT_EQ(0, umount(MNT));
}

/*
 * A lazy unmount detaches the file system while a probed program runs
 * from it: the probe goes on counting it, and its removal afterwards
 * lets the file system go cleanly (the console stays clean).
 */
TEST_F(umount, lazy_umount_then_removal)
{
	int in;
	pid_t pid;

	ASSERT_EQ(0, events("p:um_lazy %s:%#lx\n", PROG, self->off));
	pid = start_waiting(PROG, 7, &in);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, umount2(MNT, MNT_DETACH));
	EXPECT_EQ(0, finish_waiting(pid, in));
	EXPECT_EQ(7, hits("um_lazy"));
	EXPECT_EQ(0, events("-:um_lazy\n"));
	EXPECT_EQ(-1, hits("um_lazy"));
}

/*
 * The same through a session, which removes its probe when its file is
 * closed, after the file system was detached under a running program.
 */
TEST_F(umount, lazy_umount_then_session_end)
{
	char line[256];
	int fd, in, len;
	pid_t pid;

	fd = open(SESSION, O_WRONLY);
	ASSERT_LE(0, fd);
	len = snprintf(line, sizeof(line), "p:um_sess %s:%#lx\n", PROG,
		       self->off);
	ASSERT_EQ(len, write(fd, line, len));
	pid = start_waiting(PROG, 3, &in);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, umount2(MNT, MNT_DETACH));
	EXPECT_EQ(0, finish_waiting(pid, in));
	EXPECT_EQ(3, hits("um_sess"));
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(-1, hits("um_sess"));
}

/*
 * Two lazily detached probes, the program still running from the
 * detached file system when its probes go: the file system outlives
 * them while the program holds it, and goes with the program.
 */
TEST_F(umount, removal_while_program_runs_from_detached)
{
	int in;
	pid_t pid;

	ASSERT_EQ(0, events("p:um_lazy %s:%#lx\np:um_plain %s:%#lx\n", PROG,
			    self->off, PROG, self->off));
	pid = start_waiting(PROG, 4, &in);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, umount2(MNT, MNT_DETACH));
	EXPECT_EQ(0, events("-:um_lazy\n-:um_plain\n"));
	EXPECT_EQ(0, finish_waiting(pid, in));
	EXPECT_EQ(-1, hits("um_lazy"));
}

/* A NUL byte in a write: EINVAL, and nothing of the write is done */
TEST(nul_byte_in_a_write)
{
	static const char pre[] = "p:nul0 ";
	char buf[256];
	int fd, len;

	len = snprintf(buf, sizeof(buf), "%s%d:%p\n", pre, getpid(),
		       (void *)target_offset);
	buf[len++] = '\0';
	len += snprintf(buf + len, sizeof(buf) - len, "p:nul1 %d:%p\n",
			getpid(), (void *)target_offset);
	fd = open(EVENTS, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, buf, len));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_EQ(-1, hits("nul0"));
	EXPECT_EQ(-1, hits("nul1"));
}

/* The probed function of the batch: called once by the child */
static __attribute__((noinline)) int batch_func(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

struct reader {
	volatile int writing;		/* the writer is in its write() */
	int reads_during;		/* listings read while it was */
	int stop;
};

/* Read utprobe_profile over and over while the writer writes */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char buf[4096];

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		int fd = open(PROFILE, O_RDONLY);

		if (fd < 0)
			break;
		/* the first page of the listing: it must not wait */
		if (read(fd, buf, sizeof(buf)) >= 0 &&
		    __atomic_load_n(&r->writing, __ATOMIC_ACQUIRE))
			r->reads_during++;
		close(fd);
		usleep(20000);
	}
	return NULL;
}

/* Count the lines of utprobe_profile for "bN" probes with @want hits */
static long profile_count(long long want)
{
	char *all = read_all(PROFILE, O_RDONLY), *line, *save;
	long n = 0;

	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] == 'b' && atoll(strrchr(line, ' ') + 1) == want)
			n++;
	free(all);
	return n;
}

/*
 * The largest batch a write takes (1 MiB of definitions, all on one
 * instruction of one process), with the soft-lockup threshold at the
 * kernel's default: it goes in, readers of the listings are answered
 * while it does, each of its probes counts the one hit, and they all go
 * at once again.
 */
FIXTURE(batch) {
};

FIXTURE_SETUP(batch)
{
}

FIXTURE_TEARDOWN(batch)
{
}

TEST_F_TIMEOUT(batch, largest, 540)
{
	char thresh[32] = "", *buf, *env = getenv("UTP_EDGES_BATCH");
	long max = env ? atol(env) : 0, n = 0, len = 0;
	struct reader r = {};
	struct child c;
	pthread_t th;
	double t;
	ssize_t w;
	int fd;

	read_file("/proc/sys/kernel/watchdog_thresh", thresh, sizeof(thresh));
	ASSERT_EQ(0, write_file("/proc/sys/kernel/watchdog_thresh", 0, "10"));
	c = fork_child();
	if (!c.pid) {
		batch_func(1);
		_exit(0);
	}
	buf = malloc(WRITE_MAX);
	ASSERT_NE(NULL, buf);
	for (;;) {
		char line[64];
		int l = snprintf(line, sizeof(line), "p:b%ld %d:%p\n", n,
				 c.pid, (void *)batch_func);

		if (len + l > WRITE_MAX || (max && n == max))
			break;
		memcpy(buf + len, line, l);
		len += l;
		n++;
	}
	TH_LOG("%ld definitions, %ld bytes", n, len);
	fd = open(EVENTS, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_main, &r));
	t = now();
	__atomic_store_n(&r.writing, 1, __ATOMIC_RELEASE);
	w = write(fd, buf, len);
	__atomic_store_n(&r.writing, 0, __ATOMIC_RELEASE);
	TH_LOG("written in %.1f s, %d listings read meanwhile", now() - t,
	       r.reads_during);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	close(fd);
	free(buf);
	EXPECT_EQ(len, w);
	/* the listings were never held up for the batch */
	EXPECT_LT(0, r.reads_during);
	EXPECT_EQ(n, profile_count(0));
	go(&c);
	waitpid(c.pid, NULL, 0);
	EXPECT_EQ(n, profile_count(1));
	t = now();
	fd = open(EVENTS, O_WRONLY | O_TRUNC);
	EXPECT_LE(0, fd);
	close(fd);
	TH_LOG("removed in %.1f s", now() - t);
	EXPECT_EQ(0, profile_count(1));
	write_file("/proc/sys/kernel/watchdog_thresh", 0, "%s", thresh);
}

TEST_HARNESS_MAIN
