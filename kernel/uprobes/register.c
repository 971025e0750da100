// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: registration.  A probe becomes a point in each process it
 * applies to (utp_add(), in place.c), in batches placed one process at a
 * time, and leaves them (remove.c); registrations from probe handlers
 * are deferred to a workqueue.  The exported API, and the engine's init.
 */
#include "internal.h"

static int utp_probe_init(struct utprobe *up)
{
	up->hits = alloc_percpu(u64);
	up->rets = NULL;
	up->ret_probe = NULL;
	if (up->hits && up->ret_handler) {
		up->rets = alloc_percpu(struct utprobe_ret_counts);
		up->ret_probe = kmalloc(sizeof(*up->ret_probe), GFP_KERNEL);
	}
	if (!up->hits || (up->ret_handler && (!up->rets || !up->ret_probe))) {
		utp_probe_free(up);
		return -ENOMEM;
	}
	if (up->ret_probe) {
		up->ret_probe->up = up;
		refcount_set(&up->ret_probe->ref, 1);
	}
	INIT_LIST_HEAD(&up->consumers);
	RB_CLEAR_NODE(&up->file_node);
	up->jscan_wlen = 0;	/* no scan yet */
	INIT_LIST_HEAD(&up->unsynced_node);
	INIT_LIST_HEAD(&up->jcounts);
	seqcount_init(&up->jseq);
	up->inode = NULL;
	up->insn = NULL;
	up->pid = 0;
	up->scope = NULL;
	up->gone = false;
	return 0;
}

/*
 * A probe to register, as utp_register() takes it: on @inode at @offset
 * (in the tree of @pid, if not NULL), or on @vaddr in the process @pid.
 * It holds a reference to @pid, and to @inode if not NULL.
 */
struct utp_spec {
	struct utprobe *up;
	struct inode *inode;
	loff_t offset;
	struct pid *pid;
	unsigned long vaddr;
	loff_t ref_offset;
};

struct utp_deferred {
	struct work_struct work;
	struct utp_spec spec;
	bool unregister;
};

/*
 * Registration: a batch of probes goes in with one pass per process.
 * Each probe is first looked at on its own (the instruction, the
 * process or the file); then, under utp_mutex, every place it goes to
 * is found (struct utp_map: the process, a file's mappings now), and
 * the places are sorted by process, to take each process once: its
 * threads get their engines, the int3s go in one after the other under
 * its running threads, then one utp_sync() for all of them.
 */

/* One probe to place in one process. */
struct utp_map {
	struct list_head node;
	struct mm_struct *mm;		/* mmget()ed */
	unsigned long vaddr;
	struct utprobe *up;
	struct utp_arch_insn ai;
};

static int utp_map_cmp(void *priv, const struct list_head *a,
		       const struct list_head *b)
{
	const struct utp_map *ma = list_entry(a, struct utp_map, node);
	const struct utp_map *mb = list_entry(b, struct utp_map, node);

	if (ma->mm != mb->mm)
		return ma->mm < mb->mm ? -1 : 1;
	return 0;
}

static void utp_map_free(struct utp_map *m)
{
	list_del(&m->node);
	mmput(m->mm);
	kfree(m);
}

/* The processes that map @up's file now: a place in each. */
static int utp_file_maps(struct utprobe *up, struct list_head *maps)
{
	struct address_space *mapping = up->inode->i_mapping;
	pgoff_t pgoff = up->offset >> PAGE_SHIFT;
	struct vm_area_struct *vma;
	struct utp_map *m;
	int ret = 0;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
		if (!(vma->vm_flags & VM_EXEC) ||
		    (vma->vm_flags & VM_MAYSHARE))
			continue;
		m = kmalloc(sizeof(*m), GFP_KERNEL);
		if (!m) {
			ret = -ENOMEM;
			break;
		}
		if (!mmget_not_zero(vma->vm_mm)) {
			kfree(m);
			continue;
		}
		m->mm = vma->vm_mm;
		m->vaddr = vma->vm_start + up->offset -
			   ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
		m->up = up;
		m->ai = *up->insn;
		list_add_tail(&m->node, maps);
	}
	i_mmap_unlock_read(mapping);
	return ret;
}

