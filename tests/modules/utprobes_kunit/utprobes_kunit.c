// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 instruction handling of utprobes: which
 * instructions are refused, emulated or stepped, with which fixups;
 * condition codes of emulated jcc; rip-relative displacements in slots;
 * a call run out of line;
 * which instructions run through their slot and its jump back; the ip
 * after a step; the windows a jump may replace, the branches into them,
 * and the stubs that count and run them.
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <asm/utprobes.h>

struct insn_case {
	const char *what;
	u8 bytes[MAX_INSN_SIZE];
	int len;
	int ret;
	u8 kind;
	u8 fixups;
	u8 disp_off;
	s32 rel;
};

#define OK(w, k, f, d, r, ...) \
	{ w, { __VA_ARGS__ }, sizeof((u8[]){ __VA_ARGS__ }), 0, k, f, d, r }
#define NO(w, e, ...) \
	{ w, { __VA_ARGS__ }, sizeof((u8[]){ __VA_ARGS__ }), e, 0, 0, 0, 0 }

static const struct insn_case insn_cases[] = {
	OK("nop", UTP_INSN_NOP, 0, 0, 0, 0x90),
	OK("pause", UTP_INSN_NOP, 0, 0, 0, 0xf3, 0x90),
	OK("xchg %r8,%rax", UTP_INSN_STEP, UTP_FIX_IP, 0, 0, 0x49, 0x90),
	OK("nopl 0(%rax,%rax)", UTP_INSN_NOP, 0, 0, 0,
	   0x0f, 0x1f, 0x44, 0x00, 0x00),
	OK("endbr64", UTP_INSN_NOP, 0, 0, 0, 0xf3, 0x0f, 0x1e, 0xfa),
	OK("push %rbp", UTP_INSN_PUSH, 0, 0, 0, 0x55),
	OK("push %r15", UTP_INSN_PUSH, 0, 0, 0, 0x41, 0x57),
	OK("push %bp", UTP_INSN_STEP, UTP_FIX_IP, 0, 0, 0x66, 0x55),
	OK("jmp rel8", UTP_INSN_JMP, 0, 0, 5, 0xeb, 0x05),
	OK("jmp rel32", UTP_INSN_JMP, 0, 0, -16, 0xe9, 0xf0, 0xff, 0xff, 0xff),
	OK("je rel8", UTP_INSN_JCC, 0, 0, -2, 0x74, 0xfe),
	OK("jne rel32", UTP_INSN_JCC, 0, 0, 16,
	   0x0f, 0x85, 0x10, 0x00, 0x00, 0x00),
	OK("call rel32", UTP_INSN_CALL, UTP_FIX_CALL, 0, 0x100,
	   0xe8, 0x00, 0x01, 0x00, 0x00),
	OK("ret", UTP_INSN_RET, 0, 0, 0, 0xc3),
	OK("ret $8", UTP_INSN_RET, 0, 0, 8, 0xc2, 0x08, 0x00),
	OK("lea 0x10(%rip),%rax", UTP_INSN_STEP, UTP_FIX_IP, 3, 0,
	   0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00),
	OK("mov %rax,0x10(%rip)", UTP_INSN_STEP, UTP_FIX_IP, 3, 0,
	   0x48, 0x89, 0x05, 0x10, 0x00, 0x00, 0x00),
	OK("call *0x10(%rip)", UTP_INSN_STEP, UTP_FIX_CALL, 2, 0,
	   0xff, 0x15, 0x10, 0x00, 0x00, 0x00),
	OK("call *%rax", UTP_INSN_STEP, UTP_FIX_CALL, 0, 0, 0xff, 0xd0),
	OK("jmp *%rax", UTP_INSN_STEP, 0, 0, 0, 0xff, 0xe0),
	OK("pushf", UTP_INSN_STEP, UTP_FIX_IP | UTP_FIX_TF, 0, 0, 0x9c),
	OK("sub $8,%rsp", UTP_INSN_STEP, UTP_FIX_IP, 0, 0,
	   0x48, 0x83, 0xec, 0x08),
	OK("loop rel8", UTP_INSN_STEP, UTP_FIX_IP, 0, 0, 0xe2, 0xfe),
	OK("lock incl (%rdi)", UTP_INSN_STEP, UTP_FIX_IP, 0, 0, 0xf0, 0xff, 0x07),
	NO("syscall", -EOPNOTSUPP, 0x0f, 0x05),
	NO("int3", -EOPNOTSUPP, 0xcc),
	NO("int $0x80", -EOPNOTSUPP, 0xcd, 0x80),
	NO("iret", -EOPNOTSUPP, 0xcf),
	NO("hlt", -EOPNOTSUPP, 0xf4),
	NO("cli", -EOPNOTSUPP, 0xfa),
	NO("ud2", -EOPNOTSUPP, 0x0f, 0x0b),
	NO("in $0x10,%al", -EOPNOTSUPP, 0xe4, 0x10),
	NO("lcall *(%rax)", -EOPNOTSUPP, 0xff, 0x18),
	NO("ljmp *(%rax)", -EOPNOTSUPP, 0xff, 0x28),
	NO("lret", -EOPNOTSUPP, 0xcb),
	NO("mov %eax,%ss", -EOPNOTSUPP, 0x8e, 0xd0),
	NO("callw", -EOPNOTSUPP, 0x66, 0xe8, 0x00, 0x00, 0x00, 0x00),
	NO("rdmsr", -EOPNOTSUPP, 0x0f, 0x32),
	NO("mov %cr0,%rax", -EOPNOTSUPP, 0x0f, 0x20, 0xc0),
	NO("truncated call", -EILSEQ, 0xe8, 0x00),
	NO("truncated mov", -EILSEQ, 0x48, 0x8b),
};

