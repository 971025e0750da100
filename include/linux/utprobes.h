/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utprobes: breakpoints on user instructions, on utrace.
 *
 * A probe module fills in a struct utprobe (a handler, optionally a name
 * and data) and registers it on an address in one process, or on an
 * offset in an executable file for every process that maps it, now or
 * later.  Each time a thread executes the probed instruction, the
 * handler runs in that thread's context with its user registers, then
 * the instruction is executed as if nothing had happened.
 *
 * A probe with a return handler, placed on the first instruction of a
 * function, is a return probe: at entry the thread notes the call (its
 * return address and stack slot), the instruction at the return address
 * gets a breakpoint of its own (a return site; the stack is not
 * touched), and the return handler runs when the thread comes back
 * there from that call, with the return value in the registers.
 *
 * These names do not collide with mainline uprobes (CONFIG_UPROBES),
 * which can be enabled in the same kernel; see
 * Documentation/trace/utprobes.rst.
 */
#ifndef _LINUX_UTPROBES_H
#define _LINUX_UTPROBES_H

#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/seqlock.h>
#include <linux/sizes.h>
#include <linux/types.h>

struct inode;
struct pt_regs;
struct utp_arch_insn;
struct utprobe;
struct vm_area_struct;

/**
 * typedef utprobe_handler_t - called on each hit of a probe
 * @up:		the probe
 * @regs:	the user registers, ip at the probed instruction
 *
 * Runs in the context of the thread that hit the probe, with no locks
 * held: it may sleep briefly (take a mutex, read user memory).  It may
 * change @regs; if it changes the ip, the probed instruction is skipped.
 * A probe with %UTPROBE_TRAP_SAFE, or made trap-safe for a while with
 * utprobe_set_trap_safe(), may have it run in the int3 trap itself,
 * with interrupts off: then it must not sleep or fault.
 *
 * Return: 0; other values are reserved.
 */
typedef int (*utprobe_handler_t)(struct utprobe *up, struct pt_regs *regs);

/**
 * struct utprobe_return - one return of a function probed for returns
 * @func:	the function's address (where the probe is)
 * @entry_ns:	ktime_get_ns() when the function was entered
 */
struct utprobe_return {
	unsigned long func;
	u64 entry_ns;
};

/**
 * typedef utprobe_ret_handler_t - called when a probed function returns
 * @up:		the probe
 * @ret:	which call returned, and when it was made
 * @regs:	the user registers: ip at the return address, the return
 *		value in ax
 *
 * Runs in the context of the returning thread, like a handler, and in
 * the trap if the probe has %UTPROBE_TRAP_SAFE.
 *
 * Return: 0; other values are reserved.
 */
typedef int (*utprobe_ret_handler_t)(struct utprobe *up,
				     const struct utprobe_return *ret,
				     struct pt_regs *regs);

/*
 * utprobe.flags: the handler and the return handler may run in the trap
 * (see utprobe_handler_t)
 */
#define UTPROBE_TRAP_SAFE	0x1

/* The longest function a probe may give (&struct utprobe.func_size). */
#define UTPROBE_FUNC_MAX	SZ_1M

/*
 * A thread holds at most this many calls of return-probed functions that
 * have not returned yet; deeper calls run entry handlers but are not
 * followed to their return (counted as missed).
 */
#define UTPROBE_RET_DEPTH_MAX	4096

/**
 * struct utprobe_ret_counts - what became of a return probe's entries
 * @returns:	returns reported to the return handler
 * @unwound:	calls left without a return: the stack was unwound past
 *		them (longjmp(), an exception), seen by the stack pointer
 * @missed:	calls not followed: too deep, no memory, not at a function
 *		entry, or a 32-bit task
 * @pending:	calls under way now (or left by a thread still running)
 */
struct utprobe_ret_counts {
	u64 returns;
	u64 unwound;
	u64 missed;
	long pending;
};

struct utp_ret_probe;

/**
 * struct utprobe - a probe, as a probe module registers it
 * @handler:	called on each hit, or NULL to only count hits
 * @ret_handler: if not NULL, a return probe: called on each return
 * @flags:	%UTPROBE_TRAP_SAFE, or 0
 * @name:	shown in trace events, or NULL
 * @data:	for the module
 * @func_size:	the size of the function the probe is in, or 0 if not
 *		known: a probe that only counts, whose function is known,
 *		may be entered by a jump instead of an int3 (see
 *		Documentation/trace/utprobes.rst)
 * @func_pos:	the probe's distance from that function's first byte
 *
 * The members after these are utprobes' own, set by utprobe_register_*(),
 * utprobe_set_trap_safe() and utprobe_set_counting(): a probe starts
 * zeroed.
 */
struct utprobe {
	utprobe_handler_t handler;
	utprobe_ret_handler_t ret_handler;
	unsigned int flags;
	const char *name;
	void *data;
	unsigned long func_size;
	unsigned long func_pos;

