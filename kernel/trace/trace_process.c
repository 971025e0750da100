// SPDX-License-Identifier: GPL-2.0
/*
 * The "process" tracer: follows a tree of user processes through utrace
 * and records their forks, execs, exits, signals and system calls in the
 * ftrace ring buffer.
 *
 * Every followed thread carries one utrace engine of ours, with an event
 * mask made from the controls: an event switched off is not in the mask,
 * so the followed threads do not even enter utrace for it.  The engines
 * are listed in pt_followed, which is what a change of a control walks
 * and what stopping the tracer empties.  A followed thread attaches an
 * engine to each child it creates (report_clone), so the tree is followed
 * as it grows; with process_follow_pid at 0 every user thread is followed
 * from the start, and so is every thread created later, since each one
 * is the child of a followed thread.
 *
 * See Documentation/trace/process-tracer.rst.
 */
#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/utrace.h>
#include <asm/syscall.h>

#include "trace.h"
#include "trace_output.h"

/* Longest exec file name kept in a record, with its NUL. */
#define PT_FILENAME_MAX		256

/* How many times starting retries to catch threads created meanwhile. */
#define PT_ATTACH_PASSES	4

/**
 * struct pt_config - the controls the callbacks read
 * @rcu:	frees a replaced configuration after a grace period
 * @syscalls:	record system call entries and exits
 * @signals:	record signals
 * @lifecycle:	record forks, execs and exits
 * @any_uid:	no uid filter
 * @uid:	with !@any_uid, record only threads of this real uid
 * @comm:	when not empty, record only threads of this name
 *
 * Published through pt_config; never changed once published: a change
 * of a control publishes a new copy.
 */
struct pt_config {
	struct rcu_head rcu;
	bool syscalls;
	bool signals;
	bool lifecycle;
	bool any_uid;
	kuid_t uid;
	char comm[TASK_COMM_LEN];
};

static struct pt_config __rcu *pt_config;

/**
 * struct pt_follow - one followed thread
 * @node:	entry in pt_followed while the tracer owns the engine
 * @task:	the thread (a reference)
 * @engine:	our engine on it (a reference)
 *
 * Whoever takes @node off pt_followed, under pt_lock, owns the record and
 * frees it: the thread's death report, or pt_unfollow_all().
 */
struct pt_follow {
	struct list_head node;
	struct task_struct *task;
	struct utrace_engine *engine;
};

/*
 * pt_mutex serialises starting and stopping the tracer and the writes to
 * the control files; it protects pt_running and pt_follow_pid and the
 * publication of pt_config.  It is taken inside the tracing core's
 * trace_types_lock (the tracer's init and reset run under it) and before
 * pt_lock.
 */
static DEFINE_MUTEX(pt_mutex);
static bool pt_running;
static struct pid *pt_follow_pid;	/* NULL: every user thread */

/*
 * pt_lock protects pt_followed and pt_following, and serialises the
 * writers of pt_readers (below).  It is taken inside
 * pt_mutex, in utrace callbacks (which run with no lock held), and before
 * the utrace per-thread lock (utrace_set_events() and utrace_control()
 * are called under it).
 */
static DEFINE_SPINLOCK(pt_lock);
static LIST_HEAD(pt_followed);
static bool pt_following;		/* new engines may join pt_followed */

static struct trace_array *pt_tr;
static const struct utrace_engine_ops pt_ops;

/*
 * The processes reading the tracer's output (trace, trace_pipe), one
 * entry per open file: their own events are not recorded meanwhile, so
 * that a reader in the followed tree ("cat trace" from the followed
 * shell) does not feed the buffer it reads, and its read ends.  Changed
 * under pt_lock, read under RCU (pt_wants()).
 */
struct pt_reader {
	struct list_head node;
	struct pid *tgid;
	struct rcu_head rcu;
};

static LIST_HEAD(pt_readers);

/* ---- records ------------------------------------------------------- */

struct pt_fork_entry {
	struct trace_entry ent;
	int child;
	unsigned long flags;
};

struct pt_exec_entry {
	struct trace_entry ent;
	char comm[TASK_COMM_LEN];
	char filename[];
};

struct pt_exit_entry {
	struct trace_entry ent;
	long code;
};

struct pt_signal_entry {
	struct trace_entry ent;
	int signo;
	int err;
	int code;
};

struct pt_sys_enter_entry {
	struct trace_entry ent;
	long nr;
	unsigned long args[6];
};

struct pt_sys_exit_entry {
	struct trace_entry ent;
	long nr;
	long ret;
	long err;
};

