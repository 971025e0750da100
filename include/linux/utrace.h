/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utrace: infrastructure for tracing and controlling user threads.
 *
 * A tracing engine attaches to a thread with utrace_attach_task(), asks
 * for event reports with utrace_set_events() and steers the thread with
 * utrace_control().  Callbacks run in the traced thread, at points where
 * its user state can be examined and changed.  See
 * Documentation/trace/utrace.rst for the rules engines rely on.
 *
 * A thread that no engine ever attached to costs nothing: the hooks in
 * the core kernel test task_utrace_flags() and utrace allocates its
 * per-thread state on the first attach.
 */
#ifndef _LINUX_UTRACE_H
#define _LINUX_UTRACE_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/signal_types.h>

struct linux_binfmt;
struct linux_binprm;
struct pid;
struct ksignal;
struct pt_regs;
struct seq_file;
struct utrace;

/* Event bits, in the order of the contract; UTRACE_EVENT(EXEC) etc. */
enum utrace_events {
	_UTRACE_EVENT_QUIESCE,
	_UTRACE_EVENT_REAP,
	_UTRACE_EVENT_CLONE,
	_UTRACE_EVENT_EXEC,
	_UTRACE_EVENT_EXIT,
	_UTRACE_EVENT_DEATH,
	_UTRACE_EVENT_SYSCALL_ENTRY,
	_UTRACE_EVENT_SYSCALL_EXIT,
	_UTRACE_EVENT_SIGNAL,
	_UTRACE_EVENT_SIGNAL_IGN,
	_UTRACE_EVENT_SIGNAL_STOP,
	_UTRACE_EVENT_SIGNAL_TERM,
	_UTRACE_EVENT_SIGNAL_CORE,
	_UTRACE_EVENT_JCTL,
	_UTRACE_NEVENTS
};

#define UTRACE_EVENT(type)	(1UL << _UTRACE_EVENT_##type)

#define UTRACE_EVENT_SIGNAL_ALL	(UTRACE_EVENT(SIGNAL) |			\
				 UTRACE_EVENT(SIGNAL_IGN) |		\
				 UTRACE_EVENT(SIGNAL_STOP) |		\
				 UTRACE_EVENT(SIGNAL_TERM) |		\
				 UTRACE_EVENT(SIGNAL_CORE))
#define UTRACE_EVENT_SYSCALL	(UTRACE_EVENT(SYSCALL_ENTRY) |		\
				 UTRACE_EVENT(SYSCALL_EXIT))
/* Events that still come once the thread is exiting. */
#define _UTRACE_DEATH_EVENTS	(UTRACE_EVENT(DEATH) | UTRACE_EVENT(QUIESCE))

/*
 * What a callback or utrace_control() asks of the thread.  A lower value
 * is stronger: when engines disagree, the strongest answer wins.
 */
enum utrace_resume_action {
	UTRACE_STOP,
	UTRACE_REPORT,
	UTRACE_INTERRUPT,
	UTRACE_SINGLESTEP,
	UTRACE_BLOCKSTEP,
	UTRACE_RESUME,
	UTRACE_DETACH,
	UTRACE_RESUME_MAX
};

#define UTRACE_RESUME_MASK	0x0f

static inline enum utrace_resume_action utrace_resume_action(u32 action)
{
	return action & UTRACE_RESUME_MASK;
}

/* Bits 4-7 of a report_signal() return: what to do with the signal. */
enum utrace_signal_action {
	UTRACE_SIGNAL_DELIVER	= 0x00,
	UTRACE_SIGNAL_IGN	= 0x10,
	UTRACE_SIGNAL_TERM	= 0x20,
	UTRACE_SIGNAL_CORE	= 0x30,
	UTRACE_SIGNAL_STOP	= 0x40,
	UTRACE_SIGNAL_TSTP	= 0x50,
	UTRACE_SIGNAL_REPORT	= 0x60,
	UTRACE_SIGNAL_HANDLER	= 0x70,
};

#define UTRACE_SIGNAL_MASK	0xf0
#define UTRACE_SIGNAL_HOLD	0x100

static inline enum utrace_signal_action utrace_signal_action(u32 action)
{
	return action & UTRACE_SIGNAL_MASK;
}

/* Bits 4-7 of a report_syscall_entry() return. */
enum utrace_syscall_action {
	UTRACE_SYSCALL_RUN	= 0x00,
	UTRACE_SYSCALL_ABORT	= 0x10,
};

