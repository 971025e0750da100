// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: which points jump, by the rules of jump.c, and their bytes
 * written in and out in the order text_poke_bp() uses, each time after
 * jump_look.c has seen every thread outside the windows.
 */
#include <linux/moduleparam.h>
#include <linux/once.h>
#include <linux/random.h>
#include <linux/siphash.h>

#include "jump.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "utprobes."

/*
 * Are handlers called from stubs, by a system call (utp_jump_sys())?
 * Off: under emulation the call costs about what the trap does.  Read
 * when a point is looked at: a change reaches a probe at its next look
 * (placement, its event going on or off).
 */
static bool utp_syscall_handlers;
module_param_named(syscall_handlers, utp_syscall_handlers, bool, 0644);
MODULE_PARM_DESC(syscall_handlers,
		 "enter probes with handlers by a jump to a stub that calls them by a system call");

/*
 * Decisions.
 */

/* The first consumer of @pt, its only one when it may jump. */
static struct utp_consumer *utp_jump_consumer(struct utp_point *pt)
{
	return list_first_entry_or_null(&pt->consumers, struct utp_consumer,
					point_node);
}

/* May @pt be entered by a jump, as far as its probes go?  utp_mutex held. */
static u8 utp_jump_why(struct utp_point *pt)
{
	struct utp_consumer *c = utp_jump_consumer(pt);
	struct utprobe *up;

	if (READ_ONCE(pt->jforeign))
		return UTP_JW_DEBUGGER;
	/* mainline's int3s go in without asking: not in its windows */
	if (test_bit(MMF_HAS_UPROBES, &pt->proc->mm->flags))
		return UTP_JW_UPROBES;
	if (!c || !c->up->func_size)
		return UTP_JW_OFF;
	up = c->up;
	if (!list_is_singular(&pt->consumers) || READ_ONCE(pt->ret_site))
		return UTP_JW_SHARED;
	/* a handler may be called from its stub: utp_jump_sys() */
	if (up->ret_handler || READ_ONCE(up->gone) ||
	    (up->handler && !READ_ONCE(up->counting) &&
	     !READ_ONCE(utp_syscall_handlers)))
		return UTP_JW_HANDLER;
	if (READ_ONCE(pt->stale) || READ_ONCE(pt->dbg_bp) || pt->moved_to)
		return UTP_JW_TEXT;
	return UTP_JW_PENDING;
}

/*
 * Is @pt, which may jump, to be entered by a handler stub: does its one
 * probe's handler do anything?  utp_mutex held.
 */
static bool utp_jump_sys(struct utp_point *pt)
{
	struct utprobe *up = utp_jump_consumer(pt)->up;

	return up->handler && !READ_ONCE(up->counting);
}

/* Does @why hold for good, the point's text and function being what they are? */
static bool utp_jump_decided(u8 why)
{
	return (why >= UTP_JW_WINDOW && why <= UTP_JW_PAGE) ||
	       why == UTP_JW_TEXT;
}

/* Is any point of @proc strictly inside [@vaddr, @vaddr + @len)? */
static bool utp_jump_point_inside(struct utp_proc *proc, unsigned long vaddr,
				  unsigned int len)
{
	unsigned long idx = vaddr + 1;

	return len > 1 && xa_find(&proc->points, &idx, vaddr + len - 1,
				  XA_PRESENT);
}

/*
 * The key of the scans' hashes, random: a process in a probe's scope
 * that writes its own copy of the function cannot make bytes of the
 * same hash, and so have its outcome taken for another process's.
 */
static siphash_key_t utp_jscan_key;

/*
 * utp_arch_jump_scan() of @up's function, as @buf holds it, for a
 * window of @wlen bytes: the outcome of the last scan of the same bytes
 * if there was one.  A library's function reads the same in every
 * process that maps it, and decoding it all for each of them (every
 * fork and exec of a process with thousands of probes) would cost far
 * more than the hash.  utp_mutex held.
 */
static int utp_jump_scan(struct utprobe *up, const u8 *buf, u8 wlen)
{
	u64 hash;
	int ret;

	get_random_once(&utp_jscan_key, sizeof(utp_jscan_key));
	hash = siphash(buf, up->func_size, &utp_jscan_key);

	if (up->jscan_wlen == wlen && up->jscan_hash == hash)
		return up->jscan_ret;
	ret = utp_arch_jump_scan(buf, up->func_size, up->func_pos, wlen);
	/* not for want of memory: the next look scans again */
	if (ret == -ENOMEM)
		return ret;
	up->jscan_hash = hash;
	up->jscan_wlen = wlen;
	up->jscan_ret = ret;
	return ret;
}

