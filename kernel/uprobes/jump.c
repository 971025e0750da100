// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: probes entered by a jump.  A point whose one probe only
 * counts, and whose function's extent the probe gives, is entered by a
 * jmp rel32 over the instructions at the point (its window) to a stub
 * that adds one to a counter (in a slot of its CPU, or of its thread's
 * stack) and runs the window's instructions displaced: its hits never
 * enter the kernel.  The stubs and the counters are special mappings of
 * the process, within reach of its text (struct utp_jarea); the kernel
 * keeps their pages and sums a stub's counters when asked
 * (utprobe_hits()).
 *
 * The rules, each checked here and never taken from the caller:
 *  - the window is whole instructions that may move (utp_arch_jump_window())
 *    in one page, and no other point is inside it;
 *  - no direct branch of the function lands inside it
 *    (utp_arch_jump_scan(), over the extent the probe gives);
 *  - the jump goes in once every thread of the process has been looked
 *    at, none stopped (struct utp_jgp), and none was inside the window
 *    nor had a word inside it on the top of its stack (a signal frame's
 *    saved ip), else later;
 *  - the int3 is in first and stays correct throughout: the jump's tail
 *    goes in, then a sync, then its first byte; out in reverse.  A trap
 *    on the int3 meanwhile goes on in the stub's copy of the window
 *    (utp_jump_through()), never in the window's middle;
 *  - a process that is traced keeps int3s; a debugger's write into a
 *    window takes the jump out of that page first, for good.
 *
 * Stubs are never reused for another window, and go with the mm: a
 * thread may be in one however late (a signal frame), and finds the
 * window's instructions and the jump back there.
 *
 * Locking: utp_mutex serialises placing and removing jumps, and guards
 * pt->jump, the consumers' counts and proc->jareas; pt->jumped changes
 * under the mm's mmap_lock for writing, or for reading in a debugger's
 * write (which the others exclude), and is read anywhere.
 */
#include "jump.h"

/* The names utprobe_mode() gives the reasons a point traps */
static const char *const utp_jump_whys[] = {
	[UTP_JW_OFF] = "no-extent",	[UTP_JW_PENDING] = "pending",
	[UTP_JW_JUMP] = "jump",		[UTP_JW_HANDLER] = "handler",
	[UTP_JW_SHARED] = "shared",	[UTP_JW_WINDOW] = "window",
	[UTP_JW_BRANCH] = "branch",	[UTP_JW_DECODE] = "decode",
	[UTP_JW_PAGE] = "page",		[UTP_JW_POINT] = "point",
	[UTP_JW_REACH] = "reach",	[UTP_JW_NOMEM] = "memory",
	[UTP_JW_PTRACE] = "ptrace",	[UTP_JW_BUSY] = "busy",
	[UTP_JW_DEBUGGER] = "debugger",	[UTP_JW_TEXT] = "text",
	[UTP_JW_UPROBES] = "uprobes",
};

/*
 * Hooks of the rest of the engine.
 */

/* utprobe_hits() may have been summing @j's counters until now. */
static void utp_jump_free_rcu(struct rcu_head *head)
{
	struct utp_jump *j = container_of(head, struct utp_jump, rcu);

	kref_put(&j->area->kref, utp_jarea_release);
	kfree(j);
}

void utp_jump_proc_init(struct utp_proc *proc)
{
	INIT_LIST_HEAD(&proc->jareas);
	INIT_LIST_HEAD(&proc->jump_list);
	xa_init(&proc->jumps);
	xa_init(&proc->jsys);
	xa_init(&proc->jstubs);
	INIT_DELAYED_WORK(&proc->jump_work, utp_jump_work);
	atomic_set(&proc->njumped, 0);
	mutex_init(&proc->jgp_lock);
}

