// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction handling for utprobes, the utrace-based uprobes
 * engine: which instructions may be probed, which are emulated, and how
 * the others run displaced in a slot of the out-of-line area.
 *
 * A slot holds a copy of the instruction whose rip-relative displacement,
 * if any, is adjusted for the slot's address; the out-of-line area is
 * placed within reach of the probed text, so that the adjusted
 * displacement still fits.  After the single step, the ip and anything
 * else the instruction computed from its own address are moved back from
 * the slot to the probed address.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kdebug.h>
#include <linux/ptrace.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/utprobes.h>
#include <asm/cpufeature.h>
#include <asm/insn.h>
#include <asm/segment.h>
#include <asm/shstk.h>
#include <asm/text-patching.h>
#include <asm/utprobes.h>

/* Offsets in struct pt_regs of the registers, by their encoding. */
static const u16 utp_reg_off[16] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

/*
 * One-byte opcodes that must not run displaced: invalid in 64-bit mode,
 * privileged (they would fault in the slot with the wrong ip), traps,
 * far transfers and returns from interrupts.
 */
static bool utp_bad_opcode1(u8 op)
{
	switch (op) {
	case 0x06: case 0x07: case 0x0e: case 0x16: case 0x17:
	case 0x1e: case 0x1f: case 0x27: case 0x2f: case 0x37:
	case 0x3f: case 0x60: case 0x61: case 0x82:
	case 0x6c ... 0x6f:	/* ins, outs */
	case 0x9a:		/* far call */
	case 0xca: case 0xcb:	/* far ret */
	case 0xcc ... 0xcf:	/* int3, int, into, iret */
	case 0xd4: case 0xd5: case 0xd6:
	case 0xe4 ... 0xe7:	/* in, out */
	case 0xea:		/* far jmp */
	case 0xec ... 0xef:	/* in, out */
	case 0xf1:		/* int1 */
	case 0xf4:		/* hlt */
	case 0xfa: case 0xfb:	/* cli, sti */
		return true;
	}
	return false;
}

/* The same for two-byte opcodes 0f xx: system instructions above all. */
static bool utp_bad_opcode2(u8 op)
{
	switch (op) {
	case 0x00: case 0x01:	/* descriptor tables, xgetbv, rdtscp... */
	case 0x05:		/* syscall */
	case 0x06 ... 0x09:	/* clts, sysret, invd, wbinvd */
	case 0x0b:		/* ud2 */
	case 0x20 ... 0x27:	/* control and debug registers */
	case 0x30 ... 0x37:	/* msr, pmc, sysenter, sysexit, getsec */
	case 0x78: case 0x79:	/* vmread, vmwrite */
	case 0xaa:		/* rsm */
	case 0xb9:		/* ud1 */
	case 0xff:		/* ud0 */
		return true;
	}
	return false;
}

static bool utp_has_prefix(struct insn *insn, u8 prefix)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p)
		if (p == prefix)
			return true;
	return false;
}

/* Emulated instructions: set ai->kind and its operands, or leave STEP. */
static void utp_analyze_emulation(struct utp_arch_insn *ai, struct insn *insn)
{
	u8 op1 = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	bool rex_b = insn->rex_prefix.nbytes &&
		     X86_REX_B(insn->rex_prefix.bytes[0]);

	if (insn->opcode.nbytes == 1) {
		switch (op1) {
		case 0x90:		/* nop, pause; with REX.B it is xchg */
			if (!rex_b)
				ai->kind = UTP_INSN_NOP;
			return;
		case 0x50 ... 0x57:	/* push %reg */
			if (utp_has_prefix(insn, 0x66))
				return;
			ai->kind = UTP_INSN_PUSH;
			ai->reg_off = utp_reg_off[(op1 - 0x50) + (rex_b ? 8 : 0)];
			return;
		case 0x70 ... 0x7f:	/* jcc rel8 */
			ai->kind = UTP_INSN_JCC;
			ai->cond = op1 & 0xf;
			ai->rel = insn->immediate.value;
			return;
		case 0xeb:		/* jmp rel8 */
		case 0xe9:		/* jmp rel32 */
			ai->kind = UTP_INSN_JMP;
			ai->rel = insn->immediate.value;
			return;
		case 0xe8:		/* call rel32 */
			ai->kind = UTP_INSN_CALL;
			ai->rel = insn->immediate.value;
			/* when run out of line instead (see utp_arch_emulate) */
			ai->fixups = UTP_FIX_CALL;
			return;
		case 0xc3:		/* ret */
			ai->kind = UTP_INSN_RET;
			ai->rel = 0;
			return;
		case 0xc2:		/* ret imm16 */
			ai->kind = UTP_INSN_RET;
			ai->rel = (u16)insn->immediate.value;
			return;
		}
		return;
	}
	if (insn->opcode.nbytes != 2 || op1 != 0x0f)
		return;
	switch (op2) {
	case 0x80 ... 0x8f:		/* jcc rel32 */
		ai->kind = UTP_INSN_JCC;
		ai->cond = op2 & 0xf;
		ai->rel = insn->immediate.value;
		return;
	case 0x1e:			/* endbr64 (f3 0f 1e fa), a hint nop */
		if (insn->modrm.value != 0xfa || !utp_has_prefix(insn, 0xf3))
			return;
		fallthrough;
	case 0x1f:			/* nop r/m: its operand is not read */
		ai->kind = UTP_INSN_NOP;
		return;
	}
}

