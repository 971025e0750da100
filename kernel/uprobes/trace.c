// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs interface of utprobes: named probes that count their hits.
 *
 * utprobe_events takes one definition per line:
 *
 *   p:NAME PID:ADDR	probe the instruction at ADDR in process PID
 *   p:NAME PATH:OFFSET [tree=PID]
 *			probe the instruction at OFFSET in the file at
 *			PATH (absolute), in every process that maps it (of
 *			the process tree of PID only, with tree=)
 *   r:NAME TARGET	a return probe on the function at TARGET (either
 *			form): counts its calls and their returns, and
 *			times them
 *   -:NAME		remove probe NAME
 *
 * A write may hold many lines (up to UTP_WRITE_MAX bytes).  If one of
 * them does not parse, the write changes nothing.  Otherwise they are
 * done in order, and definitions that follow each other are placed as
 * one batch (utprobe_register_batch()): all of them or none, in one
 * pass over each process.
 *
 * and lists the probes when read; opening it with O_TRUNC removes them
 * all.  utprobe_profile lists each probe with its hit count (calls, for
 * a return probe).  utprobe_returns lists each return probe with what
 * became of its calls and a log2 histogram of their durations:
 *
 *   NAME returns=N unwound=N missed=N pending=N min_ns=N max_ns=N
 *	  sum_ns=N hist=B:COUNT,...
 *
 * (one line), where bucket B counts the calls that took less than 2^B
 * and at least 2^(B-1) nanoseconds (bucket 0: no time at all).
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/utprobes.h>

#define UTP_NAME_MAX	64
/* a write of many definitions, placed together, is this long at most */
#define UTP_WRITE_MAX	SZ_1M
#define UTP_LAT_BUCKETS	65	/* fls64() of a u64 */

/* Durations of the calls of a return probe, on one CPU. */
struct utp_lat {
	u64 min;
	u64 max;
	u64 sum;
	u64 hist[UTP_LAT_BUCKETS];
};

struct utp_named {
	struct list_head node;
	char name[UTP_NAME_MAX];
	char *target;			/* as written: PID:ADDR or PATH:OFFSET */
	struct utp_lat __percpu *lat;	/* a return probe's, or NULL */
	struct utprobe up;
};

/* A return probe's return handler: the call's duration goes in. */
static int utp_named_ret(struct utprobe *up, const struct utprobe_return *ret,
			 struct pt_regs *regs)
{
	struct utp_named *n = container_of(up, struct utp_named, up);
	u64 ns = ktime_get_ns() - ret->entry_ns;
	struct utp_lat *lat;

	lat = get_cpu_ptr(n->lat);
	if (ns < lat->min)
		lat->min = ns;
	if (ns > lat->max)
		lat->max = ns;
	lat->sum += ns;
	lat->hist[fls64(ns)]++;
	put_cpu_ptr(n->lat);
	return 0;
}

/* Protects utp_named_list; taken before the core's own mutex. */
static DEFINE_MUTEX(utp_named_lock);
static LIST_HEAD(utp_named_list);

static struct utp_named *utp_named_find(const char *name)
{
	struct utp_named *n;

	list_for_each_entry(n, &utp_named_list, node)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

static bool utp_name_valid(const char *name)
{
	const char *p;

	if (!*name || strlen(name) >= UTP_NAME_MAX ||
	    !(isalpha(*name) || *name == '_'))
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '_')
			return false;
	return true;
}

/*
 * Remove @n from the processes and from the list, onto @gone: its
 * handlers may run until utp_named_free() has waited for them.
 */
static void utp_named_remove(struct utp_named *n, struct list_head *gone)
{
	utprobe_unregister_nosync(&n->up);
	list_move_tail(&n->node, gone);
}

/* Free the probes utp_named_remove() put on @gone, after one wait. */
static void utp_named_free(struct list_head *gone)
{
	struct utp_named *n, *next;

	if (list_empty(gone))
		return;
	utprobe_unregister_sync();
	list_for_each_entry_safe(n, next, gone, node) {
		list_del(&n->node);
		free_percpu(n->lat);
		kfree(n->target);
		kfree(n);
	}
}

