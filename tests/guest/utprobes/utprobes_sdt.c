// SPDX-License-Identifier: GPL-2.0
/*
 * The semaphores of SDT markers, read where the program reads them: a
 * marker of this test's own, whose semaphore must count exactly the
 * probes on it in each process, a forked child's included, before and
 * after they go.  Where the marker and its semaphore are in the file,
 * uprobe-cli funcs --sdt tells.
 */
#define _GNU_SOURCE
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

#define NPROBES 5

unsigned short utp_sdt_tick_semaphore __attribute__((section(".probes")));

/*
 * A second marker, whose semaphore has a page of the file's data to
 * itself, so that the test can move that page with mremap() as a
 * program may move its data.
 */
#define PAGE 4096
struct page_sem {
	unsigned short count;
	char pad[PAGE - sizeof(unsigned short)];
};
struct page_sem utp_sdt_moved_semaphore
	__attribute__((section(".probes"), aligned(PAGE)));

/* Never called once the semaphore's page has moved: only its note counts */
static __attribute__((noinline, used)) void fire_moved(void)
{
	if (utp_sdt_moved_semaphore.count)
		STAP_PROBE(utp_sdt, moved);
}

/* The marker: fired only while probed, as a program does */
static __attribute__((noinline)) int fire(int i)
{
	if (utp_sdt_tick_semaphore)
		STAP_PROBE1(utp_sdt, tick, i);
	return i;
}

static char exe[256];
static unsigned long marker_off, sem_off;

/* Marker @want's offsets in this program, as funcs --sdt lists: 0 or -1 */
static int find_named(const char *want, unsigned long *moff,
		      unsigned long *soff)
{
	char cmd[512], line[512], name[128];
	unsigned long addr, m, s;
	int found = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "uprobe-cli funcs --sdt %s", exe);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%127s %lx %lx %lx", name, &addr, &m, &s) == 4 &&
		    !strcmp(name, want)) {
			*moff = m;
			*soff = s;
			found = 0;
		}
	if (p)
		pclose(p);
	return found;
}

/* This program's path, and the tick marker's offsets: 0, or -1 */
static int find_marker(void)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	return find_named("utp_sdt:tick", &marker_off, &sem_off);
}

/* Probes sdt_0..sdt_{n-1} on the marker, with its semaphore: 0 or -errno */
static int add_probes(int n)
{
	int ret = 0;

	for (int i = 0; i < n && !ret; i++)
		ret = events("p:sdt_%d %s:%#lx(%#lx)\n", i, exe, marker_off,
			     sem_off);
	return ret;
}

static int del_probes(int n)
{
	int ret = 0;

	for (int i = 0; i < n && !ret; i++)
		ret = events("-:sdt_%d\n", i);
	return ret;
}

/*
 * Fork a child that reports the counter at @count, its copy, through
 * @report: once at once, and once again when let go through @go.  Its
 * pid, or -1.
 */
static pid_t fork_reader(volatile unsigned short *count, int go, int report)
{
	unsigned short seen;
	pid_t pid = fork();

	if (pid)
		return pid;
	for (int i = 0; i < 2; i++) {
		if (i)
			get_byte(go);
		seen = *count;
		if (write(report, &seen, sizeof(seen)) != sizeof(seen))
			_exit(1);
	}
	_exit(0);
}

FIXTURE(sdt) {
};

FIXTURE_SETUP(sdt)
{
	ASSERT_EQ(0, find_marker());
	ASSERT_NE(0UL, sem_off);
	ASSERT_EQ(0, utp_sdt_tick_semaphore);
}

FIXTURE_TEARDOWN(sdt)
{
}

/* One count per probe, in the process that placed them; each hit counted */
TEST_F(sdt, one_count_per_probe)
{
	ASSERT_EQ(0, add_probes(2));
	EXPECT_EQ(2, utp_sdt_tick_semaphore);
	for (int i = 0; i < 7; i++)
		fire(i);
	EXPECT_EQ(7, hits("sdt_0"));
	EXPECT_EQ(7, hits("sdt_1"));
	EXPECT_EQ(0, events("-:sdt_1\n"));
	EXPECT_EQ(1, utp_sdt_tick_semaphore);
	EXPECT_EQ(0, events("-:sdt_0\n"));
	EXPECT_EQ(0, utp_sdt_tick_semaphore);
	fire(0);
}