/**
 * utp_arch_analyze - decide whether and how a user instruction is probed
 * @ai:		filled in
 * @buf:	the instruction's bytes, as in the file
 * @len:	how many bytes @buf holds (the instruction may be shorter)
 *
 * Return: 0; -%EILSEQ if @buf does not start with a valid instruction;
 * -%EOPNOTSUPP if the instruction cannot be run out of line safely (it is
 * privileged, traps, is a far transfer, masks the single-step trap, or is
 * a branch with an operand-size prefix, whose effect differs between
 * vendors).
 */
int utp_arch_analyze(struct utp_arch_insn *ai, const u8 *buf, int len)
{
	struct insn insn;
	u8 op1, op2, modrm_reg;

	memset(ai, 0, sizeof(*ai));
	if (insn_decode(&insn, buf, min(len, MAX_INSN_SIZE), INSN_MODE_64) < 0)
		return -EILSEQ;
	op1 = insn.opcode.bytes[0];
	op2 = insn.opcode.bytes[1];
	modrm_reg = X86_MODRM_REG(insn.modrm.value);

	if (insn_is_rex2(&insn) || insn_masking_exception(&insn) ||
	    insn_has_emulate_prefix(&insn))
		return -EOPNOTSUPP;
	if (insn.opcode.nbytes == 1 && utp_bad_opcode1(op1))
		return -EOPNOTSUPP;
	if (insn.opcode.nbytes >= 2 && op1 == 0x0f && !insn_is_avx(&insn) &&
	    utp_bad_opcode2(op2))
		return -EOPNOTSUPP;
	if (insn.opcode.nbytes == 1 && op1 == 0xff &&
	    (modrm_reg == 3 || modrm_reg == 5))	/* far call, far jmp */
		return -EOPNOTSUPP;
	/* near branches with 66: Intel ignores the prefix, AMD does not */
	if (utp_has_prefix(&insn, 0x66) &&
	    ((insn.opcode.nbytes == 1 &&
	      (op1 == 0xe8 || op1 == 0xe9 || op1 == 0xeb || op1 == 0xc2 ||
	       op1 == 0xc3 || (op1 >= 0x70 && op1 <= 0x7f) ||
	       (op1 >= 0xe0 && op1 <= 0xe3) ||
	       (op1 == 0xff && (modrm_reg == 2 || modrm_reg == 4)))) ||
	     (insn.opcode.nbytes == 2 && op1 == 0x0f &&
	      op2 >= 0x80 && op2 <= 0x8f)))
		return -EOPNOTSUPP;

	memcpy(ai->bytes, buf, insn.length);
	ai->len = insn.length;
	ai->kind = UTP_INSN_STEP;
	utp_analyze_emulation(ai, &insn);
	if (ai->kind != UTP_INSN_STEP)
		return 0;

	if (insn_rip_relative(&insn))
		ai->disp_off = insn_offset_displacement(&insn);
	if (insn.opcode.nbytes == 1 && op1 == 0xff && modrm_reg == 2)
		ai->fixups = UTP_FIX_CALL;	/* call *r/m: absolute target */
	else if (insn.opcode.nbytes == 1 && op1 == 0xff && modrm_reg == 4)
		ai->fixups = 0;			/* jmp *r/m: absolute target */
	else if (insn.opcode.nbytes == 1 && op1 == 0x9c)
		ai->fixups = UTP_FIX_IP | UTP_FIX_TF;	/* pushf */
	else
		ai->fixups = UTP_FIX_IP;
	/*
	 * An instruction that always goes on to the next one can run in its
	 * slot followed by a jump back, with no single step: not the loops
	 * and jrcxz, not xbegin (relative branches), not the ones fixed up
	 * after a step.
	 */
	ai->through = ai->fixups == UTP_FIX_IP &&
		      !(insn.opcode.nbytes == 1 && op1 >= 0xe0 && op1 <= 0xe3) &&
		      !(insn.opcode.nbytes == 1 && op1 == 0xc7 &&
			insn.modrm.bytes[0] == 0xf8);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_analyze);