static void insn_case_desc(const struct insn_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(insn, insn_cases, insn_case_desc);

static void analyze_test(struct kunit *test)
{
	const struct insn_case *c = test->param_value;
	struct utp_arch_insn ai;

	KUNIT_ASSERT_EQ(test, c->ret, utp_arch_analyze(&ai, c->bytes, c->len));
	if (c->ret)
		return;
	KUNIT_EXPECT_EQ(test, c->len, ai.len);
	KUNIT_EXPECT_EQ(test, c->kind, ai.kind);
	KUNIT_EXPECT_EQ(test, c->fixups, ai.fixups);
	KUNIT_EXPECT_EQ(test, c->disp_off, ai.disp_off);
	if (ai.kind != UTP_INSN_STEP && ai.kind != UTP_INSN_NOP &&
	    ai.kind != UTP_INSN_PUSH)
		KUNIT_EXPECT_EQ(test, c->rel, ai.rel);
	KUNIT_EXPECT_MEMEQ(test, c->bytes, ai.bytes, c->len);
}

/* An instruction needs only its own bytes: what follows is ignored. */
static void analyze_ignores_following_bytes_test(struct kunit *test)
{
	const u8 buf[MAX_INSN_SIZE] = { 0x55, 0x48, 0x89, 0xe5 };
	struct utp_arch_insn ai;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, buf, sizeof(buf)));
	KUNIT_EXPECT_EQ(test, 1, ai.len);
	KUNIT_EXPECT_EQ(test, UTP_INSN_PUSH, ai.kind);
	KUNIT_EXPECT_EQ(test, (u16)offsetof(struct pt_regs, bp), ai.reg_off);
}