/*
 * A child forked with five probes on the marker counts its own five, and
 * none once they are removed, as its parent.  The child reports its first
 * reading before the parent removes anything: removing a probe lowers
 * the child's count too.
 */
TEST_F(sdt, forked_child_counts_its_own)
{
	int go[2], report[2], st;
	unsigned short seen[2];
	pid_t pid;

	ASSERT_EQ(0, add_probes(NPROBES));
	EXPECT_EQ(NPROBES, utp_sdt_tick_semaphore);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	pid = fork_reader(&utp_sdt_tick_semaphore, go[0], report[1]);
	ASSERT_LE(0, pid);
	ASSERT_EQ((ssize_t)sizeof(seen[0]),
		  read(report[0], &seen[0], sizeof(seen[0])));
	EXPECT_EQ(NPROBES, seen[0]);
	EXPECT_EQ(0, del_probes(NPROBES));
	EXPECT_EQ(0, utp_sdt_tick_semaphore);
	put_byte(go[1]);
	ASSERT_EQ((ssize_t)sizeof(seen[1]),
		  read(report[0], &seen[1], sizeof(seen[1])));
	EXPECT_EQ(0, seen[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
}

/*
 * The semaphore's page moved with mremap() while probed: the counter
 * moved with it, and is lowered where it is now when the probe goes;
 * placed and removed again, it counts 1 then 0 each time; a child forked
 * after the move counts its own probe, then none.
 */
TEST_F(sdt, semaphore_moved_by_mremap)
{
	volatile unsigned short *count;
	unsigned long moff, soff;
	int go[2], report[2], st;
	unsigned short seen[2];
	void *to;
	pid_t pid;

	ASSERT_EQ(0, find_named("utp_sdt:moved", &moff, &soff));
	ASSERT_EQ(0, events("p:sdt_mv %s:%#lx(%#lx)\n", exe, moff, soff));
	EXPECT_EQ(1, utp_sdt_moved_semaphore.count);
	to = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, to);
	to = mremap(&utp_sdt_moved_semaphore, PAGE, PAGE,
		    MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ASSERT_NE(MAP_FAILED, to);
	count = to;
	EXPECT_EQ(1, *count);
	EXPECT_EQ(0, events("-:sdt_mv\n"));
	EXPECT_EQ(0, *count);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, events("p:sdt_mv %s:%#lx(%#lx)\n", exe, moff,
				    soff));
		EXPECT_EQ(1, *count);
		EXPECT_EQ(0, events("-:sdt_mv\n"));
		EXPECT_EQ(0, *count);
	}
	ASSERT_EQ(0, events("p:sdt_mv %s:%#lx(%#lx)\n", exe, moff, soff));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	pid = fork_reader(count, go[0], report[1]);
	ASSERT_LE(0, pid);
	ASSERT_EQ((ssize_t)sizeof(seen[0]),
		  read(report[0], &seen[0], sizeof(seen[0])));
	EXPECT_EQ(1, seen[0]);
	EXPECT_EQ(0, events("-:sdt_mv\n"));
	EXPECT_EQ(0, *count);
	put_byte(go[1]);
	ASSERT_EQ((ssize_t)sizeof(seen[1]),
		  read(report[0], &seen[1], sizeof(seen[1])));
	EXPECT_EQ(0, seen[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
}

/* A semaphore on a probe on one process, or at an odd offset: EINVAL */
TEST_F(sdt, bad_semaphores)
{
	EXPECT_EQ(-EINVAL, events("p:sdt_bad %d:%p(%#lx)\n", getpid(), fire,
				  sem_off));
	EXPECT_EQ(-EINVAL, events("p:sdt_bad %s:%#lx(%#lx)\n", exe, marker_off,
				  sem_off + 1));
	EXPECT_EQ(-1, hits("sdt_bad"));
	EXPECT_EQ(0, utp_sdt_tick_semaphore);
}

TEST_HARNESS_MAIN
