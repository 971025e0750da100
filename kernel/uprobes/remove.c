// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: removal.  A probe leaves every process it is in
 * (utp_remove()), its points restored or its consumers dropped, and what
 * a removal leaves to after its grace period is done then.
 */
#include "internal.h"

/* Removals made, numbering them for utp_after_removals(); under utp_mutex. */
static u64 utp_removals;

/* The number of the last removal made, for utp_after_removals() */
u64 utp_removals_made(void)
{
	lockdep_assert_held(&utp_mutex);
	return utp_removals;
}

/*
 * What the removals numbered up to @last leave to after their grace
 * period, when no thread is still in a hit that saw a probe they removed
 * (utp_unregister_wait(), begun after them): such a thread may yet add a
 * return site for a return probe it saw.  Then a process that lost a
 * return probe sweeps its return sites, and one left with no point lets
 * its threads go.  A process that a later removal touched waits for
 * that one's grace period.
 */
void utp_after_removals(u64 last)
{
	struct utp_proc *proc;

	mutex_lock(&utp_mutex);
	list_for_each_entry(proc, &utp_procs, node) {
		if (!proc->removed || proc->removed > last)
			continue;
		if (proc->ret_sweep)
			utp_ret_sweep(proc);
		proc->removed = 0;
		proc->ret_sweep = false;
		utp_proc_idle(proc);
	}
	mutex_unlock(&utp_mutex);
}

/*
 * Remove the consumers in @list (all of @up, in one process) and their
 * points, under the running threads: a thread that reads them meanwhile
 * does so in a read section of utp_srcu or RCU, which the caller waits
 * out (utp_unregister_wait()) before @up goes.  A return probe's return
 * sites, and letting the threads go if no point is left, wait for that
 * too (utp_after_removals()).
 */
static void utp_remove(struct utp_proc *proc, struct utprobe *up,
		       struct list_head *list)
{
	struct utp_consumer *c, *next;
	bool left = false;
	struct utp_point *pt;

	/* jumps out first, their counts in before the consumers go */
	utp_jump_out_probe(proc, up, list, UTP_JW_OFF);
	list_for_each_entry_safe(c, next, list, probe_node) {
		pt = c->point;
		/* down while a fork still sees it (utp_fork_keep()) */
		if (c->ref_vaddr)
			utp_ref_update(proc->mm, up->inode, up->ref_offset,
				       &c->ref_vaddr, -1);
		list_del_rcu(&c->point_node);
		list_del(&c->probe_node);
		utp_consumer_free(c);
		/* a return site stays while calls return there */
		if (!list_empty(&pt->consumers) || READ_ONCE(pt->ret_site)) {
			/* one probe left: it may jump, once looked at */
			if (pt->jwhy == UTP_JW_SHARED)
				pt->jwhy = UTP_JW_PENDING;
			left = true;
			continue;
		}
		/*
		 * The last probe here: the original instruction goes back,
		 * then the point.  A thread that trapped on the int3 before
		 * finds the point and takes the hit, or finds none and runs
		 * the original instruction; one in the middle of a hit of it
		 * runs it in place if it has no slot yet.
		 */
		utp_point_restore(proc, pt);
		utp_point_drop(proc, pt);
	}
	proc->removed = ++utp_removals;
	if (up->ret_handler)
		proc->ret_sweep = true;
	/* a point left to one probe may be entered by a jump again */
	if (left)
		utp_jump_kick(proc);
}

void utp_probe_free(struct utprobe *up)
{
	free_percpu(up->hits);
	up->hits = NULL;
	free_percpu(up->rets);
	up->rets = NULL;
	utp_ret_probe_put(up->ret_probe);
	up->ret_probe = NULL;
}

/*
 * Remove @up from every process; see utprobe_unregister().  utp_mutex
 * held; the caller lets go of what the probe holds (utp_unregister()).
 */
void utp_unregister_locked(struct utprobe *up)
{
	struct utp_consumer *c;
	struct utp_proc *proc;
	LIST_HEAD(list);

	lockdep_assert_held(&utp_mutex);
	/* the calls followed for it have no probe from now */
	if (up->ret_probe)
		WRITE_ONCE(up->ret_probe->up, NULL);
	if (up->inode && !RB_EMPTY_NODE(&up->file_node)) {
		/* no new process gets it */
		utp_files_del(up);
		static_branch_dec(&utprobe_mmap_key);
	}
	while (!list_empty(&up->consumers)) {
		struct utp_consumer *next;

		/* the consumers of one process at a time */
		c = list_first_entry(&up->consumers, struct utp_consumer,
				     probe_node);
		proc = c->point->proc;
		list_for_each_entry_safe(c, next, &up->consumers, probe_node)
			if (c->point->proc == proc)
				list_move_tail(&c->probe_node, &list);
		utp_remove(proc, up, &list);
	}
}

/* What a probe holds once it is out of every process. */
void utp_probe_release(struct utprobe *up)
{
	up->ref_offset = 0;
	if (up->inode) {
		struct super_block *sb = up->inode->i_sb;

		iput(up->inode);
		/* the file system may be shut down now (lazily unmounted) */
		deactivate_super(sb);
		up->inode = NULL;
		kfree(up->insn);
		up->insn = NULL;
	}
	put_pid(up->scope);
	up->scope = NULL;
}

/*
 * Wait until no thread reads what was removed before: the hit paths
 * that may sleep read in utp_srcu's read sections, the trap in RCU's.
 */
void utp_unregister_wait(void)
{
	synchronize_rcu();
	synchronize_srcu(&utp_srcu);
}

/* From a probe handler's queued work: all of utprobe_unregister(). */
void utp_unregister(struct utprobe *up)
{
	u64 last;

	mutex_lock(&utp_mutex);
	utp_unregister_locked(up);
	last = utp_removals;
	mutex_unlock(&utp_mutex);
	utp_unregister_wait();
	utp_after_removals(last);
	utp_probe_release(up);
}