#define UTRACE_SYSCALL_MASK	0xf0

static inline enum utrace_syscall_action utrace_syscall_action(u32 action)
{
	return action & UTRACE_SYSCALL_MASK;
}

/* Flags of utrace_attach_task() and utrace_attach_pid(). */
#define UTRACE_ATTACH_MATCH_OPS		0x0001
#define UTRACE_ATTACH_MATCH_DATA	0x0002
#define UTRACE_ATTACH_MATCH_MASK	0x000f
#define UTRACE_ATTACH_CREATE		0x0010
#define UTRACE_ATTACH_EXCLUSIVE		0x0020

/**
 * struct utrace_engine - one tracing engine attached to one thread
 * @ops:	the engine's callbacks; read-only for the engine
 * @data:	the engine's private pointer, given at attach
 * @flags:	the current event mask (UTRACE_EVENT bits), read-only
 *
 * The rest is private to utrace.  An engine is reference counted: the
 * attach call returns a reference the caller drops with
 * utrace_engine_put() when it no longer uses the pointer.
 */
struct utrace_engine {
/* private: */
	struct kref kref;
	struct list_head entry;
	unsigned long stop_wanted;	/* UTRACE_STOP is in force */
/* public: */
	const struct utrace_engine_ops *ops;
	void *data;
	unsigned long flags;
};

/**
 * struct utrace_engine_ops - an engine's callbacks
 * @report_quiesce:	before this engine's callback for another event
 *			(that event's bit is passed), or with 0 at a safe
 *			point on the way back to user mode
 * @report_signal:	a signal dequeued, before the thread acts on it; a
 *			handler frame set up; or a report that
 *			%UTRACE_INTERRUPT asked for
 * @report_clone:	in the parent, after the child was made and before
 *			it first runs
 * @report_jctl:	the thread takes part in a group stop, or %SIGCONT
 *			woke it
 * @report_exec:	after a successful exec, the new image in place
 * @report_syscall_entry: before a system call runs; it may be aborted
 * @report_syscall_exit: after a system call, its return value in the regs
 * @report_exit:	early in do_exit(); the exit code may be changed
 * @report_death:	the thread is a zombie or dead; only
 *			%UTRACE_DETACH in the answer counts
 * @report_reap:	the thread was reaped; the engine is detached after
 *
 * Each is called in the traced thread (report_reap() maybe in the
 * reaping one), with no locks held, only for the events in the engine's
 * mask.  A callback returns its resume action, ORed with a signal or
 * syscall action where its report has one; the action passed in is the
 * strongest one the engines called before chose.  See
 * Documentation/trace/utrace.rst for each report's details.
 */
struct utrace_engine_ops {
	u32 (*report_quiesce)(enum utrace_resume_action action,
			      struct utrace_engine *engine,
			      struct task_struct *task, unsigned long event);
	u32 (*report_signal)(u32 action, struct utrace_engine *engine,
			     struct task_struct *task, struct pt_regs *regs,
			     kernel_siginfo_t *info,
			     const struct k_sigaction *orig_ka,
			     struct k_sigaction *return_ka);
	u32 (*report_clone)(enum utrace_resume_action action,
			    struct utrace_engine *engine,
			    struct task_struct *parent,
			    unsigned long clone_flags,
			    struct task_struct *child);
	u32 (*report_jctl)(enum utrace_resume_action action,
			   struct utrace_engine *engine,
			   struct task_struct *task, int type, int notify);
	u32 (*report_exec)(enum utrace_resume_action action,
			   struct utrace_engine *engine,
			   struct task_struct *task,
			   const struct linux_binfmt *fmt,
			   const struct linux_binprm *bprm,
			   struct pt_regs *regs);
	u32 (*report_syscall_entry)(u32 action, struct utrace_engine *engine,
				    struct task_struct *task,
				    struct pt_regs *regs);
	u32 (*report_syscall_exit)(enum utrace_resume_action action,
				   struct utrace_engine *engine,
				   struct task_struct *task,
				   struct pt_regs *regs);
	u32 (*report_exit)(enum utrace_resume_action action,
			   struct utrace_engine *engine,
			   struct task_struct *task,
			   long orig_code, long *code);
	u32 (*report_death)(struct utrace_engine *engine,
			    struct task_struct *task,
			    bool group_dead, int signal);
	void (*report_reap)(struct utrace_engine *engine,
			    struct task_struct *task);
};