/* @proc has gone, and its points: its stubs go.  utp_mutex held. */
void utp_jump_proc_free(struct utp_proc *proc)
{
	struct utp_jarea *a, *na;
	struct utp_jump *j, *nj;

	/* unpublished first: utp_jump_sys_find() reads them under RCU */
	xa_destroy(&proc->jstubs);
	xa_destroy(&proc->jumps);
	xa_destroy(&proc->jsys);
	list_for_each_entry_safe(j, nj, &proc->jump_list, node) {
		list_del(&j->node);
		call_rcu(&j->rcu, utp_jump_free_rcu);
	}
	list_for_each_entry_safe(a, na, &proc->jareas, node) {
		list_del(&a->node);
		kref_put(&a->kref, utp_jarea_release);
	}
}

/*
 * @up leaves @proc, its consumers there in @list: their jumps go out
 * first, with @why.  utp_mutex held.
 */
void utp_jump_out_probe(struct utp_proc *proc, struct utprobe *up,
			struct list_head *list, u8 why)
{
	struct utp_consumer *c;
	struct utp_point **pts;
	unsigned int n = 0, i = 0;

	/* a handler's stub counts nothing: its probe has no jcounts */
	if (!atomic_read(&proc->njumped))
		return;
	list_for_each_entry(c, list, probe_node)
		n += READ_ONCE(c->point->jumped);
	pts = kvmalloc_array(max(n, 1U), sizeof(*pts), GFP_KERNEL);
	if (pts) {
		list_for_each_entry(c, list, probe_node)
			if (READ_ONCE(c->point->jumped) && i < n)
				pts[i++] = c->point;
		utp_jump_out(proc, pts, i, why, !READ_ONCE(proc->dead));
		kvfree(pts);
		return;
	}
	list_for_each_entry(c, list, probe_node) {
		struct utp_point *pt = c->point;

		utp_jump_out(proc, &pt, 1, why, !READ_ONCE(proc->dead));
	}
}

/*
 * A point is being made at @vaddr, or a probe added to the one there:
 * a jump whose window holds @vaddr goes out first.  Stops the threads
 * unless @stopped says the caller has.  utp_mutex held.
 */
void utp_jump_clear_at(struct utp_proc *proc, unsigned long vaddr,
		       bool stopped)
{
	unsigned long idx = vaddr >= UTP_JUMP_WINDOW_MAX ?
			    vaddr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	struct utp_point *pt;

	if (!atomic_read(&proc->njumped))
		return;
	while ((pt = xa_find(&proc->points, &idx, vaddr, XA_PRESENT))) {
		if (READ_ONCE(pt->jumped) &&
		    vaddr < pt->vaddr + pt->jump->len)
			utp_jump_out(proc, &pt, 1, pt->vaddr == vaddr ?
				     UTP_JW_SHARED : UTP_JW_POINT, !stopped);
		if (idx++ == vaddr)
			break;
	}
}

/*
 * @c has just joined @pt: its stub's count so far is not @c's.  A probe
 * that gives its function's extent has the process looked at for a
 * jump; a little later if @pt is a fork's child's (@inherited), which
 * mostly execs at once: the look and the jumps would be for nothing.
 * utp_mutex held.
 */
void utp_jump_join(struct utp_point *pt, struct utp_consumer *c,
		   bool inherited)
{
	/* without the memory, it is not entered by a jump: see write_in */
	if (pt->jump && !pt->jump->sys)
		utp_jump_count_for(c, pt->jump);
	if (c->up->func_size) {
		if (pt->jwhy == UTP_JW_OFF)
			pt->jwhy = UTP_JW_PENDING;
		utp_jump_kick_later(pt->proc,
				    inherited ? UTP_JUMP_FORK_DELAY : 0);
	}
}

/*
 * @c goes: what its point's stub counted for it goes into its probe's
 * count.  utp_mutex held.
 */
void utp_jump_fold(struct utp_consumer *c)
{
	struct utp_jcount *jc = c->jc;
	struct utprobe *up = c->up;

	if (!jc)
		return;
	preempt_disable();
	write_seqcount_begin(&up->jseq);
	if (up->hits)
		this_cpu_add(*up->hits, utp_jump_sum(jc->j) - jc->base);
	list_del_rcu(&jc->node);
	write_seqcount_end(&up->jseq);
	preempt_enable();
	c->jc = NULL;
	kfree_rcu(jc, rcu);
}