/* A line of a write, parsed: a definition, or a removal. */
struct utp_line {
	struct utp_named *n;		/* the probe defined, not yet listed */
	struct path path;		/* its file, held, if on a file */
	struct utprobe_spec spec;	/* where it goes */
	const char *remove;		/* or the name of a probe to remove */
};

/* "PATH:OFFSET" (@colon at the last colon) into @l's spec. */
static int utp_parse_file(struct utp_line *l, char *target, char *colon,
			  pid_t tree)
{
	u64 offset;
	int ret;

	*colon = '\0';
	ret = kstrtou64(colon + 1, 0, &offset);
	if (!ret && offset > LLONG_MAX)
		ret = -EINVAL;
	if (!ret)
		ret = kern_path(target, LOOKUP_FOLLOW, &l->path);
	*colon = ':';
	if (ret)
		return ret;
	l->spec.inode = d_inode(l->path.dentry);
	l->spec.offset = offset;
	l->spec.pid = tree;
	return 0;
}

/* A probe named @name on @target, listed as @shown. */
static struct utp_named *utp_named_new(const char *name, const char *shown,
				       bool ret_probe)
{
	struct utp_named *n;
	int cpu;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return NULL;
	n->target = kstrdup(shown, GFP_KERNEL);
	if (ret_probe)
		n->lat = alloc_percpu(struct utp_lat);
	if (!n->target || (ret_probe && !n->lat)) {
		free_percpu(n->lat);
		kfree(n->target);
		kfree(n);
		return NULL;
	}
	strscpy(n->name, name, sizeof(n->name));
	n->up.name = n->name;
	/* counting, and timing returns: both fine in the int3 trap */
	n->up.flags = UTPROBE_TRAP_SAFE;
	if (ret_probe) {
		for_each_possible_cpu(cpu)
			per_cpu_ptr(n->lat, cpu)->min = U64_MAX;
		n->up.ret_handler = utp_named_ret;
	}
	return n;
}

/* "p:NAME PID:ADDR" or "p:NAME PATH:OFFSET [tree=PID]"; r: if @ret */
static int utp_parse_add(struct utp_line *l, char *name, char *target,
			 bool ret_probe)
{
	char *colon, *opt, *shown = NULL;
	unsigned long vaddr;
	int pid, ret, tree = 0;

	if (!target || !utp_name_valid(name))
		return -EINVAL;
	opt = strpbrk(target, " \t");
	if (opt) {
		*opt++ = '\0';
		opt = skip_spaces(opt);
		if (*target != '/' || strncmp(opt, "tree=", 5) ||
		    kstrtoint(opt + 5, 10, &tree) || tree <= 0)
			return -EINVAL;
	}
	colon = strrchr(target, ':');
	if (!colon || colon == target || !colon[1])
		return -EINVAL;
	if (*target == '/') {
		ret = utp_parse_file(l, target, colon, tree);
		if (ret)
			return ret;
	} else {
		*colon = '\0';
		ret = kstrtoint(target, 10, &pid) || pid <= 0 ||
		      kstrtoul(colon + 1, 0, &vaddr) ? -EINVAL : 0;
		*colon = ':';
		if (ret)
			return ret;
		l->spec.pid = pid;
		l->spec.vaddr = vaddr;
	}
	/* listed as written */
	if (tree) {
		shown = kasprintf(GFP_KERNEL, "%s tree=%d", target, tree);
		if (!shown)
			return -ENOMEM;
	}
	l->n = utp_named_new(name, shown ?: target, ret_probe);
	kfree(shown);
	if (!l->n)
		return -ENOMEM;
	l->spec.up = &l->n->up;
	return 0;
}