/*
 * The text a jump look reads, a chunk at a time: the points are looked
 * at in address order, and the functions of a library lie side by side,
 * so that one read of a chunk serves many of them.
 */
#define UTP_JUMP_CHUNK		SZ_64K

struct utp_jtext {
	u8 *buf;			/* UTP_JUMP_CHUNK bytes, or NULL */
	unsigned long start;		/* where buf[0] was read from */
	unsigned int len;		/* how much was read there */
	u8 *big;			/* a function longer than a chunk */
};

/*
 * @size bytes of @proc's text at @addr, read as a debugger reads them
 * (without our int3s and jumps): in @t's chunk, read anew at @addr if
 * they are not, up to the end of the mapping.  NULL if they cannot all
 * be read, or no memory (*@nomem).  Valid until the next call.
 */
static const u8 *utp_jump_text(struct utp_proc *proc, struct utp_jtext *t,
			       unsigned long addr, unsigned long size,
			       bool *nomem)
{
	struct vm_area_struct *vma;
	unsigned long end = 0;
	int got;

	*nomem = false;
	if (t->buf && addr >= t->start && addr + size <= t->start + t->len)
		return t->buf + (addr - t->start);
	if (!t->buf)
		t->buf = kvmalloc(UTP_JUMP_CHUNK, GFP_KERNEL);
	*nomem = !t->buf;
	if (!t->buf)
		return NULL;
	/* a chunk ends with the mapping: what follows is not this text */
	mmap_read_lock(proc->mm);
	vma = vma_lookup(proc->mm, addr);
	if (vma)
		end = min(vma->vm_end, addr + UTP_JUMP_CHUNK);
	mmap_read_unlock(proc->mm);
	t->len = 0;
	if (end >= addr + size) {
		got = access_remote_vm(proc->mm, addr, t->buf, end - addr,
				       FOLL_FORCE);
		t->start = addr;
		t->len = got;
		return got >= size ? t->buf : NULL;
	}
	/* longer than a chunk, or beyond its mapping: on its own */
	kvfree(t->big);
	t->big = kvmalloc(size, GFP_KERNEL);
	*nomem = !t->big;
	if (!t->big || access_remote_vm(proc->mm, addr, t->big, size,
					FOLL_FORCE) != size)
		return NULL;
	return t->big;
}

static void utp_jump_text_free(struct utp_jtext *t)
{
	kvfree(t->buf);
	kvfree(t->big);
}

/*
 * Look at @pt's function, read through @t, and make its stub:
 * UTP_JW_PENDING if it may jump now, or why not.  utp_mutex held.
 */
static u8 utp_jump_prepare(struct utp_proc *proc, struct utp_point *pt,
			   struct utp_jtext *t)
{
	struct utprobe *up = utp_jump_consumer(pt)->up;
	unsigned long size = up->func_size, pos = up->func_pos;
	struct utp_arch_window w;
	const u8 *buf;
	bool nomem;
	int ret;

	if (pt->jump && pt->jump->sys == utp_jump_sys(pt))
		return utp_jump_point_inside(proc, pt->vaddr, pt->jump->len) ?
		       UTP_JW_POINT : UTP_JW_PENDING;
	if (pos >= size || size > UTPROBE_FUNC_MAX || pt->vaddr < pos)
		return UTP_JW_DECODE;
	buf = utp_jump_text(proc, t, pt->vaddr - pos, size, &nomem);
	if (!buf)
		return nomem ? UTP_JW_NOMEM : UTP_JW_TEXT;
	if (memcmp(buf + pos, pt->ai.bytes, utp_arch_insn_len(&pt->ai)))
		return UTP_JW_TEXT;
	ret = utp_arch_jump_window(&w, buf + pos, size - pos);
	if (ret)
		return ret == -EILSEQ ? UTP_JW_DECODE : UTP_JW_WINDOW;
	ret = utp_jump_scan(up, buf, w.len);
	if (ret)
		return ret == -EXDEV ? UTP_JW_BRANCH : UTP_JW_DECODE;
	if ((pt->vaddr ^ (pt->vaddr + w.len - 1)) & PAGE_MASK)
		return UTP_JW_PAGE;
	if (utp_jump_point_inside(proc, pt->vaddr, w.len))
		return UTP_JW_POINT;
	ret = utp_jump_make(proc, pt->vaddr, &w, buf + pos, utp_jump_sys(pt),
			    &pt->jump);
	return ret == -ENOMEM ? UTP_JW_NOMEM : ret ? UTP_JW_REACH :
	       UTP_JW_PENDING;
}