/*
 * A trap on @pt's int3 while its jump is going in or out: the window's
 * middle may hold the jump's bytes, so the thread goes on in the stub's
 * copy of the window.  Returns true if it does.
 */
bool utp_jump_through(struct utp_point *pt, struct pt_regs *regs)
{
	/* pairs with the release in utp_jump_write_in() */
	unsigned long body = smp_load_acquire(&pt->jbody);

	if (!body)
		return false;
	instruction_pointer_set(regs, body);
	return true;
}

/**
 * utp_jump_fork - what a fork's copy of a jump's window gets back
 * @pt:		a point whose jump is in
 * @first:	the byte for the copy's first: the int3, or the
 *		instruction's own
 * @pk:		UTP_JUMP_FORK_POKES pokes to fill
 *
 * A fork copied @pt's window, jump and all: the copy gets @first and
 * the instructions' other bytes back (the child has no stubs).  Between
 * the two steps of a jump's write, in or out, the tail is in under the
 * int3 (see utp_jump_write_in()): the copy's first byte is the jmp
 * opcode or the int3, and goes back from either.  Both mmap_locks held
 * for writing.  Returns how many pokes it filled, UTP_JUMP_FORK_POKES
 * at most.
 */
unsigned int utp_jump_fork(struct utp_point *pt, u8 first,
			   struct utp_poke *pk)
{
	unsigned int n = 0;

	pk[n++] = (struct utp_poke){
		.vaddr = pt->vaddr, .old = JMP32_INSN_OPCODE, .new = first,
	};
	if (first != UTP_BREAK_INSN)
		pk[n++] = (struct utp_poke){
			.vaddr = pt->vaddr, .old = UTP_BREAK_INSN,
			.new = first,
		};
	return n + utp_jump_tail(pt, pt->vaddr, false, pk + n);
}

/*
 * mremap() moved [@start, @end) of @proc's text to @to, jumps and all:
 * a jump is not right at another address, so the moved copy gets the
 * int3 and the instructions back, before any thread can run it.
 * mmap_lock held for writing.
 */
void utp_jump_moved(struct utp_proc *proc, unsigned long start,
		    unsigned long end, unsigned long to)
{
	struct utp_poke pk[UTP_JUMP_SIZE];
	struct utp_point *pt;
	unsigned long idx;
	unsigned int n;
	int srcu;

	if (!atomic_read(&proc->njumped))
		return;
	srcu = srcu_read_lock(&utp_srcu);
	xa_for_each_range(&proc->points, idx, pt, start, end - 1) {
		unsigned long nv = to + (pt->vaddr - start);

		if (READ_ONCE(pt->stale) || !READ_ONCE(pt->jumped))
			continue;
		pk[0] = (struct utp_poke){
			.vaddr = nv, .old = JMP32_INSN_OPCODE,
			.new = UTP_BREAK_INSN,
		};
		n = 1 + utp_jump_tail(pt, nv, false, pk + 1);
		utp_poke_page_locked(proc->mm, pk, n, false);
		utp_jump_gone(proc, pt);
		WRITE_ONCE(pt->jbody, 0);
	}
	srcu_read_unlock(&utp_srcu, srcu);
}

/*
 * A debugger reads [@addr, @addr + @len) of @proc's text into @b: the
 * windows' own bytes go in place of the jumps.  Returns true if @proc
 * is to be looked at again (utp_jump_kick()), to go back to int3s: the
 * read reaches a window and the reader traces the process.  Under RCU.
 */
bool utp_jump_access_read(struct utp_proc *proc, unsigned long addr,
			  u8 *b, int len)
{
	unsigned long idx = addr >= UTP_JUMP_WINDOW_MAX ?
			    addr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	unsigned long last = addr + len - 1, a;
	struct utp_thread *ut;
	bool window = false, tracer = false;
	struct utp_point *pt;
	struct utp_jump *j;

	if (!atomic_read(&proc->njumped))
		return false;
	while (idx <= last &&
	       (pt = xa_find(&proc->points, &idx, last, XA_PRESENT))) {
		j = READ_ONCE(pt->jump);
		if (j && READ_ONCE(pt->jumped) && !READ_ONCE(pt->stale))
			for (a = max(pt->vaddr, addr);
			     a < pt->vaddr + j->len && a <= last; a++) {
				b[a - addr] = j->orig[a - pt->vaddr];
				window = true;
			}
		idx++;
	}
	if (!window)
		return false;
	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		tracer |= READ_ONCE(ut->task->ptrace) &&
			  rcu_access_pointer(ut->task->parent) == current;
	spin_unlock(&proc->lock);
	return tracer;
}