/* Each jcc condition against flags, taken or not. */
static void jcc_conditions_test(struct kunit *test)
{
	static const struct {
		u8 cond;
		unsigned long flags;
		bool taken;
	} cases[] = {
		{ 0x0, X86_EFLAGS_OF, true },	{ 0x0, 0, false },
		{ 0x1, 0, true },		{ 0x2, X86_EFLAGS_CF, true },
		{ 0x3, X86_EFLAGS_CF, false },	{ 0x4, X86_EFLAGS_ZF, true },
		{ 0x5, X86_EFLAGS_ZF, false },	{ 0x6, X86_EFLAGS_CF, true },
		{ 0x6, 0, false },		{ 0x7, 0, true },
		{ 0x8, X86_EFLAGS_SF, true },	{ 0x9, X86_EFLAGS_SF, false },
		{ 0xa, X86_EFLAGS_PF, true },	{ 0xb, X86_EFLAGS_PF, false },
		{ 0xc, X86_EFLAGS_SF, true },
		{ 0xc, X86_EFLAGS_SF | X86_EFLAGS_OF, false },
		{ 0xd, X86_EFLAGS_OF, false },	{ 0xd, 0, true },
		{ 0xe, X86_EFLAGS_ZF, true },	{ 0xe, 0, false },
		{ 0xf, 0, true },		{ 0xf, X86_EFLAGS_SF, false },
	};
	unsigned long vaddr = 0x401000;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u8 bytes[] = { 0x70 | cases[i].cond, 0x10 };
		struct pt_regs regs = { .flags = cases[i].flags };
		unsigned long want = vaddr + 2;
		struct utp_arch_insn ai;

		if (cases[i].taken)
			want += 0x10;
		KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, bytes, 2));
		KUNIT_ASSERT_EQ(test, 0, utp_arch_emulate(&ai, vaddr, &regs));
		KUNIT_EXPECT_EQ_MSG(test, want, regs.ip, "cond %#x flags %#lx",
				    cases[i].cond, cases[i].flags);
	}
}

/* jmp, nop: emulated on the registers alone; steps are not emulated. */
static void emulate_registers_test(struct kunit *test)
{
	const u8 jmp[] = { 0xe9, 0x00, 0x10, 0x00, 0x00 };
	const u8 nop[] = { 0x0f, 0x1f, 0x40, 0x00 };
	const u8 lea[] = { 0x48, 0x8d, 0x47, 0x01 };
	struct pt_regs regs = {};
	struct utp_arch_insn ai;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, jmp, sizeof(jmp)));
	KUNIT_EXPECT_EQ(test, 0, utp_arch_emulate(&ai, 0x401000, &regs));
	KUNIT_EXPECT_EQ(test, 0x401000UL + 5 + 0x1000, regs.ip);
	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, nop, sizeof(nop)));
	KUNIT_EXPECT_EQ(test, 0, utp_arch_emulate(&ai, 0x401000, &regs));
	KUNIT_EXPECT_EQ(test, 0x401004UL, regs.ip);
	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, lea, sizeof(lea)));
	KUNIT_EXPECT_EQ(test, -EAGAIN, utp_arch_emulate(&ai, 0x401000, &regs));
}

/* The slot's copy reaches the same rip-relative target, or is refused. */
static void xol_copy_riprel_test(struct kunit *test)
{
	const u8 mov[] = { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 };
	u8 out[UTP_XOL_SLOT_SIZE];
	struct utp_arch_insn ai;
	unsigned long vaddr = 0x401000, slot = 0x10001000;
	s32 disp;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, mov, sizeof(mov)));
	KUNIT_ASSERT_EQ(test, 0, utp_arch_xol_copy(&ai, vaddr, slot, out));
	disp = get_unaligned_le32(out + 3);
	/* both read vaddr + len + 0x10 */
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(mov) + 0x10,
			slot + sizeof(mov) + (long)disp);
	KUNIT_EXPECT_MEMEQ(test, mov, out, 3);
	KUNIT_EXPECT_EQ(test, -ERANGE,
			utp_arch_xol_copy(&ai, 0x7f0000000000UL, slot, out));
}

/*
 * A call rel32 whose emulation could not push runs out of line: the copy
 * in its slot calls the same target, and after the step the return
 * address on the stack is the one after the probed call.
 */