/* Is condition @cond (the low nibble of a jcc opcode) true in @flags? */
static bool utp_cond_true(u8 cond, unsigned long flags)
{
	bool cf = flags & X86_EFLAGS_CF, zf = flags & X86_EFLAGS_ZF;
	bool sf = flags & X86_EFLAGS_SF, of = flags & X86_EFLAGS_OF;
	bool pf = flags & X86_EFLAGS_PF, res;

	switch (cond >> 1) {
	case 0:
		res = of;		/* jo */
		break;
	case 1:
		res = cf;		/* jb */
		break;
	case 2:
		res = zf;		/* je */
		break;
	case 3:
		res = cf || zf;		/* jbe */
		break;
	case 4:
		res = sf;		/* js */
		break;
	case 5:
		res = pf;		/* jp */
		break;
	case 6:
		res = sf != of;		/* jl */
		break;
	default:
		res = zf || sf != of;	/* jle */
		break;
	}
	return (cond & 1) ? !res : res;	/* odd codes negate */
}

static int utp_push(struct pt_regs *regs, unsigned long val)
{
	unsigned long sp = regs->sp - sizeof(val);

	if (put_user(val, (unsigned long __user *)sp))
		return -EFAULT;
	regs->sp = sp;
	return 0;
}

/**
 * utp_arch_emulate - run an emulated probed instruction
 * @ai:		the instruction
 * @vaddr:	its address
 * @regs:	the user registers, ip anywhere
 *
 * A call or ret is not emulated in a thread with a user shadow stack:
 * the emulation would move the stack pointer but not the shadow stack
 * pointer, and the next ret would fault with a control protection error.
 * Run out of line, the instruction moves both.
 *
 * Return: 0 when done (the registers and stack show the instruction's
 * effect); -%EAGAIN if @ai is not emulated; -%EFAULT if the stack could
 * not be accessed, with @regs unchanged: the caller runs it out of line
 * instead, where the fault is taken as the instruction itself would.
 */
int utp_arch_emulate(const struct utp_arch_insn *ai, unsigned long vaddr,
		     struct pt_regs *regs)
{
	unsigned long next = vaddr + ai->len, ret;

	switch (ai->kind) {
	case UTP_INSN_NOP:
		regs->ip = next;
		return 0;
	case UTP_INSN_PUSH:
		if (utp_push(regs, *(unsigned long *)((void *)regs +
						       ai->reg_off)))
			return -EFAULT;
		regs->ip = next;
		return 0;
	case UTP_INSN_JMP:
		regs->ip = next + ai->rel;
		return 0;
	case UTP_INSN_JCC:
		regs->ip = next + (utp_cond_true(ai->cond, regs->flags) ?
				   ai->rel : 0);
		return 0;
	case UTP_INSN_CALL:
		if (shstk_is_enabled())
			return -EAGAIN;
		if (utp_push(regs, next))
			return -EFAULT;
		regs->ip = next + ai->rel;
		return 0;
	case UTP_INSN_RET:
		if (shstk_is_enabled())
			return -EAGAIN;
		if (get_user(ret, (unsigned long __user *)regs->sp))
			return -EFAULT;
		regs->sp += sizeof(ret) + ai->rel;
		regs->ip = ret;
		return 0;
	}
	return -EAGAIN;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_emulate);

/**
 * utp_arch_xol_copy - the bytes of a slot for a stepped instruction
 * @ai:		the instruction
 * @vaddr:	its address
 * @slot:	the slot's user address
 * @out:	%UTP_XOL_SLOT_SIZE bytes, filled in
 *
 * The instruction, its rip-relative displacement (or a call's rel32)
 * adjusted to the slot, then (if @ai->through) a jmp rel32 to the
 * instruction after @vaddr; int3 in the rest.
 *
 * Return: 0; -%ERANGE if a rip-relative operand or a call's target cannot
 * be reached from @slot.
 */