/*
 * The place of @spec, a probe on one process, and its instruction: read
 * from the text, or from the point there if it is probed already (the
 * text holds our int3 then).  utp_mutex held.
 */
static int utp_pid_map(struct utp_spec *spec, struct list_head *maps)
{
	struct task_struct *task = get_pid_task(spec->pid, PIDTYPE_TGID);
	struct utp_point *pt = NULL;
	u8 buf[UTP_MAX_INSN_BYTES];
	struct utp_proc *proc;
	struct utp_map *m;
	int ret;

	if (!task)
		return -ESRCH;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		put_task_struct(task);
		return -ENOMEM;
	}
	m->mm = get_task_mm(task);
	put_task_struct(task);
	if (!m->mm) {
		kfree(m);
		return -ESRCH;
	}
	proc = utp_proc_find(m->mm);
	if (proc)
		pt = xa_load(&proc->points, spec->vaddr);
	if (pt) {
		m->ai = pt->ai;
		ret = 0;
	} else {
		ret = utp_read_text(m->mm, spec->vaddr, buf, sizeof(buf));
		if (ret > 0 && buf[0] == UTP_BREAK_INSN)
			ret = -EBUSY;
		if (ret > 0)
			ret = utp_arch_analyze(&m->ai, buf, ret);
	}
	if (ret) {
		mmput(m->mm);
		kfree(m);
		return ret;
	}
	m->vaddr = spec->vaddr;
	m->up = spec->up;
	list_add_tail(&m->node, maps);
	return 0;
}

/*
 * Place what @maps holds for the process of @mm, the first of them, and
 * free those maps: the points first, then their int3s page by page, then
 * one utp_sync().  Probes on files skip the processes out of their
 * scope, and one that has left the place since it was found is no
 * error.  utp_mutex held.
 */
static int utp_place_proc(struct list_head *maps)
{
	struct mm_struct *mm = list_first_entry(maps, struct utp_map,
						node)->mm;
	struct task_struct *task = utp_mm_task(mm);
	struct utp_pokes pokes = {};
	struct utp_map *m, *next;
	struct utp_proc *proc;
	int ret = 0, r;

	list_for_each_entry(m, maps, node) {
		if (m->mm != mm)
			break;
		pokes.max++;
	}
	pokes.pk = kvmalloc_array(pokes.max, sizeof(*pokes.pk), GFP_KERNEL);
	if (!pokes.pk)
		pokes.max = 0;	/* each written at once, then */
	list_for_each_entry_safe(m, next, maps, node) {
		if (m->mm != mm)
			break;
		r = -ESRCH;
		if (task && !ret) {
			if (m->up->inode && !utp_in_scope(m->up, task))
				r = 0;
			else
				r = utp_add(m->up, task, m->vaddr, &m->ai,
					    UTP_ADD_LIVE, &pokes);
		}
		if (m->up->inode && utp_file_place_gone(r))
			r = 0;
		if (r && !ret)
			ret = r;
		utp_map_free(m);
		cond_resched();
	}
	r = utp_place_pokes(mm, &pokes, false);
	if (!ret)
		ret = r;
	proc = utp_proc_find(mm);
	if (proc && proc->unsynced) {
		proc->unsynced = false;
		utp_sync(proc);
	}
	kvfree(pokes.pk);
	if (task)
		put_task_struct(task);
	return ret;
}