static void call_out_of_line_test(struct kunit *test)
{
	const u8 call[] = { 0xe8, 0x00, 0x01, 0x00, 0x00 };
	unsigned long vaddr = 0x401000, slot = 0x10001000, stack, ra;
	u8 out[UTP_XOL_SLOT_SIZE];
	struct pt_regs regs = {};
	struct utp_arch_insn ai;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, call, sizeof(call)));
	KUNIT_EXPECT_FALSE(test, ai.through);
	KUNIT_ASSERT_EQ(test, 0, utp_arch_xol_copy(&ai, vaddr, slot, out));
	KUNIT_EXPECT_EQ(test, 0xe8, out[0]);
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(call) + 0x100,
			slot + sizeof(call) +
			(long)(s32)get_unaligned_le32(out + 1));
	KUNIT_EXPECT_EQ(test, UTP_BREAK_INSN, out[sizeof(call)]);
	/* a target more than 2 GiB away from the slot */
	KUNIT_EXPECT_EQ(test, -ERANGE,
			utp_arch_xol_copy(&ai, 0x7f0000000000UL, slot, out));

	/* the step pushed slot + 5 and went to the target */
	stack = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, 0);
	KUNIT_ASSERT_NE(test, 0UL, stack);
	regs.sp = stack + PAGE_SIZE - sizeof(long);
	KUNIT_ASSERT_EQ(test, 0, put_user(slot + sizeof(call),
					  (unsigned long __user *)regs.sp));
	regs.ip = vaddr + sizeof(call) + 0x100;
	KUNIT_EXPECT_EQ(test, 0, utp_arch_post_step(&ai, vaddr, slot, &regs));
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(call) + 0x100, regs.ip);
	KUNIT_ASSERT_EQ(test, 0, get_user(ra, (unsigned long __user *)regs.sp));
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(call), ra);

	/* emulated, on the same stack */
	regs.sp = stack + PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, 0, utp_arch_emulate(&ai, vaddr, &regs));
	KUNIT_EXPECT_EQ(test, stack + PAGE_SIZE - sizeof(long), regs.sp);
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(call) + 0x100, regs.ip);
	KUNIT_ASSERT_EQ(test, 0, get_user(ra, (unsigned long __user *)regs.sp));
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(call), ra);
	/* a stack that cannot be written: nothing changes */
	regs.sp = PAGE_SIZE;
	regs.ip = vaddr;
	KUNIT_EXPECT_EQ(test, -EFAULT, utp_arch_emulate(&ai, vaddr, &regs));
	KUNIT_EXPECT_EQ(test, (unsigned long)PAGE_SIZE, regs.sp);
	KUNIT_EXPECT_EQ(test, vaddr, regs.ip);
}

/*
 * Instructions that always go on to the next run through their slot,
 * which jumps back after them; the others are stepped, and their slot
 * holds only breakpoints after them.
 */
static const struct {
	const char *what;
	u8 bytes[MAX_INSN_SIZE];
	int len;
	bool through;
} through_cases[] = {
	{ "lea 1(%rdi),%rax", { 0x48, 0x8d, 0x47, 0x01 }, 4, true },
	{ "mov %rdi,%rax", { 0x48, 0x89, 0xf8 }, 3, true },
	{ "sub $8,%rsp", { 0x48, 0x83, 0xec, 0x08 }, 4, true },
	{ "mov 0x10(%rip),%rax", { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7, true },
	{ "lock incl (%rdi)", { 0xf0, 0xff, 0x07 }, 3, true },
	{ "loop rel8", { 0xe2, 0xfe }, 2, false },
	{ "jrcxz rel8", { 0xe3, 0x10 }, 2, false },
	{ "xbegin rel32", { 0xc7, 0xf8, 0, 0, 0, 0 }, 6, false },
	{ "call *%rax", { 0xff, 0xd0 }, 2, false },
	{ "jmp *%rax", { 0xff, 0xe0 }, 2, false },
	{ "pushf", { 0x9c }, 1, false },
};

static void run_through_test(struct kunit *test)
{
	unsigned long vaddr = 0x401000, slot = 0x10001000;
	u8 out[UTP_XOL_SLOT_SIZE];
	struct utp_arch_insn ai;
	int i, len;

	for (i = 0; i < ARRAY_SIZE(through_cases); i++) {
		len = through_cases[i].len;
		KUNIT_ASSERT_EQ_MSG(test, 0,
				    utp_arch_analyze(&ai, through_cases[i].bytes,
						     len),
				    "%s", through_cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, through_cases[i].through, ai.through,
				    "%s", through_cases[i].what);
		KUNIT_ASSERT_EQ(test, 0,
				utp_arch_xol_copy(&ai, vaddr, slot, out));
		if (!ai.through) {
			KUNIT_EXPECT_EQ(test, UTP_BREAK_INSN, out[len]);
			continue;
		}
		/* jmp rel32 from slot + len + 5 to vaddr + len */
		KUNIT_EXPECT_EQ(test, 0xe9, out[len]);
		KUNIT_EXPECT_EQ_MSG(test, vaddr + len,
				    slot + len + 5 +
				    (long)(s32)get_unaligned_le32(out + len + 1),
				    "%s", through_cases[i].what);
		KUNIT_EXPECT_EQ(test, UTP_BREAK_INSN, out[len + 5]);
	}
}

/* After the step: ip back from the slot; indirect jumps keep theirs. */
static void post_step_ip_test(struct kunit *test)
{
	const u8 sub[] = { 0x48, 0x83, 0xec, 0x08 };
	const u8 jmp[] = { 0xff, 0xe0 };
	unsigned long vaddr = 0x401000, slot = 0x7000;
	struct pt_regs regs = {};
	struct utp_arch_insn ai;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, sub, sizeof(sub)));
	utp_arch_pre_step(&ai, slot, &regs);
	KUNIT_EXPECT_EQ(test, slot, regs.ip);
	regs.ip = slot + sizeof(sub);
	KUNIT_EXPECT_EQ(test, 0, utp_arch_post_step(&ai, vaddr, slot, &regs));
	KUNIT_EXPECT_EQ(test, vaddr + sizeof(sub), regs.ip);

	KUNIT_ASSERT_EQ(test, 0, utp_arch_analyze(&ai, jmp, sizeof(jmp)));
	regs.ip = 0x123456;
	KUNIT_EXPECT_EQ(test, 0, utp_arch_post_step(&ai, vaddr, slot, &regs));
	KUNIT_EXPECT_EQ(test, 0x123456UL, regs.ip);

	utp_arch_abort_step(vaddr, &regs);
	KUNIT_EXPECT_EQ(test, vaddr, regs.ip);
}