/*
 * Text.
 */

/*
 * Write @pk[0..@n) (by address), a page at a time; mmap_lock held.  A
 * copy of a page the process's memory cgroup could not have yet is
 * tried again a few times: a jump's bytes left half out are worse than
 * a wait.  A byte written already reads -EBUSY the next time (it is not
 * ->old any more), as does one that another changed: either way it is
 * not the jump's to write.
 */
static void utp_jump_pokes(struct mm_struct *mm, struct utp_poke *pk,
			   unsigned int n)
{
	unsigned int i, j, tries;
	bool again;

	for (tries = 0; tries < 10; tries++) {
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n; j++)
				if ((pk[j].vaddr ^ pk[i].vaddr) & PAGE_MASK)
					break;
			utp_poke_page_locked(mm, pk + i, j - i, false);
		}
		for (i = 0, again = false; i < n; i++)
			again |= pk[i].ret == -ENOMEM;
		if (!again)
			return;
		msleep(20);
	}
	WARN_ONCE(1, "utprobes: no memory to write a jump's bytes\n");
}

/* The pokes of @pt's jump's tail, in or out, at @vaddr; how many. */
unsigned int utp_jump_tail(struct utp_point *pt, unsigned long vaddr,
			   bool in, struct utp_poke *pk)
{
	struct utp_jump *j = pt->jump;
	unsigned int i;

	for (i = 1; i < UTP_JUMP_SIZE; i++)
		pk[i - 1] = (struct utp_poke){
			.vaddr = vaddr + i,
			.old = in ? j->orig[i] : j->jmp[i],
			.new = in ? j->jmp[i] : j->orig[i],
		};
	return UTP_JUMP_SIZE - 1;
}

/*
 * @c counts what @j counts from now on, if it does not yet.  utp_mutex
 * held.  Returns 0 or -ENOMEM.
 */
int utp_jump_count_for(struct utp_consumer *c, const struct utp_jump *j)
{
	struct utp_jcount *jc;

	if (c->jc)
		return 0;
	jc = kmalloc(sizeof(*jc), GFP_KERNEL_ACCOUNT);
	if (!jc)
		return -ENOMEM;
	jc->j = j;
	jc->base = utp_jump_sum(j);
	list_add_tail_rcu(&jc->node, &c->up->jcounts);
	c->jc = jc;
	return 0;
}

/* Take @pt's tail back out under its int3, in a failed write_in. */
static void utp_jump_undo_tail(struct utp_proc *proc, struct utp_point *pt)
{
	struct utp_poke tail[UTP_JUMP_SIZE - 1];

	utp_poke_page_locked(proc->mm, tail,
			     utp_jump_tail(pt, pt->vaddr, false, tail), false);
	utp_jump_gone(proc, pt);
	pt->jwhy = UTP_JW_TEXT;
}

/*
 * Put the jumps of @pts[0..@n) (by address) in, their bodies set and
 * every thread looked at (utp_jump_grace()): the tails under the int3s,
 * a sync, then the jmp opcodes over them, a sync.  Each ends with jwhy
 * UTP_JW_JUMP, or why not.  @pk holds a tail's pokes for each.
 * utp_mutex held.
 */