	/* private: set by utprobe_register_*() */
	u64 __percpu *hits;		/* per-CPU hit counts */
	/*
	 * per-CPU counts of returns, unwound, missed and pending calls (a
	 * call may be counted pending on one CPU and done on another: only
	 * the sum means anything)
	 */
	struct utprobe_ret_counts __percpu *rets;
	struct utp_ret_probe *ret_probe; /* what its calls' notes hold */
	struct list_head consumers;	/* its places in probed processes */
	struct rb_node file_node;	/* in the probes on files */
	struct inode *inode;		/* the file of a probe on a file */
	loff_t offset;			/* its offset in the file */
	loff_t ref_offset;		/* its semaphore's there, or 0 */
	struct utp_arch_insn *insn;	/* the instruction there */
	pid_t pid;			/* the process of a pid probe */
	unsigned long vaddr;		/* its address there */
	bool gone;			/* unregistered from a handler */
	struct list_head unsynced_node;	/* removed, handlers may run still */
	struct pid *scope;		/* the tree a file probe is limited to */
	/*
	 * Trap-safe for now, without %UTPROBE_TRAP_SAFE: utprobe_set_trap_safe().
	 * The trap decides by @trap_now; @trap_grace stays set until no trap
	 * that read @trap_now set can still be running.
	 */
	bool trap_now;
	bool trap_grace;
	/*
	 * Its handler does nothing for now (utprobe_set_counting()).  The
	 * stubs that count its hits too, changed under the engine's mutex
	 * (@jseq written around a stub's count moving into @hits) and read
	 * under RCU.
	 */
	bool counting;
	struct list_head jcounts;
	seqcount_t jseq;
	/*
	 * The last scan of its function for branches into a window (the
	 * jump look of each process decodes the whole function): the keyed
	 * hash of the bytes scanned, the window's length and the outcome.  A
	 * process whose function reads the same takes it as it is.  Under
	 * the engine's mutex.
	 */
	u64 jscan_hash;
	u8 jscan_wlen;
	s8 jscan_ret;
};

/**
 * struct utprobe_spec - one probe of utprobe_register_batch()
 * @up:		the probe; its handler, name and data set by the caller
 * @inode:	a probe on an executable file: the file; NULL for a probe
 *		on one process
 * @offset:	on a file: the instruction's offset in it
 * @pid:	on a file: the process whose tree alone gets the probe, or 0
 *		for every process; on one process: that process (ids in the
 *		caller's pid namespace)
 * @tgid:	that process as a &struct pid the caller holds, or NULL: if
 *		given, @pid is not looked up again (a caller that named the
 *		process earlier need not fear its number was reused since)
 * @vaddr:	on one process: the instruction's address there
 * @ref_offset:	on a file, or 0: the offset there of the probe's
 *		semaphore, the 16-bit counter of an SDT marker (in a
 *		writable section such as .probes), which is raised by one in
 *		each process while the probe is in it, so that code the
 *		program runs only while the marker is probed runs
 */
struct utprobe_spec {
	struct utprobe *up;
	struct inode *inode;
	loff_t offset;
	pid_t pid;
	struct pid *tgid;
	unsigned long vaddr;
	loff_t ref_offset;
};

#ifdef CONFIG_UTPROBES
int utprobe_register_batch(struct utprobe_spec *specs, unsigned int n);
int utprobe_register_pid(struct utprobe *up, pid_t pid, unsigned long vaddr);
int utprobe_register_file(struct utprobe *up, struct inode *inode,
			  loff_t offset);
int utprobe_register_file_scoped(struct utprobe *up, struct inode *inode,
				 loff_t offset, pid_t scope);
void utprobe_unregister(struct utprobe *up);
void utprobe_unregister_nosync(struct utprobe *up);
void utprobe_unregister_sync(void);
u64 utprobe_hits(const struct utprobe *up);
void utprobe_set_trap_safe(struct utprobe *up, bool safe);
void utprobe_set_counting(struct utprobe *up, bool counting);
const char *utprobe_mode(struct utprobe *up);
void utprobe_ret_counts(const struct utprobe *up,
			struct utprobe_ret_counts *counts);
int utprobe_arg(struct pt_regs *regs, unsigned int n, unsigned long *val);
unsigned long utprobe_retval(struct pt_regs *regs);
#else
static inline int utprobe_register_batch(struct utprobe_spec *specs,
					 unsigned int n)
{
	return -EOPNOTSUPP;
}

static inline int utprobe_register_pid(struct utprobe *up, pid_t pid,
				       unsigned long vaddr)
{
	return -EOPNOTSUPP;
}

static inline int utprobe_register_file(struct utprobe *up,
					struct inode *inode, loff_t offset)
{
	return -EOPNOTSUPP;
}

static inline int utprobe_register_file_scoped(struct utprobe *up,
					       struct inode *inode,
					       loff_t offset, pid_t scope)
{
	return -EOPNOTSUPP;
}

static inline void utprobe_unregister(struct utprobe *up)
{
}

