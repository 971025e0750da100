// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: the look at a process's threads before a jump's bytes
 * change.  Every thread is seen once, none of them stopped: each one's
 * ip, and the words on the top of its stack (a signal frame's saved ip),
 * must lie outside the windows about to change (struct utp_jgp).
 */
#include "jump.h"

/*
 * Threads.
 */

/* The point of @pts[0..@n) (by address) whose window holds @x inside. */
static int utp_jump_inside(struct utp_point **pts, unsigned int n,
			   unsigned long x)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pts[mid]->vaddr < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* pts[lo - 1] is the last that begins before @x */
	if (lo && x < pts[lo - 1]->vaddr + pts[lo - 1]->jump->len)
		return lo - 1;
	return -1;
}

/* A thread of a process, as utp_jump_tasks() found it. */
struct utp_jump_task {
	struct task_struct *task;	/* referenced */
	struct utrace_engine *engine;	/* referenced */
	unsigned long asleep;		/* utp_asleep() then */
	unsigned long hit_bp;		/* a hit of this int3 to come */
	bool emulate;			/* ... which emulates, not the stub */
	bool queued;			/* a hit's task_work to run */
	bool in_hit;			/* in the slow path of a hit */
	bool seen;			/* looked at for this jgp already */
};

/* What a look at @ut needs of it, @ut's thread asleep or current. */
static void utp_jump_task_fill(struct utp_thread *ut, unsigned int seq,
			       struct utp_jump_task *jt)
{
	struct task_struct *task = ut->task;
	enum utp_hit_phase phase;

	/* first: what follows is only read while it stays asleep */
	jt->asleep = task == current || task_curr(task) ? 0 :
		     utp_asleep(task);
	phase = READ_ONCE(ut->hit.phase);
	jt->emulate = phase == UTP_HIT_EMULATE;
	jt->queued = jt->emulate || phase == UTP_HIT_QUEUED;
	jt->in_hit = phase == UTP_HIT_SLOW || phase == UTP_HIT_STEPPING;
	jt->hit_bp = 0;
	if (jt->queued)
		jt->hit_bp = READ_ONCE(ut->hit.bp);
	else if (sigismember(&task->pending.signal, SIGTRAP))
		jt->hit_bp = READ_ONCE(ut->hit.int3_bp);
	jt->seen = READ_ONCE(ut->quiesce.jgp_seq) == seq;
}

/* The threads of @proc, and how many; or NULL.  Put them when done. */
static struct utp_jump_task *utp_jump_tasks(struct utp_proc *proc,
					    unsigned int seq, unsigned int *nr)
{
	struct utp_jump_task *tasks;
	struct utp_thread *ut;
	unsigned int n = 0, i = 0;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		n++;
	spin_unlock(&proc->lock);
	tasks = kvmalloc_array(max(n, 1U), sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return NULL;
	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		if (i < n) {
			tasks[i].task = get_task_struct(ut->task);
			tasks[i].engine = ut->engine;
			utrace_engine_get(ut->engine);
			utp_jump_task_fill(ut, seq, &tasks[i++]);
		}
	spin_unlock(&proc->lock);
	*nr = i;
	return tasks;
}

static void utp_jump_tasks_put(struct utp_jump_task *tasks, unsigned int nr)
{
	while (nr--) {
		utrace_engine_put(tasks[nr].engine);
		put_task_struct(tasks[nr].task);
	}
	kvfree(tasks);
}

/*
 * The instruction whose slot (run through, then back) holds @ip, or 0:
 * a thread there goes on after that instruction in the text.
 */
static unsigned long utp_jump_slot_insn(struct utp_proc *proc,
					unsigned long ip)
{
	void *v = xa_load(&proc->slots, ip & ~(UTP_XOL_SLOT_SIZE - 1UL));

	return v ? xa_to_value(v) : 0;
}

/*
 * Is the word at @w of @words (read from the stack at @at) the saved ip
 * of a signal frame?  Then the word 176 bytes below is the frame's
 * restorer, the one after it the flags of its ucontext (a few bits),
 * and the word just below the ip the saved stack pointer, above it.
 */
static bool utp_jump_sigframe_ip(const unsigned long *words, unsigned int w,
				 unsigned long at)
{
	return w >= 22 && words[w - 21] < 0x100 && words[w - 1] > at;
}

/*
 * How much of the stack above @sp to search: up to where its mapping
 * ends, UTP_JUMP_STACK_SCAN at most.  What lies past it is not this
 * stack (another thread's, a library's data), where words that look
 * like a signal frame's would only keep windows busy for nothing; a
 * signal frame on another stack (below a sigaltstack frame, say) is not
 * searched for.
 */
static int utp_jump_stack_len(struct mm_struct *mm, unsigned long sp)
{
	struct vm_area_struct *vma;
	unsigned long end = 0;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, sp);
	if (vma)
		end = min(vma->vm_end, sp + UTP_JUMP_STACK_SCAN);
	mmap_read_unlock(mm);
	return end ? end - sp : 0;
}