static enum print_line_t pt_print_fork(struct trace_iterator *iter, int flags,
				       struct trace_event *event)
{
	struct pt_fork_entry *e = (struct pt_fork_entry *)iter->ent;

	trace_seq_printf(&iter->seq, "fork child=%d flags=0x%lx\n",
			 e->child, e->flags);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t pt_print_exec(struct trace_iterator *iter, int flags,
				       struct trace_event *event)
{
	struct pt_exec_entry *e = (struct pt_exec_entry *)iter->ent;

	trace_seq_printf(&iter->seq, "exec comm=%.*s filename=%s\n",
			 TASK_COMM_LEN, e->comm, e->filename);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t pt_print_exit(struct trace_iterator *iter, int flags,
				       struct trace_event *event)
{
	struct pt_exit_entry *e = (struct pt_exit_entry *)iter->ent;

	/* do_exit() codes are wait statuses: a signal or an exit status */
	if (e->code & 0x7f)
		trace_seq_printf(&iter->seq, "exit code=0x%lx signal=%ld\n",
				 e->code, e->code & 0x7f);
	else
		trace_seq_printf(&iter->seq, "exit code=0x%lx status=%ld\n",
				 e->code, (e->code >> 8) & 0xff);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t pt_print_signal(struct trace_iterator *iter,
					 int flags, struct trace_event *event)
{
	struct pt_signal_entry *e = (struct pt_signal_entry *)iter->ent;

	trace_seq_printf(&iter->seq, "signal signo=%d errno=%d code=%d\n",
			 e->signo, e->err, e->code);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t pt_print_sys_enter(struct trace_iterator *iter,
					    int flags,
					    struct trace_event *event)
{
	struct pt_sys_enter_entry *e = (struct pt_sys_enter_entry *)iter->ent;

	trace_seq_printf(&iter->seq,
			 "syscall_enter nr=%ld args=0x%lx,0x%lx,0x%lx,0x%lx,0x%lx,0x%lx\n",
			 e->nr, e->args[0], e->args[1], e->args[2],
			 e->args[3], e->args[4], e->args[5]);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t pt_print_sys_exit(struct trace_iterator *iter,
					   int flags, struct trace_event *event)
{
	struct pt_sys_exit_entry *e = (struct pt_sys_exit_entry *)iter->ent;

	trace_seq_printf(&iter->seq, "syscall_exit nr=%ld ret=%ld error=%ld\n",
			 e->nr, e->ret, e->err);
	return trace_handle_return(&iter->seq);
}

enum { PT_FORK, PT_EXEC, PT_EXIT, PT_SIGNAL, PT_SYS_ENTER, PT_SYS_EXIT,
	PT_NR_EVENTS };

static struct trace_event_functions pt_funcs[PT_NR_EVENTS] = {
	[PT_FORK]	= { .trace = pt_print_fork },
	[PT_EXEC]	= { .trace = pt_print_exec },
	[PT_EXIT]	= { .trace = pt_print_exit },
	[PT_SIGNAL]	= { .trace = pt_print_signal },
	[PT_SYS_ENTER]	= { .trace = pt_print_sys_enter },
	[PT_SYS_EXIT]	= { .trace = pt_print_sys_exit },
};

/*
 * The output types are registered inside event calls of a class without
 * fields, so that the "fields" trace option, which takes any dynamic type
 * for an event call, finds one (and prints that there are no fields).
 */
static struct trace_event_class pt_event_class = {
	.system	= "process",
	.fields	= LIST_HEAD_INIT(pt_event_class.fields),
};

static struct trace_event_call pt_calls[PT_NR_EVENTS] = {
	[PT_FORK] = { .class = &pt_event_class, .name = "process_fork" },
	[PT_EXEC] = { .class = &pt_event_class, .name = "process_exec" },
	[PT_EXIT] = { .class = &pt_event_class, .name = "process_exit" },
	[PT_SIGNAL] = { .class = &pt_event_class, .name = "process_signal" },
	[PT_SYS_ENTER] = { .class = &pt_event_class,
			   .name = "process_syscall_enter" },
	[PT_SYS_EXIT] = { .class = &pt_event_class,
			  .name = "process_syscall_exit" },
};

/* Reserve a record of @idx in the tracer's buffer; NULL if not recording. */
static void *pt_reserve(int idx, unsigned long len,
			struct ring_buffer_event **event,
			unsigned int *trace_ctx)
{
	struct trace_array *tr = READ_ONCE(pt_tr);

	if (!tr)
		return NULL;
	*trace_ctx = tracing_gen_ctx();
	*event = trace_buffer_lock_reserve(tr->array_buffer.buffer,
					   pt_calls[idx].event.type, len,
					   *trace_ctx);
	return *event ? ring_buffer_event_data(*event) : NULL;
}

static void pt_commit(struct ring_buffer_event *event, unsigned int trace_ctx)
{
	struct trace_array *tr = READ_ONCE(pt_tr);

	trace_buffer_unlock_commit(tr, tr->array_buffer.buffer, event,
				   trace_ctx);
	/* so that the output shows the thread's name of the moment */
	tracing_record_cmdline(current);
}

/* ---- configuration ----------------------------------------------- */

/* The events a followed thread reports under @cfg. */
static unsigned long pt_event_mask(const struct pt_config *cfg)
{
	/* CLONE follows the tree, DEATH drops the engine of a dead thread */
	unsigned long events = UTRACE_EVENT(CLONE) | UTRACE_EVENT(DEATH);

	if (cfg->lifecycle)
		events |= UTRACE_EVENT(EXEC) | UTRACE_EVENT(EXIT);
	if (cfg->syscalls)
		events |= UTRACE_EVENT_SYSCALL;
	if (cfg->signals)
		events |= UTRACE_EVENT_SIGNAL_ALL;
	return events;
}

/* Does @task, current, pass the uid and name filters of @cfg? */
static bool pt_filter_match(const struct pt_config *cfg,
			    struct task_struct *task)
{
	if (!cfg->any_uid && !uid_eq(cfg->uid, current_uid()))
		return false;
	if (cfg->comm[0] && strncmp(cfg->comm, task->comm, TASK_COMM_LEN))
		return false;
	return true;
}

enum pt_kind { PT_LIFECYCLE, PT_SYSCALLS, PT_SIGNALS };

/* Is @task's process reading the tracer's output?  Under RCU. */
static bool pt_reading(struct task_struct *task)
{
	struct pt_reader *r;

	list_for_each_entry_rcu(r, &pt_readers, node)
		if (r->tgid == task_tgid(task))
			return true;
	return false;
}

/*
 * Is an event of kind @kind of @task, current, to be recorded?  Call
 * under rcu_read_lock().
 */
static bool pt_wants(struct task_struct *task, enum pt_kind kind)
{
	const struct pt_config *cfg = rcu_dereference(pt_config);
	bool on;

	/* not a reader's own: the list is walked only when not empty */
	if (unlikely(!list_empty(&pt_readers)) && pt_reading(task))
		return false;

	switch (kind) {
	case PT_LIFECYCLE:
		on = cfg->lifecycle;
		break;
	case PT_SYSCALLS:
		on = cfg->syscalls;
		break;
	default:
		on = cfg->signals;
		break;
	}
	return on && pt_filter_match(cfg, task);
}

/* ---- following threads ------------------------------------------- */

static void pt_follow_free(struct pt_follow *pf)
{
	utrace_engine_put(pf->engine);
	put_task_struct(pf->task);
	kfree(pf);
}

/*
 * Attach our engine to @task and list it.  Returns 0, or -EEXIST when
 * @task is followed already, or another error of utrace_attach_task().
 */
static int pt_attach(struct task_struct *task)
{
	struct utrace_engine *engine;
	struct pt_follow *pf;
	bool listed = false;
	int ret;

	pf = kzalloc(sizeof(*pf), GFP_KERNEL);
	if (!pf)
		return -ENOMEM;
	engine = utrace_attach_task(task, UTRACE_ATTACH_CREATE |
				    UTRACE_ATTACH_EXCLUSIVE |
				    UTRACE_ATTACH_MATCH_OPS, &pt_ops, pf);
	if (IS_ERR(engine)) {
		kfree(pf);
		return PTR_ERR(engine);
	}
	INIT_LIST_HEAD(&pf->node);
	pf->engine = engine;
	pf->task = get_task_struct(task);

	spin_lock(&pt_lock);
	if (pt_following) {
		unsigned long events;

		list_add_tail(&pf->node, &pt_followed);
		listed = true;
		rcu_read_lock();
		events = pt_event_mask(rcu_dereference(pt_config));
		rcu_read_unlock();
		/*
		 * Under pt_lock, so that a change of a control, which walks
		 * pt_followed under it, sees this engine or is seen by it.
		 * A thread past its death still has its engine listed, to
		 * be dropped when the tracer stops.
		 */
		ret = utrace_set_events(task, engine, events);
		(void)ret;
	}
	spin_unlock(&pt_lock);

	if (!listed) {
		/* the tracer is stopping; the engine never had an event */
		ret = utrace_control(task, engine, UTRACE_DETACH);
		(void)ret;
		pt_follow_free(pf);
		return -ESRCH;
	}
	return 0;
}

/*
 * Detach the engine of @pf, which the caller took off pt_followed, wait
 * until no callback runs into it and free @pf.
 */
static void pt_detach(struct pt_follow *pf)
{
	struct task_struct *task = pf->task;
	int ret;

	/*
	 * The thread drops a detached engine, and recomputes the event mask
	 * that /proc/PID/status shows, when it next passes through utrace.
	 * Make that soon: current on its way back to user mode, another
	 * thread at once, with a wakeup that restarts a blocking system call
	 * as a signal would, without delivering anything.
	 */
	if (task == current)
		ret = utrace_control(task, pf->engine, UTRACE_REPORT);
	ret = utrace_control(task, pf->engine, UTRACE_DETACH);
	if (!ret && task != current)
		set_notify_signal(task);

	/* utrace_barrier() gives up at once while a signal is pending */
	while (utrace_barrier(task, pf->engine) == -ERESTARTSYS)
		schedule_timeout_uninterruptible(1);
	pt_follow_free(pf);
}

/* Detach every engine of ours; no callback runs into the tracer after. */
static void pt_unfollow_all(void)
{
	struct pt_follow *pf;

	lockdep_assert_held(&pt_mutex);
	spin_lock(&pt_lock);
	pt_following = false;
	spin_unlock(&pt_lock);

	for (;;) {
		spin_lock(&pt_lock);
		pf = list_first_entry_or_null(&pt_followed, struct pt_follow,
					      node);
		if (pf)
			list_del_init(&pf->node);
		spin_unlock(&pt_lock);
		if (!pf)
			break;
		pt_detach(pf);
	}
}

static bool pt_user_thread(struct task_struct *t)
{
	return !(t->flags & (PF_KTHREAD | PF_EXITING | PF_USER_WORKER |
			     PF_IO_WORKER));
}

/*
 * Take a reference on each user thread: those of @leader's group, or all
 * of them when @leader is NULL.  Returns the array (kvfree() it) and sets
 * *@nr, or NULL on failure.
 */
static struct task_struct **pt_snapshot(struct task_struct *leader, int *nr)
{
	struct task_struct **tasks, *p, *t;
	int cap, n;

	for (;;) {
		bool full = false;

		cap = nr_threads + 32;
		tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
		if (!tasks)
			return NULL;
		n = 0;
		rcu_read_lock();
		if (leader) {
			for_each_thread(leader, t) {
				if (!pt_user_thread(t))
					continue;
				if (n == cap) {
					full = true;
					break;
				}
				tasks[n++] = get_task_struct(t);
			}
		} else {
			for_each_process_thread(p, t) {
				if (!pt_user_thread(t))
					continue;
				if (n == cap) {
					full = true;
					goto out;
				}
				tasks[n++] = get_task_struct(t);
			}
		}
out:
		rcu_read_unlock();
		if (!full)
			break;
		while (n--)
			put_task_struct(tasks[n]);
		kvfree(tasks);
	}
	*nr = n;
	return tasks;
}

/* Attach to each thread of a snapshot; returns how many were new. */
static int pt_attach_snapshot(struct task_struct *leader)
{
	struct task_struct **tasks;
	int i, n, added = 0;

	tasks = pt_snapshot(leader, &n);
	if (!tasks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!pt_attach(tasks[i]))
			added++;
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	return added;
}

/*
 * Start following: the process of pt_follow_pid, or every user thread.
 * Threads created from now on by followed threads are attached by
 * report_clone.  A thread that a not yet followed thread creates while
 * this runs is caught by the next pass.
 */
static int pt_follow_start(void)
{
	struct task_struct *leader = NULL;
	int pass, added = 0;

	lockdep_assert_held(&pt_mutex);
	spin_lock(&pt_lock);
	pt_following = true;
	spin_unlock(&pt_lock);

	if (pt_follow_pid) {
		leader = get_pid_task(pt_follow_pid, PIDTYPE_TGID);
		if (!leader)
			return 0;	/* it is gone: nothing to follow */
	}
	for (pass = 0; pass < PT_ATTACH_PASSES; pass++) {
		added = pt_attach_snapshot(leader);
		if (added <= 0)
			break;
	}
	if (leader)
		put_task_struct(leader);
	return added < 0 ? added : 0;
}

/* ---- utrace callbacks -------------------------------------------- */

static u32 pt_report_clone(enum utrace_resume_action action,
			   struct utrace_engine *engine,
			   struct task_struct *parent,
			   unsigned long clone_flags,
			   struct task_struct *child)
{
	struct ring_buffer_event *event;
	struct pt_fork_entry *e;
	unsigned int ctx;

	rcu_read_lock();
	if (pt_wants(parent, PT_LIFECYCLE)) {
		e = pt_reserve(PT_FORK, sizeof(*e), &event, &ctx);
		if (e) {
			e->child = task_pid_nr(child);
			/*
			 * As clone(2) spells them: the low byte is the signal
			 * the parent gets when the child exits.
			 */
			e->flags = clone_flags;
			if (child->exit_signal > 0)
				e->flags |= child->exit_signal & CSIGNAL;
			pt_commit(event, ctx);
		}
	}
	rcu_read_unlock();

	/* the child has not run yet: it is followed from its first step */
	if (!(child->flags & (PF_USER_WORKER | PF_IO_WORKER)))
		pt_attach(child);
	return UTRACE_RESUME;
}

static u32 pt_report_exec(enum utrace_resume_action action,
			  struct utrace_engine *engine,
			  struct task_struct *task,
			  const struct linux_binfmt *fmt,
			  const struct linux_binprm *bprm,
			  struct pt_regs *regs)
{
	struct ring_buffer_event *event;
	struct pt_exec_entry *e;
	unsigned int ctx;
	size_t len;

	rcu_read_lock();
	if (pt_wants(task, PT_LIFECYCLE)) {
		len = min_t(size_t, strlen(bprm->filename) + 1,
			    PT_FILENAME_MAX);
		e = pt_reserve(PT_EXEC, sizeof(*e) + len, &event, &ctx);
		if (e) {
			memcpy(e->comm, task->comm, TASK_COMM_LEN);
			strscpy(e->filename, bprm->filename, len);
			pt_commit(event, ctx);
		}
	}
	rcu_read_unlock();
	return UTRACE_RESUME;
}

static u32 pt_report_exit(enum utrace_resume_action action,
			  struct utrace_engine *engine,
			  struct task_struct *task, long orig_code, long *code)
{
	struct ring_buffer_event *event;
	struct pt_exit_entry *e;
	unsigned int ctx;

	rcu_read_lock();
	if (pt_wants(task, PT_LIFECYCLE)) {
		e = pt_reserve(PT_EXIT, sizeof(*e), &event, &ctx);
		if (e) {
			e->code = orig_code;
			pt_commit(event, ctx);
		}
	}
	rcu_read_unlock();
	return UTRACE_RESUME;
}

static u32 pt_report_death(struct utrace_engine *engine,
			   struct task_struct *task, bool group_dead,
			   int signal)
{
	struct pt_follow *pf = engine->data;
	bool owner;

	/* pt_unfollow_all() owns the record if it took it off the list */
	spin_lock(&pt_lock);
	owner = !list_empty(&pf->node);
	if (owner)
		list_del_init(&pf->node);
	spin_unlock(&pt_lock);
	if (owner)
		pt_follow_free(pf);
	return UTRACE_DETACH;
}

static u32 pt_report_signal(u32 action, struct utrace_engine *engine,
			    struct task_struct *task, struct pt_regs *regs,
			    kernel_siginfo_t *info,
			    const struct k_sigaction *orig_ka,
			    struct k_sigaction *return_ka)
{
	enum utrace_signal_action sa = utrace_signal_action(action);
	struct ring_buffer_event *event;
	struct pt_signal_entry *e;
	unsigned int ctx;

	/*
	 * Neither the report of an interrupt nor that of a handler being
	 * set up is a signal taking its action: only the latter counts.
	 */
	if (!info || sa == UTRACE_SIGNAL_REPORT || sa == UTRACE_SIGNAL_HANDLER)
		goto out;
	rcu_read_lock();
	if (pt_wants(task, PT_SIGNALS)) {
		e = pt_reserve(PT_SIGNAL, sizeof(*e), &event, &ctx);
		if (e) {
			e->signo = info->si_signo;
			e->err = info->si_errno;
			e->code = info->si_code;
			pt_commit(event, ctx);
		}
	}
	rcu_read_unlock();
out:
	/* leave the signal's fate as the engines before us decided it */
	return (action & ~UTRACE_RESUME_MASK) | UTRACE_RESUME;
}

static u32 pt_report_syscall_entry(u32 action, struct utrace_engine *engine,
				   struct task_struct *task,
				   struct pt_regs *regs)
{
	struct ring_buffer_event *event;
	struct pt_sys_enter_entry *e;
	unsigned int ctx;

	rcu_read_lock();
	if (pt_wants(task, PT_SYSCALLS)) {
		e = pt_reserve(PT_SYS_ENTER, sizeof(*e), &event, &ctx);
		if (e) {
			e->nr = syscall_get_nr(task, regs);
			syscall_get_arguments(task, regs, e->args);
			pt_commit(event, ctx);
		}
	}
	rcu_read_unlock();
	return utrace_syscall_action(action) | UTRACE_RESUME;
}

static u32 pt_report_syscall_exit(enum utrace_resume_action action,
				  struct utrace_engine *engine,
				  struct task_struct *task,
				  struct pt_regs *regs)
{
	struct ring_buffer_event *event;
	struct pt_sys_exit_entry *e;
	unsigned int ctx;

	rcu_read_lock();
	if (pt_wants(task, PT_SYSCALLS)) {
		e = pt_reserve(PT_SYS_EXIT, sizeof(*e), &event, &ctx);
		if (e) {
			e->nr = syscall_get_nr(task, regs);
			e->ret = syscall_get_return_value(task, regs);
			e->err = syscall_get_error(task, regs);
			pt_commit(event, ctx);
		}
	}
	rcu_read_unlock();
	return UTRACE_RESUME;
}

static const struct utrace_engine_ops pt_ops = {
	.report_clone		= pt_report_clone,
	.report_exec		= pt_report_exec,
	.report_exit		= pt_report_exit,
	.report_death		= pt_report_death,
	.report_signal		= pt_report_signal,
	.report_syscall_entry	= pt_report_syscall_entry,
	.report_syscall_exit	= pt_report_syscall_exit,
};

/* ---- the tracer ---------------------------------------------------- */

static int pt_tracer_init(struct trace_array *tr)
{
	int ret;

	WRITE_ONCE(pt_tr, tr);
	mutex_lock(&pt_mutex);
	pt_running = true;
	ret = pt_follow_start();
	if (ret) {
		pt_unfollow_all();
		pt_running = false;
	}
	mutex_unlock(&pt_mutex);
	return ret;
}

static void pt_tracer_reset(struct trace_array *tr)
{
	mutex_lock(&pt_mutex);
	pt_unfollow_all();
	pt_running = false;
	mutex_unlock(&pt_mutex);
}

/* trace or trace_pipe opened: current's process reads (see pt_readers) */
static void pt_reader_open(struct trace_iterator *iter)
{
	struct pt_reader *r = kmalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return;
	r->tgid = get_pid(task_tgid(current));
	spin_lock(&pt_lock);
	list_add_tail_rcu(&r->node, &pt_readers);
	spin_unlock(&pt_lock);
	iter->private = r;
}

static void pt_reader_close(struct trace_iterator *iter)
{
	struct pt_reader *r = iter->private;

	if (!r)
		return;
	iter->private = NULL;
	spin_lock(&pt_lock);
	list_del_rcu(&r->node);
	spin_unlock(&pt_lock);
	/* pt_reading() only compares the pointer */
	put_pid(r->tgid);
	kfree_rcu(r, rcu);
}

static struct tracer process_tracer __read_mostly = {
	.name		= "process",
	.init		= pt_tracer_init,
	.reset		= pt_tracer_reset,
	.open		= pt_reader_open,
	.close		= pt_reader_close,
	.pipe_open	= pt_reader_open,
	.pipe_close	= pt_reader_close,
};

/* ---- control files ------------------------------------------------- */

/*
 * Publish @cfg (a copy the caller changed) and bring the event masks of
 * the followed threads to it.  A thread that loses events recomputes its
 * own mask on its way back to user mode, asked to by UTRACE_REPORT.
 */
static void pt_config_publish(struct pt_config *cfg)
{
	struct pt_config *old;
	unsigned long events, dropped;
	struct pt_follow *pf;
	int ret;

	lockdep_assert_held(&pt_mutex);
	old = rcu_replace_pointer(pt_config, cfg, lockdep_is_held(&pt_mutex));
	events = pt_event_mask(cfg);
	dropped = pt_event_mask(old) & ~events;
	kfree_rcu(old, rcu);

	spin_lock(&pt_lock);
	list_for_each_entry(pf, &pt_followed, node) {
		ret = utrace_set_events(pf->task, pf->engine, events);
		if (!ret && dropped)
			ret = utrace_control(pf->task, pf->engine,
					     UTRACE_REPORT);
		(void)ret;
	}
	spin_unlock(&pt_lock);
}

/* A copy of the configuration to change; NULL if out of memory. */
static struct pt_config *pt_config_copy(void)
{
	struct pt_config *cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);

	lockdep_assert_held(&pt_mutex);
	if (cfg)
		*cfg = *rcu_dereference_protected(pt_config,
						  lockdep_is_held(&pt_mutex));
	return cfg;
}

enum pt_control {
	PT_CTL_SYSCALLS,
	PT_CTL_SIGNALS,
	PT_CTL_LIFECYCLE,
	PT_CTL_UID,
	PT_CTL_COMM,
	PT_CTL_FOLLOW,
};

static ssize_t pt_ctl_read(struct file *filp, char __user *ubuf, size_t cnt,
			   loff_t *ppos)
{
	enum pt_control ctl = (uintptr_t)filp->private_data;
	const struct pt_config *cfg;
	char buf[TASK_COMM_LEN + 16];
	int len;

	mutex_lock(&pt_mutex);
	cfg = rcu_dereference_protected(pt_config, lockdep_is_held(&pt_mutex));
	switch (ctl) {
	case PT_CTL_SYSCALLS:
		len = scnprintf(buf, sizeof(buf), "%d\n", cfg->syscalls);
		break;
	case PT_CTL_SIGNALS:
		len = scnprintf(buf, sizeof(buf), "%d\n", cfg->signals);
		break;
	case PT_CTL_LIFECYCLE:
		len = scnprintf(buf, sizeof(buf), "%d\n", cfg->lifecycle);
		break;
	case PT_CTL_UID:
		len = scnprintf(buf, sizeof(buf), "%d\n", cfg->any_uid ? -1 :
				(int)from_kuid_munged(current_user_ns(),
						      cfg->uid));
		break;
	case PT_CTL_COMM:
		len = scnprintf(buf, sizeof(buf), "%s\n", cfg->comm);
		break;
	default:
		len = scnprintf(buf, sizeof(buf), "%d\n",
				pt_follow_pid ? pid_vnr(pt_follow_pid) : 0);
		break;
	}
	mutex_unlock(&pt_mutex);
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/* A new follow_pid: @nr is a pid in the writer's namespace, 0 for all. */
static int pt_set_follow(int nr)
{
	struct pid *pid = NULL;
	struct task_struct *task;
	int ret = 0;

	if (nr < 0)
		return -EINVAL;
	if (nr) {
		pid = find_get_pid(nr);
		task = pid ? get_pid_task(pid, PIDTYPE_TGID) : NULL;
		if (!task) {
			put_pid(pid);
			return -ESRCH;
		}
		put_task_struct(task);
	}
	mutex_lock(&pt_mutex);
	if (pt_running)
		pt_unfollow_all();
	put_pid(pt_follow_pid);
	pt_follow_pid = pid;
	if (pt_running)
		ret = pt_follow_start();
	mutex_unlock(&pt_mutex);
	return ret;
}

/* Parse a comm filter: at most TASK_COMM_LEN - 1 bytes and a newline. */
static int pt_parse_comm(const char __user *ubuf, size_t cnt, char *comm)
{
	char buf[TASK_COMM_LEN + 1];

	if (cnt > TASK_COMM_LEN)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	if (cnt && buf[cnt - 1] == '\n')
		buf[--cnt] = '\0';
	if (cnt >= TASK_COMM_LEN || strlen(buf) != cnt)
		return -EINVAL;
	memset(comm, 0, TASK_COMM_LEN);
	memcpy(comm, buf, cnt);
	return 0;
}

static ssize_t pt_ctl_write(struct file *filp, const char __user *ubuf,
			    size_t cnt, loff_t *ppos)
{
	enum pt_control ctl = (uintptr_t)filp->private_data;
	char comm[TASK_COMM_LEN];
	struct pt_config *cfg;
	unsigned int on = 0;
	kuid_t uid = INVALID_UID;
	int val = 0, ret;

	/* parse first: a bad value changes nothing */
	switch (ctl) {
	case PT_CTL_SYSCALLS:
	case PT_CTL_SIGNALS:
	case PT_CTL_LIFECYCLE:
		ret = kstrtouint_from_user(ubuf, cnt, 10, &on);
		if (!ret && on > 1)
			ret = -EINVAL;
		break;
	case PT_CTL_UID:
		ret = kstrtoint_from_user(ubuf, cnt, 10, &val);
		if (!ret && val != -1) {
			uid = make_kuid(current_user_ns(), val);
			if (val < 0 || !uid_valid(uid))
				ret = -EINVAL;
		}
		break;
	case PT_CTL_COMM:
		ret = pt_parse_comm(ubuf, cnt, comm);
		break;
	default:
		ret = kstrtoint_from_user(ubuf, cnt, 10, &val);
		if (!ret)
			ret = pt_set_follow(val);
		if (ret == -ERANGE)
			ret = -EINVAL;
		return ret ? ret : cnt;
	}
	if (ret)
		return ret == -ERANGE ? -EINVAL : ret;

	mutex_lock(&pt_mutex);
	cfg = pt_config_copy();
	if (!cfg) {
		mutex_unlock(&pt_mutex);
		return -ENOMEM;
	}
	switch (ctl) {
	case PT_CTL_SYSCALLS:
		cfg->syscalls = on;
		break;
	case PT_CTL_SIGNALS:
		cfg->signals = on;
		break;
	case PT_CTL_LIFECYCLE:
		cfg->lifecycle = on;
		break;
	case PT_CTL_UID:
		cfg->any_uid = val == -1;
		cfg->uid = uid;
		break;
	default:
		memcpy(cfg->comm, comm, TASK_COMM_LEN);
		break;
	}
	pt_config_publish(cfg);
	mutex_unlock(&pt_mutex);
	return cnt;
}

static int pt_ctl_open(struct inode *inode, struct file *filp)
{
	int ret = tracing_check_open_get_tr(NULL);

	if (ret)
		return ret;
	filp->private_data = inode->i_private;
	return 0;
}

static const struct file_operations pt_ctl_fops = {
	.open	= pt_ctl_open,
	.read	= pt_ctl_read,
	.write	= pt_ctl_write,
	.llseek	= generic_file_llseek,
};

static const char pt_readme[] =
	"The process tracer: a tree of processes, followed through utrace.\n"
	"\n"
	"  process_follow_pid        PID: that process (all its threads) and\n"
	"                            every thread or process it creates from\n"
	"                            then on; 0: every user thread, those\n"
	"                            started later included.  A PID that does\n"
	"                            not exist is refused with ESRCH.\n"
	"  process_trace_lifecycle   1/0: fork, exec and exit records\n"
	"  process_trace_syscalls    1/0: system call entry and exit records\n"
	"  process_trace_signals     1/0: signal records\n"
	"  process_trace_uid_filter  UID: record only threads of that real\n"
	"                            uid; -1: any\n"
	"  process_trace_taskcomm_filter  NAME: record only threads of that\n"
	"                            name; empty: any\n"
	"\n"
	"A record switched off costs the followed threads nothing: utrace\n"
	"stops reporting those events to the tracer.  The filters are\n"
	"checked when an event is recorded.  Any change applies at once to\n"
	"the threads already followed.  A value that cannot be parsed is\n"
	"refused with EINVAL and changes nothing.\n"
	"\n"
	"  echo 1234 > process_follow_pid\n"
	"  echo 0 > process_trace_syscalls\n"
	"  echo process > current_tracer     # start following\n"
	"  cat trace_pipe\n"
	"  echo nop > current_tracer         # detach from every thread\n"
	"\n"
	"Records: fork child= flags=, exec comm= filename=, exit code=,\n"
	"signal signo= errno= code=, syscall_enter nr= args=,\n"
	"syscall_exit nr= ret= error=.\n";

static ssize_t pt_readme_read(struct file *filp, char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, cnt, ppos, pt_readme,
				       sizeof(pt_readme) - 1);
}

static const struct file_operations pt_readme_fops = {
	.open	= tracing_open_generic,
	.read	= pt_readme_read,
	.llseek	= generic_file_llseek,
};

static const char * const pt_ctl_names[] = {
	[PT_CTL_SYSCALLS]	= "process_trace_syscalls",
	[PT_CTL_SIGNALS]	= "process_trace_signals",
	[PT_CTL_LIFECYCLE]	= "process_trace_lifecycle",
	[PT_CTL_UID]		= "process_trace_uid_filter",
	[PT_CTL_COMM]		= "process_trace_taskcomm_filter",
	[PT_CTL_FOLLOW]		= "process_follow_pid",
};

static __init int init_process_tracer(void)
{
	struct pt_config *cfg;
	uintptr_t i;
	int ret;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	cfg->syscalls = true;
	cfg->signals = true;
	cfg->lifecycle = true;
	cfg->any_uid = true;
	cfg->uid = INVALID_UID;
	RCU_INIT_POINTER(pt_config, cfg);

	for (i = 0; i < PT_NR_EVENTS; i++) {
		pt_calls[i].event.funcs = &pt_funcs[i];
		if (!register_trace_event(&pt_calls[i].event)) {
			pr_warn("process tracer: no event type for %s\n",
				pt_calls[i].name);
			return -ENOMEM;
		}
	}

	ret = tracing_init_dentry();
	if (!ret) {
		for (i = 0; i < ARRAY_SIZE(pt_ctl_names); i++)
			trace_create_file(pt_ctl_names[i], TRACE_MODE_WRITE,
					  NULL, (void *)i, &pt_ctl_fops);
		trace_create_file("process_trace_README", TRACE_MODE_READ,
				  NULL, NULL, &pt_readme_fops);
	}
	return register_tracer(&process_tracer);
}
device_initcall(init_process_tracer);
