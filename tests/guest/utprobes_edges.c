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

TEST_HARNESS_MAIN