int utp_arch_xol_copy(const struct utp_arch_insn *ai, unsigned long vaddr,
		      unsigned long slot, u8 *out)
{
	memset(out, UTP_BREAK_INSN, UTP_XOL_SLOT_SIZE);
	memcpy(out, ai->bytes, ai->len);
	if (ai->disp_off) {
		s64 disp = (s32)get_unaligned_le32(ai->bytes + ai->disp_off);

		disp += (s64)(vaddr - slot);
		if (disp != (s32)disp)
			return -ERANGE;
		put_unaligned_le32((u32)disp, out + ai->disp_off);
	}
	if (ai->kind == UTP_INSN_CALL) {
		/* e8 and its rel32 end the instruction, after any prefix */
		s64 rel = (s64)ai->rel + (s64)(vaddr - slot);

		if (rel != (s32)rel)
			return -ERANGE;
		put_unaligned_le32((u32)rel, out + ai->len - 4);
	}
	if (ai->through) {
		s64 rel = (s64)(vaddr + ai->len) -
			  (s64)(slot + ai->len + JMP32_INSN_SIZE);

		if (rel != (s32)rel)
			return -ERANGE;
		out[ai->len] = JMP32_INSN_OPCODE;
		put_unaligned_le32((u32)rel, out + ai->len + 1);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_xol_copy);

/*
 * Jumps.  The window is the whole instructions at a probe that a jmp
 * rel32 replaces: each one runs through a slot already (it goes on to
 * the next instruction and needs no fixup but a rip-relative
 * displacement), or is a nop or a push, emulated otherwise and just as
 * movable.  None transfers control, traps or enters the kernel.
 */

/* May @ai move into a stub, as one instruction of a window? */
static bool utp_jump_movable(const struct utp_arch_insn *ai)
{
	if (ai->kind == UTP_INSN_NOP || ai->kind == UTP_INSN_PUSH)
		return true;
	return ai->kind == UTP_INSN_STEP && ai->through &&
	       ai->fixups == UTP_FIX_IP;
}

/**
 * utp_arch_jump_window - the window a jump at a probe would replace
 * @w:		filled in
 * @text:	the original bytes from the probe to the end of its function
 * @len:	how many
 *
 * Return: 0; -%ENOSPC if the function ends within the jump's length;
 * -%EOPNOTSUPP if an instruction there cannot move (a branch, call,
 * return, system call or trap among them); -%EILSEQ if one does not
 * decode.
 */
int utp_arch_jump_window(struct utp_arch_window *w, const u8 *text, int len)
{
	int off = 0, ret;

	memset(w, 0, sizeof(*w));
	while (off < UTP_JUMP_SIZE) {
		struct utp_arch_insn *ai = &w->insn[w->n];

		if (off >= len)
			return -ENOSPC;
		ret = utp_arch_analyze(ai, text + off, len - off);
		if (ret)
			return ret;
		if (off + ai->len > len)
			return -ENOSPC;
		if (!utp_jump_movable(ai))
			return -EOPNOTSUPP;
		off += ai->len;
		w->n++;
	}
	w->len = off;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_jump_window);

/* The target of @insn at @off if it is a direct branch or call, or -1. */
static long utp_jump_target(struct insn *insn, unsigned int off)
{
	u8 op1 = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	bool rel = false;

	if (insn->opcode.nbytes == 1)
		rel = (op1 >= 0x70 && op1 <= 0x7f) ||	/* jcc rel8 */
		      (op1 >= 0xe0 && op1 <= 0xe3) ||	/* loop, jrcxz */
		      op1 == 0xe8 || op1 == 0xe9 || op1 == 0xeb ||
		      (op1 == 0xc7 && insn->modrm.bytes[0] == 0xf8); /* xbegin */
	else if (insn->opcode.nbytes == 2 && op1 == 0x0f)
		rel = op2 >= 0x80 && op2 <= 0x8f;	/* jcc rel32 */
	if (!rel)
		return -1;
	return (long)off + insn->length + insn->immediate.value;
}

/**
 * utp_arch_jump_scan - may a window begin at @pos of a function?
 * @func:	the function's original bytes
 * @size:	how many: its whole extent
 * @pos:	the probe's offset in it
 * @wlen:	the window's length
 *
 * Decodes the function from its first byte to its last, as a linear
 * sweep: the probe must be the start of an instruction of that sweep,
 * and no direct branch or call of the function may land strictly inside
 * the window, where a thread would find the jump's bytes.  Indirect
 * branches (jump tables) are not followed: the documented limit.
 *
 * Return: 0; -%EILSEQ if the function does not decode into instructions
 * that end at @size with one at @pos; -%EXDEV if a branch lands inside.
 */
int utp_arch_jump_scan(const u8 *func, unsigned int size, unsigned int pos,
		       unsigned int wlen)
{
	bool at_pos = false, into = false;
	unsigned int off = 0;
	struct insn insn;
	long to;

	while (off < size) {
		if (insn_decode(&insn, func + off,
				min_t(unsigned int, size - off, MAX_INSN_SIZE),
				INSN_MODE_64) < 0)
			return -EILSEQ;
		at_pos |= off == pos;
		to = utp_jump_target(&insn, off);
		into |= to > (long)pos && to < (long)(pos + wlen);
		off += insn.length;
	}
	if (!at_pos || off != size)
		return -EILSEQ;
	return into ? -EXDEV : 0;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_jump_scan);

/* Append @n @bytes to the stub being built at @p: where it goes on. */
static u8 *utp_emit(u8 *p, const u8 *bytes, size_t n)
{
	memcpy(p, bytes, n);
	return p + n;
}

#define UTP_EMIT(p, ...)						\
	utp_emit(p, (const u8[]){ __VA_ARGS__ },			\
		 sizeof((const u8[]){ __VA_ARGS__ }))

/* A rel32 at @p, for an instruction ending at @end, to @to; or false. */
static bool utp_put_rel32(u8 *p, unsigned long end, unsigned long to)
{
	s64 rel = (s64)(to - end);

	if (rel != (s32)rel)
		return false;
	put_unaligned_le32((u32)rel, p);
	return true;
}

/*
 * The counter slot of a stub without rdpid: a Fibonacci hash of the
 * stack pointer's 4 KiB page, so that threads (whose stacks are apart)
 * mostly count in slots of their own and the same thread at the same
 * depth in the same one.  Reading the CPU number instead (lsl of the
 * per-CPU segment, or rdtscp) costs more than the rest of the stub
 * together, and rdtscp faults in a task that asked for PR_TSC_SIGSEGV.
 */
#define UTP_SLOT_HASH	0x9e3779b1

/*
 * The end of a stub, from @p in @out: the window's instructions, their
 * rip-relative operands made to reach the same targets from the copy,
 * and the jump back after the window.
 */
static int utp_stub_body(const struct utp_arch_window *w, unsigned long vaddr,
			 unsigned long stub, u8 *out, u8 *p,
			 struct utp_arch_stub *info)
{
	unsigned long from = vaddr;
	int i;

	info->body = p - out;
	for (i = 0; i < w->n; i++) {
		const struct utp_arch_insn *ai = &w->insn[i];

		memcpy(p, ai->bytes, ai->len);
		if (ai->disp_off) {
			s64 disp = (s32)get_unaligned_le32(ai->bytes +
							   ai->disp_off);
			/* the same target from the copy's address */
			disp += (s64)from - (s64)(stub + (p - out));
			if (disp != (s32)disp)
				return -ERANGE;
			put_unaligned_le32((u32)disp, p + ai->disp_off);
		}
		p += ai->len;
		from += ai->len;
	}
	*p++ = JMP32_INSN_OPCODE;
	if (!utp_put_rel32(p, stub + (p + 4 - out), vaddr + w->len))
		return -ERANGE;
	p += 4;
	info->len = p - out;
	return 0;
}

/**
 * utp_arch_jump_stub - build the stub of a window
 * @w:		the window
 * @vaddr:	its address
 * @stub:	the stub's address
 * @counter:	the address of its counter in slot 0; slot n's is PAGE_SIZE
 *		* n beyond it
 * @slot_mask:	the number of slots less one (a power of two, 1 at least)
 * @out:	the stub, UTP_JUMP_STUB_SIZE bytes
 * @info:	where its parts are
 *
 * The stub steps over the red zone (nothing is written below the stack
 * pointer the code had), saves two registers and the arithmetic flags
 * (with lahf and seto; pushf and popf, slower, only on the first x86-64
 * CPUs, which lack lahf), adds one atomically to the counter of a slot
 * (the number of the CPU it runs on where rdpid reads it cheaply, a
 * hash of the thread's stack pointer elsewhere), restores everything,
 * runs the window's instructions and jumps back after them.  A slot is
 * only where the count goes: a thread moved, or sharing a slot with
 * another, costs a shared cache line, never a count.
 *
 * Return: 0, or -%ERANGE if a displacement does not fit.
 */
int utp_arch_jump_stub(const struct utp_arch_window *w, unsigned long vaddr,
		       unsigned long stub, unsigned long counter,
		       unsigned int slot_mask, u8 *out,
		       struct utp_arch_stub *info)
{
	bool lahf = boot_cpu_has(X86_FEATURE_LAHF_LM);
	u8 *p = out;

	if (!slot_mask || slot_mask & (slot_mask + 1))
		return -EINVAL;
	memset(out, UTP_BREAK_INSN, UTP_JUMP_STUB_SIZE);
	p = UTP_EMIT(p, 0x48, 0x8d, 0x64, 0x24, 0x80);	/* lea -128(%rsp),%rsp */
	p = UTP_EMIT(p, 0x50, 0x52);			/* push %rax, %rdx */
	if (lahf)
		/* lahf; seto %al; push %rax */
		p = UTP_EMIT(p, 0x9f, 0x0f, 0x90, 0xc0, 0x50);
	else
		p = UTP_EMIT(p, 0x9c);			/* pushfq */
	if (boot_cpu_has(X86_FEATURE_RDPID)) {
		p = UTP_EMIT(p, 0xf3, 0x0f, 0xc7, 0xf8);	/* rdpid %rax */
		*p++ = 0x25;				/* and $mask,%eax */
		put_unaligned_le32(slot_mask, p);
		p += 4;
	} else {
		p = UTP_EMIT(p, 0x48, 0x89, 0xe0);		/* mov %rsp,%rax */
		p = UTP_EMIT(p, 0x48, 0xc1, 0xe8, PAGE_SHIFT);	/* shr $12,%rax */
		p = UTP_EMIT(p, 0x69, 0xc0);			/* imul $k,%eax,%eax */
		put_unaligned_le32(UTP_SLOT_HASH, p);
		p += 4;
		/* shr $(32 - bits),%eax: the product's top bits */
		p = UTP_EMIT(p, 0xc1, 0xe8, 32 - hweight32(slot_mask));
	}
	p = UTP_EMIT(p, 0x48, 0xc1, 0xe0, PAGE_SHIFT);	/* shl $12,%rax */
	p = UTP_EMIT(p, 0x48, 0x8d, 0x15);		/* lea counter(%rip),%rdx */
	if (!utp_put_rel32(p, stub + (p + 4 - out), counter))
		return -ERANGE;
	p += 4;
	p = UTP_EMIT(p, 0xf0, 0x48, 0xff, 0x04, 0x02);	/* lock incq (%rdx,%rax) */
	info->counted = p - out;
	if (lahf)
		/* pop %rax; add $0x7f,%al (OF back); sahf */
		p = UTP_EMIT(p, 0x58, 0x04, 0x7f, 0x9e);
	else
		p = UTP_EMIT(p, 0x9d);			/* popfq */
	p = UTP_EMIT(p, 0x5a, 0x58);			/* pop %rdx, %rax */
	p = UTP_EMIT(p, 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00);
						/* lea 128(%rsp),%rsp */
	return utp_stub_body(w, vaddr, stub, out, p, info);
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_jump_stub);

/*
 * A handler stub up to its copy of the window: what it is built from
 * and recognised by.  The system call returns at UTP_JUMP_SYS_RET.
 */
static const u8 utp_sys_head[] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,		/* lea -128(%rsp),%rsp */
	0x50, 0x51, 0x41, 0x53,			/* push %rax, %rcx, %r11 */
	0xb8, __NR_uprobe & 0xff, __NR_uprobe >> 8, 0, 0, /* mov $nr,%eax */
	0x0f, 0x05,				/* syscall */
	0x41, 0x5b, 0x59, 0x58,			/* pop %r11, %rcx, %rax */
	0x48, 0x8d, 0xa4, 0x24, 0x80, 0, 0, 0,	/* lea 128(%rsp),%rsp */
};

