// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: debuggers' accesses to probed text.
 *
 * A debugger reads and writes text with forced remote accesses (ptrace's
 * PEEKTEXT and POKETEXT, /proc/PID/mem), which come here for each page.
 * It is shown the text as it would be without our int3s: the bytes it
 * saves under the breakpoints it inserts, the prologues it analyses, the
 * instructions it disassembles and copies to step out of line are the
 * real ones.  Its writes over a point keep our int3 in the text: an int3
 * written there is its breakpoint (pt->dbg_bp), which a hit then reports
 * to it as its own (__utp_hit()); the original byte written back is that
 * breakpoint's removal.  Any other byte replaces the instruction, and
 * our int3 with it: the point is not hit again, as with mainline uprobes.
 *
 * The caller holds mmap_lock for reading; points are found under RCU.
 * pt->dbg_bp is written here only, under that lock of the point's mm.
 */
#include "internal.h"

/*
 * The first point of @proc at or after *@idx and before @addr + @len
 * whose int3 is in @text (the bytes at @addr), at *@idx then; under RCU.
 */
static struct utp_point *utp_access_next(struct utp_proc *proc,
					 unsigned long *idx, unsigned long addr,
					 const u8 *text, int len)
{
	unsigned long last = addr + len - 1;
	struct utp_point *pt;

	while (*idx <= last &&
	       (pt = xa_find(&proc->points, idx, last, XA_PRESENT))) {
		if (!READ_ONCE(pt->stale) && !READ_ONCE(pt->moved_to) &&
		    text[*idx - addr] == UTP_BREAK_INSN)
			return pt;
		(*idx)++;
	}
	return NULL;
}

/**
 * __utprobe_access_read - a debugger's read of text
 * @vma:	the mapping read
 * @addr:	where
 * @buf:	the bytes read
 * @len:	how many
 *
 * Puts the bytes under our int3s into @buf (a debugger's own breakpoint
 * stays in).  Called through utprobe_access_read().
 */
void __utprobe_access_read(struct vm_area_struct *vma, unsigned long addr,
			   void *buf, int len)
{
	struct utp_point *pt;
	struct utp_proc *proc;
	unsigned long idx = addr;
	bool kick = false;
	u8 *b = buf;

	if (len <= 0)
		return;
	rcu_read_lock();
	proc = utp_proc_find_rcu(vma->vm_mm);
	for (; proc && (pt = utp_access_next(proc, &idx, addr, b, len)); idx++)
		if (!READ_ONCE(pt->dbg_bp))
			b[idx - addr] = utp_arch_insn_opcode(&pt->ai);
	/* a debugger's process goes back to int3s: see utp_jump_place() */
	if (proc && utp_jump_access_read(proc, addr, b, len))
		kick = kref_get_unless_zero(&proc->kref);
	rcu_read_unlock();
	if (kick) {
		utp_jump_kick(proc);
		kref_put(&proc->kref, utp_proc_release);
	}
}

/*
 * A debugger writes @len bytes @b over @t at @addr, and @pt is a point at
 * @vaddr, within an instruction's length before @addr + @len.  A write of
 * the instruction's bytes with an int3 first is its breakpoint, and of
 * the bytes themselves that breakpoint's removal: noted, our int3 kept.
 * A write of other bytes over the instruction is another instruction: the
 * point goes stale, never hit again.  (Only a write that covers the int3
 * replaces it; one of later bytes alone is not seen.)
 */
static void utp_access_point_write(struct utp_point *pt, unsigned long vaddr,
				   unsigned long addr, u8 *b, const u8 *t,
				   int len)
{
	unsigned long end = vaddr + utp_arch_insn_len(&pt->ai), i;
	bool int3 = vaddr >= addr;	/* the int3's byte is written */

	end = min(end, addr + len);

	if (READ_ONCE(pt->stale) || READ_ONCE(pt->moved_to) ||
	    (int3 && t[vaddr - addr] != UTP_BREAK_INSN))
		return;
	for (i = max(vaddr + 1, addr); i < end; i++)
		if (b[i - addr] != utp_arch_insn_byte(&pt->ai, i - vaddr))
			break;
	if (!int3)
		return;
	if (i < end || (b[vaddr - addr] != UTP_BREAK_INSN &&
			b[vaddr - addr] != utp_arch_insn_opcode(&pt->ai))) {
		WRITE_ONCE(pt->stale, true);
		return;
	}
	WRITE_ONCE(pt->dbg_bp, b[vaddr - addr] == UTP_BREAK_INSN);
	b[vaddr - addr] = UTP_BREAK_INSN;
}

/**
 * __utprobe_access_write - a debugger's write of text
 * @vma:	the mapping written
 * @addr:	where
 * @buf:	the bytes to write
 * @text:	the bytes there now
 * @len:	how many
 *
 * Over each of our int3s, the instruction with an int3 in @buf is the
 * debugger's breakpoint, and the instruction itself its removal: noted,
 * and our int3 kept in @buf.  Anything else replaces the point.  A jump
 * of ours the write reaches goes out of @text's page first, back to its
 * int3 (utp_jump_access_write()).  Called through utprobe_access_write().
 */
void __utprobe_access_write(struct vm_area_struct *vma, unsigned long addr,
			    void *buf, void *text, int len)
{
	unsigned long last = addr + len - 1, idx;
	struct utp_point *pt;
	struct utp_proc *proc;

	if (len <= 0)
		return;
	/* a point whose instruction begins before @addr may reach into it */
	idx = addr > UTP_MAX_INSN_BYTES ? addr - (UTP_MAX_INSN_BYTES - 1) : 0;
	rcu_read_lock();
	proc = utp_proc_find_rcu(vma->vm_mm);
	if (proc)
		utp_jump_access_write(proc, vma->vm_mm, addr, text, len);
	while (proc && idx <= last &&
	       (pt = xa_find(&proc->points, &idx, last, XA_PRESENT))) {
		utp_access_point_write(pt, idx, addr, buf, text, len);
		idx++;
	}
	rcu_read_unlock();
}