struct window_case {
	const char *what;
	u8 bytes[24];
	int len;
	int ret;
	int wlen;
};

#define WIN(w, r, wl, ...) \
	{ w, { __VA_ARGS__ }, sizeof((u8[]){ __VA_ARGS__ }), r, wl }

static const struct window_case window_cases[] = {
	WIN("endbr64; push %rbp", 0, 5, 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0xc3),
	WIN("push %rbp; mov %rsp,%rbp; lea", 0, 8,
	    0x55, 0x48, 0x89, 0xe5, 0x48, 0x8d, 0x47, 0x02, 0xc3),
	WIN("sub $0x18,%rsp", 0, 9, 0x48, 0x83, 0xec, 0x18,
	    0x48, 0x89, 0x7c, 0x24, 0x08, 0xc3),
	WIN("mov 0x10(%rip),%rax", 0, 7,
	    0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00, 0xc3),
	WIN("ret within", -EOPNOTSUPP, 0, 0x48, 0x89, 0xf8, 0xc3),
	WIN("call first", -EOPNOTSUPP, 0, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3),
	WIN("jcc within", -EOPNOTSUPP, 0, 0x85, 0xff, 0x74, 0x02, 0x90, 0x90),
	WIN("syscall first", -EOPNOTSUPP, 0, 0x0f, 0x05, 0x90, 0x90, 0x90, 0x90),
	WIN("int3 within", -EOPNOTSUPP, 0, 0x31, 0xc0, 0xcc, 0x90, 0x90, 0x90),
	WIN("jmp *%rax within", -EOPNOTSUPP, 0, 0x31, 0xc0, 0xff, 0xe0, 0x90),
	WIN("loop within", -EOPNOTSUPP, 0, 0x31, 0xc0, 0xe2, 0xfe, 0x90),
	WIN("pushf within", -EOPNOTSUPP, 0, 0x31, 0xc0, 0x9c, 0x90, 0x90),
	WIN("function ends first", -ENOSPC, 0, 0x48, 0x89, 0xf8),
	WIN("undecodable", -EILSEQ, 0, 0x0f, 0x0f),
};

static void window_case_desc(const struct window_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(window, window_cases, window_case_desc);

/* Which windows a jump may replace, and how long they are. */
static void jump_window_test(struct kunit *test)
{
	const struct window_case *c = test->param_value;
	struct utp_arch_window w;

	KUNIT_ASSERT_EQ(test, c->ret, utp_arch_jump_window(&w, c->bytes,
							   c->len));
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, c->wlen, w.len);
}