static void utp_jump_write_in(struct utp_proc *proc, struct utp_point **pts,
			      unsigned int n, struct utp_poke *pk)
{
	struct mm_struct *mm = proc->mm;
	unsigned int i, k, np = 0;
	bool traced;
	u8 why;

	/* counted from here on, or still; a handler's hits count as traps' */
	for (i = 0, k = 0; i < n; i++) {
		if (pts[i]->jump->sys ||
		    !utp_jump_count_for(utp_jump_consumer(pts[i]),
					pts[i]->jump)) {
			pts[k++] = pts[i];
			continue;
		}
		pts[i]->jwhy = UTP_JW_NOMEM;
		WRITE_ONCE(pts[i]->jbody, 0);
	}
	n = k;
	mmap_write_lock(mm);
	/*
	 * Looked at again under the lock that debuggers' and mainline's
	 * writes take too: one may have come during the look at the
	 * threads, its breakpoint over the int3, which a jump would hide.
	 */
	traced = utp_jump_traced(proc);
	for (i = 0, k = 0; i < n; i++) {
		why = traced ? UTP_JW_PTRACE : utp_jump_why(pts[i]);
		if (why == UTP_JW_PENDING) {
			pts[k++] = pts[i];
			continue;
		}
		pts[i]->jwhy = why;
		WRITE_ONCE(pts[i]->jbody, 0);
	}
	/* a traced process is looked at again, as utp_jump_place() does */
	if (traced && n)
		utp_jump_kick_later(proc, HZ);
	n = k;
	for (i = 0; i < n; i++) {
		WRITE_ONCE(pts[i]->jumped, true);
		atomic_inc(&proc->njumped);
		np += utp_jump_tail(pts[i], pts[i]->vaddr, true, pk + np);
	}
	utp_jump_pokes(mm, pk, np);
	for (i = 0; i < n; i++) {
		for (k = 0; k < UTP_JUMP_SIZE - 1; k++)
			if (pk[i * (UTP_JUMP_SIZE - 1) + k].ret)
				break;
		/* not the bytes expected: what went in comes out */
		if (k < UTP_JUMP_SIZE - 1)
			utp_jump_undo_tail(proc, pts[i]);
	}
	mmap_write_unlock(mm);
	utp_sync(proc);

	mmap_write_lock(mm);
	for (i = 0, np = 0; i < n; i++)
		if (READ_ONCE(pts[i]->jumped))
			pk[np++] = (struct utp_poke){
				.vaddr = pts[i]->vaddr, .old = UTP_BREAK_INSN,
				.new = JMP32_INSN_OPCODE, .pt = pts[i],
				.up = utp_jump_consumer(pts[i])->up,
			};
	utp_jump_pokes(mm, pk, np);
	for (i = 0, k = 0; i < n; i++) {
		if (!READ_ONCE(pts[i]->jumped))
			continue;
		if (!pk[k++].ret)
			pts[i]->jwhy = UTP_JW_JUMP;
		else	/* the int3 stayed: its tail goes back under it */
			utp_jump_undo_tail(proc, pts[i]);
	}
	mmap_write_unlock(mm);
	utp_sync(proc);
	/* a trap on those that failed runs the text again */
	for (i = 0; i < n; i++)
		if (!READ_ONCE(pts[i]->jumped))
			WRITE_ONCE(pts[i]->jbody, 0);
}

/*
 * Take the jumps of @pts[0..@n) out: the int3 over each jmp opcode, a
 * sync, then the tail back, a sync.  Their probes' hits are the trap's
 * again.  If @wait, until every thread has been seen past the stubs'
 * counts (utp_jump_grace()), so that a call begun before this returns
 * is counted before it does.  utp_mutex held.
 *
 * Returns true if a page lookup gave up (-EINTR: current is dying) and
 * left some jump in, whole or its tail under the int3: those stay
 * jumped, their traps going on in the stub, for another to finish
 * (utp_jump_write_out_any()).
 */
static bool utp_jump_write_out(struct utp_proc *proc, struct utp_point **pts,
			       unsigned int n, u8 why, bool wait,
			       struct utp_poke *pk)
{
	struct utp_jgp g = { .out = true, .pts = pts, .n = n };
	struct mm_struct *mm = proc->mm;
	unsigned int i, k, np;
	bool intr = false;

