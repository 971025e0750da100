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
 *   -:NAME		remove probe NAME
 *
 * and lists the probes when read; opening it with O_TRUNC removes them
 * all.  utprobe_profile lists each probe with its hit count.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/utprobes.h>

#define UTP_NAME_MAX	64

struct utp_named {
	struct list_head node;
	char name[UTP_NAME_MAX];
	char *target;			/* as written: PID:ADDR or PATH:OFFSET */
	struct utprobe up;
};

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

static void utp_named_free(struct utp_named *n)
{
	utprobe_unregister(&n->up);
	list_del(&n->node);
	kfree(n->target);
	kfree(n);
}

/* Register @up on "PATH:OFFSET" (@colon at the last colon). */
static int utp_add_file(struct utprobe *up, char *target, char *colon,
			pid_t tree)
{
	struct path path;
	u64 offset;
	int ret;

	*colon = '\0';
	ret = kstrtou64(colon + 1, 0, &offset);
	if (!ret && offset > LLONG_MAX)
		ret = -EINVAL;
	if (!ret)
		ret = kern_path(target, LOOKUP_FOLLOW, &path);
	*colon = ':';
	if (ret)
		return ret;
	ret = utprobe_register_file_scoped(up, d_inode(path.dentry), offset,
					   tree);
	path_put(&path);
	return ret;
}

/* "p:NAME PID:ADDR" or "p:NAME PATH:OFFSET [tree=PID]" */
static int utp_cmd_add(char *name, char *target)
{
	struct utp_named *n;
	unsigned long vaddr;
	char *colon, *opt;
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
	if (utp_named_find(name))
		return -EEXIST;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->target = kstrdup(target, GFP_KERNEL);
	if (!n->target) {
		kfree(n);
		return -ENOMEM;
	}
	strscpy(n->name, name, sizeof(n->name));
	n->up.name = n->name;
	if (tree) {
		/* listed as written */
		char *full = kasprintf(GFP_KERNEL, "%s tree=%d", target, tree);

		kfree(n->target);
		n->target = full;
		if (!full) {
			kfree(n);
			return -ENOMEM;
		}
	}
	if (*target == '/') {
		ret = utp_add_file(&n->up, target, colon, tree);
	} else {
		*colon = '\0';
		if (kstrtoint(target, 10, &pid) || pid <= 0 ||
		    kstrtoul(colon + 1, 0, &vaddr))
			ret = -EINVAL;
		else
			ret = utprobe_register_pid(&n->up, pid, vaddr);
	}
	if (ret) {
		kfree(n->target);
		kfree(n);
		return ret;
	}
	list_add_tail(&n->node, &utp_named_list);
	return 0;
}

static int utp_cmd(char *line)
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

	if (!strncmp(name, "p:", 2))
		return utp_cmd_add(name + 2, target);
	if (!strncmp(name, "-:", 2)) {
		struct utp_named *n = utp_named_find(name + 2);

		if (target)
			return -EINVAL;
		if (!n)
			return -ENOENT;
		utp_named_free(n);
		return 0;
	}
	return -EINVAL;
}

static ssize_t utp_events_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char *buf, *p, *line;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (count > PAGE_SIZE)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&utp_named_lock);
	p = buf;
	while (!ret && (line = strsep(&p, "\n")))
		ret = utp_cmd(line);
	mutex_unlock(&utp_named_lock);
	kfree(buf);
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

	seq_printf(m, "p:%s %s\n", n->name, n->target);
	return 0;
}

static int utp_profile_show(struct seq_file *m, void *v)
{
	struct utp_named *n = list_entry(v, struct utp_named, node);

	seq_printf(m, "%s %s %llu\n", n->name, n->target,
		   utprobe_hits(&n->up));
	return 0;
}

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

	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		mutex_lock(&utp_named_lock);
		list_for_each_entry_safe(n, next, &utp_named_list, node)
			utp_named_free(n);
		mutex_unlock(&utp_named_lock);
	}
	return seq_open(file, &utp_events_seq_ops);
}

static int utp_profile_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &utp_profile_seq_ops);
}

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
	return 0;
}
late_initcall(utp_trace_init);
