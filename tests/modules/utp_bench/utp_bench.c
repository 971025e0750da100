// SPDX-License-Identifier: GPL-2.0
/*
 * utp_bench: the same counting handlers on utprobes and on mainline
 * uprobes, for "make bench".  Driven through debugfs, utp_bench/ctl:
 *
 *   ENGINE PATH OFFSET COUNT STRIDE [ret|more]
 *	ENGINE (ours or mainline) probes COUNT instructions of the file at
 *	PATH, at OFFSET, OFFSET + STRIDE, ..., in place of the probes
 *	there were; with "ret", the first is a return probe; with "more",
 *	they are added to those there are (on the same engine)
 *   jump PATH OFFSET 1 SIZE [wait]
 *	one probe of ours with no handler at the first instruction of a
 *	function of SIZE bytes at OFFSET: entered by a jump where the
 *	function allows it, its hits counted by utprobes itself; with
 *	"wait", the write returns once the jump is in (or fails with
 *	ETIMEDOUT after a minute), so that no poller runs meanwhile
 *   sys PATH OFFSET 1 SIZE
 *	the same with the counting handler: entered by a jump to a stub
 *	that calls it by a system call, where the function allows it
 *   clear
 *	removes them, each engine's way of removing many: one wait for
 *	all of them
 *
 * Reading ctl gives "hits N returns N register_ns N unregister_ns N
 * mode MODE": the handlers' counts since the probes were placed, how
 * long placing them took, how long the last clear took, and for "jump"
 * and "sys" the probe's utprobe_mode() ("-" otherwise).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/uprobes.h>
#include <linux/utprobes.h>

#define BENCH_MAX	20000

/* One probe on either engine. */
struct bench_probe {
	struct utprobe up;
	struct uprobe_consumer uc;
	struct uprobe *uprobe;		/* mainline's, or NULL */
};

/* Serialises ctl writes and reads: the probes and the timing. */
static DEFINE_MUTEX(bench_lock);
static struct bench_probe *probes;	/* BENCH_MAX of them */
static int nprobes;
static bool mainline;
static bool jumping;			/* probes[0] may jump: "jump", "sys" */
static bool jump_handler;		/* ... with the handler: "sys" */
static u64 register_ns;
/* how long the last "clear" took: the removal of every probe */
static u64 unregister_ns;
static DEFINE_PER_CPU(u64, hits);
static DEFINE_PER_CPU(u64, returns);
static struct dentry *dir;

static int ours_hit(struct utprobe *up, struct pt_regs *regs)
{
	this_cpu_inc(hits);
	return 0;
}

static int ours_ret(struct utprobe *up, const struct utprobe_return *ret,
		    struct pt_regs *regs)
{
	this_cpu_inc(returns);
	return 0;
}

static int mainline_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	this_cpu_inc(hits);
	return 0;
}

static int mainline_ret(struct uprobe_consumer *uc, unsigned long func,
			struct pt_regs *regs)
{
	this_cpu_inc(returns);
	return 0;
}

static void bench_clear(void)
{
	int i, cpu;

	for (i = 0; i < nprobes; i++) {
		if (mainline)
			uprobe_unregister_nosync(probes[i].uprobe,
						 &probes[i].uc);
		else
			utprobe_unregister_nosync(&probes[i].up);
	}
	if (mainline && nprobes)
		uprobe_unregister_sync();
	else if (nprobes)
		utprobe_unregister_sync();
	nprobes = 0;
	jumping = false;
	jump_handler = false;
	memset(probes, 0, BENCH_MAX * sizeof(*probes));
	for_each_possible_cpu(cpu) {
		per_cpu(hits, cpu) = 0;
		per_cpu(returns, cpu) = 0;
	}
	register_ns = 0;
}

/*
 * One probe of ours in a function of @size bytes: that only counts, or
 * with the counting handler if @handler.
 */
static int bench_place_jump(struct inode *inode, loff_t offset, int size,
			    bool handler)
{
	struct utprobe_spec spec = {
		.up = &probes[0].up, .inode = inode, .offset = offset,
	};
	int err;

	probes[0].up.name = "bench";
	probes[0].up.func_size = size;
	/* where no jump goes in, its trap is the same as "ours" */
	if (handler) {
		probes[0].up.handler = ours_hit;
		probes[0].up.flags = UTPROBE_TRAP_SAFE;
	}
	err = utprobe_register_batch(&spec, 1);
	if (!err) {
		nprobes = 1;
		jumping = true;
		jump_handler = handler;
	}
	return err;
}

/* @count probes of ours, placed as one batch. */
static int bench_place_ours(struct inode *inode, loff_t offset, int count,
			    int stride, bool ret)
{
	struct utprobe_spec *specs;
	int i, err;

	specs = vcalloc(count, sizeof(*specs));
	if (!specs)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		struct bench_probe *b = &probes[nprobes + i];

		/* counting: safe in the trap, as utprobes allows */
		b->up.handler = ours_hit;
		b->up.flags = UTPROBE_TRAP_SAFE;
		b->up.name = "bench";
		if (ret && !i)
			b->up.ret_handler = ours_ret;
		specs[i].up = &b->up;
		specs[i].inode = inode;
		specs[i].offset = offset + (loff_t)i * stride;
	}
	err = utprobe_register_batch(specs, count);
	if (!err)
		nprobes += count;
	vfree(specs);
	return err;
}

