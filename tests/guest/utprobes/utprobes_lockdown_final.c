// SPDX-License-Identifier: GPL-2.0
/*
 * Under lockdown=confidentiality the utprobes tracefs files refuse to
 * open, as mainline's tracing files do.  Lockdown cannot be lifted once
 * raised, so run-tests runs this program after every other one (its
 * name ends in _final); the debug kernel leaves it out, since lockdown
 * would also close debugfs to the kmemleak scan that follows the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../guest_util.h"

#define LOCKDOWN "/sys/kernel/security/lockdown"

static const char *const files[] = {
	"utprobe_events", "utprobe_session", "utprobe_profile",
	"utprobe_returns",
};

static int open_file(const char *name, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", name);
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

TEST(tracefs_files_refuse_to_open_under_lockdown)
{
	char buf[256];
	int i;

	mkdir("/sys/kernel/security", 0755);
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	ASSERT_NE(NULL, read_file(LOCKDOWN, buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "[none]"));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, open_file(files[i], O_RDONLY));
	ASSERT_EQ(0, write_file(LOCKDOWN, 0, "confidentiality"));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(-EPERM, open_file(files[i], O_RDONLY));
	EXPECT_EQ(-EPERM, open_file("utprobe_events", O_WRONLY | O_APPEND));
	EXPECT_EQ(-EPERM, open_file("utprobe_events", O_WRONLY | O_TRUNC));
	EXPECT_EQ(-EPERM, open_file("utprobe_session", O_RDWR));
}

TEST_HARNESS_MAIN
