// SPDX-License-Identifier: GPL-2.0
/*
 * A utrace engine driven from user space, for the tests.
 *
 * /sys/kernel/debug/utrace_test/ctl takes one command per write; the
 * write fails with the errno the utrace call answered:
 *
 *   attach PID ID [exclusive]   utrace_attach_pid(CREATE) as engine ID
 *   lookup PID ID               utrace_attach_pid() without CREATE
 *   events ID MASK              utrace_set_events()
 *   control ID ACTION           utrace_control(), ACTION by number
 *   reply ID EVENT VALUE        what ID's callback for EVENT (bit
 *                               number) returns from now on
 *   reply_once ID EVENT VALUE   the same, for the next call only
 *   barrier ID                  utrace_barrier() on the task
 *   barrier_pid ID              utrace_barrier_pid()
 *   examine ID [MSEC]           utrace_prepare_examine() and, MSEC
 *                               later, utrace_finish_examine()
 *   slow ID MSEC                ID's callbacks sleep MSEC first
 *   hold ID EVENT               ID's next callback for EVENT waits (after
 *                               logging) until "release ID EVENT"
 *   release ID EVENT            let that held callback return
 *   attach_child ID MASK        ID's report_clone attaches engine ID+1
 *                               to the child with MASK and ID's replies
 *   steps ID N [BLOCK]          ID's report_signal answers the next N
 *                               SIGTRAPs with IGN and SINGLESTEP (or
 *                               BLOCKSTEP if BLOCK is 1; the last with
 *                               IGN and RESUME)
 *   inject ID SIGNO             ID's next report_signal with
 *                               UTRACE_SIGNAL_REPORT sends SIGNO
 *   handler ID ADDR             ID's next report_signal of a signal with
 *                               a handler delivers it to ADDR instead
 *   entry_regs ID NR NEWNR ARG0 ID's next report_syscall_entry of system
 *                               call NR changes it into NEWNR with ARG0
 *                               as its first argument (logged as it came)
 *
 * A reply to a signal event with KEEP (0x1000) set keeps the signal
 * action the report came with; that is the default.
 *   put ID                      drop the engine reference
 *   clear                       empty the log
 *
 * /sys/kernel/debug/utrace_test/log lists the callbacks made, in order,
 * one per line: "ID EVENT TID details", TID the reporting thread's.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/utrace.h>
#include <asm/syscall.h>

#define NENGINES 8
#define KEEP 0x1000	/* reply: keep the incoming signal action */
#define LOG_SIZE (64 * 1024)

struct test_engine {
	struct utrace_engine *engine;
	struct pid *pid;
	struct task_struct *task;	/* referenced: outlives the reap */
	u32 reply[_UTRACE_NEVENTS];
	u32 reply_once[_UTRACE_NEVENTS];
	bool once[_UTRACE_NEVENTS];
	unsigned int slow_ms;
	unsigned long child_mask;
	bool attach_child;
	int steps;
	bool blockstep;
	int inject;
	unsigned long handler;
	bool change_entry;
	long entry_nr, entry_newnr;
	unsigned long entry_arg0;
	unsigned long hold;		/* events whose next callback waits */
	struct completion release[_UTRACE_NEVENTS];
};

/* Protects engines[] against the control file; callbacks read it. */
static DEFINE_MUTEX(ctl_lock);
static struct test_engine engines[NENGINES];

/* Protects log_buf and log_len; taken in callbacks, never sleeping. */
static DEFINE_SPINLOCK(log_lock);
static char *log_buf;
static size_t log_len;
static struct dentry *dir;

static const struct utrace_engine_ops test_ops;