static inline void utprobe_unregister_nosync(struct utprobe *up)
{
}

static inline void utprobe_unregister_sync(void)
{
}

static inline u64 utprobe_hits(const struct utprobe *up)
{
	return 0;
}

static inline void utprobe_set_trap_safe(struct utprobe *up, bool safe)
{
}

static inline void utprobe_set_counting(struct utprobe *up, bool counting)
{
}

static inline const char *utprobe_mode(struct utprobe *up)
{
	return "none";
}

static inline void utprobe_ret_counts(const struct utprobe *up,
				      struct utprobe_ret_counts *counts)
{
	*counts = (struct utprobe_ret_counts){};
}

static inline int utprobe_arg(struct pt_regs *regs, unsigned int n,
			      unsigned long *val)
{
	return -EOPNOTSUPP;
}

static inline unsigned long utprobe_retval(struct pt_regs *regs)
{
	return 0;
}
#endif

/*
 * For mmap_region(): [@addr, @addr + @len), now mapped by @vma, replaces
 * whatever text was there and may hold instructions probed by file.
 */
#ifdef CONFIG_UTPROBES
DECLARE_STATIC_KEY_FALSE(utprobe_mmap_key);
void __utprobe_mmap(struct vm_area_struct *vma, unsigned long addr,
		    unsigned long len);

static inline void utprobe_mmap(struct vm_area_struct *vma,
				unsigned long addr, unsigned long len)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_mmap(vma, addr, len);
}

void __utprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *mm);

/*
 * For dup_mmap(): @mm is the copy of @oldmm a fork made, both locked for
 * writing.  The int3s of a probed process go out of the copy, but those
 * the child takes over.
 */
static inline void utprobe_dup_mmap(struct mm_struct *oldmm,
				    struct mm_struct *mm)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_dup_mmap(oldmm, mm);
}

void __utprobe_mremap(struct vm_area_struct *vma, unsigned long old_addr,
		      unsigned long old_len, unsigned long new_addr,
		      unsigned long new_len);

/*
 * For move_vma(): the @old_len bytes at @old_addr moved to @new_addr,
 * where @vma maps @new_len bytes now.
 */
static inline void utprobe_mremap(struct vm_area_struct *vma,
				  unsigned long old_addr, unsigned long old_len,
				  unsigned long new_addr, unsigned long new_len)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_mremap(vma, old_addr, old_len, new_addr, new_len);
}

/* sys_uprobe(): a handler stub's call, from the arch's entry */
long utp_sys_hit(struct pt_regs *regs);

void __utprobe_text_write(struct mm_struct *mm, unsigned long vaddr,
			  int len);

/*
 * For mainline uprobes' uprobe_write_opcode(): @len bytes of @mm's text
 * at @vaddr are about to be written, the mm locked for writing.  A jump
 * of ours over them goes out first.
 */
static inline void utprobe_text_write(struct mm_struct *mm,
				      unsigned long vaddr, int len)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_text_write(mm, vaddr, len);
}

void __utprobe_access_read(struct vm_area_struct *vma, unsigned long addr,
			   void *buf, int len);
void __utprobe_access_write(struct vm_area_struct *vma, unsigned long addr,
			    void *buf, void *text, int len);

/*
 * For __access_remote_vm() (ptrace's PEEKTEXT, /proc/PID/mem): @len bytes
 * at @addr were read from @vma into @buf.  A debugger reading text is
 * shown the bytes under our int3s.
 */
static inline void utprobe_access_read(struct vm_area_struct *vma,
				       unsigned long addr, void *buf, int len)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_access_read(vma, addr, buf, len);
}

/*
 * For __access_remote_vm(): @buf is about to be written over @len bytes
 * of @vma at @addr, which now hold @text, in the page mapped there.  A
 * debugger's breakpoint over one of our int3s is noted, and our int3
 * kept in @buf; a jump of ours that the write reaches goes out of that
 * page first.
 */
static inline void utprobe_access_write(struct vm_area_struct *vma,
					unsigned long addr, void *buf,
					void *text, int len)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_access_write(vma, addr, buf, text, len);
}
#else
static inline void utprobe_mmap(struct vm_area_struct *vma,
				unsigned long addr, unsigned long len)
{
}

static inline void utprobe_dup_mmap(struct mm_struct *oldmm,
				    struct mm_struct *mm)
{
}

static inline void utprobe_mremap(struct vm_area_struct *vma,
				  unsigned long old_addr, unsigned long old_len,
				  unsigned long new_addr, unsigned long new_len)
{
}

static inline void utprobe_text_write(struct mm_struct *mm,
				      unsigned long vaddr, int len)
{
}

static inline void utprobe_access_read(struct vm_area_struct *vma,
				       unsigned long addr, void *buf, int len)
{
}

static inline void utprobe_access_write(struct vm_area_struct *vma,
					unsigned long addr, void *buf,
					void *text, int len)
{
}
#endif

#endif /* _LINUX_UTPROBES_H */