static int utp_parse(struct utp_line *l, char *line)
{
	char *name, *target;

	line = strim(line);
	if (!*line || *line == '#')
		return 0;
	target = line;
	name = strsep(&target, " \t");
	if (target)
		target = skip_spaces(target);
	if (target && !*target)
		target = NULL;

	if (!strncmp(name, "p:", 2) || !strncmp(name, "r:", 2))
		return utp_parse_add(l, name + 2, target, name[0] == 'r');
	if (!strncmp(name, "-:", 2) && !target) {
		l->remove = name + 2;
		return 0;
	}
	return -EINVAL;
}

/*
 * Register the definitions @lines[0..@n) together, all or none, and
 * list them.  utp_named_lock held.
 */
static int utp_add_batch(struct utp_line *lines, unsigned int n)
{
	struct utprobe_spec *specs;
	unsigned int i, j, k = 0;
	int ret = 0;

	specs = kvcalloc(n, sizeof(*specs), GFP_KERNEL);
	if (!specs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		if (!lines[i].n)
			continue;
		if (utp_named_find(lines[i].n->name))
			ret = -EEXIST;
		for (j = 0; j < i && !ret; j++)
			if (lines[j].n &&
			    !strcmp(lines[j].n->name, lines[i].n->name))
				ret = -EEXIST;
		specs[k++] = lines[i].spec;
	}
	if (!ret)
		ret = utprobe_register_batch(specs, k);
	kvfree(specs);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!lines[i].n)
			continue;
		list_add_tail(&lines[i].n->node, &utp_named_list);
		lines[i].n = NULL;
	}
	return 0;
}

/*
 * Do the parsed @lines in order: definitions that follow each other
 * are registered as one batch; a removal is done where it stands, onto
 * @gone.  Stops at the first error.  utp_named_lock held.
 */
static int __utp_run(struct utp_line *lines, unsigned int n,
		     struct list_head *gone)
{
	unsigned int i, first = 0;
	struct utp_named *victim;
	int ret;

	for (i = 0; i <= n; i++) {
		if (i < n && !lines[i].remove)
			continue;
		/* the definitions before this removal, or the end */
		ret = i > first ? utp_add_batch(lines + first, i - first) : 0;
		if (ret)
			return ret;
		first = i + 1;
		if (i == n)
			break;
		victim = utp_named_find(lines[i].remove);
		if (!victim)
			return -ENOENT;
		utp_named_remove(victim, gone);
	}
	return 0;
}

/* __utp_run(), then one wait for the probes it removed; they are freed. */
static int utp_run(struct utp_line *lines, unsigned int n)
{
	LIST_HEAD(gone);
	int ret;

	ret = __utp_run(lines, n, &gone);
	utp_named_free(&gone);
	return ret;
}

static void utp_lines_free(struct utp_line *lines, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (lines[i].spec.inode)
			path_put(&lines[i].path);
		if (lines[i].n) {
			free_percpu(lines[i].n->lat);
			kfree(lines[i].n->target);
			kfree(lines[i].n);
		}
	}
	kvfree(lines);
}

/*
 * A write holds one or more lines.  All of them are parsed first (the
 * names, the numbers, the files looked up): if one does not parse, the
 * write changes nothing.  Then they are done in order, each run of
 * definitions placed together (one pass per process), all or none.
 */
static ssize_t utp_events_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int n = 0, i;
	struct utp_line *lines;
	char *buf, *p, *line;
	int ret = 0;

	/* the opener's credentials decide, not the writer's (a passed fd) */
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (count > UTP_WRITE_MAX)
		return -E2BIG;
	buf = kvmalloc(count + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, count)) {
		kvfree(buf);
		return -EFAULT;
	}
	buf[count] = '\0';
	for (p = buf, n = 1; *p; p++)
		n += *p == '\n';
	lines = kvcalloc(n, sizeof(*lines), GFP_KERNEL);
	if (!lines) {
		kvfree(buf);
		return -ENOMEM;
	}
	p = buf;
	for (i = 0; !ret && (line = strsep(&p, "\n")); i++)
		ret = utp_parse(&lines[i], line);
	if (!ret) {
		mutex_lock(&utp_named_lock);
		ret = utp_run(lines, n);
		mutex_unlock(&utp_named_lock);
	}
	utp_lines_free(lines, n);
	kvfree(buf);
	return ret ? ret : count;
}