static_assert(sizeof(utp_sys_head) - 12 == UTP_JUMP_SYS_RET);

/**
 * utp_arch_jump_sys_stub - build the stub of a window for a handler
 * @w:		the window
 * @vaddr:	its address
 * @stub:	the stub's address
 * @out:	the stub, UTP_JUMP_STUB_SIZE bytes
 * @info:	where its parts are; @info->counted is where the system
 *		call returns, UTP_JUMP_SYS_RET
 *
 * The stub steps over the red zone, saves the three registers a system
 * call takes (rax for its number, rcx and r11 for the return) and makes
 * the call, sys_uprobe(), which runs the probe's handlers with the
 * registers as a trap at @vaddr shows them (utp_arch_sys_enter()).  Back
 * from it, the stub restores them, runs the window's instructions and
 * jumps back after them.
 *
 * Return: 0, or -%ERANGE if a displacement does not fit.
 */
int utp_arch_jump_sys_stub(const struct utp_arch_window *w,
			   unsigned long vaddr, unsigned long stub, u8 *out,
			   struct utp_arch_stub *info)
{
	memset(out, UTP_BREAK_INSN, UTP_JUMP_STUB_SIZE);
	memcpy(out, utp_sys_head, sizeof(utp_sys_head));
	info->counted = UTP_JUMP_SYS_RET;
	return utp_stub_body(w, vaddr, stub, out, out + sizeof(utp_sys_head),
			     info);
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_jump_sys_stub);

