/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest tests share: writing and reading files (tracefs,
 * debugfs, /proc), bytes through pipes, and children that wait on one.
 */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

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

/* Write @s to the file at @path, opened with @flags: bytes or -errno. */
static inline ssize_t write_str(const char *path, int flags, const char *s)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* Write @fmt to the file at @path: 0 or -errno (a short write is 0). */
static inline int write_file(const char *path, int flags, const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = write_str(path, flags, buf);
	return n < 0 ? n : 0;
}

/* Write all of @s to the file at @path: 0, or -1 if not all of it went. */
static inline int write_all(const char *path, int flags, const char *s)
{
	return write_str(path, flags, s) == (ssize_t)strlen(s) ? 0 : -1;
}

/* The file at @path in @buf (@size bytes), NUL-terminated; "" if none. */
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

/*
 * The whole of the file at @path, opened with @flags, NUL-terminated in
 * a malloc()ed buffer: "" if it does not open, NULL if memory runs out.
 */
static inline char *read_all(const char *path, int flags)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *more;
	int fd = open(path, O_RDONLY | flags);
	ssize_t n;

	if (!buf) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf[0] = '\0';
	if (fd < 0)
		return buf;
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			more = realloc(buf, cap);
			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
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

/* A child that waits to be let go, and the pipe that lets it go. */
struct child {
	pid_t pid;
	int go;
};

/*
 * fork() a child that blocks in read() until go(), and exits 100 if the
 * pipe closes first: it returns a pid of 0 once let go; aborts if pipe()
 * fails.
 */
static inline struct child fork_child(void)
{
	struct child c;
	int p[2];
	char x;

	if (pipe(p))
		abort();
	c.pid = fork();
	if (c.pid == 0) {
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(100);
		c.go = -1;
		return c;
	}
	close(p[0]);
	c.go = p[1];
	return c;
}

/* Let the child of fork_child() go. */
static inline void go(struct child *c)
{
	if (write(c->go, "g", 1) != 1)
		abort();
	close(c->go);
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

#endif /* GUEST_UTIL_H */
