// SPDX-License-Identifier: GPL-2.0
/*
 * utp_multi: several probes on one address, for the tests.
 *
 *   insmod utp_multi.ko pid=PID addr=ADDR n=N [jump_by=I jump_to=ADDR2]
 *
 * registers N (1 to 4) probes on the instruction at ADDR in process PID,
 * in the order 0 to N - 1.  Each handler appends its number to the log
 * that /sys/module/utp_multi/parameters/order reads (up to 64 entries);
 * handler I, if jump_by is I, moves the thread to ADDR2.  Parameter
 * hits reads each probe's hit count, "H0,H1,...".
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/utprobes.h>

#define NPROBES 4
#define ORDER_MAX 64

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "process to probe");

static unsigned long addr;
module_param(addr, ulong, 0444);
MODULE_PARM_DESC(addr, "address of the instruction to probe");

static int n = 1;
module_param(n, int, 0444);
MODULE_PARM_DESC(n, "how many probes to register there (1 to 4)");

static int jump_by = -1;
module_param(jump_by, int, 0444);
MODULE_PARM_DESC(jump_by, "the probe whose handler moves the thread");

static unsigned long jump_to;
module_param(jump_to, ulong, 0444);
MODULE_PARM_DESC(jump_to, "where that handler moves it");

static DEFINE_MUTEX(order_lock);
static char order[ORDER_MAX + 1];
static int order_len;
static struct utprobe probes[NPROBES];

static int multi_handler(struct utprobe *up, struct pt_regs *regs)
{
	int i = up - probes;

	mutex_lock(&order_lock);
	if (order_len < ORDER_MAX)
		order[order_len++] = '0' + i;
	mutex_unlock(&order_lock);
	if (i == jump_by)
		regs->ip = jump_to;
	return 0;
}

static int order_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&order_lock);
	ret = sysfs_emit(buf, "%s\n", order);
	mutex_unlock(&order_lock);
	return ret;
}

static const struct kernel_param_ops order_ops = {
	.get = order_get,
};
module_param_cb(order, &order_ops, NULL, 0444);
MODULE_PARM_DESC(order, "the handlers' numbers in the order they ran");

static int hits_get(char *buf, const struct kernel_param *kp)
{
	int i, len = 0;

	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? "," : "",
				     utprobe_hits(&probes[i]));
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static const struct kernel_param_ops hits_ops = {
	.get = hits_get,
};
module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "each probe's hits, comma-separated");

static int __init utp_multi_init(void)
{
	int i, ret;

	if (pid <= 0 || !addr || n < 1 || n > NPROBES ||
	    (jump_by >= 0 && !jump_to))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		probes[i].handler = multi_handler;
		probes[i].name = "utp_multi";
		ret = utprobe_register_pid(&probes[i], pid, addr);
		if (ret) {
			while (i--)
				utprobe_unregister(&probes[i]);
			return ret;
		}
	}
	return 0;
}

static void __exit utp_multi_exit(void)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		utprobe_unregister(&probes[i]);
}

module_init(utp_multi_init);
module_exit(utp_multi_exit);
MODULE_DESCRIPTION("Several utprobes on one address, for the tests");
MODULE_LICENSE("GPL");