/*
 * Look at @jt's thread for @g, where it cannot run user code until the
 * look is over: asleep, or in its own report if @self.  Going in, mark
 * in @g->busy each window whose middle, where the jump's bytes go, the
 * thread is in or would come back into: its ip there (but just after
 * the int3 with its hit to come and not emulated: that goes on in the
 * stub), in the slot of a window's instruction (it jumps back after it,
 * into the window), or a signal frame on the top of its stack whose
 * saved ip is inside, or in such a slot.  In its own report, a thread
 * inside a window goes on from the same instruction in the stub's copy
 * of it instead.  Going out, returns false while the thread is in a
 * stub before its count; and whenever a thread asleep in a hit's slow
 * path may still move.  The stack is read into @words.
 *
 * A thread looks at itself with proc->jgp_lock held, reading its stack
 * as its own memory; the caller of utp_jump_grace() looks at those
 * asleep without it, through access_remote_vm(), so that a thread's
 * look (its pause) never waits for another's.  Both only ever set
 * @g->busy.
 */
static bool utp_jump_look(struct utp_proc *proc, struct utp_jgp *g,
			  struct utp_jump_task *jt, bool self,
			  unsigned long *words)
{
	struct pt_regs *regs = task_pt_regs(jt->task);
	unsigned long ip = regs->ip, sp = regs->sp & ~7UL, s;
	unsigned int i, w;
	int k, got, len;

	if (jt->in_hit)
		return false;
	if (g->out) {
		for (i = 0; i < g->n; i++) {
			const struct utp_jump *j = g->pts[i]->jump;

			if (ip >= j->stub && ip < j->stub + j->info.counted)
				return false;
		}
		return true;
	}
	s = utp_jump_slot_insn(proc, ip);
	k = s ? utp_jump_inside(g->pts, g->n, s + 1) : -1;
	if (k >= 0)
		WRITE_ONCE(g->busy[k], true);
	/* a hit whose instruction is to be emulated: it ends inside */
	k = jt->hit_bp && jt->emulate ?
	    utp_jump_inside(g->pts, g->n, jt->hit_bp + 1) : -1;
	if (k >= 0 && g->pts[k]->vaddr == jt->hit_bp)
		WRITE_ONCE(g->busy[k], true);
	k = utp_jump_inside(g->pts, g->n, ip);
	if (k >= 0 && ip != g->pts[k]->vaddr) {
		struct utp_point *pt = g->pts[k];
		struct utp_jump *j = pt->jump;

		if (jt->hit_bp == pt->vaddr &&
		    ip == pt->vaddr + UTP_BREAK_INSN_SIZE && !jt->emulate)
			;	/* utp_jump_through() takes it */
		else if (self && !jt->hit_bp)
			regs->ip = j->stub + j->info.body + (ip - pt->vaddr);
		else
			WRITE_ONCE(g->busy[k], true);
	}
	len = utp_jump_stack_len(proc->mm, sp);
	/* the words up to the first that cannot be read */
	if (self)
		got = len - copy_from_user(words, (void __user *)sp, len);
	else
		got = access_remote_vm(proc->mm, sp, words, len, 0);
	for (w = 0; got > 0 && w < got / sizeof(long); w++) {
		if (!utp_jump_sigframe_ip(words, w, sp + w * sizeof(long)))
			continue;
		s = utp_jump_slot_insn(proc, words[w]);
		k = utp_jump_inside(g->pts, g->n, s ? s + 1 : words[w]);
		if (k >= 0 && (s || words[w] != g->pts[k]->vaddr))
			WRITE_ONCE(g->busy[k], true);
	}
	return true;
}

/* @task of @proc has been looked at for the jgp @seq. */
static void utp_jump_seen(struct utp_proc *proc, struct task_struct *task,
			  unsigned int seq)
{
	struct utp_thread *ut;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		if (ut->task == task)
			WRITE_ONCE(ut->quiesce.jgp_seq, seq);
	spin_unlock(&proc->lock);
}

/*
 * Look at @jt's thread for @g if it is asleep (or current), and was
 * since utp_jump_tasks() read it; true if it was looked at.
 */
static bool utp_jump_look_asleep(struct utp_proc *proc, struct utp_jgp *g,
				 struct utp_jump_task *jt)
{
	bool ok;