/**
 * struct utrace_examiner - state kept between utrace_prepare_examine()
 * and utrace_finish_examine()
 *
 * Private to utrace; the engine only provides the storage.
 */
struct utrace_examiner {
/* private: */
	unsigned int state;
	unsigned long ncsw;
};

#ifdef CONFIG_UTRACE

/**
 * task_utrace_flags - the union of the event masks of a thread's engines
 * @task:	the thread
 *
 * The core kernel's hooks test only this word on their fast path.
 *
 * Return: the %UTRACE_EVENT() bits some engine of @task asks for; zero
 * for a thread no engine is attached to.
 */
static inline unsigned long task_utrace_flags(struct task_struct *task)
{
	return READ_ONCE(task->utrace_flags);
}

void utrace_engine_release(struct kref *kref);

/**
 * utrace_engine_get - take a reference on an engine
 * @engine:	the engine
 */
static inline void utrace_engine_get(struct utrace_engine *engine)
{
	kref_get(&engine->kref);
}

/**
 * utrace_engine_put - drop a reference on an engine
 * @engine:	the engine
 *
 * The engine is freed with its last reference.
 */
static inline void utrace_engine_put(struct utrace_engine *engine)
{
	kref_put(&engine->kref, utrace_engine_release);
}

struct utrace_engine *utrace_attach_task(struct task_struct *task, int flags,
					 const struct utrace_engine_ops *ops,
					 void *data);
struct utrace_engine *utrace_attach_pid(struct pid *pid, int flags,
					const struct utrace_engine_ops *ops,
					void *data);
int __must_check utrace_set_events(struct task_struct *task,
				   struct utrace_engine *engine,
				   unsigned long events);
int __must_check utrace_set_events_pid(struct pid *pid,
				       struct utrace_engine *engine,
				       unsigned long events);
int __must_check utrace_control(struct task_struct *task,
				struct utrace_engine *engine,
				enum utrace_resume_action action);
int __must_check utrace_control_pid(struct pid *pid,
				    struct utrace_engine *engine,
				    enum utrace_resume_action action);
int __must_check utrace_barrier(struct task_struct *task,
				struct utrace_engine *engine);
int __must_check utrace_barrier_pid(struct pid *pid,
				    struct utrace_engine *engine);
int __must_check utrace_prepare_examine(struct task_struct *task,
					struct utrace_engine *engine,
					struct utrace_examiner *exam);
int __must_check utrace_finish_examine(struct task_struct *task,
				       struct utrace_engine *engine,
				       struct utrace_examiner *exam);

/**
 * utrace_init_task - clear a new task's utrace state
 * @task:	the copy of current that dup_task_struct() makes
 *
 * Engines attach to threads, never to their copies.
 */
static inline void utrace_init_task(struct task_struct *task)
{
	task->utrace = NULL;
	task->utrace_flags = 0;
	clear_task_syscall_work(task, SYSCALL_UTRACE);
}

/* Called by the hooks below, once their task_utrace_flags() test passed. */
void utrace_free_task(struct task_struct *task);
bool utrace_report_syscall_entry(struct pt_regs *regs);
void utrace_report_syscall_exit(struct pt_regs *regs);
void utrace_report_clone(unsigned long clone_flags, struct task_struct *child);
void utrace_finish_vfork(struct task_struct *task);
void utrace_report_exec(const struct linux_binprm *bprm);
void utrace_report_exit(long *exit_code);
void utrace_report_death(struct task_struct *task, bool group_dead,
			 int signal);
void utrace_release_task(struct task_struct *task);
int utrace_report_signal(int signr, struct ksignal *ksig,
			 struct k_sigaction **ka);
void utrace_signal_handler(struct task_struct *task, int stepping);
void utrace_report_jctl(int notify, int type);
void task_utrace_proc_status(struct seq_file *m, struct task_struct *task);
void utrace_ptrace_step_off(struct task_struct *task);

#else /* !CONFIG_UTRACE */

static inline unsigned long task_utrace_flags(struct task_struct *task)
{
	return 0;
}

static inline void utrace_init_task(struct task_struct *task) { }

/* Never called: their hooks test task_utrace_flags(), always 0 here. */
static inline bool utrace_report_syscall_entry(struct pt_regs *regs)
{
	return false;
}

static inline void utrace_report_syscall_exit(struct pt_regs *regs) { }
static inline void utrace_report_clone(unsigned long clone_flags,
				       struct task_struct *child) { }