/*
 * A function decoded from end to end: a branch back into the window,
 * a probe off the instructions' boundaries, a function that does not
 * end where its size says are refused; a branch to the probe itself or
 * past the window is not.
 */
static void jump_scan_test(struct kunit *test)
{
	/* xor %eax,%eax; 1: add $1,%rax; cmp %rdi,%rax; jl 1b; ret */
	static const u8 loop[] = { 0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01,
				   0x48, 0x39, 0xf8, 0x7c, 0xf7, 0xc3 };
	/* 1: push %rbp; mov %rsp,%rbp; pop %rbp; test; jne 1b; ret */
	static const u8 to_start[] = { 0x55, 0x48, 0x89, 0xe5, 0x5d, 0x85,
				       0xff, 0x75, 0xf7, 0xc3 };

	KUNIT_EXPECT_EQ(test, -EXDEV, utp_arch_jump_scan(loop, sizeof(loop),
							 0, 6));
	/* a window after the loop's head is clear of it */
	KUNIT_EXPECT_EQ(test, 0, utp_arch_jump_scan(loop, sizeof(loop), 2, 7));
	KUNIT_EXPECT_EQ(test, 0, utp_arch_jump_scan(to_start,
						    sizeof(to_start), 0, 5));
	KUNIT_EXPECT_EQ(test, -EILSEQ, utp_arch_jump_scan(loop, sizeof(loop),
							  1, 6));
	/* a size that ends inside the jl */
	KUNIT_EXPECT_EQ(test, -EILSEQ, utp_arch_jump_scan(loop,
							  sizeof(loop) - 2,
							  0, 6));
}

/* mov 0x1000(%rip),%rax; add %rdi,%rax; ret: the stub tests' window */
static const u8 stub_fn[] = { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00,
			      0x48, 0x01, 0xf8, 0xc3 };

/*
 * The end of a stub of stub_fn at @vaddr, built at @stub: its copy of
 * the rip-relative load reads 0x1000 past the original still, and it
 * jumps back to the add.
 */
static void stub_body_check(struct kunit *test, const u8 *out,
			    const struct utp_arch_stub *info,
			    unsigned long vaddr, unsigned long stub)
{
	unsigned int off = info->body + 7;
	s32 disp;

	KUNIT_EXPECT_EQ(test, 0, memcmp(out + info->body, stub_fn, 3));
	disp = get_unaligned_le32(out + info->body + 3);
	KUNIT_EXPECT_EQ(test, vaddr + 7 + 0x1000,
			stub + info->body + 7 + disp);
	KUNIT_ASSERT_EQ(test, 0xe9, out[off]);
	disp = get_unaligned_le32(out + off + 1);
	KUNIT_EXPECT_EQ(test, vaddr + 7, stub + off + 5 + disp);
	KUNIT_EXPECT_EQ(test, off + 5, info->len);
}

/*
 * A stub: its count addresses the counter, its copy of a rip-relative
 * load reads what the original read, it jumps back after the window,
 * and the jump into it reaches it.
 */
static void jump_stub_test(struct kunit *test)
{
	unsigned long vaddr = 0x400000, stub = 0x7f0000, counter = 0x800000;
	u8 out[UTP_JUMP_STUB_SIZE], jmp[UTP_JUMP_SIZE];
	struct utp_arch_window w;
	struct utp_arch_stub info;
	unsigned int off;
	s32 disp;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_jump_window(&w, stub_fn,
						      sizeof(stub_fn)));
	KUNIT_ASSERT_EQ(test, 0, utp_arch_jump_stub(&w, vaddr, stub, counter,
						    1, out, &info));
	KUNIT_EXPECT_LT(test, info.counted, info.body);
	KUNIT_EXPECT_LE(test, info.len, UTP_JUMP_STUB_SIZE);
	/* the instruction before the count: lea counter(%rip),%rdx */
	off = info.counted - 5 - 7;
	KUNIT_ASSERT_EQ(test, 0x8d, out[off + 1]);
	disp = get_unaligned_le32(out + off + 3);
	KUNIT_EXPECT_EQ(test, counter, stub + off + 7 + disp);
	stub_body_check(test, out, &info, vaddr, stub);
	/* slots are a power of two, two at least */
	KUNIT_EXPECT_EQ(test, -EINVAL, utp_arch_jump_stub(&w, vaddr, stub,
							  counter, 0, out,
							  &info));
	KUNIT_EXPECT_EQ(test, -EINVAL, utp_arch_jump_stub(&w, vaddr, stub,
							  counter, 5, out,
							  &info));
	/* out of reach: refused */
	KUNIT_EXPECT_EQ(test, -ERANGE,
			utp_arch_jump_stub(&w, vaddr, stub + (3UL << 30),
					   counter, 1, out, &info));
	utp_arch_jump_insn(vaddr, stub, jmp);
	KUNIT_EXPECT_EQ(test, 0xe9, jmp[0]);
	disp = get_unaligned_le32(jmp + 1);
	KUNIT_EXPECT_EQ(test, stub, vaddr + 5 + disp);
}