	/*
	 * Not in the middle of a hit's task_work either: it may have read
	 * the body before it was set and sleep on its way into the window.
	 */
	if (jt->task != current && (!jt->asleep || jt->queued))
		return false;
	/* gone since utp_jump_tasks(): it runs no user code any more */
	if (!try_get_task_stack(jt->task)) {
		utp_jump_seen(proc, jt->task, g->seq);
		return true;
	}
	ok = utp_jump_look(proc, g, jt, false, g->words);
	put_task_stack(jt->task);
	/* if it ran meanwhile, what was read may be stale: ask it */
	if (jt->task != current && (task_curr(jt->task) ||
				    utp_asleep(jt->task) != jt->asleep))
		return false;
	if (ok)
		utp_jump_seen(proc, jt->task, g->seq);
	return ok;
}

/* Has every thread of @proc been looked at for the jgp @seq? */
static bool utp_jump_all_seen(struct utp_proc *proc, unsigned int seq)
{
	struct utp_thread *ut;
	bool all = true;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		all &= READ_ONCE(ut->quiesce.jgp_seq) == seq;
	spin_unlock(&proc->lock);
	return all;
}

/**
 * utp_jump_report - a thread's report, on its way back to user mode
 * @ut:	current's
 *
 * If a look at every thread of its process is under way (struct
 * utp_jgp) and current has not been looked at, it looks at itself.
 */
void utp_jump_report(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;
	struct utp_jump_task jt = { .task = current };
	struct utp_jgp *g;

	if (likely(!READ_ONCE(proc->jgp)))
		return;
	mutex_lock(&proc->jgp_lock);
	g = proc->jgp;
	if (g && READ_ONCE(ut->quiesce.jgp_seq) != g->seq) {
		utp_jump_task_fill(ut, g->seq, &jt);
		if (utp_jump_look(proc, g, &jt, true, g->own)) {
			utp_jump_seen(proc, current, g->seq);
			wake_up_all(&proc->wq);
		}
	}
	mutex_unlock(&proc->jgp_lock);
}

/*
 * Look at every thread of @proc for @g (whose pts, n, out and busy the
 * caller sets), none of them stopped: those asleep here, the others in
 * their own reports.  Returns false if some could not be looked at in
 * time (or @proc died, or current is dying).  utp_mutex held.
 */
bool utp_jump_grace(struct utp_proc *proc, struct utp_jgp *g)
{
	struct utp_jump_task *tasks;
	unsigned int tries, nr, t, left = 1;

	/* a jump going out only asks where each thread's ip is */
	if (!g->out) {
		g->words = kvmalloc(UTP_JUMP_STACK_SCAN, GFP_KERNEL);
		g->own = kvmalloc(UTP_JUMP_STACK_SCAN, GFP_KERNEL);
		if (!g->words || !g->own) {
			kvfree(g->words);
			kvfree(g->own);
			return false;
		}
	}
	mutex_lock(&proc->jgp_lock);
	g->seq = ++proc->jgp_seq;
	WRITE_ONCE(proc->jgp, g);
	mutex_unlock(&proc->jgp_lock);
	for (tries = 0; tries < UTP_JUMP_GRACE_JIFFIES; tries++) {
		if (READ_ONCE(proc->dead) || fatal_signal_pending(current))
			break;
		tasks = utp_jump_tasks(proc, g->seq, &nr);
		if (!tasks)
			break;
		for (t = 0, left = 0; t < nr; t++) {
			if (tasks[t].seen ||
			    utp_jump_look_asleep(proc, g, &tasks[t]))
				continue;
			utp_control(tasks[t].task, tasks[t].engine,
				    UTRACE_REPORT);
			left++;
		}
		utp_jump_tasks_put(tasks, nr);
		if (!left)
			break;
		/* ask again each tick: some may have gone to sleep since */
		wait_event_timeout(proc->wq, utp_jump_all_seen(proc, g->seq),
				   1);
	}
	/* the last wait may have seen the last of them */
	left = left && !utp_jump_all_seen(proc, g->seq);
	mutex_lock(&proc->jgp_lock);
	WRITE_ONCE(proc->jgp, NULL);
	mutex_unlock(&proc->jgp_lock);
	kvfree(g->words);
	kvfree(g->own);
	return !left;
}

/* Is a thread of @proc traced? */
bool utp_jump_traced(struct utp_proc *proc)
{
	struct utp_thread *ut;
	bool traced = false;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		traced |= !!READ_ONCE(ut->task->ptrace);
	spin_unlock(&proc->lock);
	return traced;
}
