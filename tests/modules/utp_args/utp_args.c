// SPDX-License-Identifier: GPL-2.0
/*
 * utp_args: a return probe whose handlers read the arguments and the
 * return value with utprobe_arg() and utprobe_retval(), for the tests.
 *
 *   insmod utp_args.ko pid=PID addr=ADDR [nargs=N] [trap=1]
 *
 * probes the function at ADDR in process PID.  For each of its first
 * LOG_CALLS calls, parameter log reads one line "a0 a1 ... aN-1 = RET"
 * (hexadecimal; "fault" for an argument that could not be read).  With
 * trap=1 the handlers may run in the int3 trap.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/utprobes.h>

#define NARGS_MAX	8
#define LOG_CALLS	8
#define LINE_MAX	(NARGS_MAX * 20 + 24)

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "process to probe");

static unsigned long addr;
module_param(addr, ulong, 0444);
MODULE_PARM_DESC(addr, "address of the function to probe");

static int nargs = NARGS_MAX;
module_param(nargs, int, 0444);
MODULE_PARM_DESC(nargs, "how many arguments to read (up to 8)");

static bool trap;
module_param(trap, bool, 0444);
MODULE_PARM_DESC(trap, "let the handlers run in the int3 trap");

/* Protects the log; the trap-safe handlers may not take a mutex. */
static DEFINE_SPINLOCK(log_lock);
static char lines[LOG_CALLS][LINE_MAX];
static int entered, returned;

static int args_handler(struct utprobe *up, struct pt_regs *regs)
{
	char line[LINE_MAX];
	unsigned long val;
	int i, len = 0;

	for (i = 0; i < nargs; i++) {
		if (utprobe_arg(regs, i, &val))
			len += scnprintf(line + len, sizeof(line) - len,
					 "fault ");
		else
			len += scnprintf(line + len, sizeof(line) - len,
					 "%lx ", val);
	}
	spin_lock(&log_lock);
	if (entered < LOG_CALLS)
		strscpy(lines[entered], line, sizeof(lines[0]));
	entered++;
	spin_unlock(&log_lock);
	return 0;
}

static int args_ret_handler(struct utprobe *up,
			    const struct utprobe_return *ret,
			    struct pt_regs *regs)
{
	char *line;
	size_t len;

	spin_lock(&log_lock);
	if (returned < LOG_CALLS && returned < entered) {
		line = lines[returned];
		len = strlen(line);
		scnprintf(line + len, sizeof(lines[0]) - len, "= %lx",
			  utprobe_retval(regs));
	}
	returned++;
	spin_unlock(&log_lock);
	return 0;
}

static int log_get(char *buf, const struct kernel_param *kp)
{
	int i, len = 0;

	spin_lock(&log_lock);
	for (i = 0; i < min(entered, LOG_CALLS); i++)
		len += sysfs_emit_at(buf, len, "%s\n", lines[i]);
	spin_unlock(&log_lock);
	return len;
}

static const struct kernel_param_ops log_ops = {
	.get = log_get,
};
module_param_cb(log, &log_ops, NULL, 0444);
MODULE_PARM_DESC(log, "the arguments and return value of the first calls");

static struct utprobe probe = {
	.handler = args_handler,
	.ret_handler = args_ret_handler,
	.name = "utp_args",
};

static int __init utp_args_init(void)
{
	if (pid <= 0 || !addr || nargs < 0 || nargs > NARGS_MAX)
		return -EINVAL;
	if (trap)
		probe.flags = UTPROBE_TRAP_SAFE;
	return utprobe_register_pid(&probe, pid, addr);
}

static void __exit utp_args_exit(void)
{
	utprobe_unregister(&probe);
}

module_init(utp_args_init);
module_exit(utp_args_exit);
MODULE_DESCRIPTION("Arguments and return values read by probe handlers, for the tests");
MODULE_LICENSE("GPL");