/*
 * A handler stub: it saves rax, rcx and r11 below the red zone, makes
 * the call sys_uprobe() answers, which returns where the kernel expects
 * (UTP_JUMP_SYS_RET), restores them, and runs the window as a counting
 * stub does.
 */
static void jump_sys_stub_test(struct kunit *test)
{
	static const u8 head[] = { 0x48, 0x8d, 0x64, 0x24, 0x80, 0x50, 0x51,
				   0x41, 0x53, 0xb8 };
	static const u8 tail[] = { 0x41, 0x5b, 0x59, 0x58, 0x48, 0x8d, 0xa4,
				   0x24, 0x80, 0x00, 0x00, 0x00 };
	unsigned long vaddr = 0x400000, stub = 0x7f0000;
	u8 out[UTP_JUMP_STUB_SIZE];
	struct utp_arch_window w;
	struct utp_arch_stub info;

	KUNIT_ASSERT_EQ(test, 0, utp_arch_jump_window(&w, stub_fn,
						      sizeof(stub_fn)));
	KUNIT_ASSERT_EQ(test, 0, utp_arch_jump_sys_stub(&w, vaddr, stub, out,
							&info));
	KUNIT_EXPECT_EQ(test, UTP_JUMP_SYS_RET, info.counted);
	KUNIT_EXPECT_EQ(test, 0, memcmp(out, head, sizeof(head)));
	KUNIT_EXPECT_EQ(test, 336, get_unaligned_le32(out + sizeof(head)));
	KUNIT_EXPECT_EQ(test, 0x0f, out[info.counted - 2]);
	KUNIT_EXPECT_EQ(test, 0x05, out[info.counted - 1]);
	KUNIT_EXPECT_EQ(test, 0, memcmp(out + info.counted, tail,
					sizeof(tail)));
	KUNIT_EXPECT_EQ(test, info.counted + sizeof(tail), info.body);
	stub_body_check(test, out, &info, vaddr, stub);
	KUNIT_EXPECT_EQ(test, -ERANGE,
			utp_arch_jump_sys_stub(&w, vaddr, stub + (3UL << 30),
					       out, &info));
}

static struct kunit_case utprobes_insn_cases[] = {
	KUNIT_CASE_PARAM(analyze_test, insn_gen_params),
	KUNIT_CASE(analyze_ignores_following_bytes_test),
	KUNIT_CASE(jcc_conditions_test),
	KUNIT_CASE(emulate_registers_test),
	KUNIT_CASE(xol_copy_riprel_test),
	KUNIT_CASE(call_out_of_line_test),
	KUNIT_CASE(run_through_test),
	KUNIT_CASE(post_step_ip_test),
	KUNIT_CASE_PARAM(jump_window_test, window_gen_params),
	KUNIT_CASE(jump_scan_test),
	KUNIT_CASE(jump_stub_test),
	KUNIT_CASE(jump_sys_stub_test),
	{}
};

static struct kunit_suite utprobes_insn_suite = {
	.name = "utprobes_insn",
	.test_cases = utprobes_insn_cases,
};

kunit_test_suite(utprobes_insn_suite);

MODULE_DESCRIPTION("KUnit tests of utprobes' x86 instruction handling");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
