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
 * These names do not collide with mainline uprobes (CONFIG_UPROBES),
 * which can be enabled in the same kernel; see
 * Documentation/trace/utprobes.rst.
 */
#ifndef _LINUX_UTPROBES_H
#define _LINUX_UTPROBES_H

#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/list.h>
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
 *
 * Return: 0; other values are reserved.
 */
typedef int (*utprobe_handler_t)(struct utprobe *up, struct pt_regs *regs);

/**
 * struct utprobe - a probe, as a probe module registers it
 * @handler:	called on each hit, or NULL to only count hits
 * @name:	shown in trace events, or NULL
 * @data:	for the module
 * @hits:	private: per-CPU hit counts
 * @consumers:	private: the probe's places in probed processes
 * @file_node:	private: in the list of probes on files
 * @inode:	private: the file of a file-scoped probe
 * @offset:	private: its offset in the file
 * @insn:	private: the instruction there
 * @pid:	private: the process of a pid-scoped probe
 * @vaddr:	private: its address there
 * @gone:	private: unregistered from a handler, being removed
 * @scope:	private: the process tree a file-scoped probe is limited to
 */
struct utprobe {
	utprobe_handler_t handler;
	const char *name;
	void *data;

	/* private: set by utprobe_register_*() */
	u64 __percpu *hits;
	struct list_head consumers;
	struct list_head file_node;
	struct inode *inode;
	loff_t offset;
	struct utp_arch_insn *insn;
	pid_t pid;
	unsigned long vaddr;
	bool gone;
	struct pid *scope;
};

#ifdef CONFIG_UTPROBES
int utprobe_register_pid(struct utprobe *up, pid_t pid, unsigned long vaddr);
int utprobe_register_file(struct utprobe *up, struct inode *inode,
			  loff_t offset);
int utprobe_register_file_scoped(struct utprobe *up, struct inode *inode,
				 loff_t offset, pid_t scope);
void utprobe_unregister(struct utprobe *up);
u64 utprobe_hits(const struct utprobe *up);
#else
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

static inline u64 utprobe_hits(const struct utprobe *up)
{
	return 0;
}
#endif

/* For mmap_region(): a new mapping may hold instructions probed by file. */
#ifdef CONFIG_UTPROBES
DECLARE_STATIC_KEY_FALSE(utprobe_mmap_key);
void __utprobe_mmap(struct vm_area_struct *vma);

static inline void utprobe_mmap(struct vm_area_struct *vma)
{
	if (static_branch_unlikely(&utprobe_mmap_key))
		__utprobe_mmap(vma);
}
#else
static inline void utprobe_mmap(struct vm_area_struct *vma)
{
}
#endif

#endif /* _LINUX_UTPROBES_H */
