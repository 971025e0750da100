/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the utprobes guest tests share: writing definitions to tracefs
 * and reading hit counts back.
 */
#ifndef UTPROBES_UTIL_H
#define UTPROBES_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>

#define TRACEFS "/sys/kernel/tracing"
#define EVENTS TRACEFS "/utprobe_events"
#define PROFILE TRACEFS "/utprobe_profile"
#define RETURNS TRACEFS "/utprobe_returns"

/* Write @fmt to the file at @path: 0 or -errno. */
static inline int write_file(const char *path, int flags, const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	int fd, ret = 0;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, strlen(buf)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Write @fmt to utprobe_events (appending): 0 or -errno. */
#define events(...) write_file(EVENTS, O_APPEND, __VA_ARGS__)

static inline char *read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, len = 0;

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return buf;
}

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

/* Copy the file @src to @dst, mode 0755: 0 or -1. */
static inline int copy(const char *src, const char *dst)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(src, O_RDONLY);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		ret = -1;
	while (!ret && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ret = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/*
 * The file offset of our own text address @addr, from /proc/self/maps,
 * or -1; the file's path goes to @path (@size bytes) if it is not NULL.
 */
static inline long self_offset(void *addr, char *path, size_t size)
{
	unsigned long start, end, off, a = (unsigned long)addr;
	char line[512], file[256];
	FILE *f = fopen("/proc/self/maps", "r");
	long ret = -1;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end,
			   &off, file) == 4 && a >= start && a < end) {
			if (path)
				snprintf(path, size, "%s", file);
			ret = a - start + off;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

/* One byte through a pipe, for a child to wait on; exits 120 or 121. */
static inline void put_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		_exit(120);
}

static inline void get_byte(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(121);
}

/*
 * @len bytes of @pid's memory at @addr, as its threads execute them:
 * process_vm_readv() shows our int3s, where ptrace and /proc/PID/mem,
 * a debugger's view, show the bytes under them.  Returns 0 or -1.
 */
static inline int text_read(pid_t pid, const void *addr, void *buf,
			    size_t len)
{
	struct iovec here = { buf, len }, there = { (void *)addr, len };

	return process_vm_readv(pid, &here, 1, &there, 1, 0) ==
	       (ssize_t)len ? 0 : -1;
}

/* CLOCK_MONOTONIC in seconds. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