	if (mmget_not_zero(mm)) {
		mmap_write_lock(mm);
		for (i = 0, np = 0; i < n; i++)
			if (READ_ONCE(pts[i]->jumped))
				pk[np++] = (struct utp_poke){
					.vaddr = pts[i]->vaddr,
					.old = JMP32_INSN_OPCODE,
					.new = UTP_BREAK_INSN, .pt = pts[i],
				};
		utp_jump_pokes(mm, pk, np);
		/* a jmp opcode left: no tail may go back */
		for (i = 0; i < np; i++)
			intr |= pk[i].ret == -EINTR;
		mmap_write_unlock(mm);
		utp_sync(proc);
		mmap_write_lock(mm);
		for (i = 0, np = 0; !intr && i < n; i++)
			if (READ_ONCE(pts[i]->jumped))
				np += utp_jump_tail(pts[i], pts[i]->vaddr, false,
						    pk + np);
		utp_jump_pokes(mm, pk, np);
		for (i = 0, np = 0; !intr && i < n; i++) {
			bool left = false;

			if (!READ_ONCE(pts[i]->jumped))
				continue;
			for (k = 0; k < UTP_JUMP_SIZE - 1; k++)
				left |= pk[np + k].ret == -EINTR;
			np += UTP_JUMP_SIZE - 1;
			/* its tail under the int3: still a jump's */
			if (!left)
				utp_jump_gone(proc, pts[i]);
			intr |= left;
		}
		mmap_write_unlock(mm);
		utp_sync(proc);
		mmput(mm);
	}
	for (i = 0; i < n; i++) {
		if (intr && READ_ONCE(pts[i]->jumped))
			continue;
		WRITE_ONCE(pts[i]->jbody, 0);
		pts[i]->jwhy = why;
	}
	if (wait && !intr)
		utp_jump_grace(proc, &g);
	return intr;
}

/* A utp_jump_write_out() done by a worker, for a dying caller. */
struct utp_jump_out_work {
	struct utp_proc *proc;
	struct utp_point **pts;
	unsigned int n;
	u8 why;
	struct utp_poke *pk;
};

static void utp_jump_out_fn(void *arg)
{
	struct utp_jump_out_work *w = arg;

	/* the caller, waiting, holds utp_mutex for us; it does not wait */
	utp_jump_write_out(w->proc, w->pts, w->n, w->why, false, w->pk);
}

/*
 * utp_jump_write_out(), but for a caller that has, or gets meanwhile, a
 * fatal signal pending: its text writes fail (the page lookups give up
 * for a dying task) and would leave a jump half out, so a worker makes
 * them, or finishes them.
 */
static void utp_jump_write_out_any(struct utp_proc *proc,
				   struct utp_point **pts, unsigned int n,
				   u8 why, bool wait, struct utp_poke *pk)
{
	struct utp_jump_out_work w = {
		.proc = proc, .pts = pts, .n = n, .why = why, .pk = pk,
	};

	if (!fatal_signal_pending(current) &&
	    !utp_jump_write_out(proc, pts, n, why, wait, pk))
		return;
	utp_call_unkillable(utp_jump_out_fn, &w);
}

/* utp_jump_write_out() of those of @pts[0..@n) that are in. */
void utp_jump_out(struct utp_proc *proc, struct utp_point **pts,
		  unsigned int n, u8 why, bool wait)
{
	struct utp_poke *pk;
	unsigned int i, m = 0;

	for (i = 0; i < n; i++)
		if (READ_ONCE(pts[i]->jumped))
			pts[m++] = pts[i];
	if (!m)
		return;
	pk = kvmalloc_array(m * (UTP_JUMP_SIZE - 1), sizeof(*pk), GFP_KERNEL);
	if (pk) {
		utp_jump_write_out_any(proc, pts, m, why, wait, pk);
		kvfree(pk);
		return;
	}
	/* one at a time, then */
	for (i = 0; i < m; i++) {
		struct utp_poke one[UTP_JUMP_SIZE - 1];

		utp_jump_write_out_any(proc, pts + i, 1, why, wait, one);
	}
}

/*
 * Put in the jumps of the points of @proc that may have one now, and
 * take out those that may not any more.  utp_mutex held, the mm live.
 */