static int bench_place(bool on_mainline, bool jump, bool sys,
		       const char *path,
		       loff_t offset, int count, int stride, bool ret,
		       bool more)
{
	struct path p;
	struct inode *inode;
	u64 start;
	int i, err = 0;

	if (count < 1 || count > BENCH_MAX - (more ? nprobes : 0) ||
	    stride < 0 || (more && (!nprobes || mainline != on_mainline ||
				    jumping)) ||
	    (jump && (count != 1 || !stride || more || ret)))
		return -EINVAL;
	err = kern_path(path, LOOKUP_FOLLOW, &p);
	if (err)
		return err;
	inode = d_inode(p.dentry);
	if (!more)
		bench_clear();
	mainline = on_mainline;
	start = ktime_get_ns();
	if (mainline) {
		/* mainline has no batch: one registration after the other */
		for (i = 0; i < count; i++) {
			struct bench_probe *b = &probes[nprobes];

			b->uc.handler = mainline_hit;
			if (ret && !i)
				b->uc.ret_handler = mainline_ret;
			b->uprobe = uprobe_register(inode,
						    offset + (loff_t)i * stride,
						    0, &b->uc);
			if (IS_ERR(b->uprobe)) {
				err = PTR_ERR(b->uprobe);
				break;
			}
			nprobes++;
		}
	} else if (jump) {
		err = bench_place_jump(inode, offset, stride, sys);
	} else {
		err = bench_place_ours(inode, offset, count, stride, ret);
	}
	register_ns = ktime_get_ns() - start;
	path_put(&p);
	if (err)
		bench_clear();
	return err;
}

/*
 * Wait until probes[0] is entered by a jump, a minute at most: the
 * placement goes on in a worker, and a poller in user space would run
 * (and fork) in the window a pause is measured in.
 */
static int bench_wait_jump(void)
{
	u64 end = ktime_get_ns() + 60 * NSEC_PER_SEC;

	while (strcmp(utprobe_mode(&probes[0].up), "jump")) {
		if (ktime_get_ns() > end)
			return -ETIMEDOUT;
		usleep_range(500, 1000);
	}
	return 0;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char *buf, engine[16], path[256], flag[8] = "";
	long long offset;
	int count, stride, n, err;

	buf = memdup_user_nul(ubuf, min_t(size_t, len, 512));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&bench_lock);
	n = sscanf(buf, "%15s %255s %lli %d %d %7s", engine, path, &offset,
		   &count, &stride, flag);
	if (n >= 1 && !strcmp(engine, "clear")) {
		u64 start = ktime_get_ns();

		bench_clear();
		unregister_ns = ktime_get_ns() - start;
		err = 0;
	} else if (n >= 5 && (!strcmp(engine, "ours") ||
			      !strcmp(engine, "mainline") ||
			      !strcmp(engine, "jump") ||
			      !strcmp(engine, "sys")) &&
		   (n == 5 || !strcmp(flag, "ret") || !strcmp(flag, "more") ||
		    (!strcmp(flag, "wait") && !strcmp(engine, "jump")))) {
		err = bench_place(engine[0] == 'm',
				  engine[0] == 'j' || engine[0] == 's',
				  engine[0] == 's', path,
				  offset, count, stride,
				  n == 6 && flag[0] == 'r',
				  n == 6 && flag[0] == 'm');
		if (!err && n == 6 && flag[0] == 'w')
			err = bench_wait_jump();
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&bench_lock);
	kfree(buf);
	return err ? err : len;
}

static ssize_t ctl_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	const char *mode = "-";
	u64 h = 0, r = 0;
	char buf[160];
	int cpu, n;

	mutex_lock(&bench_lock);
	for_each_possible_cpu(cpu) {
		h += per_cpu(hits, cpu);
		r += per_cpu(returns, cpu);
	}
	/* no handler: utprobes' own count, stubs' and traps' */
	if (jumping && !jump_handler)
		h = utprobe_hits(&probes[0].up);
	if (jumping)
		mode = utprobe_mode(&probes[0].up);
	n = scnprintf(buf, sizeof(buf),
		      "hits %llu returns %llu register_ns %llu unregister_ns %llu mode %s\n",
		      h, r, register_ns, unregister_ns, mode);
	mutex_unlock(&bench_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static int __init bench_init(void)
{
	probes = vzalloc(BENCH_MAX * sizeof(*probes));
	if (!probes)
		return -ENOMEM;
	dir = debugfs_create_dir("utp_bench", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(dir);
	mutex_lock(&bench_lock);
	bench_clear();
	mutex_unlock(&bench_lock);
	vfree(probes);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("utprobes and mainline uprobes with the same counting handlers");
MODULE_LICENSE("GPL");
