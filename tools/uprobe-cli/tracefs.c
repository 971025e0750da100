// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: the kernel side of probes, through tracefs: the
 * definitions written to utprobe_events (or this command's
 * utprobe_session), the kernel's refusals, a probe's names, placing
 * and removing a command's probes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stack.h"

const char *tracefs = "/sys/kernel/tracing";

int file_write(const char *path, int flags, const char *text)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* This command's utprobe_session, once own_probes() opened it, or -1 */
int session_fd = -1;

int own_probes(void)
{
	char path[512];
	int err;

	if (session_fd >= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/utprobe_session", tracefs);
	session_fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (session_fd >= 0)
		return 0;
	err = -errno;
	if (err != -ENOENT)
		return print_error(err, "%s: %s", path, kernel_errmsg(err));
	snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
	if (access(path, F_OK))
		return print_error(-ENOENT, "%s", kernel_errmsg(-ENOENT));
	return print_error(-EOPNOTSUPP,
			   "%s/utprobe_session: no such file (a kernel without probe sessions)",
			   tracefs);
}

/*
 * A probe name from a symbol: letters, digits and underscores, and
 * "_return" for a return probe, in @len bytes.  Each run of other
 * characters is one underscore, none at the end: a C++ name's
 * "ns::Klass<long>::method(int)" is ns_Klass_long_method_int.
 */
void probe_name(char *out, size_t len, const struct probe *pr)
{
	const struct up_place *p = &pr->place;
	const char *s = p->inline_of ? p->inline_of :
			*p->symbol ? p->symbol : "probe";
	/*
	 * leave room for "_OFFSET" (at most 17 characters), for the
	 * function's address where another has its name, and "_return"
	 */
	size_t i, k = 0, room = len - 1 - (p->sym_off ? 17 : 0) -
				(p->dup ? 17 : 0) - (pr->ret ? 7 : 0);

	if (!isalpha((unsigned char)*s) && *s != '_')
		out[k++] = '_';
	for (i = 0; s[i] && k < room; i++) {
		if (isalnum((unsigned char)s[i]) || s[i] == '_')
			out[k++] = s[i];
		else if (!i || isalnum((unsigned char)s[i - 1]) ||
			 s[i - 1] == '_')
			out[k++] = '_';
	}
	/* one that ends in other characters ends in one '_': drop it */
	if (k > 1 && i && !isalnum((unsigned char)s[i - 1]) &&
	    s[i - 1] != '_' && out[k - 1] == '_')
		k--;
	out[k] = '\0';
	/* an inlined copy: unique_names() numbers it */
	if (*p->symbol && p->dup && !p->inline_of)
		k += snprintf(out + k, len - k, "_%lx", p->func_vaddr);
	if (*p->symbol && p->sym_off && !p->inline_of)
		k += snprintf(out + k, len - k, "_%lx", p->sym_off);
	if (pr->ret)
		snprintf(out + k, len - k, "_return");
}

/*
 * Write definitions to utprobe_events, or to this command's session;
 * 0 or -errno.
 */
int kernel_write(const char *line)
{
	char path[512];

	if (session_fd >= 0)
		return write(session_fd, line, strlen(line)) < 0 ? -errno : 0;
	snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
	return file_write(path, O_APPEND, line);
}

const char *kernel_errmsg(int err)
{
	switch (err) {
	case -ENOENT:
		return "this kernel has no utprobes (no utprobe_events in tracefs)";
	case -EPERM:
	case -EACCES:
		return "permission denied (probes need CAP_SYS_ADMIN)";
	case -EOPNOTSUPP:
		return "the kernel refuses to probe this instruction";
	case -EILSEQ:
		return "no valid instruction there";
	case -EEXIST:
		return "a probe with this name exists already";
	case -EBUSY:
		return "another breakpoint is there already (a debugger's or a mainline uprobe's)";
	case -ESRCH:
		return "no such process";
	case -ENOMEM:
		return "no room near the instruction for its out-of-line copy, or out of kernel memory";
	case -EAGAIN:
		return "the text there was replaced while the probe went in; try again";
	default:
		return strerror(-err);
	}
}

/*
 * 0 if the kernel has return probes, or -errno after a message: one
 * without them would only call an "r:" definition invalid.
 */
int need_returns(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/utprobe_returns", tracefs);
	if (!access(path, F_OK))
		return 0;
	snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
	if (access(path, F_OK))
		return print_error(-ENOENT, "%s", kernel_errmsg(-ENOENT));
	return print_error(-EOPNOTSUPP,
			   "this kernel has no return probes (no utprobe_returns in tracefs)");
}


bool jump_ok;

const char *func_text(const struct probe *pr, unsigned long at, char *buf,
		      size_t size)
{
	const struct up_place *p = &pr->place;

	/*
	 * At a function's entry only: a function's other parts (a .cold
	 * part, a landing pad) may come back into its middle, unseen by
	 * the kernel's check of its branches; and not where a branch from
	 * elsewhere in the binary (libc's mempcpy enters memcpy past its
	 * first instruction) or a jump table, neither of which the kernel
	 * sees, lands in its first bytes
	 */
	if (!jump_ok || pr->ret || pr->fetch || pr->stack || !*p->symbol ||
	    !p->func_size || p->sym_off || p->entered_in_window)
		return "";
	snprintf(buf, size, " func=%#lx+%#lx", at - p->sym_off, p->func_size);
	return buf;
}

const char *ref_text(const struct up_place *p, char *buf, size_t size)
{
	if (!p->ref_offset)
		return "";
	snprintf(buf, size, "(%#lx)", p->ref_offset);
	return buf;
}

/* The most one write to utprobe_events may hold, and the kernel place. */
#define WRITE_MAX	(1 << 20)

/*
 * Remove the probes @ps[0..@n): as many in a write as it holds, which
 * the kernel removes with one wait for them all.  A write the kernel
 * refuses (a probe of it gone already) is done again a line at a time.
 */
void remove_probes(const struct probe *ps, int n)
{
	char line[128], *buf = malloc(WRITE_MAX + 1);
	size_t len = 0, l = 0;
	int first = 0;

	for (int i = 0; i <= n; i++) {
		if (i < n && ps[i].dropped)
			continue;
		if (i < n)
			l = snprintf(line, sizeof(line), "-:%s\n", ps[i].name);
		if (buf && i < n && len + l <= WRITE_MAX) {
			memcpy(buf + len, line, l + 1);
			len += l;
			continue;
		}
		if (!buf || (len && kernel_write(buf)))
			for (int k = first; k < i; k++) {
				if (ps[k].dropped)
					continue;
				snprintf(line, sizeof(line), "-:%s\n",
					 ps[k].name);
				kernel_write(line);
			}
		first = i;
		len = 0;
		if (buf && i < n) {
			memcpy(buf, line, l + 1);
			len = l;
		}
	}
	free(buf);
}

/* Write @lines[@lo..@hi) as one write through @buf; 0 or -errno. */
static int write_lines(char *buf, char **lines, int lo, int hi)
{
	size_t len = 0, l;

	for (int i = lo; i < hi; i++) {
		l = strlen(lines[i]);
		memcpy(buf + len, lines[i], l + 1);
		len += l;
	}
	return len ? kernel_write(buf) : 0;
}

/* Is @err the kernel refusing a probe's instruction or place? */
static bool refused_here(int err)
{
	return err == -EOPNOTSUPP || err == -EILSEQ;
}

/*
 * Place @ps[@lo..@hi) (their lines fit one write): in one write, or if
 * the kernel refuses it, each half the same way, so that the probes it
 * refuses are found in a few writes each, not one write per probe.
 * Drops those that may be dropped.  0, or -errno with *@bad the probe
 * refused and none of the range left placed.
 */
static int place_split(char *buf, struct probe *ps, char **lines, int lo,
		       int hi, int *bad)
{
	int mid, r;

	r = write_lines(buf, lines, lo, hi);
	if (!r)
		return 0;
	if (hi - lo == 1) {
		if (ps[lo].optional && refused_here(r)) {
			ps[lo].dropped = true;
			return 0;
		}
		*bad = lo;
		return r;
	}
	mid = lo + (hi - lo) / 2;
	r = place_split(buf, ps, lines, lo, mid, bad);
	if (!r) {
		r = place_split(buf, ps, lines, mid, hi, bad);
		if (r)
			remove_probes(ps + lo, mid - lo);
	}
	return r;
}

/* Take the dropped probes out of @ps and @lines; say how many went. */
static void drop_refused(struct probe *ps, char **lines, int *n)
{
	int k = 0, dropped = 0;
	const char *first = NULL;

	for (int i = 0; i < *n; i++) {
		if (ps[i].dropped) {
			if (!dropped++)
				first = ps[i].place.symbol;
			free(lines[i]);
			free(ps[i].fetch);
			continue;
		}
		ps[k] = ps[i];
		lines[k++] = lines[i];
	}
	if (dropped)
		fprintf(stderr, "uprobe-cli: %d of %d functions not probed: the kernel refuses their instruction (%s%s)\n",
			dropped, *n, first, dropped > 1 ? ", ..." : "");
	*n = k;
}

int place_probes(struct probe *ps, char **lines, int *n, int *bad)
{
	size_t len = 0, l;
	int first = 0, i, r = 0;
	char *buf;

	/* resolved: what was read of the binaries is no longer needed */
	up_binaries_close();
	buf = malloc(WRITE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i <= *n && !r; i++) {
		l = i < *n ? strlen(lines[i]) : 0;
		if (i < *n && len + l <= WRITE_MAX) {
			len += l;
			continue;
		}
		/* lines[first..i) fill a write */
		r = i > first ? place_split(buf, ps, lines, first, i, bad) : 0;
		if (r) {
			remove_probes(ps, first);
			break;
		}
		first = i;
		len = l;
	}
	free(buf);
	if (!r)
		drop_refused(ps, lines, n);
	return r;
}

int place_session_probes(struct probe *ps, int *n, pid_t tree)
{
	char **lines;
	int r, bad = 0;

	r = own_probes();
	if (r)
		return r;
	lines = file_lines(ps, *n, tree);
	if (!lines)
		return print_error(-ENOMEM, "out of memory");
	r = place_probes(ps, lines, n, &bad);
	lines_free(lines, *n);
	if (r)
		return print_error(r, "%s (%s:%#lx): %s", ps[bad].name,
				   ps[bad].place.path, ps[bad].place.offset,
				   kernel_errmsg(r));
	return 0;
}

char **file_lines(const struct probe *ps, int n, pid_t tree)
{
	size_t size = LINE_MAX_LEN;
	char **lines, ref[32], scope[32] = "", func[64], stack[32];

	for (int i = 0; i < n; i++)
		if (ps[i].fetch && strlen(ps[i].fetch) + LINE_MAX_LEN > size)
			size = strlen(ps[i].fetch) + LINE_MAX_LEN;
	lines = lines_new(n, size);
	if (tree)
		snprintf(scope, sizeof(scope), " tree=%d", (int)tree);
	for (int i = 0; i < n && lines; i++) {
		if (ps[i].fp)
			/* one more: a walk that fills them all was cut */
			snprintf(stack, sizeof(stack), " callers=%d",
				 STACK_CALLERS + 1);
		else
			snprintf(stack, sizeof(stack), " stack=%d",
				 ps[i].stack);
		snprintf(lines[i], size, "%c:%s %s:%#lx%s%s%s%s%s%s\n",
			 ps[i].ret ? 'r' : 'p', ps[i].name, ps[i].place.path,
			 ps[i].place.offset,
			 ref_text(&ps[i].place, ref, sizeof(ref)),
			 func_text(&ps[i], ps[i].place.offset, func,
				   sizeof(func)), scope,
			 ps[i].stack ? stack : "",
			 ps[i].fetch ? " " : "", ps[i].fetch ?: "");
	}
	return lines;
}

/* @n lines of @size bytes each, to fill in; NULL when out of memory. */
char **lines_new(int n, size_t size)
{
	char **lines = calloc(n ? n : 1, sizeof(*lines));

	for (int i = 0; lines && i < n; i++) {
		lines[i] = malloc(size);
		if (!lines[i]) {
			while (i--)
				free(lines[i]);
			free(lines);
			return NULL;
		}
	}
	return lines;
}

void lines_free(char **lines, int n)
{
	for (int i = 0; lines && i < n; i++)
		free(lines[i]);
	free(lines);
}

/*
 * Resolve @spec into more probes at the end of *@ps (*@n so far).  A
 * spec ending in "%return" gives return probes, as any spec does if
 * @ret_probe.  The kernel puts a return probe on a function's first
 * instruction, where the return address is still on top of the stack,
 * so a line, an offset into a function or an address that is not a
 * function's start is refused for one.  0, or -errno after a message:
 * -EINVAL for a suffix other than "%return", the command line's (the
 * only -EINVAL), -ENOENT if @spec names no place, -EOPNOTSUPP for one
 * a probe cannot go on.
 */
int resolve_probes(const char *spec, pid_t pid, bool ret_probe,
			  struct probe **ps, int *n)
{
	static const char suffix[] = "%return";
	size_t len = strlen(spec), sl = strlen(suffix);
	char buf[PATH_MAX + 512], err[1024];
	const char *what, *pct;
	struct up_place *p;
	struct probe *more;
	int k;

	if (len >= sl && !strcmp(spec + len - sl, suffix)) {
		ret_probe = true;
		len -= sl;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)len, spec);
	what = strchr(buf, ':');
	pct = what ? strchr(what, '%') : NULL;
	if (pct)
		return print_error(-EINVAL,
				   "'%s': unknown suffix '%s' (%%return is the only one)",
				   spec, pct);
	k = up_resolve(buf, pid, &p, err, sizeof(err));
	if (k < 0)
		return print_error(-ENOENT, "%s", err);
	/* the kernel reads a definition's fields up to white space */
	if (k && strpbrk(p[0].path, " \t\n\v\f\r")) {
		k = print_error(-EOPNOTSUPP,
				"'%s': utprobe_events cannot take a path with white space (its definitions are split at white space); probe a copy, or a bind mount, at a path without it",
				p[0].path);
		free(p);
		return k;
	}
	what++;
	*err = '\0';
	for (int i = 0; ret_probe && i < k && !*err; i++) {
		if (p[i].sdt)
			snprintf(err, sizeof(err), "not an SDT marker (%s)",
				 p[i].symbol);
		else if (up_spec_is_line(what))
			snprintf(err, sizeof(err), "not a source line (%s)", what);
		else if (p[i].inline_of)
			snprintf(err, sizeof(err),
				 "and %s is inlined into %s at %#lx, where no call returns (--no-inline probes its own entry alone)",
				 p[i].inline_of, p[i].symbol, p[i].vaddr);
		else if (!*p[i].symbol)
			snprintf(err, sizeof(err), "not %#lx, which is in no function",
				 p[i].vaddr);
		else if (p[i].sym_off && isdigit((unsigned char)*what))
			snprintf(err, sizeof(err), "not %#lx (%s+%#lx)",
				 p[i].vaddr, p[i].symbol, p[i].sym_off);
		else if (p[i].sym_off)
			snprintf(err, sizeof(err), "not %s+%#lx", p[i].symbol,
				 p[i].sym_off);
	}
	if (*err) {
		k = print_error(-EOPNOTSUPP,
				"%s: a return probe goes on a function's entry, %s",
				p[0].path, err);
		free(p);
		return k;
	}
	more = realloc(*ps, (*n + k) * sizeof(*more));
	if (!more) {
		free(p);
		return print_error(-ENOMEM, "out of memory");
	}
	*ps = more;
	for (int i = 0; i < k; i++) {
		memset(&more[*n], 0, sizeof(*more));
		more[*n].place = p[i];
		more[*n].ret = ret_probe;
		/* one of a glob's many: the kernel may refuse it alone */
		more[*n].optional = p[i].glob;
		(*n)++;
	}
	free(p);
	return 0;
}

/* Whether any of @ps[0..@n) is a return probe. */
bool any_return(const struct probe *ps, int n)
{
	for (int i = 0; i < n; i++)
		if (ps[i].ret)
			return true;
	return false;
}