/**
 * utp_arch_is_sys_stub - is this a handler stub?
 * @bytes:	UTP_JUMP_STUB_SIZE bytes of a stub area, at a stub's start
 * @info:	where its parts are, if it is
 *
 * Return: true if utp_arch_jump_sys_stub() built @bytes.
 */
bool utp_arch_is_sys_stub(const u8 *bytes, struct utp_arch_stub *info)
{
	if (memcmp(bytes, utp_sys_head, sizeof(utp_sys_head)))
		return false;
	info->counted = UTP_JUMP_SYS_RET;
	info->body = sizeof(utp_sys_head);
	return true;
}

/* What a handler stub saved below the red zone, as it lies. */
struct utp_sys_saved {
	unsigned long r11, cx, ax;
};

/**
 * utp_arch_sys_enter - the registers of a stub's system call, as a trap
 * @regs:	current's user registers, in sys_uprobe()
 * @vaddr:	the probe's address
 *
 * Makes @regs what they were when the thread reached @vaddr, the ip
 * there: the stack pointer above what the stub saved and the red zone,
 * rax, rcx and r11 as saved (the flags are the call's, unchanged by the
 * stub).
 *
 * Return: 0, or -%EFAULT if the saved registers cannot be read.
 */
int utp_arch_sys_enter(struct pt_regs *regs, unsigned long vaddr)
{
	struct utp_sys_saved saved;

	if (copy_from_user(&saved, (void __user *)regs->sp, sizeof(saved)))
		return -EFAULT;
	regs->r11 = saved.r11;
	regs->cx = saved.cx;
	regs->ax = saved.ax;
	regs->sp += sizeof(saved) + 128;
	regs->ip = vaddr;
	/* no restart: the call is done with once it returns */
	regs->orig_ax = -1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_sys_enter);

