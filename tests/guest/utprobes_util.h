/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the utprobes guest tests share, beyond guest_util.h: utprobes'
 * tracefs files, writing definitions and reading hit counts back.
 */
#ifndef UTPROBES_UTIL_H
#define UTPROBES_UTIL_H

#include <dirent.h>

#include "guest_util.h"

#define EVENTS TRACEFS "/utprobe_events"
#define PROFILE TRACEFS "/utprobe_profile"
#define RETURNS TRACEFS "/utprobe_returns"

/* Write @fmt to utprobe_events (appending): 0 or -errno. */
#define events(...) write_file(EVENTS, O_APPEND, __VA_ARGS__)

/* The hit count of probe @name in utprobe_profile, or -1. */
static inline long long hits(const char *name)
{
	char buf[4096], want[80], *line;
	long long n = -1;

	read_file(PROFILE, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s ", name);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, want, strlen(want)))
			sscanf(strrchr(line, ' '), "%lld", &n);
	return n;
}

/* One line of utprobe_returns. */
struct ret_line {
	long long returns, unwound, missed, pending;
	unsigned long long min_ns, max_ns, sum_ns;
	char hist[512];
};

/* Return probe @name's line of utprobe_returns: 0, or -1 if none. */
static inline int ret_line(const char *name, struct ret_line *r)
{
	char buf[16384], want[80], *line;

	r->hist[0] = '\0';
	read_file(RETURNS, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s ", name);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want),
			   "returns=%lld unwound=%lld missed=%lld pending=%lld min_ns=%llu max_ns=%llu sum_ns=%llu hist=%511s",
			   &r->returns, &r->unwound, &r->missed, &r->pending,
			   &r->min_ns, &r->max_ns, &r->sum_ns, r->hist) >= 7)
			return 0;
	return -1;
}

/* Do all threads of @pid show no utrace event (Utrace: 0)? */
static inline int no_engine(pid_t pid)
{
	char path[320], buf[2048];
	struct dirent *de;
	int all = 1, n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid,
			 de->d_name);
		read_file(path, buf, sizeof(buf));
		all &= !!strstr(buf, "\nUtrace:\t0\n");
		n++;
	}
	closedir(dir);
	return all && n;
}

#endif /* UTPROBES_UTIL_H */