static void utp_jump_place(struct utp_proc *proc)
{
	unsigned int max = atomic_read(&proc->npoints), n = 0, nout = 0, i;
	struct utp_point **pts, **outs, **switches, *pt;
	unsigned int nswitch = 0;
	bool traced = utp_jump_traced(proc), retry = false, *busy;
	struct utp_jtext text = {};
	struct utp_poke *pk;
	unsigned long idx;
	u8 why;

	if (!max)
		return;
	pts = kvmalloc_array(max, sizeof(*pts), GFP_KERNEL);
	outs = kvmalloc_array(max, sizeof(*outs), GFP_KERNEL);
	switches = kvmalloc_array(max, sizeof(*switches), GFP_KERNEL);
	busy = kvcalloc(max, sizeof(*busy), GFP_KERNEL);
	pk = kvmalloc_array(max * (UTP_JUMP_SIZE - 1), sizeof(*pk),
			    GFP_KERNEL);
	if (!pts || !outs || !switches || !busy || !pk)
		goto out;
	xa_for_each(&proc->points, idx, pt) {
		why = utp_jump_why(pt);
		if (why == UTP_JW_PENDING && traced)
			why = UTP_JW_PTRACE;
		if (READ_ONCE(pt->jumped)) {
			/* a handler came or went: the other kind of stub */
			if (why == UTP_JW_PENDING &&
			    pt->jump->sys != utp_jump_sys(pt) && nswitch < max) {
				switches[nswitch++] = pt;
				continue;
			}
			if (why != UTP_JW_PENDING && nout < max)
				outs[nout++] = pt;
			pt->jwhy = why == UTP_JW_PENDING ? UTP_JW_JUMP : why;
			continue;
		}
		/* what the text and the function decide stays decided */
		if (why == UTP_JW_PENDING && !utp_jump_decided(pt->jwhy))
			why = utp_jump_prepare(proc, pt, &text);
		else if (why == UTP_JW_PENDING)
			why = pt->jwhy;
		pt->jwhy = why;
		if (why == UTP_JW_PENDING && n < max)
			pts[n++] = pt;
		retry |= why == UTP_JW_PTRACE;
		cond_resched();
	}
	if (nout)
		utp_jump_out(proc, outs, nout, traced ? UTP_JW_PTRACE :
			     UTP_JW_HANDLER, true);
	if (nswitch) {
		/* out now, in with their new stubs at the next look */
		utp_jump_out(proc, switches, nswitch, UTP_JW_PENDING, true);
		utp_jump_kick(proc);
	}
	if (n) {
		struct utp_jgp g = { .pts = pts, .n = n, .busy = busy };
		unsigned int m = 0;

		/* a trap on the int3 goes on in the stub from here on */
		for (i = 0; i < n; i++) {
			struct utp_jump *j = pts[i]->jump;

			/* pairs with the acquire in utp_jump_through() */
			smp_store_release(&pts[i]->jbody, j->stub + j->info.body);
		}
		if (!utp_jump_grace(proc, &g))
			memset(busy, 1, n * sizeof(*busy));
		for (i = 0; i < n; i++) {
			if (busy[i]) {
				pts[i]->jwhy = UTP_JW_BUSY;
				WRITE_ONCE(pts[i]->jbody, 0);
				retry = true;
			} else {
				pts[m++] = pts[i];
			}
		}
		if (m)
			utp_jump_write_in(proc, pts, m, pk);
	}
	if (!retry)
		proc->jump_tries = 0;
	else if (++proc->jump_tries < UTP_JUMP_TRIES || traced)
		/* a traced process is looked at again, less often */
		utp_jump_kick_later(proc, traced ? HZ : HZ / 50);
out:
	kvfree(pts);
	kvfree(outs);
	kvfree(switches);
	kvfree(busy);
	kvfree(pk);
	utp_jump_text_free(&text);
}

void utp_jump_work(struct work_struct *work)
{
	struct utp_proc *proc = container_of(to_delayed_work(work),
					     struct utp_proc, jump_work);

	mutex_lock(&utp_mutex);
	if (!READ_ONCE(proc->dead) && mmget_not_zero(proc->mm)) {
		/* stubs and counters are the process's memory */
		struct mem_cgroup *memcg = get_mem_cgroup_from_mm(proc->mm);
		struct mem_cgroup *old = set_active_memcg(memcg);

		utp_jump_place(proc);
		set_active_memcg(old);
		mem_cgroup_put(memcg);
		mmput(proc->mm);
	}
	mutex_unlock(&utp_mutex);
	kref_put(&proc->kref, utp_proc_release);
}

/* Look at @proc's points for jumps after @delay, with a reference. */
void utp_jump_kick_later(struct utp_proc *proc, unsigned long delay)
{
	if (!kref_get_unless_zero(&proc->kref))
		return;
	if (!queue_delayed_work(system_wq, &proc->jump_work, delay))
		kref_put(&proc->kref, utp_proc_release);
}

/* Look at @proc's points for jumps soon. */
void utp_jump_kick(struct utp_proc *proc)
{
	utp_jump_kick_later(proc, 0);
}