/**
 * utp_arch_sys_leave - the way back from a stub's system call
 * @regs:	as utp_arch_sys_enter() made them, and handlers left them
 * @vaddr:	the probe's address
 * @sp:		the stack pointer utp_arch_sys_enter() gave them
 * @stub:	the stub
 * @info:	its parts
 *
 * A thread the handlers left at @vaddr and @sp goes on in the stub,
 * after its call, with rax, rcx and r11 put back where the stub restores
 * them from, and the registers that let the call return by sysret.  If
 * they changed the stack pointer, or the stack cannot be written, it
 * goes on at the stub's copy of the window, every register as they are.
 * One they moved goes where they moved it.
 *
 * Return: what the call returns (the value of rax from then on).
 */
long utp_arch_sys_leave(struct pt_regs *regs, unsigned long vaddr,
			unsigned long sp, unsigned long stub,
			const struct utp_arch_stub *info)
{
	struct utp_sys_saved saved = {
		.r11 = regs->r11, .cx = regs->cx, .ax = regs->ax,
	};
	unsigned long below = sp - sizeof(saved) - 128;

	if (regs->ip != vaddr)
		return regs->ax;
	if (regs->sp != sp ||
	    copy_to_user((void __user *)below, &saved, sizeof(saved))) {
		regs->ip = stub + info->body;
		return regs->ax;
	}
	regs->sp = below;
	regs->ip = stub + info->counted;
	/* sysret: see do_syscall_64() */
	regs->cx = regs->ip;
	regs->r11 = regs->flags;
	return regs->ax;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_sys_leave);

/*
 * Entered from a handler stub only (utp_sys_hit() checks where from);
 * from anywhere else it fails with -ENXIO.
 */
SYSCALL_DEFINE0(uprobe)
{
	return utp_sys_hit(task_pt_regs(current));
}

/**
 * utp_arch_jump_insn - the jump into a stub
 * @vaddr:	where it goes
 * @stub:	the stub (within reach: checked when it was placed)
 * @out:	UTP_JUMP_SIZE bytes
 */
void utp_arch_jump_insn(unsigned long vaddr, unsigned long stub, u8 *out)
{
	out[0] = JMP32_INSN_OPCODE;
	put_unaligned_le32((u32)(stub - (vaddr + UTP_JUMP_SIZE)), out + 1);
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_jump_insn);

/**
 * utp_arch_pre_step - point the thread at the slot for its single step
 * @ai:		the instruction
 * @slot:	its slot
 * @regs:	the user registers
 */
void utp_arch_pre_step(const struct utp_arch_insn *ai, unsigned long slot,
		       struct pt_regs *regs)
{
	regs->ip = slot;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_pre_step);

/**
 * utp_arch_post_step - move the effects of a single step back from the slot
 * @ai:		the instruction
 * @vaddr:	its address
 * @slot:	its slot
 * @regs:	the user registers after the step
 *
 * A call's return address is the one after @vaddr, on the stack and on
 * the user shadow stack if the thread has one.
 *
 * Return: 0; -%EFAULT if the stack could not be fixed.
 */
