/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 side of the utrace-based uprobes engine (utprobes): instruction
 * analysis, emulation and out-of-line execution of a probed instruction.
 */
#ifndef _ASM_X86_UTPROBES_H
#define _ASM_X86_UTPROBES_H

#include <linux/types.h>
#include <asm/insn.h>
#include <asm/mmu_context.h>
#include <asm/ptrace.h>

#define UTP_BREAK_INSN		0xcc	/* int3 */
#define UTP_BREAK_INSN_SIZE	1
#define UTP_XOL_SLOT_SIZE	32	/* one displaced instruction */
#define UTP_MAX_INSN_BYTES	MAX_INSN_SIZE	/* the longest instruction */

/* How a probed instruction is run once its probe has been hit. */
enum utp_insn_kind {
	UTP_INSN_STEP,		/* copied to a slot and single-stepped there */
	UTP_INSN_NOP,		/* emulated: no effect but the ip */
	UTP_INSN_PUSH,		/* emulated: push of a 64-bit register */
	UTP_INSN_JMP,		/* emulated: jmp rel8/rel32 */
	UTP_INSN_JCC,		/* emulated: jcc rel8/rel32 */
	UTP_INSN_CALL,		/* emulated: call rel32 */
	UTP_INSN_RET,		/* emulated: ret, ret imm16 */
};

/* Fixups after a single step in the slot. */
#define UTP_FIX_IP	0x1	/* the ip is slot-relative: move it back */
#define UTP_FIX_CALL	0x2	/* the pushed return address is slot-relative */
#define UTP_FIX_TF	0x4	/* pushf pushed the trap flag of the step */

/**
 * struct utp_arch_insn - a probed instruction, analysed
 * @bytes:	its bytes, as in the file
 * @len:	its length
 * @kind:	an &enum utp_insn_kind
 * @fixups:	UTP_FIX_* for a stepped instruction
 * @cond:	condition code of a jcc (the low nibble of its opcode)
 * @disp_off:	offset of the rip-relative displacement in @bytes, or 0
 * @reg_off:	offset in &struct pt_regs of the register a push pushes
 * @rel:	displacement of a jmp, jcc or call; bytes a ret pops beyond
 *		the return address
 * @through:	a stepped instruction whose slot ends in a jump back to the
 *		next instruction: it runs there without a single step
 */
struct utp_arch_insn {
	u8 bytes[MAX_INSN_SIZE];
	u8 len;
	u8 kind;
	u8 fixups;
	u8 cond;
	u8 disp_off;
	u16 reg_off;
	s32 rel;
	bool through;
};

/*
 * Jumps.  A probe that only counts may be entered by a jmp rel32 over
 * the instructions at the probe (the window), to a stub that counts in
 * a counter of its own and runs those instructions displaced.
 */
#define UTP_JUMP_SIZE		5	/* jmp rel32 */
#define UTP_JUMP_INSNS		4	/* instructions in a window at most */
#define UTP_JUMP_WINDOW_MAX	(UTP_JUMP_SIZE - 1 + MAX_INSN_SIZE)
#define UTP_JUMP_STUB_SIZE	128
/* Where a handler stub's system call returns: utp_arch_jump_sys_stub() */
#define UTP_JUMP_SYS_RET	16

/**
 * struct utp_arch_window - the instructions a jump replaces
 * @insn:	each of them, analysed
 * @n:		how many
 * @len:	their bytes, UTP_JUMP_SIZE at least
 */
struct utp_arch_window {
	struct utp_arch_insn insn[UTP_JUMP_INSNS];
	u8 n;
	u8 len;
};

/**
 * struct utp_arch_stub - where the parts of a stub are
 * @len:	its length
 * @counted:	offset of the first instruction after the count
 * @body:	offset of the displaced instructions
 */
struct utp_arch_stub {
	u8 len;
	u8 counted;
	u8 body;
};

int utp_arch_jump_window(struct utp_arch_window *w, const u8 *text, int len);
int utp_arch_jump_scan(const u8 *func, unsigned int size, unsigned int pos,
		       unsigned int wlen);
int utp_arch_jump_stub(const struct utp_arch_window *w, unsigned long vaddr,
		       unsigned long stub, unsigned long counter,
		       unsigned int slot_mask, u8 *out,
		       struct utp_arch_stub *info);
void utp_arch_jump_insn(unsigned long vaddr, unsigned long stub, u8 *out);
int utp_arch_jump_sys_stub(const struct utp_arch_window *w,
			   unsigned long vaddr, unsigned long stub, u8 *out,
			   struct utp_arch_stub *info);