static __printf(4, 5) void log_event(struct utrace_engine *engine,
				     struct task_struct *task,
				     const char *event, const char *fmt, ...)
{
	struct test_engine *te = engine->data;
	char line[160];
	va_list ap;
	int n;

	/* task->pid: a reaped thread's pid number is gone from its struct pid */
	n = scnprintf(line, sizeof(line), "%ld %s %d ", te - engines, event,
		      task->pid);
	va_start(ap, fmt);
	n += vscnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	n += scnprintf(line + n, sizeof(line) - n, "\n");

	spin_lock(&log_lock);
	if (log_len + n < LOG_SIZE) {
		memcpy(log_buf + log_len, line, n);
		log_len += n;
	}
	spin_unlock(&log_lock);
}

static u32 answer(struct utrace_engine *engine, int event)
{
	struct test_engine *te = engine->data;

	if (te->slow_ms)
		msleep(te->slow_ms);
	if (test_and_clear_bit(event, &te->hold) &&
	    !wait_for_completion_timeout(&te->release[event], 20 * HZ))
		pr_warn("utrace_test: held callback never released\n");
	if (READ_ONCE(te->once[event])) {
		WRITE_ONCE(te->once[event], false);
		return te->reply_once[event];
	}
	return READ_ONCE(te->reply[event]);
}

static u32 t_quiesce(enum utrace_resume_action action,
		     struct utrace_engine *engine, struct task_struct *task,
		     unsigned long event)
{
	log_event(engine, task, "quiesce", "action=%d event=%#lx", action, event);
	return answer(engine, _UTRACE_EVENT_QUIESCE);
}

static u32 t_clone(enum utrace_resume_action action,
		   struct utrace_engine *engine, struct task_struct *parent,
		   unsigned long clone_flags, struct task_struct *child)
{
	struct test_engine *te = engine->data;
	int n;

	log_event(engine, parent, "clone", "action=%d child=%d vm=%d vfork=%d thread=%d",
		  action, child->pid, !!(clone_flags & CLONE_VM),
		  !!(clone_flags & CLONE_VFORK), !!(clone_flags & CLONE_THREAD));
	if (te->attach_child && te + 1 < engines + NENGINES) {
		struct test_engine *ce = te + 1;
		struct utrace_engine *e;

		e = utrace_attach_task(child, UTRACE_ATTACH_CREATE, &test_ops, ce);
		if (!IS_ERR(e)) {
			/* the child's engine answers as its parent's would */
			memcpy(ce->reply, te->reply, sizeof(ce->reply));
			ce->hold = 0;
			for (n = 0; n < _UTRACE_NEVENTS; n++)
				init_completion(&ce->release[n]);
			if (utrace_set_events(child, e, te->child_mask))
				pr_err("utrace_test: set_events on child failed\n");
			if (!ce->engine) {
				ce->engine = e;
				ce->pid = get_task_pid(child, PIDTYPE_PID);
				ce->task = get_task_struct(child);
			} else {
				utrace_engine_put(e);
			}
		}
	}
	return answer(engine, _UTRACE_EVENT_CLONE);
}

static u32 t_exec(enum utrace_resume_action action,
		  struct utrace_engine *engine, struct task_struct *task,
		  const struct linux_binfmt *fmt,
		  const struct linux_binprm *bprm, struct pt_regs *regs)
{
	log_event(engine, task, "exec", "action=%d comm=%s fmt=%d", action,
		  task->comm, !!fmt);
	return answer(engine, _UTRACE_EVENT_EXEC);
}

static u32 t_syscall_entry(u32 action, struct utrace_engine *engine,
			   struct task_struct *task, struct pt_regs *regs)
{
	unsigned long args[6];

	struct test_engine *te = engine->data;

	syscall_get_arguments(task, regs, args);
	log_event(engine, task, "syscall_entry", "action=%#x nr=%d arg0=%lu arg1=%lu",
		  action, syscall_get_nr(task, regs), args[0], args[1]);
	if (READ_ONCE(te->change_entry) &&
	    syscall_get_nr(task, regs) == te->entry_nr) {
		WRITE_ONCE(te->change_entry, false);
		/* x86-64: the number and the first argument's register */
		regs->orig_ax = te->entry_newnr;
		regs->di = te->entry_arg0;
	}
	return answer(engine, _UTRACE_EVENT_SYSCALL_ENTRY);
}