/*
 * A debugger writes over [@addr, @addr + @len) of @proc's text, which
 * @text maps: a jump whose window it reaches goes out of the page now,
 * the int3 first, and that point keeps its int3 from now on.  mmap_lock
 * held for reading, which the jumps' writers exclude.  Under RCU.
 */
void utp_jump_access_write(struct utp_proc *proc, struct mm_struct *mm,
			   unsigned long addr, u8 *text, int len)
{
	unsigned long idx = addr >= UTP_JUMP_WINDOW_MAX ?
			    addr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	unsigned long last = addr + len - 1;
	struct utp_point *pt;
	struct utp_jump *j;
	u8 *w;

	if (!atomic_read(&proc->njumped))
		return;
	while (idx <= last &&
	       (pt = xa_find(&proc->points, &idx, last, XA_PRESENT))) {
		j = READ_ONCE(pt->jump);
		idx++;
		if (!j || !READ_ONCE(pt->jumped) || READ_ONCE(pt->stale) ||
		    pt->vaddr + j->len <= addr)
			continue;
		/* the window is in this page, as the write is */
		w = text + (long)(pt->vaddr - addr);
		WRITE_ONCE(pt->jforeign, true);
		WRITE_ONCE(pt->jwhy, UTP_JW_DEBUGGER);
		/* the int3 first; the tail may be in without the jmp yet */
		if (w[0] == JMP32_INSN_OPCODE) {
			w[0] = UTP_BREAK_INSN;
			flush_tlb_mm(mm);
		}
		if (memcmp(w + 1, j->orig + 1, UTP_JUMP_SIZE - 1)) {
			memcpy(w + 1, j->orig + 1, UTP_JUMP_SIZE - 1);
			flush_tlb_mm(mm);
		}
		utp_jump_gone(proc, pt);
		WRITE_ONCE(pt->jbody, 0);
	}
}

/**
 * utprobe_set_counting - say whether a probe's handler does anything now
 * @up:		the probe, registered or not
 * @counting:	true if its handler does nothing but return for now
 *
 * A probe whose handler does nothing for a while (a trace event that is
 * off) only counts its hits meanwhile, and may be entered by a jump where
 * its function allows (&struct utprobe.func_size), to a stub that counts.
 * Before it returns false, every such jump of the probe is out: the next
 * hit runs the handler (by the int3, until a jump to a stub that calls
 * it replaces it).
 * A probe without handlers always only counts.  May sleep.
 */
void utprobe_set_counting(struct utprobe *up, bool counting)
{
	struct utp_consumer *c;

	mutex_lock(&utp_mutex);
	WRITE_ONCE(up->counting, counting);
	/* not registered (yet, or any more): no consumer list */
	if (!up->hits) {
		mutex_unlock(&utp_mutex);
		return;
	}
	list_for_each_entry(c, &up->consumers, probe_node) {
		struct utp_point *pt = c->point;
		struct utp_proc *proc = pt->proc;

		/* a counting stub goes out now; a handler's may stay */
		if (!counting && READ_ONCE(pt->jumped) && !pt->jump->sys &&
		    mmget_not_zero(proc->mm)) {
			utp_jump_out(proc, &pt, 1, UTP_JW_PENDING,
				     !READ_ONCE(proc->dead));
			mmput(proc->mm);
		}
		/* to be looked at again: not "handler" meanwhile */
		if (pt->jwhy == UTP_JW_HANDLER)
			pt->jwhy = UTP_JW_PENDING;
		utp_jump_kick(proc);
	}
	mutex_unlock(&utp_mutex);
}
EXPORT_SYMBOL_GPL(utprobe_set_counting);