bool utp_arch_is_sys_stub(const u8 *bytes, struct utp_arch_stub *info);
int utp_arch_sys_enter(struct pt_regs *regs, unsigned long vaddr);
long utp_arch_sys_leave(struct pt_regs *regs, unsigned long vaddr,
			unsigned long sp, unsigned long stub,
			const struct utp_arch_stub *info);

int utp_arch_analyze(struct utp_arch_insn *ai, const u8 *buf, int len);
int utp_arch_emulate(const struct utp_arch_insn *ai, unsigned long vaddr,
		     struct pt_regs *regs);
int utp_arch_xol_copy(const struct utp_arch_insn *ai, unsigned long vaddr,
		      unsigned long slot, u8 *out);
void utp_arch_pre_step(const struct utp_arch_insn *ai, unsigned long slot,
		       struct pt_regs *regs);
int utp_arch_post_step(const struct utp_arch_insn *ai, unsigned long vaddr,
		       unsigned long slot, struct pt_regs *regs);
void utp_arch_abort_step(unsigned long vaddr, struct pt_regs *regs);
void utp_arch_step_trap(struct pt_regs *regs);
struct pt_regs *utp_arch_trap_regs(unsigned long val, void *data);

/*
 * What the generic code may ask of an analysed instruction.  It never
 * looks into &struct utp_arch_insn itself.
 */

/* Its first byte, which the int3 replaces. */
static inline u8 utp_arch_insn_opcode(const struct utp_arch_insn *ai)
{
	return ai->bytes[0];
}

/* Its length in bytes. */
static inline unsigned int utp_arch_insn_len(const struct utp_arch_insn *ai)
{
	return ai->len;
}

/* Its byte at offset @i, below utp_arch_insn_len(). */
static inline u8 utp_arch_insn_byte(const struct utp_arch_insn *ai,
				    unsigned int i)
{
	return ai->bytes[i];
}

/* Is it emulated, never run in a slot? */
static inline bool utp_arch_insn_emulated(const struct utp_arch_insn *ai)
{
	return ai->kind != UTP_INSN_STEP;
}

/*
 * Does it run through its slot, which jumps back after it, with no single
 * step?  Only an instruction that is not emulated can.
 */
static inline bool utp_arch_insn_through(const struct utp_arch_insn *ai)
{
	return ai->through;
}

/*
 * Is the thread single-stepped by someone else (a ptracer, or its own
 * TF) when it hits a point?  Then the hit ends in that step's trap.
 */
static inline bool utp_arch_user_stepping(struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_TF;
}

/*
 * Return probes.  At a function's first instruction its return address
 * is the word at the stack pointer (64-bit tasks only: 0 otherwise);
 * once the function has returned, at the return site, that word lies
 * just below the stack pointer.
 */
static inline unsigned long utp_arch_ret_slot(struct pt_regs *regs)
{
	return user_64bit_mode(regs) ? regs->sp : 0;
}

static inline unsigned long utp_arch_ret_popped(struct pt_regs *regs)
{
	return regs->sp - sizeof(unsigned long);
}

/*
 * Can the process of @mm be probed?  Instructions are decoded as 64-bit
 * code: a 32-bit process (ia32 emulation) cannot.
 */
static inline bool utp_arch_mm_ok(struct mm_struct *mm)
{
	return is_64bit_mm(mm);
}

/*
 * The user registers an unwinder starts from, for a probe that records
 * the stack: DWARF's numbering of x86-64 (rax, rdx, rcx, rbx, rsi, rdi,
 * rbp, rsp, r8 to r15), then its return-address column, the ip.
 */
#define UTP_ARCH_UNWIND_REGS	17

static inline void utp_arch_unwind_regs(const struct pt_regs *regs,
					unsigned long *out)
{
	out[0] = regs->ax;
	out[1] = regs->dx;
	out[2] = regs->cx;
	out[3] = regs->bx;
	out[4] = regs->si;
	out[5] = regs->di;
	out[6] = regs->bp;
	out[7] = regs->sp;
	out[8] = regs->r8;
	out[9] = regs->r9;
	out[10] = regs->r10;
	out[11] = regs->r11;
	out[12] = regs->r12;
	out[13] = regs->r13;
	out[14] = regs->r14;
	out[15] = regs->r15;
	out[16] = regs->ip;
}

#endif /* _ASM_X86_UTPROBES_H */