int utp_arch_post_step(const struct utp_arch_insn *ai, unsigned long vaddr,
		       unsigned long slot, struct pt_regs *regs)
{
	unsigned long __user *sp = (unsigned long __user *)regs->sp;
	unsigned long val;

	if (ai->fixups & UTP_FIX_IP)
		regs->ip = vaddr + (regs->ip - slot);
	if (ai->fixups & UTP_FIX_CALL) {
		if (put_user(vaddr + ai->len, sp) ||
		    shstk_update_last_frame(vaddr + ai->len))
			return -EFAULT;
	}
	if (ai->fixups & UTP_FIX_TF) {
		if (get_user(val, sp) || put_user(val & ~X86_EFLAGS_TF, sp))
			return -EFAULT;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_post_step);

/**
 * utp_arch_abort_step - the stepped instruction faulted: back to the probe
 * @vaddr:	the probed address
 * @regs:	the user registers, ip still in the slot
 *
 * The fault's signal is then delivered as if the instruction had faulted
 * at its own address.
 */
void utp_arch_abort_step(unsigned long vaddr, struct pt_regs *regs)
{
	regs->ip = vaddr;
}
EXPORT_SYMBOL_IF_KUNIT(utp_arch_abort_step);

/**
 * utp_arch_step_trap - end a hit as the single step it was part of
 * @regs:	the user registers, ip at the instruction after the probed one
 *
 * The thread was being single-stepped when it hit the point (by a
 * ptracer, or by its own TF): the probed instruction, emulated or run
 * out of line, counts as the one instruction stepped, and the thread
 * gets the SIGTRAP a hardware step would have raised there.
 */
void utp_arch_step_trap(struct pt_regs *regs)
{
	current->thread.virtual_dr6 = 0;
	send_sigtrap(regs, 0, TRAP_TRACE);
}

/* @size bytes at @addr: faulted in if we may sleep, not in the trap */
static int utp_read_user(unsigned long addr, void *val, size_t size)
{
	void __user *src = (void __user *)addr;

	if (pagefault_disabled() || irqs_disabled())
		return copy_from_user_nofault(val, src, size) ? -EFAULT : 0;
	return copy_from_user(val, src, size) ? -EFAULT : 0;
}

/**
 * utprobe_arg - an argument of the function a thread has just entered
 * @regs:	the thread's user registers at the function's first
 *		instruction, as a probe handler has them
 * @n:		which argument, from 0, counting those of integer or
 *		pointer class (a struct passed by value, or a floating
 *		point argument, is not counted by this)
 * @val:	where the value goes; a 32-bit task's is zero-extended
 *
 * By the thread's calling convention: the System V x86-64 one (the
 * first six in di, si, dx, cx, r8, r9, the rest on the stack above the
 * return address), or all on the stack for a 32-bit task (cdecl; not
 * regparm or fastcall).  Reading the stack faults its page in, except
 * in a handler that runs in the trap (%UTPROBE_TRAP_SAFE).
 *
 * Context: a probe handler, as it is called: not under a lock of the
 * handler's own, which the fault could not sleep with.
 *
 * Return: 0, or -%EFAULT if the stack slot cannot be read.
 */
int utprobe_arg(struct pt_regs *regs, unsigned int n, unsigned long *val)
{
	unsigned long sp = user_stack_pointer(regs);
	u32 word;

	if (user_64bit_mode(regs)) {
		/* the first six as the kernel's own calls pass them */
		if (n < 6) {
			*val = regs_get_kernel_argument(regs, n);
			return 0;
		}
		return utp_read_user(sp + (n - 5) * sizeof(u64), val,
				     sizeof(u64));
	}
	if (utp_read_user(sp + (n + 1) * sizeof(u32), &word, sizeof(word)))
		return -EFAULT;
	*val = word;
	return 0;
}
EXPORT_SYMBOL_GPL(utprobe_arg);

/**
 * utprobe_retval - the value a function returns
 * @regs:	the thread's user registers at the return, as a return
 *		handler has them
 *
 * Return: the integer or pointer return value (ax; a 32-bit task's
 * eax, zero-extended).
 */
unsigned long utprobe_retval(struct pt_regs *regs)
{
	unsigned long ax = regs_return_value(regs);

	return user_64bit_mode(regs) ? ax : (u32)ax;
}
EXPORT_SYMBOL_GPL(utprobe_retval);

/**
 * utp_arch_trap_regs - the user registers of a breakpoint trap
 * @val:	the die notifiers' event
 * @data:	its &struct die_args
 *
 * The generic code's die notifier asks this of each event: a user int3
 * reaches the notifiers before any SIGTRAP is sent, and a hit that
 * needs no single step is taken there.
 *
 * Return: the trapping thread's user registers, their ip just after the
 * int3, if the event is an int3 in user mode; otherwise NULL.
 */
struct pt_regs *utp_arch_trap_regs(unsigned long val, void *data)
{
	struct die_args *args = data;

	if (val != DIE_INT3 || !args->regs || !user_mode(args->regs))
		return NULL;
	return args->regs;
}
