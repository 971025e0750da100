// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke tests of the test guest itself: the kernel we built is the one
 * running, tracefs is there, out-of-tree modules load and unload, and
 * mainline uprobes (our reference) counts every call of a function.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../guest_util.h"

/* Is this the image for the kernel without utrace (scripts/mkimage.sh)? */
static int without_utrace(void)
{
	char flavour[32] = "";
	FILE *f = fopen("/etc/utrace-flavour", "r");

	if (f) {
		if (!fgets(flavour, sizeof(flavour), f))
			flavour[0] = '\0';
		fclose(f);
	}
	return !strcmp(flavour, "noutrace\n");
}

/*
 * What only our build has: the fixed builder stamped by
 * scripts/kernel.sh, utrace's line in /proc/PID/status (0: no engine on
 * this thread) and utprobes' tracefs file.
 */
TEST(kernel_is_ours)
{
	char buf[4096], *line;
	struct utsname u;
	ssize_t n;
	int fd;

	ASSERT_EQ(0, uname(&u));
	EXPECT_EQ(0, strncmp(u.release, "6.12.", 5)) TH_LOG("release %s", u.release);
	fd = open("/proc/version", O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	EXPECT_NE(NULL, strstr(buf, " (utrace@qemu) ")) TH_LOG("%s", buf);
	fd = open("/proc/self/status", O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	line = strstr(buf, "\nUtrace:");
	if (without_utrace()) {
		/* the same kernel built with CONFIG_UTRACE=n */
		EXPECT_EQ(NULL, line) TH_LOG("%s", buf);
		EXPECT_NE(0, access(TRACEFS "/utprobe_events", F_OK));
		return;
	}
	ASSERT_NE(NULL, line) TH_LOG("%s", buf);
	EXPECT_EQ(0, strncmp(line, "\nUtrace:\t0\n", 11));
	EXPECT_EQ(0, access(TRACEFS "/utprobe_events", W_OK));
}

TEST(tracefs_mounted)
{
	EXPECT_EQ(0, access(TRACEFS "/trace", R_OK));
	EXPECT_EQ(0, access(TRACEFS "/uprobe_events", W_OK));
}

TEST(module_load_unload)
{
	char path[PATH_MAX];
	struct utsname u;
	int fd;

	ASSERT_EQ(0, uname(&u));
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/harness_fault.ko",
		 u.release);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %m", path);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "mode=none", 0))
		TH_LOG("finit_module: %m");
	close(fd);
	EXPECT_EQ(0, access("/sys/module/harness_fault", F_OK));
	EXPECT_EQ(0, syscall(SYS_delete_module, "harness_fault", O_NONBLOCK))
		TH_LOG("delete_module: %m");
	EXPECT_NE(0, access("/sys/module/harness_fault", F_OK));
}

/* The probed function: not inlined, not folded away. */
static volatile unsigned long smoke_sink;
__attribute__((noinline)) void smoke_target(unsigned long x)
{
	smoke_sink += x;
	__asm__ volatile("" ::: "memory");
}

static long uprobe_hits(const char *event)
{
	char line[1024], file[PATH_MAX], name[256];
	FILE *f = fopen(TRACEFS "/uprobe_profile", "r");
	long hits = -1, n;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%4095s %255s %ld", file, name, &n) == 3 &&
		    !strcmp(name, event))
			hits = n;
	fclose(f);
	return hits;
}

TEST(mainline_uprobe_counts_calls)
{
	void (*volatile fn)(unsigned long) = smoke_target;
	char exe[PATH_MAX], def[PATH_MAX + 64];
	ssize_t len;
	long off;
	int i;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';
	off = self_offset((void *)smoke_target, NULL, 0);
	ASSERT_LT(0, off);

	snprintf(def, sizeof(def), "p:utsmoke/smoke_hit %s:0x%lx", exe, off);
	ASSERT_EQ(0, write_all(TRACEFS "/uprobe_events", O_APPEND, def))
		TH_LOG("%s: %m", def);
	ASSERT_EQ(0, write_all(TRACEFS "/events/utsmoke/smoke_hit/enable",
			       0, "1"));
	for (i = 0; i < 1000; i++)
		fn(i);
	EXPECT_EQ(1000, uprobe_hits("smoke_hit"));
	EXPECT_EQ(499500UL, smoke_sink);
	ASSERT_EQ(0, write_all(TRACEFS "/events/utsmoke/smoke_hit/enable",
			       0, "0"));
	ASSERT_EQ(0, write_all(TRACEFS "/uprobe_events", O_APPEND,
			       "-:utsmoke/smoke_hit"));
	EXPECT_EQ(-1, uprobe_hits("smoke_hit"));
}

TEST_HARNESS_MAIN