static u32 t_syscall_exit(enum utrace_resume_action action,
			  struct utrace_engine *engine,
			  struct task_struct *task, struct pt_regs *regs)
{
	log_event(engine, task, "syscall_exit", "action=%d nr=%d ret=%ld", action,
		  syscall_get_nr(task, regs),
		  syscall_get_return_value(task, regs));
	return answer(engine, _UTRACE_EVENT_SYSCALL_EXIT);
}

static u32 t_jctl(enum utrace_resume_action action,
		  struct utrace_engine *engine, struct task_struct *task,
		  int type, int notify)
{
	log_event(engine, task, "jctl", "action=%d type=%d notify=%d", action,
		  type, notify);
	return answer(engine, _UTRACE_EVENT_JCTL);
}

static u32 t_exit(enum utrace_resume_action action,
		  struct utrace_engine *engine, struct task_struct *task,
		  long orig_code, long *code)
{
	log_event(engine, task, "exit", "action=%d code=%#lx", action, orig_code);
	return answer(engine, _UTRACE_EVENT_EXIT);
}

static u32 t_death(struct utrace_engine *engine, struct task_struct *task,
		   bool group_dead, int signal)
{
	log_event(engine, task, "death", "group_dead=%d signal=%d", group_dead,
		  signal);
	return answer(engine, _UTRACE_EVENT_DEATH);
}

static void t_reap(struct utrace_engine *engine, struct task_struct *task)
{
	log_event(engine, task, "reap", "last");
}

static int signal_event(u32 action)
{
	switch (utrace_signal_action(action)) {
	case UTRACE_SIGNAL_IGN:
		return _UTRACE_EVENT_SIGNAL_IGN;
	case UTRACE_SIGNAL_STOP:
	case UTRACE_SIGNAL_TSTP:
		return _UTRACE_EVENT_SIGNAL_STOP;
	case UTRACE_SIGNAL_TERM:
		return _UTRACE_EVENT_SIGNAL_TERM;
	case UTRACE_SIGNAL_CORE:
		return _UTRACE_EVENT_SIGNAL_CORE;
	default:
		return _UTRACE_EVENT_SIGNAL;
	}
}

static u32 t_signal(u32 action, struct utrace_engine *engine,
		    struct task_struct *task, struct pt_regs *regs,
		    kernel_siginfo_t *info, const struct k_sigaction *orig_ka,
		    struct k_sigaction *return_ka)
{
	struct test_engine *te = engine->data;
	u32 ret;

	log_event(engine, task, "signal", "action=%#x signo=%d code=%d",
		  action, info ? info->si_signo : 0, info ? info->si_code : 0);
	if (info && info->si_signo == SIGTRAP && te->steps > 0) {
		te->steps--;
		if (!te->steps)
			return UTRACE_SIGNAL_IGN | UTRACE_RESUME;
		return UTRACE_SIGNAL_IGN |
		       (te->blockstep ? UTRACE_BLOCKSTEP : UTRACE_SINGLESTEP);
	}
	if (utrace_signal_action(action) == UTRACE_SIGNAL_REPORT &&
	    te->inject) {
		info->si_signo = te->inject;
		info->si_code = SI_KERNEL;
		te->inject = 0;
		return UTRACE_SIGNAL_DELIVER | UTRACE_RESUME;
	}
	if (utrace_signal_action(action) == UTRACE_SIGNAL_DELIVER &&
	    info && te->handler) {
		return_ka->sa.sa_handler = (__sighandler_t)te->handler;
		te->handler = 0;
	}
	ret = answer(engine, signal_event(action));
	if (ret & KEEP)
		ret = (ret & ~(KEEP | UTRACE_SIGNAL_MASK)) |
		      utrace_signal_action(action);
	return ret;
}

