/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the utprobes guest tests share, beyond guest_util.h: utprobes'
 * tracefs files, writing definitions and reading hit counts back.
 */
#ifndef UTPROBES_UTIL_H
#define UTPROBES_UTIL_H

#include <dirent.h>

#include "../guest_util.h"

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

/*
 * Call @fn with the /proc status of each thread of @pid, until it says
 * 0.  The number of threads read, or -1 if @pid has none or @fn said 0.
 */
static inline int thread_statuses(pid_t pid, int (*fn)(const char *, void *),
				  void *arg)
{
	char path[320], buf[2048];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (n >= 0 && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid,
			 de->d_name);
		read_file(path, buf, sizeof(buf));
		n = fn(buf, arg) ? n + 1 : -1;
	}
	closedir(dir);
	return n > 0 ? n : -1;
}

static inline int no_utrace_event(const char *status, void *arg)
{
	return !!strstr(status, "\nUtrace:\t0\n");
}

/* Do all threads of @pid show no utrace event (Utrace: 0)? */
static inline int no_engine(pid_t pid)
{
	return thread_statuses(pid, no_utrace_event, NULL) > 0;
}

/* Add a thread's context switches to *@arg if it is asleep (State: S). */
static inline int add_switches(const char *status, void *arg)
{
	static const char *const keys[] = {
		"\nvoluntary_ctxt_switches:", "\nnonvoluntary_ctxt_switches:"
	};
	const char *p;
	size_t k;

	if (!strstr(status, "\nState:\tS"))
		return 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		p = strstr(status, keys[k]);
		if (!p)
			return 0;
		*(long *)arg += strtol(p + strlen(keys[k]), NULL, 10);
	}
	return 1;
}

/*
 * The context switches of every thread of @pid, summed, if every one
 * of them is asleep; else -1.  A sum that stays the same says no thread
 * ran meanwhile.
 */
static inline long asleep_switches(pid_t pid)
{
	long sum = 0;

	return thread_statuses(pid, add_switches, &sum) > 0 ? sum : -1;
}

#endif /* UTPROBES_UTIL_H */