/**
 * utprobe_mode - how a probe's hits come in
 * @up:		a registered probe
 *
 * Return: "jump" if each of its points is entered by a jump, "syscall"
 * if so and its handler is called from the stub by a system call; "none"
 * if it has no point now; else why the first of its points that traps does
 * ("no-extent", "handler", "branch" and the others that
 * Documentation/trace/utprobes.rst lists).  May sleep.
 */
const char *utprobe_mode(struct utprobe *up)
{
	struct utp_consumer *c;
	const char *mode = "none";
	u8 why = UTP_JW_JUMP;
	bool sys = false;

	mutex_lock(&utp_mutex);
	list_for_each_entry(c, &up->consumers, probe_node) {
		why = c->point->jwhy;
		if (why == UTP_JW_JUMP && !READ_ONCE(c->point->jumped))
			why = UTP_JW_PENDING;
		if (why != UTP_JW_JUMP)
			break;
		sys |= c->point->jump->sys;
	}
	if (!list_empty(&up->consumers))
		mode = why == UTP_JW_JUMP && sys ? "syscall" :
		       utp_jump_whys[why];
	mutex_unlock(&utp_mutex);
	return mode;
}
EXPORT_SYMBOL_GPL(utprobe_mode);

/* What @up's consumers counted in stubs; see utprobe_hits(). */
u64 utp_jump_hits(const struct utprobe *up)
{
	struct utp_jcount *jc;
	u64 sum = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(jc, &up->jcounts, node)
		sum += utp_jump_sum(jc->j) - jc->base;
	rcu_read_unlock();
	return sum;
}

/**
 * __utprobe_text_write - another writes text where a jump may be
 * @mm:		the mm, locked for writing
 * @vaddr:	where
 * @len:	how many bytes
 *
 * Mainline uprobes write their int3 over what the page holds: a jump of
 * ours over those bytes goes back to its int3 and the instructions
 * first (the int3, a sync, the tail, a sync), and the point keeps its
 * int3 from then on.  Called through utprobe_text_write().
 */
void __utprobe_text_write(struct mm_struct *mm, unsigned long vaddr, int len)
{
	unsigned long idx = vaddr >= UTP_JUMP_WINDOW_MAX ?
			    vaddr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	struct utp_poke pk[UTP_JUMP_SIZE - 1];
	struct utp_point *pt;
	struct utp_proc *proc;
	int srcu;

	mmap_assert_write_locked(mm);
	rcu_read_lock();
	proc = utp_proc_find_rcu(mm);
	if (proc && (!atomic_read(&proc->njumped) ||
		     !kref_get_unless_zero(&proc->kref)))
		proc = NULL;
	rcu_read_unlock();
	if (!proc)
		return;
	srcu = srcu_read_lock(&utp_srcu);
	while ((pt = xa_find(&proc->points, &idx, vaddr + len - 1,
			     XA_PRESENT))) {
		struct utp_jump *j = READ_ONCE(pt->jump);

		idx++;
		if (!j || !READ_ONCE(pt->jumped) || READ_ONCE(pt->stale) ||
		    pt->vaddr + j->len <= vaddr)
			continue;
		WRITE_ONCE(pt->jforeign, true);
		pk[0] = (struct utp_poke){
			.vaddr = pt->vaddr, .old = JMP32_INSN_OPCODE,
			.new = UTP_BREAK_INSN,
		};
		utp_poke_page_locked(mm, pk, 1, false);
		flush_tlb_mm(mm);
		utp_poke_page_locked(mm, pk,
				     utp_jump_tail(pt, pt->vaddr, false, pk),
				     false);
		flush_tlb_mm(mm);
		utp_jump_gone(proc, pt);
		WRITE_ONCE(pt->jbody, 0);
		WRITE_ONCE(pt->jwhy, UTP_JW_UPROBES);
	}
	srcu_read_unlock(&utp_srcu, srcu);
	kref_put(&proc->kref, utp_proc_release);
}

/* A return site at @pt, whose jump would hide it: the jump goes out. */
void utp_jump_ret_site(struct utp_point *pt)
{
	if (READ_ONCE(pt->jumped))
		utp_jump_kick(pt->proc);
}