static const struct utrace_engine_ops test_ops = {
	.report_signal = t_signal,
	.report_jctl = t_jctl,
	.report_quiesce = t_quiesce,
	.report_clone = t_clone,
	.report_exec = t_exec,
	.report_syscall_entry = t_syscall_entry,
	.report_syscall_exit = t_syscall_exit,
	.report_exit = t_exit,
	.report_death = t_death,
	.report_reap = t_reap,
};

static void engine_drop(struct test_engine *te)
{
	if (te->engine)
		utrace_engine_put(te->engine);
	if (te->task)
		put_task_struct(te->task);
	put_pid(te->pid);
	memset(te, 0, sizeof(*te));
}

static int do_command(char *buf)
{
	char cmd[16], extra[16] = "";
	struct test_engine *te;
	unsigned long a = 0, b = 0, c = 0, d = 0;
	struct utrace_examiner exam;
	int n, ret, flags;

	n = sscanf(buf, "%15s %lu %lu %lu %lu", cmd, &a, &b, &c, &d);
	if (n < 1)
		return -EINVAL;
	if (!strcmp(cmd, "clear")) {
		spin_lock(&log_lock);
		log_len = 0;
		spin_unlock(&log_lock);
		return 0;
	}
	if (!strcmp(cmd, "attach") || !strcmp(cmd, "lookup")) {
		struct utrace_engine *e;
		struct pid *pid;

		if (n < 3 || b >= NENGINES)
			return -EINVAL;
		if (sscanf(buf, "%*s %*u %*u %15s", extra) != 1)
			extra[0] = '\0';
		te = &engines[b];
		pid = find_get_pid(a);
		if (!pid)
			return -ESRCH;
		flags = UTRACE_ATTACH_MATCH_OPS | UTRACE_ATTACH_MATCH_DATA;
		if (!strcmp(cmd, "attach"))
			flags |= UTRACE_ATTACH_CREATE;
		if (!strcmp(extra, "exclusive"))
			flags |= UTRACE_ATTACH_EXCLUSIVE;
		e = utrace_attach_pid(pid, flags, &test_ops, te);
		if (IS_ERR(e)) {
			put_pid(pid);
			return PTR_ERR(e);
		}
		if (te->engine) {
			/* a second reference to the same or a new engine */
			utrace_engine_put(te->engine);
			put_pid(te->pid);
			put_task_struct(te->task);
		} else {
			te->hold = 0;
			for (n = 0; n < _UTRACE_NEVENTS; n++)
				init_completion(&te->release[n]);
			for (n = 0; n < _UTRACE_NEVENTS; n++)
				te->reply[n] = UTRACE_RESUME;
			for (n = _UTRACE_EVENT_SIGNAL; n <= _UTRACE_EVENT_SIGNAL_CORE; n++)
				te->reply[n] = KEEP | UTRACE_RESUME;
		}
		te->engine = e;
		te->pid = pid;
		te->task = get_pid_task(pid, PIDTYPE_PID);
		if (!te->task) {
			engine_drop(te);
			return -ESRCH;
		}
		return 0;
	}
	if (n < 2 || a >= NENGINES)
		return -EINVAL;
	te = &engines[a];
	if (!strcmp(cmd, "put")) {
		engine_drop(te);
		return 0;
	}
	if (!te->engine)
		return -ENOENT;
	if (!strcmp(cmd, "events") && n >= 3)
		return utrace_set_events_pid(te->pid, te->engine, b);
	if (!strcmp(cmd, "control") && n >= 3)
		return utrace_control_pid(te->pid, te->engine, b);
	if (!strcmp(cmd, "barrier"))
		return utrace_barrier(te->task, te->engine);
	if (!strcmp(cmd, "barrier_pid"))
		return utrace_barrier_pid(te->pid, te->engine);
	if ((!strcmp(cmd, "reply") || !strcmp(cmd, "reply_once")) && n >= 4) {
		if (b >= _UTRACE_NEVENTS)
			return -EINVAL;
		if (!strcmp(cmd, "reply")) {
			WRITE_ONCE(te->reply[b], c);
		} else {
			te->reply_once[b] = c;
			WRITE_ONCE(te->once[b], true);
		}
		return 0;
	}
	if ((!strcmp(cmd, "hold") || !strcmp(cmd, "release")) && n >= 3) {
		if (b >= _UTRACE_NEVENTS)
			return -EINVAL;
		if (!strcmp(cmd, "release")) {
			complete(&te->release[b]);
			return 0;
		}
		reinit_completion(&te->release[b]);
		set_bit(b, &te->hold);
		return 0;
	}
	if (!strcmp(cmd, "slow") && n >= 3) {
		WRITE_ONCE(te->slow_ms, b);
		return 0;
	}
	if (!strcmp(cmd, "steps") && n >= 3) {
		te->blockstep = c == 1;
		WRITE_ONCE(te->steps, b);
		return 0;
	}
	if (!strcmp(cmd, "inject") && n >= 3) {
		if (!valid_signal(b) || !b)
			return -EINVAL;
		WRITE_ONCE(te->inject, b);
		return 0;
	}
	if (!strcmp(cmd, "entry_regs") && n >= 5) {
		te->entry_nr = b;
		te->entry_newnr = c;
		te->entry_arg0 = d;
		WRITE_ONCE(te->change_entry, true);
		return 0;
	}
	if (!strcmp(cmd, "handler") && n >= 3) {
		WRITE_ONCE(te->handler, b);
		return 0;
	}
	if (!strcmp(cmd, "attach_child") && n >= 3) {
		te->child_mask = b;
		WRITE_ONCE(te->attach_child, true);
		return 0;
	}
	if (!strcmp(cmd, "examine")) {
		struct task_struct *task = get_pid_task(te->pid, PIDTYPE_PID);

		if (!task)
			return -ESRCH;
		ret = utrace_prepare_examine(task, te->engine, &exam);
		if (!ret && n >= 3)
			msleep(b);
		if (!ret)
			ret = utrace_finish_examine(task, te->engine, &exam);
		put_task_struct(task);
		return ret;
	}
	return -EINVAL;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[96];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	mutex_lock(&ctl_lock);
	ret = do_command(buf);
	mutex_unlock(&ctl_lock);
	return ret ? ret : count;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static int log_show(struct seq_file *m, void *v)
{
	char *copy = kvmalloc(LOG_SIZE, GFP_KERNEL);
	size_t len;

	if (!copy)
		return -ENOMEM;
	spin_lock(&log_lock);
	len = log_len;
	memcpy(copy, log_buf, len);
	spin_unlock(&log_lock);
	seq_write(m, copy, len);
	kvfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(log);

static int __init utrace_test_init(void)
{
	log_buf = kvmalloc(LOG_SIZE, GFP_KERNEL);
	if (!log_buf)
		return -ENOMEM;
	dir = debugfs_create_dir("utrace_test", NULL);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("log", 0400, dir, NULL, &log_fops);
	return 0;
}

static void __exit utrace_test_exit(void)
{
	int i;

	debugfs_remove_recursive(dir);
	for (i = 0; i < NENGINES; i++) {
		struct test_engine *te = &engines[i];

		if (!te->engine)
			continue;
		/* a detached or reaped engine answers -ESRCH: nothing to do */
		if (utrace_control_pid(te->pid, te->engine, UTRACE_DETACH) != -ESRCH &&
		    utrace_barrier_pid(te->pid, te->engine) == -ERESTARTSYS)
			pr_warn("utrace_test: barrier interrupted\n");
		engine_drop(te);
	}
	kvfree(log_buf);
}

module_init(utrace_test_init);
module_exit(utrace_test_exit);
MODULE_DESCRIPTION("utrace test engine driven through debugfs");
MODULE_LICENSE("GPL");
