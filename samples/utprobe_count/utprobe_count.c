// SPDX-License-Identifier: GPL-2.0
/*
 * utprobe_count: count the hits of one utprobe.
 *
 *   insmod utprobe_count.ko pid=PID addr=ADDR
 *
 * probes the instruction at ADDR in process PID; the handler counts each
 * hit under a mutex (handlers run in the probed thread and may sleep
 * briefly).  /sys/module/utprobe_count/parameters/hits reads the count
 * and /sys/module/utprobe_count/parameters/engine_hits the engine's own.
 *
 * With sleep_ms=MS, the handler sleeps that long at each hit.  With
 * oneshot=N, the handler unregisters its probe at the Nth hit; with
 * chain=ADDR2, the first hit registers a second probe, on ADDR2, whose
 * hits chain_hits reads: both from inside the handler.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/utprobes.h>

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "process to probe");

static unsigned long addr;
module_param(addr, ulong, 0444);
MODULE_PARM_DESC(addr, "address of the instruction to probe");

static int sleep_ms;
module_param(sleep_ms, int, 0444);
MODULE_PARM_DESC(sleep_ms, "sleep this long in each hit's handler");

static int oneshot;
module_param(oneshot, int, 0444);
MODULE_PARM_DESC(oneshot, "unregister the probe at this hit");

static unsigned long chain;
module_param(chain, ulong, 0444);
MODULE_PARM_DESC(chain, "address to probe from the first hit's handler");

static DEFINE_MUTEX(count_lock);
static u64 count, chain_count;
static bool chained;

static int chain_handler(struct utprobe *up, struct pt_regs *regs)
{
	mutex_lock(&count_lock);
	chain_count++;
	mutex_unlock(&count_lock);
	return 0;
}

static struct utprobe chain_probe = {
	.handler = chain_handler,
	.name = "utprobe_count_chain",
};

static struct utprobe probe;

static int count_handler(struct utprobe *up, struct pt_regs *regs)
{
	u64 n;

	mutex_lock(&count_lock);
	n = ++count;
	if (n == 1 && chain && !utprobe_register_pid(&chain_probe, pid, chain))
		chained = true;
	mutex_unlock(&count_lock);
	if (sleep_ms)
		msleep(sleep_ms);
	if (n == oneshot)
		utprobe_unregister(up);
	return 0;
}

static struct utprobe probe = {
	.handler = count_handler,
	.name = "utprobe_count",
};

static int chain_hits_get(char *buf, const struct kernel_param *kp)
{
	u64 n;

	mutex_lock(&count_lock);
	n = chain_count;
	mutex_unlock(&count_lock);
	return sysfs_emit(buf, "%llu\n", n);
}

static const struct kernel_param_ops chain_hits_ops = {
	.get = chain_hits_get,
};
module_param_cb(chain_hits, &chain_hits_ops, NULL, 0444);
MODULE_PARM_DESC(chain_hits, "hits of the probe registered by the handler");

static int hits_get(char *buf, const struct kernel_param *kp)
{
	u64 n;

	mutex_lock(&count_lock);
	n = count;
	mutex_unlock(&count_lock);
	return sysfs_emit(buf, "%llu\n", n);
}

static const struct kernel_param_ops hits_ops = {
	.get = hits_get,
};
module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "hits counted by the handler");

static int engine_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", utprobe_hits(&probe));
}

static const struct kernel_param_ops engine_hits_ops = {
	.get = engine_hits_get,
};
module_param_cb(engine_hits, &engine_hits_ops, NULL, 0444);
MODULE_PARM_DESC(engine_hits, "hits counted by the engine");

static int __init utprobe_count_init(void)
{
	if (pid <= 0 || !addr)
		return -EINVAL;
	return utprobe_register_pid(&probe, pid, addr);
}

static void __exit utprobe_count_exit(void)
{
	utprobe_unregister(&probe);
	if (chained)
		utprobe_unregister(&chain_probe);
}

module_init(utprobe_count_init);
module_exit(utprobe_count_exit);
MODULE_DESCRIPTION("Count the hits of a utprobe");
MODULE_LICENSE("GPL");