static void *utp_seq_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&utp_named_lock);
	return seq_list_start(&utp_named_list, *pos);
}

static void *utp_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &utp_named_list, pos);
}

static void utp_seq_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&utp_named_lock);
}

static int utp_events_show(struct seq_file *m, void *v)
{
	struct utp_named *n = list_entry(v, struct utp_named, node);

	seq_printf(m, "%c:%s %s\n", n->lat ? 'r' : 'p', n->name, n->target);
	return 0;
}

static int utp_profile_show(struct seq_file *m, void *v)
{
	struct utp_named *n = list_entry(v, struct utp_named, node);

	seq_printf(m, "%s %s %llu\n", n->name, n->target,
		   utprobe_hits(&n->up));
	return 0;
}

static int utp_returns_show(struct seq_file *m, void *v)
{
	struct utp_named *n = list_entry(v, struct utp_named, node);
	struct utprobe_ret_counts counts;
	struct utp_lat all = { .min = U64_MAX };
	bool first = true;
	int cpu, b;

	if (!n->lat)
		return 0;
	utprobe_ret_counts(&n->up, &counts);
	for_each_possible_cpu(cpu) {
		const struct utp_lat *l = per_cpu_ptr(n->lat, cpu);

		all.min = min(all.min, l->min);
		all.max = max(all.max, l->max);
		all.sum += l->sum;
		for (b = 0; b < UTP_LAT_BUCKETS; b++)
			all.hist[b] += l->hist[b];
	}
	seq_printf(m, "%s returns=%llu unwound=%llu missed=%llu pending=%ld min_ns=%llu max_ns=%llu sum_ns=%llu hist=",
		   n->name, counts.returns, counts.unwound, counts.missed,
		   counts.pending, all.min == U64_MAX ? 0 : all.min, all.max,
		   all.sum);
	for (b = 0; b < UTP_LAT_BUCKETS; b++) {
		if (!all.hist[b])
			continue;
		seq_printf(m, "%s%d:%llu", first ? "" : ",", b, all.hist[b]);
		first = false;
	}
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations utp_returns_seq_ops = {
	.start = utp_seq_start,
	.next = utp_seq_next,
	.stop = utp_seq_stop,
	.show = utp_returns_show,
};

static const struct seq_operations utp_events_seq_ops = {
	.start = utp_seq_start,
	.next = utp_seq_next,
	.stop = utp_seq_stop,
	.show = utp_events_show,
};

static const struct seq_operations utp_profile_seq_ops = {
	.start = utp_seq_start,
	.next = utp_seq_next,
	.stop = utp_seq_stop,
	.show = utp_profile_show,
};

static int utp_events_open(struct inode *inode, struct file *file)
{
	struct utp_named *n, *next;
	LIST_HEAD(gone);

	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
			return -EPERM;
		mutex_lock(&utp_named_lock);
		list_for_each_entry_safe(n, next, &utp_named_list, node)
			utp_named_remove(n, &gone);
		utp_named_free(&gone);
		mutex_unlock(&utp_named_lock);
	}
	return seq_open(file, &utp_events_seq_ops);
}

static int utp_profile_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &utp_profile_seq_ops);
}

static int utp_returns_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &utp_returns_seq_ops);
}

static const struct file_operations utp_returns_fops = {
	.open = utp_returns_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static const struct file_operations utp_events_fops = {
	.open = utp_events_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
	.write = utp_events_write,
};

static const struct file_operations utp_profile_fops = {
	.open = utp_profile_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static int __init utp_trace_init(void)
{
	tracefs_create_file("utprobe_events", 0644, NULL, NULL,
			    &utp_events_fops);
	tracefs_create_file("utprobe_profile", 0444, NULL, NULL,
			    &utp_profile_fops);
	tracefs_create_file("utprobe_returns", 0444, NULL, NULL,
			    &utp_returns_fops);
	return 0;
}
late_initcall(utp_trace_init);