static inline void utrace_finish_vfork(struct task_struct *task) { }
static inline void utrace_report_exec(const struct linux_binprm *bprm) { }
static inline void utrace_report_exit(long *exit_code) { }
static inline void utrace_report_death(struct task_struct *task,
				       bool group_dead, int signal) { }
static inline void utrace_release_task(struct task_struct *task) { }
static inline int utrace_report_signal(int signr, struct ksignal *ksig,
				       struct k_sigaction **ka)
{
	return signr;
}

static inline void utrace_signal_handler(struct task_struct *task,
					 int stepping) { }
static inline void utrace_report_jctl(int notify, int type) { }
static inline void utrace_free_task(struct task_struct *task) { }
static inline void task_utrace_proc_status(struct seq_file *m,
					   struct task_struct *task) { }
static inline void utrace_ptrace_step_off(struct task_struct *task) { }

#endif /* CONFIG_UTRACE */

/*
 * The hooks in the core kernel: each is one test of the thread's event
 * mask, and a call into utrace only when an engine asked for the event.
 * Without CONFIG_UTRACE they compile to nothing.
 */

/* kernel_clone(), before the child first runs */
static inline void utrace_hook_clone(unsigned long clone_flags,
				     struct task_struct *child)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT(CLONE)))
		utrace_report_clone(clone_flags, child);
}

/* kernel_clone(), before a vfork parent waits for its child */
static inline void utrace_hook_vfork(void)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT(CLONE)))
		utrace_finish_vfork(current);
}

/* exec_binprm(), after the point of no return */
static inline void utrace_hook_exec(const struct linux_binprm *bprm)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT(EXEC)))
		utrace_report_exec(bprm);
}

/* do_exit(), after ptrace's exit event */
static inline void utrace_hook_exit(long *exit_code)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT(EXIT)))
		utrace_report_exit(exit_code);
}

/* exit_notify(), once @task is a zombie and tasklist_lock is released */
static inline void utrace_hook_death(struct task_struct *task,
				     bool group_dead, int signal)
{
	if (unlikely(task_utrace_flags(task) & _UTRACE_DEATH_EVENTS))
		utrace_report_death(task, group_dead, signal);
}

/* release_task(): any engine still attached gets its reap report */
static inline void utrace_hook_reap(struct task_struct *task)
{
	if (unlikely(task_utrace_flags(task)))
		utrace_release_task(task);
}

/* ptrace turned single-step off: an engine's own step goes on */
static inline void utrace_hook_ptrace_step_off(struct task_struct *task)
{
	if (unlikely(task_utrace_flags(task)))
		utrace_ptrace_step_off(task);
}

/*
 * get_signal(), for a dequeued signal: the signal to act on, 0 if the
 * engines took it, below 0 if they hold it for later.  *@ka is its
 * action, which an engine may change.
 */
static inline int utrace_hook_signal(int signr, struct ksignal *ksig,
				     struct k_sigaction **ka)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT_SIGNAL_ALL))
		return utrace_report_signal(signr, ksig, ka);
	return signr;
}

/* signal_delivered(), once a handler's frame is set up */
static inline void utrace_hook_signal_handler(int stepping)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT(SIGNAL)))
		utrace_signal_handler(current, stepping);
}

/* do_signal_stop(), as the thread stops (CLD_STOPPED) or goes on */
static inline void utrace_hook_jctl(int notify, int type)
{
	if (unlikely(task_utrace_flags(current) & UTRACE_EVENT(JCTL)))
		utrace_report_jctl(notify, type);
}

/* Does an engine of @task want reports of signals it ignores? */
static inline bool utrace_wants_ignored(struct task_struct *task)
{
	return unlikely(task_utrace_flags(task) & UTRACE_EVENT(SIGNAL_IGN));
}

/* Does an engine of @task decide what a fatal signal does to it? */
static inline bool utrace_wants_fatal(struct task_struct *task)
{
	return unlikely(task_utrace_flags(task) &
			(UTRACE_EVENT(SIGNAL_CORE) | UTRACE_EVENT(SIGNAL_TERM)));
}

/* Does one decide, before the group dies, what a killing signal does? */
static inline bool utrace_wants_term(struct task_struct *task)
{
	return unlikely(task_utrace_flags(task) & UTRACE_EVENT(SIGNAL_TERM));
}

#endif /* _LINUX_UTRACE_H */