/* Look at @spec's probe on its own, before it goes anywhere. */
static int utp_spec_check(struct utp_spec *spec, bool init)
{
	struct utprobe *up = spec->up;
	u8 buf[UTP_MAX_INSN_BYTES];
	struct utp_arch_insn *ai;
	int ret;

	/* a semaphore is a file's: aligned, past the ELF header */
	if (spec->ref_offset &&
	    (!spec->inode || spec->ref_offset < 0 ||
	     spec->ref_offset % sizeof(u16)))
		return -EINVAL;
	if (!spec->inode)
		return init ? utp_probe_init(up) : 0;
	if (!S_ISREG(spec->inode->i_mode))
		return -EINVAL;
	ret = utp_read_file_text(spec->inode, spec->offset, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ai = kmalloc(sizeof(*ai), GFP_KERNEL);
	if (!ai)
		return -ENOMEM;
	ret = utp_arch_analyze(ai, buf, ret);
	if (!ret && init)
		ret = utp_probe_init(up);
	if (ret) {
		kfree(ai);
		return ret;
	}
	up->insn = ai;
	return 0;
}

/*
 * Register the probes of @specs, all or none: see
 * utprobe_register_batch().  Each probe initialised first if @init.
 */
static int utp_register(struct utp_spec *specs, unsigned int n, bool init)
{
	struct utp_map *m, *next;
	unsigned int i, checked;
	LIST_HEAD(maps);
	int ret = 0;
	u64 last;

	for (checked = 0; checked < n && !ret; checked++) {
		ret = utp_spec_check(&specs[checked], init);
		cond_resched();
	}
	if (ret) {
		checked--;
		goto free;
	}
	mutex_lock(&utp_mutex);
	for (i = 0; i < n && !ret; i++) {
		struct utp_spec *spec = &specs[i];
		struct utprobe *up = spec->up;

		if (!spec->inode) {
			up->vaddr = spec->vaddr;
			up->pid = pid_nr(spec->pid);
			ret = utp_pid_map(spec, &maps);
			cond_resched();
			continue;
		}
		/*
		 * The inode and its file system, kept active as an open
		 * file keeps it: unmounted meanwhile (lazily, or by a caller
		 * that held no mount), it is shut down only after the probe
		 * has gone, never under an inode still referenced.
		 */
		if (!atomic_inc_not_zero(&spec->inode->i_sb->s_active)) {
			ret = -ENOENT;
			break;
		}
		/* the probe's from now: no new process may miss it */
		up->inode = spec->inode;
		ihold(up->inode);
		up->offset = spec->offset;
		up->ref_offset = spec->ref_offset;
		up->scope = get_pid(spec->pid);
		static_branch_inc(&utprobe_mmap_key);
		utp_files_add(up);
		ret = utp_file_maps(up, &maps);
		cond_resched();
	}
	list_sort(NULL, &maps, utp_map_cmp);
	while (!ret && !list_empty(&maps))
		ret = utp_place_proc(&maps);
	for (i = 0; ret && i < n; i++) {
		utp_unregister_locked(specs[i].up);
		cond_resched();
	}
	last = utp_removals_made();
	mutex_unlock(&utp_mutex);
	if (!ret)
		return 0;
	/* threads may have hit the probes whose int3s went in */
	utp_unregister_wait();
	utp_after_removals(last);
	for (i = 0; i < n; i++) {
		utp_probe_release(specs[i].up);
		cond_resched();
	}
free:
	for (i = 0; i < checked; i++) {
		kfree(specs[i].up->insn);
		specs[i].up->insn = NULL;
		if (init)
			utp_probe_free(specs[i].up);
		cond_resched();
	}
	list_for_each_entry_safe(m, next, &maps, node)
		utp_map_free(m);
	return ret;
}

static void utp_spec_put(struct utp_spec *spec)
{
	if (spec->inode)
		iput(spec->inode);
	put_pid(spec->pid);
}

/* @spec for @uspec; a reference to its inode and its pid taken. */
static int utp_spec_get(struct utp_spec *spec,
			const struct utprobe_spec *uspec)
{
	*spec = (struct utp_spec){
		.up = uspec->up,
		.offset = uspec->offset,
		.vaddr = uspec->vaddr,
		.ref_offset = uspec->ref_offset,
	};
	if (!uspec->inode && uspec->pid <= 0 && !uspec->tgid)
		return -ESRCH;
	if (uspec->tgid) {
		spec->pid = get_pid(uspec->tgid);
	} else if (uspec->pid) {
		spec->pid = find_get_pid(uspec->pid);
		if (!spec->pid)
			return -ESRCH;
	}
	if (uspec->inode) {
		ihold(uspec->inode);
		spec->inode = uspec->inode;
	}
	return 0;
}

/*
 * Calls from probe handlers.  A handler runs in a thread of a probed
 * process, which some changes must quiesce (see utp_add() and
 * utp_remove()), in a read section that an unregistration waits out,
 * and while the thread walks the list of probes at the point: so the
 * work is queued on utp_wq and done shortly after.  Calls from elsewhere
 * first wait for what was queued.
 */
static struct workqueue_struct *utp_wq;

/* Is current in a probe handler? */
static bool utp_in_handler(void)
{
	struct utp_thread *ut = utp_current_thread();

	return ut && ut->hit.in_handler;
}

static void utp_deferred_work(struct work_struct *work)
{
	struct utp_deferred *d = container_of(work, struct utp_deferred,
					      work);
	int ret = 0;

	if (d->unregister)
		utp_unregister(d->spec.up);
	else
		ret = utp_register(&d->spec, 1, false);
	if (ret)
		pr_debug("utprobes: registration from a handler: %d\n", ret);
	utp_spec_put(&d->spec);
	kfree(d);
}

/*
 * A registration or unregistration from outside handlers: first what was
 * queued is done.  If current is a thread of a probed process, it is in
 * the kernel meanwhile, where a quiescer need not wait for it (it stops
 * on its way back to user mode if still asked to).
 */
static struct utp_thread *utp_kernel_op_begin(void)
{
	struct utp_thread *ut = utp_current_thread();

	utp_set_in_work(ut, true);
	flush_workqueue(utp_wq);
	return ut;
}

static void utp_kernel_op_end(struct utp_thread *ut)
{
	utp_set_in_work(ut, false);
}

static void utp_defer(struct utp_deferred *d)
{
	INIT_WORK(&d->work, utp_deferred_work);
	queue_work(utp_wq, &d->work);
}

/*
 * Probes removed by utprobe_unregister_nosync(), whose handlers may run
 * still; under utp_mutex.  utp_sync_mutex serialises their release: a
 * caller of utprobe_unregister_sync() that finds none waits for the one
 * that took them away to release them.
 */
static LIST_HEAD(utp_unsynced);
static DEFINE_MUTEX(utp_sync_mutex);

/**
 * utprobe_unregister_nosync - remove a probe, without waiting for it
 * @up:		a registered probe
 *
 * Takes @up's breakpoints out of every process, under the running
 * threads, which it does not stop.  Threads
 * that hit @up before may still be running its handlers: @up must stay
 * as it is until utprobe_unregister_sync() has returned.  Removing many
 * probes this way and then calling utprobe_unregister_sync() once waits
 * for all of them at once.  From a probe handler, this is
 * utprobe_unregister().  Calling it again on a probe already removed
 * does nothing.  May sleep.
 */
void utprobe_unregister_nosync(struct utprobe *up)
{
	struct utp_deferred *d;
	struct utp_thread *ut;

	if (utp_in_handler()) {
		WRITE_ONCE(up->gone, true);
		d = kzalloc(sizeof(*d), GFP_KERNEL | __GFP_NOFAIL);
		d->spec.up = up;
		d->unregister = true;
		utp_defer(d);
		return;
	}
	ut = utp_kernel_op_begin();
	mutex_lock(&utp_mutex);
	utp_unregister_locked(up);
	if (up->hits && list_empty(&up->unsynced_node))
		list_add_tail(&up->unsynced_node, &utp_unsynced);
	mutex_unlock(&utp_mutex);
	utp_kernel_op_end(ut);
}
EXPORT_SYMBOL_GPL(utprobe_unregister_nosync);

/**
 * utprobe_unregister_sync - wait for probes removed without waiting
 *
 * When this returns, no handler of a probe that utprobe_unregister_nosync()
 * removed before the call runs any more, and what the kernel kept for
 * those probes is freed: they may be freed, or registered again, and
 * their module may go.  Not from a probe handler, whose own hit it
 * would wait for.  May sleep.
 */
void utprobe_unregister_sync(void)
{
	struct utprobe *up, *next;
	LIST_HEAD(list);
	u64 last;

	if (WARN_ON_ONCE(utp_in_handler()))
		return;
	mutex_lock(&utp_sync_mutex);
	mutex_lock(&utp_mutex);
	list_splice_init(&utp_unsynced, &list);
	last = utp_removals_made();
	mutex_unlock(&utp_mutex);
	utp_unregister_wait();
	/*
	 * Handlers that ran meanwhile may have queued the removal of one of
	 * these probes: done before they go.
	 */
	flush_workqueue(utp_wq);
	utp_after_removals(last);
	list_for_each_entry_safe(up, next, &list, unsynced_node) {
		list_del_init(&up->unsynced_node);
		utp_probe_release(up);
		utp_probe_free(up);
		cond_resched();
	}
	mutex_unlock(&utp_sync_mutex);
}
EXPORT_SYMBOL_GPL(utprobe_unregister_sync);

/**
 * utprobe_unregister - remove a probe
 * @up:		a probe registered with utprobe_register_pid() or
 *		utprobe_register_file()
 *
 * Takes @up's breakpoints out of every process, under the running
 * threads (see utprobe_unregister_nosync()), and waits until the
 * threads that hit it before have left its handlers.  When this
 * returns, no handler of @up runs any more, so the module may go.  From
 * a probe handler, the probe stops being hit at once but the removal is
 * queued: @up must then stay allocated until a later call from outside
 * handlers (at module exit, say) has returned.  Calling it again on a
 * probe already removed does nothing.  May sleep.
 */
void utprobe_unregister(struct utprobe *up)
{
	utprobe_unregister_nosync(up);
	if (!utp_in_handler())
		utprobe_unregister_sync();
}
EXPORT_SYMBOL_GPL(utprobe_unregister);

/**
 * utprobe_hits - how many times a probe was hit
 * @up:		a registered probe
 *
 * Counts the hits taken in the kernel and, for a probe that gives its
 * function's extent, those counted in stubs (see jump.c), in processes
 * that have gone too.  Does not sleep.
 *
 * Return: the sum of the per-CPU counts; hits being made meanwhile may
 * or may not be counted.
 */
u64 utprobe_hits(const struct utprobe *up)
{
	unsigned int seq;
	u64 sum;
	int cpu;

	if (!up->hits)
		return 0;
	/* a stub's count moves into @up->hits: not both or neither */
	do {
		seq = read_seqcount_begin(&up->jseq);
		sum = utp_jump_hits(up);
		for_each_possible_cpu(cpu)
			sum += *per_cpu_ptr(up->hits, cpu);
	} while (read_seqcount_retry(&up->jseq, seq));
	return sum;
}
EXPORT_SYMBOL_GPL(utprobe_hits);

/**
 * utprobe_set_trap_safe - let a probe's handlers run in the trap, or not
 * @up:		a probe, registered or not
 * @safe:	whether its handler and return handler may run in the int3
 *		trap from now on, as with %UTPROBE_TRAP_SAFE
 *
 * For a probe whose handlers sleep only some of the time: a handler
 * that records values it must fetch from user memory when its event is
 * on, and does nothing of the kind while it is off, is trap-safe while
 * it is off.  Its hits then cost the trap alone.  A probe with
 * %UTPROBE_TRAP_SAFE in its flags is trap-safe whatever this says.
 *
 * When @safe is false, this waits until no trap that found the probe
 * trap-safe is still running, so the caller may then let the handlers
 * sleep; not one hit is lost across the change.  The caller serializes
 * the calls for one probe.  Context: may sleep if @safe is false.
 */
void utprobe_set_trap_safe(struct utprobe *up, bool safe)
{
	if (safe) {
		WRITE_ONCE(up->trap_grace, true);
		/* pairs with the acquire in utp_trap_ok() */
		smp_store_release(&up->trap_now, true);
		return;
	}
	if (!READ_ONCE(up->trap_grace))
		return;
	WRITE_ONCE(up->trap_now, false);
	/* the trap runs with interrupts off: an RCU read-side section */
	synchronize_rcu();
	WRITE_ONCE(up->trap_grace, false);
}
EXPORT_SYMBOL_GPL(utprobe_set_trap_safe);

/* From a probe handler: each registration of @specs queued. */
static int utp_register_deferred(struct utp_spec *specs, unsigned int n)
{
	struct utp_deferred **d;
	unsigned int i;
	int ret = 0;

	d = kcalloc(n, sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		d[i] = kzalloc(sizeof(*d[i]), GFP_KERNEL);
		ret = d[i] ? utp_probe_init(specs[i].up) : -ENOMEM;
	}
	if (ret) {
		while (i--) {
			if (d[i])
				utp_probe_free(specs[i].up);
			kfree(d[i]);
		}
		kfree(d);
		return ret;
	}
	for (i = 0; i < n; i++) {
		specs[i].up->pid = specs[i].inode ? 0 : pid_nr(specs[i].pid);
		specs[i].up->vaddr = specs[i].vaddr;
		d[i]->spec = specs[i];
		/* the work's now */
		specs[i].inode = NULL;
		specs[i].pid = NULL;
		utp_defer(d[i]);
	}
	kfree(d);
	return 0;
}

/**
 * utprobe_register_pid - probe an instruction in one process
 * @up:		the probe; its handler, name and data set by the caller
 * @nr:		the process's id, in the caller's pid namespace
 * @vaddr:	the instruction's address there
 *
 * The breakpoint goes in under the process's running threads, which
 * execute it from the time this returns (see utprobe_register_batch()).
 * Children the process forks do not inherit the probe.  May sleep.
 * From a probe handler, the registration is queued and done shortly
 * after; this then answers 0 or -%ESRCH, and a later failure leaves the
 * probe without effect.
 *
 * Return: 0; -%ESRCH no such process (or it is exiting); -%EFAULT
 * @vaddr is not in private executable memory of the process;
 * -%EILSEQ no valid instruction there; -%EOPNOTSUPP the instruction
 * cannot be probed, or the process is 32-bit; -%EBUSY another breakpoint
 * is there (a debugger's or a mainline uprobe's); -%EAGAIN the text at
 * @vaddr was replaced while the probe went in; -%EINTR a fatal signal
 * came; -%ENOMEM out of memory, or no room for an out-of-line slot
 * within reach of @vaddr.
 */
int utprobe_register_pid(struct utprobe *up, pid_t nr, unsigned long vaddr)
{
	struct utprobe_spec spec = { .up = up, .pid = nr, .vaddr = vaddr };

	return utprobe_register_batch(&spec, 1);
}
EXPORT_SYMBOL_GPL(utprobe_register_pid);

/**
 * utprobe_register_batch - register many probes at once
 * @specs:	the probes and where each goes
 * @n:		how many
 *
 * Registers each probe of @specs as utprobe_register_pid() or
 * utprobe_register_file_scoped() would, all or none: on error, none of
 * them is left registered.  The breakpoints go into each process in one
 * pass, under its running threads (which are stopped only to take out
 * the point of text that was mapped over, or to find out whose an
 * int3 found in the text is), followed by one synchronisation of the
 * process's threads with its new text: when this returns, every thread
 * that executes a probed instruction hits its probe.  May sleep.  From a
 * probe handler, each registration is queued and done shortly after;
 * this then answers 0 or an error found at once, and a later failure
 * leaves that probe without effect.
 *
 * A probe on a file may have a semaphore (&utprobe_spec.ref_offset): it
 * is raised in each process the probe goes into, once the process maps
 * the file's data (a library's data is mapped after its text), and a
 * forked child keeps it raised for its own probes; it is lowered again
 * in each process the probe leaves.
 *
 * Return: 0, or the error of the first probe that failed, as
 * utprobe_register_pid() and utprobe_register_file_scoped() give them;
 * -%EINVAL for a semaphore on a probe on one process, or at an odd
 * offset.
 */
int utprobe_register_batch(struct utprobe_spec *specs, unsigned int n)
{
	struct utp_spec *s;
	unsigned int i;
	int ret = 0;

	if (!n)
		return 0;
	s = kvcalloc(n, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = utp_spec_get(&s[i], &specs[i]);
	if (!ret && utp_in_handler()) {
		ret = utp_register_deferred(s, n);
	} else if (!ret) {
		struct utp_thread *ut = utp_kernel_op_begin();

		ret = utp_register(s, n, true);
		utp_kernel_op_end(ut);
	}
	for (i = 0; i < n; i++)
		utp_spec_put(&s[i]);
	kvfree(s);
	return ret;
}
EXPORT_SYMBOL_GPL(utprobe_register_batch);

/**
 * utprobe_register_file_scoped - probe an instruction of an executable file
 * @up:		the probe; its handler, name and data set by the caller
 * @inode:	the file, a 64-bit ELF executable or shared library
 * @offset:	the instruction's offset in the file
 * @scope:	a process (caller's pid namespace) whose tree alone gets
 *		the probe, or 0 for every process
 *
 * Every process (of the tree) that maps the file executable gets the
 * probe: those that do now (the breakpoint goes in under their running
 * threads, as utprobe_register_batch() says), those that map it later
 * (before they can run the new text), and the children they fork.  May
 * sleep.  From a probe handler, the registration is queued and done
 * shortly after; this then answers 0, and a later failure leaves the
 * probe without effect.  The probe keeps @inode, and its file system
 * active (as an open file does, though not its mount), until it is
 * unregistered: a file system unmounted meanwhile is shut down after.
 *
 * Return: 0; -%EINVAL @inode is not a regular file; -%ENXIO @offset is
 * beyond its end; -%ENOEXEC it is not a 64-bit ELF file; -%EFAULT
 * @offset is not in an executable segment; -%EILSEQ no valid instruction
 * there; -%EOPNOTSUPP the instruction cannot be probed; -%EBUSY a process
 * has another breakpoint there; -%ESRCH no process @scope; -%EINTR;
 * -%ENOMEM (or no room for an out-of-line slot in a process); -%ENOENT
 * its file system is being shut down.
 * On error, no process has the probe.
 */
int utprobe_register_file_scoped(struct utprobe *up, struct inode *inode,
				 loff_t offset, pid_t scope)
{
	struct utprobe_spec spec = {
		.up = up, .inode = inode, .offset = offset, .pid = scope,
	};

	return utprobe_register_batch(&spec, 1);
}
EXPORT_SYMBOL_GPL(utprobe_register_file_scoped);

/**
 * utprobe_register_file - probe an instruction of an executable file
 * @up:		the probe; its handler, name and data set by the caller
 * @inode:	the file, a 64-bit ELF executable or shared library
 * @offset:	the instruction's offset in the file
 *
 * utprobe_register_file_scoped() for every process.
 *
 * Return: as utprobe_register_file_scoped().
 */
int utprobe_register_file(struct utprobe *up, struct inode *inode,
			  loff_t offset)
{
	return utprobe_register_file_scoped(up, inode, offset, 0);
}
EXPORT_SYMBOL_GPL(utprobe_register_file);

/* Every thread's callbacks, each with the code it concerns */
static const struct utrace_engine_ops utp_engine_ops = {
	.report_quiesce = utp_report_quiesce,
	.report_signal = utp_report_signal,
	.report_clone = utp_report_clone,
	.report_exec = utp_report_exec,
	.report_death = utp_report_death,
};

static const struct utp_above utp_layers = {
	.engine = &utp_engine_ops,
	.proc_init = utp_jump_proc_init,
	.proc_free = utp_jump_proc_free,
	.thread_unlink = utp_ret_free_all,
	.fork_free = utp_fork_work_free,
	.consumer_free = utp_jump_fold,
};

static int __init utp_init(void)
{
	utp_core_init(&utp_layers);
	utp_wq = alloc_ordered_workqueue("utprobes", 0);
	if (!utp_wq)
		return -ENOMEM;
	return utp_trap_init();
}
subsys_initcall(utp_init);
