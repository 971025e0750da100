// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs interface of utprobes: named probes that count their hits,
 * each one also a trace event with the values it fetches.
 *
 * utprobe_events takes one definition per line:
 *
 *   p:NAME PID:ADDR [FETCHARGS]
 *			probe the instruction at ADDR in process PID
 *   p:NAME PATH:OFFSET[(REF)] [tree=PID] [FETCHARGS]
 *			probe the instruction at OFFSET in the file at
 *			PATH (absolute), in every process that maps it (of
 *			the process tree of PID only, with tree=); REF is
 *			the offset of an SDT marker's semaphore, raised in
 *			each process while the probe is in it
 *   r:NAME TARGET [FETCHARGS]
 *			a return probe on the function at TARGET (either
 *			form): counts its calls and their returns, and
 *			times them; its event is recorded at each return
 *   -:NAME		remove probe NAME (-EBUSY while its event is on)
 *
 * Options may come before FETCHARGS: func=START+SIZE, the function the
 * probe is in (where a jump may enter it); stack=SIZE, a record that
 * also holds the registers to unwind from and a copy of up to SIZE
 * bytes (TUP_STACK_MAX at most) of the user stack from its pointer up
 * (struct tup_stack_head); or, the cheap alternative where the code
 * keeps frame pointers, callers=N, a record that also holds up to N
 * return addresses the frame pointers lead to (struct tup_callers_head).
 *
 * FETCHARGS are those of mainline uprobe_events, parsed by the kernel's
 * own probe-argument code (kernel/trace/trace_probe.c): %REG, @ADDR,
 * @+OFFSET (on a file), $stackN, $stack, $retval (return probes),
 * $comm, +|-OFFS(FETCHARG), \IMM, each with :TYPE and NAME= as there.
 * A definition's mistakes are explained in tracing/error_log.
 *
 * A write may hold many lines (up to TUP_WRITE_MAX bytes).  If one of
 * them does not parse, the write changes nothing.  Otherwise they are
 * done in order, and definitions that follow each other are placed as
 * one batch (utprobe_register_batch()): all of them or none, in one
 * pass over each process.  PID (and tree=PID) is a number in the
 * writer's pid namespace; a reader sees it as its own pid namespace
 * numbers that process (0 if it cannot see it).
 *
 * utprobe_session takes the same lines, but each open file of it is a
 * session that owns the probes written through it, as a perf event
 * belongs to its file: when the file's last reference goes (the tool
 * closed it, or died), its probes are removed from every process, with
 * their events.  An event then still on in a trace instance, or
 * referred to, stays until its last user lets it go.  A session removes
 * only its own probes, and lists them when read.
 *
 * utprobe_events lists the probes when read; opening it with O_TRUNC
 * removes them all (none, with -EBUSY, while one's event is on).
 * utprobe_profile lists each probe with its hit count (calls, for a
 * return probe).  utprobe_returns lists each return probe with what
 * became of its calls and a log2 histogram of their durations:
 *
 *   NAME returns=N unwound=N missed=N pending=N min_ns=N max_ns=N
 *	  sum_ns=N hist=B:COUNT,...
 *
 * (one line), where bucket B counts the calls that took less than 2^B
 * and at least 2^(B-1) nanoseconds (bucket 0: no time at all).
 * utprobe_modes lists how each probe's hits come in: "NAME jump" (by
 * jumps to stubs that count them, for a probe defined with func= whose
 * event is off), "NAME syscall" (by jumps to stubs that enter the kernel
 * by a system call to record the event), "NAME trap REASON" (by int3s,
 * and why: utprobe_mode())
 * or "NAME none" (no process has it now).
 *
 * Each probe is the event utprobes/NAME: its fields are the probed
 * address (__probe_ip), or the function and the return address
 * (__probe_func, __probe_ret_ip), then the fetched values, as for a
 * mainline uprobe event.  A probe without FETCHARGS records its event
 * from the int3 trap; one with FETCHARGS has its handler run where it
 * may fault user memory in, so that a value paged out is still read.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/bsearch.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/utprobes.h>
#include <asm/utprobes.h>

#include "trace_probe.h"
#include "trace_probe_tmpl.h"

/* serialises users of the probe-argument parser's error log */
extern struct mutex dyn_event_ops_mutex;

#define TUP_NAME_MAX	64
#define TUP_EVENT_GROUP	"utprobes"
/* a write of many definitions, placed together, is this long at most */
#define TUP_WRITE_MAX	SZ_1M
#define TUP_LAT_BUCKETS	65	/* fls64() of a u64 */

/* Durations of the calls of a return probe, on one CPU. */
struct tup_lat {
	u64 min;
	u64 max;
	u64 sum;
	u64 hist[TUP_LAT_BUCKETS];
};

struct tup_named {
	struct list_head node;		/* in tup_named_list; RCU-read */
	struct hlist_node hnode;	/* in tup_named_hash */
	struct list_head gone_node;	/* being removed, or an orphan */
	char name[TUP_NAME_MAX];
	char *target;			/* as written: ADDR, or PATH:OFFSET */
	struct pid *pid;		/* of PID:ADDR or tree=PID, or NULL */
	char *args;			/* its FETCHARGS as written, or NULL */
	unsigned int stack_size;	/* stack= bytes a record copies, or 0 */
	unsigned int callers;		/* callers= words a record holds, or 0 */
	struct tup_lat __percpu *lat;	/* a return probe's, or NULL */
	const struct file *owner;	/* its session, or NULL */
	/*
	 * The file of a probe on a file, held as an open file holds it:
	 * its file system cannot be unmounted (-EBUSY), and one detached
	 * lazily lives on, until the probe has gone.
	 */
	struct path path;
	struct utprobe up;
	bool has_event;			/* tp's event is registered */
	bool orphan;			/* in tup_orphans (under event_mutex) */
	struct trace_probe tp;		/* its event; last: args[] follow */
};

/* An event's record: the probed address, or the function and return */
struct tup_trace_entry {
	struct trace_entry ent;
	unsigned long vaddr[];
};

#define TUP_ENTRY_SIZE(ret)	(sizeof(struct tup_trace_entry) + \
				 ((ret) ? 2 : 1) * sizeof(unsigned long))
/*
 * A record fits a ring-buffer page of the default size, headers and an
 * absolute time stamp included: its strings are cut to fit (their data
 * locations also hold 16-bit offsets only), and a definition whose fixed
 * fields alone do not fit is refused.
 */
#define TUP_RECORD_MAX		(PAGE_SIZE - 128)

/*
 * What a probe defined with stack=SIZE adds to its record, after the
 * address(es): the user registers an unwinder starts from
 * (utp_arch_unwind_regs()), and the data location of a copy of the user
 * stack from the stack pointer up.  The copy is as much of SIZE bytes as
 * can be read without faulting, page by page, and as fits one record of
 * the trace instance's buffer (buffer_subbuf_size_kb makes room for
 * more): its length says where it was cut.
 */
struct tup_stack_head {
	unsigned long regs[UTP_ARCH_UNWIND_REGS];
	u32 loc;
	u32 pad;	/* the fetched values that follow stay aligned */
};

#define TUP_STACK_REGS_TYPE \
	"unsigned long[" __stringify(UTP_ARCH_UNWIND_REGS) "]"

/* a data location's offset and length are 16-bit: records stay below */
#define TUP_STACK_MAX		SZ_32K

/*
 * What a probe defined with callers=N adds to its record instead, after
 * the address(es): the data location of up to N words that the frame
 * pointers lead to.  The first is the word at the user stack pointer,
 * the return address when the hit is on a function's first instruction,
 * before the function has saved rbp (the reader knows where the probe is
 * in its function); then the return address of each frame of the rbp
 * chain, innermost first, as the arch's walk of a user stack finds them
 * (ftrace's userstacktrace's), without faulting: they end where a frame
 * cannot be read, where the frame pointer is below the stack pointer,
 * or at N.  The words start at a multiple of their size into the record.
 */
struct tup_callers_head {
	u32 loc;
	u32 pad;	/* the fetched values that follow stay aligned */
};

#define TUP_CALLERS_MAX		128

/* What @n's callers take after its values: the words, aligned */
static size_t tup_callers_room(const struct tup_named *n)
{
	return n->callers ? (n->callers + 1) * sizeof(long) : 0;
}

/* The size of @n's record before its fetched values */
static size_t tup_fixed_size(const struct tup_named *n)
{
	return TUP_ENTRY_SIZE(n->lat) +
	       (n->stack_size ? sizeof(struct tup_stack_head) : 0) +
	       (n->callers ? sizeof(struct tup_callers_head) : 0);
}

/*
 * Fetching the values of FETCHARGS, for the probe-argument code of
 * trace_probe_tmpl.h.  All memory read is the probed thread's: the
 * accessors fault pages in where the handler may sleep, and a bad
 * address gives the marked value of that code (a string of "(fault)"),
 * never an error for the thread.
 */
static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size)
{
	return copy_from_user(dest, (void __force __user *)src, size) ?
	       -EFAULT : 0;
}

static nokprobe_inline int probe_mem_read_user(void *dest, void *src,
					       size_t size)
{
	return probe_mem_read(dest, src, size);
}

/* Store the string at @addr where the data location at @dest says. */
static nokprobe_inline int fetch_store_string(unsigned long addr, void *dest,
					      void *base)
{
	u32 loc = *(u32 *)dest;
	int maxlen = get_loc_len(loc);
	u8 *dst = get_loc_data(dest, base);
	long ret;

	if (unlikely(!maxlen))
		return -ENOMEM;
	if (addr == FETCH_TOKEN_COMM)
		ret = strscpy(dst, current->comm, maxlen);
	else
		ret = strncpy_from_user(dst, (void __force __user *)addr,
					maxlen);
	if (ret < 0) {
		*(u32 *)dest = make_data_loc(0, (void *)dst - base);
		return ret;
	}
	/* the terminating NUL, copied but not counted; or cut there */
	if (ret == maxlen)
		dst[ret - 1] = '\0';
	else
		ret++;
	*(u32 *)dest = make_data_loc(ret, (void *)dst - base);
	return ret;
}

static nokprobe_inline int fetch_store_string_user(unsigned long addr,
						   void *dest, void *base)
{
	return fetch_store_string(addr, dest, base);
}

/* The length of the string at @addr with its NUL, or 0 */
static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	int len;

	if (addr == FETCH_TOKEN_COMM)
		return strlen(current->comm) + 1;
	len = strnlen_user((void __force __user *)addr, MAX_STRING_SIZE);
	return len > MAX_STRING_SIZE ? 0 : len;
}

static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	return fetch_store_strlen(addr);
}

/* Word @n of the user stack, or 0 if it cannot be read */
static unsigned long tup_user_stack_nth(struct pt_regs *regs, unsigned int n)
{
	unsigned long val, addr = user_stack_pointer(regs);

	addr += n * sizeof(val);
	if (copy_from_user(&val, (void __user *)addr, sizeof(val)))
		return 0;
	return val;
}

/*
 * @rec is the thread's registers; @edata the address where the file of
 * a file probe is mapped at offset 0 (its probed address less its
 * offset), for @+OFFSET.
 */
static int process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
			      void *dest, void *base)
{
	struct pt_regs *regs = rec;
	unsigned long val;
	int ret;

	switch (code->op) {
	case FETCH_OP_REG:
		val = regs_get_register(regs, code->param);
		break;
	case FETCH_OP_STACK:
		val = tup_user_stack_nth(regs, code->param);
		break;
	case FETCH_OP_STACKP:
		val = user_stack_pointer(regs);
		break;
	case FETCH_OP_RETVAL:
		val = regs_return_value(regs);
		break;
	case FETCH_OP_COMM:
		val = FETCH_TOKEN_COMM;
		break;
	case FETCH_OP_FOFFS:
		val = *(unsigned long *)edata + code->immediate;
		break;
	default:
		ret = process_common_fetch_insn(code, &val);
		if (ret < 0)
			return ret;
	}
	code++;
	return process_fetch_insn_bottom(code, val, dest, base);
}

/*
 * Fill the stack fields of @n's record @entry: the registers, and at
 * @at bytes into the record up to @room bytes of the user stack, read
 * page by page without faulting (this may be the trap); the copy ends at
 * the first page that cannot be read, and the rest of @room is zeroed.
 */
static void tup_stack_fill(struct tup_named *n, void *entry,
			   struct pt_regs *regs, unsigned int at,
			   unsigned int room)
{
	struct tup_stack_head *head = entry + TUP_ENTRY_SIZE(n->lat);
	unsigned long sp = user_stack_pointer(regs);
	unsigned int done = 0, chunk;

	utp_arch_unwind_regs(regs, head->regs);
	head->pad = 0;
	while (done < room) {
		chunk = min_t(unsigned int, room - done,
			      PAGE_SIZE - offset_in_page(sp + done));
		if (copy_from_user_nofault(entry + at + done,
					   (void __user *)(sp + done), chunk))
			break;
		done += chunk;
	}
	memset(entry + at + done, 0, room - done);
	head->loc = make_data_loc(done, at);
}

struct tup_callers_walk {
	unsigned long *store;
	unsigned int n;
	unsigned int max;
};

static bool tup_callers_take(void *cookie, unsigned long addr)
{
	struct tup_callers_walk *w = cookie;

	w->store[w->n++] = addr;
	return w->n < w->max;
}

/*
 * Fill the callers fields of @n's record @entry from @regs, the words at
 * @at bytes into the record (room for n->callers); the rest is zeroed.
 */
static void tup_callers_fill(struct tup_named *n, void *entry,
			     struct pt_regs *regs, unsigned int at)
{
	struct tup_callers_head *head = entry + TUP_ENTRY_SIZE(n->lat);
	struct tup_callers_walk w = {
		.store = entry + at,
		.max = n->callers,
	};
	unsigned long sp = user_stack_pointer(regs);

	/* the walk gives the ip first: its place takes the word at sp */
	arch_stack_walk_user(tup_callers_take, &w, regs);
	if (!w.n)
		w.n = 1;
	if (copy_from_user_nofault(w.store, (void __user *)sp, sizeof(long)))
		w.store[0] = 0;
	memset(w.store + w.n, 0, (w.max - w.n) * sizeof(long));
	head->pad = 0;
	head->loc = make_data_loc(w.n * sizeof(long), at);
}

/* Write @n's record, with the values at @data, into @file's buffer. */
static void tup_event_write(struct tup_named *n, struct trace_event_file *file,
			    unsigned long func, struct pt_regs *regs,
			    void *data, int dsize)
{
	bool ret_probe = n->lat;
	struct trace_event_buffer fbuffer;
	struct tup_trace_entry *entry;
	size_t esize = tup_fixed_size(n);
	unsigned int stack = 0, pad = 0;

	if (trace_trigger_soft_disabled(file))
		return;
	if (n->stack_size) {
		/*
		 * A record longer than the buffer takes would be lost.  With
		 * absolute time stamps the ring buffer's own check counts
		 * their extension twice: leave room for it whatever the mode.
		 */
		struct trace_buffer *buf = file->tr->array_buffer.buffer;
		long room = ring_buffer_max_event_size(buf) - esize - dsize -
			    sizeof(u64);

		stack = clamp_t(long, room, 0, n->stack_size);
	} else if (n->callers) {
		/* the words aligned, after the values' strings */
		pad = ALIGN(esize + dsize, sizeof(long)) - esize - dsize;
		stack = n->callers * sizeof(long);
	}
	entry = trace_event_buffer_reserve(&fbuffer, file,
					   esize + dsize + pad + stack);
	if (!entry)
		return;
	if (ret_probe) {
		entry->vaddr[0] = func;
		entry->vaddr[1] = instruction_pointer(regs);
	} else {
		entry->vaddr[0] = instruction_pointer(regs);
	}
	if (dsize)
		memcpy((void *)entry + esize, data, dsize);
	if (n->stack_size) {
		tup_stack_fill(n, entry, regs, esize + dsize, stack);
	} else if (n->callers) {
		memset((void *)entry + esize + dsize, 0, pad);
		tup_callers_fill(n, entry, regs, esize + dsize + pad);
	}
	trace_event_buffer_commit(&fbuffer);
}

/*
 * Record @n's event, in each trace instance where it is on: at a hit,
 * or (@func, the function's address) at a return.  The values are
 * fetched once, into a buffer of this hit's, before the ring buffers
 * are reserved: fetching may sleep.  A probe without values may be
 * recorded in the trap.
 */
static void tup_event_record(struct tup_named *n, unsigned long func,
			     struct pt_regs *regs)
{
	struct trace_probe *tp = &n->tp;
	unsigned long at = func ?: instruction_pointer(regs);
	unsigned long file_base = at - n->up.offset;
	struct event_file_link *link;
	int dsize = 0, size = 0;
	void *data = NULL;

	if (tp->nr_args) {
		dsize = __get_data_size(tp, regs, &file_base);
		dsize = min_t(int, dsize, TUP_RECORD_MAX -
			      tup_fixed_size(n) - tp->size -
			      tup_callers_room(n));
		size = tp->size + dsize;
		/* zeroed: a value that cannot be read is 0, nothing stale */
		data = kzalloc(size, GFP_KERNEL);
		if (!data)
			return;
		store_trace_args(data, tp, regs, &file_base,
				 tup_fixed_size(n), dsize);
	}
	rcu_read_lock();
	trace_probe_for_each_link_rcu(link, tp)
		tup_event_write(n, link->file, func, regs, data, size);
	rcu_read_unlock();
	kfree(data);
}

/* A probe's hit: its event, if on */
static int tup_named_hit(struct utprobe *up, struct pt_regs *regs)
{
	struct tup_named *n = container_of(up, struct tup_named, up);

	if (trace_probe_test_flag(&n->tp, TP_FLAG_TRACE))
		tup_event_record(n, 0, regs);
	return 0;
}

/* A return probe's return handler: the call's duration goes in. */
static int tup_named_ret(struct utprobe *up, const struct utprobe_return *ret,
			 struct pt_regs *regs)
{
	struct tup_named *n = container_of(up, struct tup_named, up);
	u64 ns = ktime_get_ns() - ret->entry_ns;
	struct tup_lat *lat;

	lat = get_cpu_ptr(n->lat);
	if (ns < lat->min)
		lat->min = ns;
	if (ns > lat->max)
		lat->max = ns;
	lat->sum += ns;
	lat->hist[fls64(ns)]++;
	put_cpu_ptr(n->lat);
	if (trace_probe_test_flag(&n->tp, TP_FLAG_TRACE))
		tup_event_record(n, ret->func, regs);
	return 0;
}

/*
 * Serialises the writers of tup_named_list, tup_named_hash and
 * tup_orphans; taken before event_mutex and the core's own mutex.  The
 * listings read tup_named_list under RCU alone, so that a reader never
 * waits for a long write: a probe taken off the list is freed only
 * after a grace period (tup_named_free() and __tup_reap() wait for one
 * before they free it).
 */
static DEFINE_MUTEX(tup_named_lock);
static LIST_HEAD(tup_named_list);
/* The same by name, for the writers.  tup_named_lock. */
#define TUP_NAMED_HASH_BITS	12
static DEFINE_HASHTABLE(tup_named_hash, TUP_NAMED_HASH_BITS);
/*
 * Probes whose session ended while their events were in use: out of
 * every process, their handlers done, their events kept for the users
 * until the last one lets go; then tup_reap_work removes them.
 */
static LIST_HEAD(tup_orphans);
static struct work_struct tup_reap_work;

static u32 tup_name_hash(const char *name)
{
	return full_name_hash(NULL, name, strlen(name));
}

static struct tup_named *tup_named_find(const char *name)
{
	struct tup_named *n;

	hash_for_each_possible(tup_named_hash, n, hnode, tup_name_hash(name))
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

/* List @n, a probe just registered with its event.  tup_named_lock. */
static void tup_named_list_add(struct tup_named *n)
{
	list_add_tail_rcu(&n->node, &tup_named_list);
	hash_add(tup_named_hash, &n->hnode, tup_name_hash(n->name));
}

/*
 * Take @n off the lists onto @to, a list of probes being removed: a
 * reader may still be at it until a grace period has passed.
 * tup_named_lock.
 */
static void tup_named_unlist(struct tup_named *n, struct list_head *to)
{
	list_del_rcu(&n->node);
	hash_del(&n->hnode);
	list_add_tail(&n->gone_node, to);
}

static bool tup_name_valid(const char *name)
{
	const char *p;

	if (!*name || strlen(name) >= TUP_NAME_MAX ||
	    !(isalpha(*name) || *name == '_'))
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '_')
			return false;
	return true;
}

static bool tup_named_is_ret(const struct tup_named *n)
{
	return n->lat;
}

static struct tup_named *tup_named_from_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct tup_named, tp) : NULL;
}

static enum print_line_t tup_event_print(struct trace_iterator *iter,
					 int flags, struct trace_event *event)
{
	struct tup_trace_entry *entry = (struct tup_trace_entry *)iter->ent;
	struct trace_seq *s = &iter->seq;
	struct tup_named *n;
	bool ret_probe;

	n = tup_named_from_call(container_of(event, struct trace_event_call,
					     event));
	if (unlikely(!n))
		return trace_handle_return(s);
	ret_probe = tup_named_is_ret(n);
	if (ret_probe)
		trace_seq_printf(s, "%s: (0x%lx <- 0x%lx)", n->name,
				 entry->vaddr[1], entry->vaddr[0]);
	else
		trace_seq_printf(s, "%s: (0x%lx)", n->name, entry->vaddr[0]);
	if (trace_probe_print_args(s, n->tp.args, n->tp.nr_args,
				   (u8 *)entry + tup_fixed_size(n),
				   entry) < 0)
		return trace_handle_return(s);
	if (n->stack_size) {
		struct tup_stack_head *head = (void *)entry +
					      TUP_ENTRY_SIZE(ret_probe);

		/* the bytes copied: the unwinding is the reader's */
		trace_seq_printf(s, " stack=%u", get_loc_len(head->loc));
	}
	if (n->callers) {
		struct tup_callers_head *head = (void *)entry +
						TUP_ENTRY_SIZE(ret_probe);
		unsigned long *w = (void *)entry + get_loc_offs(head->loc);
		unsigned int k, nr = get_loc_len(head->loc) / sizeof(long);

		trace_seq_puts(s, " callers=");
		for (k = 0; k < nr; k++)
			trace_seq_printf(s, "%s0x%lx", k ? "," : "", w[k]);
	}
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static int tup_event_define_fields(struct trace_event_call *event_call)
{
	struct tup_named *n = tup_named_from_call(event_call);
	struct tup_trace_entry field;
	int ret;

	if (unlikely(!n))
		return -ENODEV;
	if (tup_named_is_ret(n)) {
		DEFINE_FIELD(unsigned long, vaddr[0], FIELD_STRING_FUNC, 0);
		DEFINE_FIELD(unsigned long, vaddr[1], FIELD_STRING_RETIP, 0);
	} else {
		DEFINE_FIELD(unsigned long, vaddr[0], FIELD_STRING_IP, 0);
	}
	if (n->stack_size) {
		size_t at = TUP_ENTRY_SIZE(tup_named_is_ret(n));

		ret = trace_define_field(event_call, TUP_STACK_REGS_TYPE,
					 "__stack_regs", at +
					 offsetof(struct tup_stack_head, regs),
					 sizeof_field(struct tup_stack_head, regs),
					 0, FILTER_OTHER);
		if (ret)
			return ret;
		ret = trace_define_field(event_call, "__data_loc u8[]",
					 "__stack", at +
					 offsetof(struct tup_stack_head, loc),
					 sizeof(u32), 0, FILTER_OTHER);
		if (ret)
			return ret;
	}
	if (n->callers) {
		ret = trace_define_field(event_call,
					 "__data_loc unsigned long[]",
					 "__callers",
					 TUP_ENTRY_SIZE(tup_named_is_ret(n)) +
					 offsetof(struct tup_callers_head, loc),
					 sizeof(u32), 0, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return traceprobe_define_arg_fields(event_call, tup_fixed_size(n),
					    &n->tp);
}

/* @n's event is off everywhere: its probe only counts hits again */
static void tup_event_off(struct tup_named *n)
{
	if (n->tp.nr_args)
		utprobe_set_trap_safe(&n->up, true);
	if (!tup_named_is_ret(n))
		utprobe_set_counting(&n->up, true);
}

/* An event turned on or off in a trace instance (@data, its file) */
static int tup_event_reg(struct trace_event_call *call, enum trace_reg type,
			 void *data)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct tup_named *n;
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	n = container_of(tp, struct tup_named, tp);
	switch (type) {
	case TRACE_REG_REGISTER:
		/* no trap may fetch: out of the trap before the event is on */
		if (tp->nr_args)
			utprobe_set_trap_safe(&n->up, false);
		/* and no hit may miss the event: no jumps either */
		if (!tup_named_is_ret(n))
			utprobe_set_counting(&n->up, false);
		ret = trace_probe_add_file(tp, data);
		if (ret && !trace_probe_is_enabled(tp))
			tup_event_off(n);
		return ret;
	case TRACE_REG_UNREGISTER:
		ret = trace_probe_remove_file(tp, data);
		if (!trace_probe_is_enabled(tp))
			tup_event_off(n);
		/* an orphan's event may have lost its last user */
		if (n->orphan)
			schedule_work(&tup_reap_work);
		return ret;
	default:
		/* perf does not attach to these events */
		return -EOPNOTSUPP;
	}
}

static struct trace_event_functions tup_event_funcs = {
	.trace = tup_event_print,
};

static struct trace_event_fields tup_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = tup_event_define_fields },
	{}
};

/*
 * Make @n's event, utprobes/NAME, whose name the caller found free
 * (tup_events_free()): what trace_probe_register_event_call() does but
 * its look-up, which walks every event of the system, for each event
 * of a batch of thousands.  event_mutex held.
 */
static int tup_event_add(struct tup_named *n)
{
	struct trace_event_call *call = trace_probe_event_call(&n->tp);
	int ret;

	call->event.funcs = &tup_event_funcs;
	call->class->fields_array = tup_event_fields;
	call->class->reg = tup_event_reg;
	/*
	 * references taken on it (an eprobe on it, another event's
	 * enable_event trigger) are counted, and removal checks them
	 */
	call->flags = TRACE_EVENT_FL_DYNAMIC;
	if (!register_trace_event(&call->event))
		return -ENODEV;
	ret = trace_add_event_call(call);
	if (ret)
		unregister_trace_event(&call->event);
	n->has_event = !ret;
	return ret;
}

/* Is @n's event on in a trace instance, or referred to?  event_mutex held */
static bool tup_event_busy(struct tup_named *n)
{
	return n->has_event &&
	       (trace_probe_is_enabled(&n->tp) ||
		trace_event_dyn_busy(trace_probe_event_call(&n->tp)));
}

/*
 * Remove @n's event, not busy, once no handler can still use the event
 * files it was on: the caller has waited for an RCU grace period since
 * it was turned off.  event_mutex held.
 */
static int tup_event_del(struct tup_named *n)
{
	int ret;

	if (!n->has_event)
		return 0;
	ret = trace_probe_unregister_event_call(&n->tp);
	n->has_event = ret;
	return ret;
}

/*
 * Remove the event of every probe: all or none (-EBUSY) while one is on
 * or referred to.  Records of the removed events are cleared from the
 * buffers they were in, since another event may take their type.
 * tup_named_lock held.
 */
static int tup_events_del_all(void)
{
	struct tup_named *n;
	int ret = 0;

	mutex_lock(&event_mutex);
	list_for_each_entry(n, &tup_named_list, node)
		if (tup_event_busy(n))
			ret = -EBUSY;
	/* a handler may still hold a file the event was on */
	if (!ret)
		synchronize_rcu();
	list_for_each_entry(n, &tup_named_list, node) {
		if (!ret)
			ret = tup_event_del(n);
		cond_resched();
	}
	tracing_reset_all_online_cpus();
	mutex_unlock(&event_mutex);
	return ret;
}

/* Free @n, whose event is gone or never was, and whose handlers are done */
static void tup_named_destroy(struct tup_named *n)
{
	/* after the engine let go of the file's inode */
	if (n->path.dentry)
		path_put(&n->path);
	trace_probe_cleanup(&n->tp);
	put_pid(n->pid);
	free_percpu(n->lat);
	kfree(n->args);
	kfree(n->target);
	kfree(n);
}

/*
 * Remove @n, whose event is gone, from the processes and from the list,
 * onto @gone: its handlers may run until tup_named_free() has waited
 * for them.
 */
static void tup_named_remove(struct tup_named *n, struct list_head *gone)
{
	utprobe_unregister_nosync(&n->up);
	tup_named_unlist(n, gone);
}

/* Free the probes tup_named_remove() put on @gone, after one wait. */
static void tup_named_free(struct list_head *gone)
{
	struct tup_named *n, *next;

	if (list_empty(gone))
		return;
	/* after a grace period: no reader of the list sees them either */
	utprobe_unregister_sync();
	list_for_each_entry_safe(n, next, gone, gone_node) {
		list_del(&n->gone_node);
		tup_named_destroy(n);
		cond_resched();
	}
}

/*
 * Remove the events of the probes on @list, which none uses any more:
 * no handler can record into them (see tup_event_del()).  event_mutex
 * held.
 */
static void tup_events_del_list(struct list_head *list)
{
	struct tup_named *n;

	if (list_empty(list))
		return;
	synchronize_rcu();
	list_for_each_entry(n, list, gone_node) {
		WARN_ON_ONCE(tup_event_del(n));
		cond_resched();
	}
	tracing_reset_all_online_cpus();
}

/*
 * Free the orphans whose events nothing uses any more.  An event that
 * lost its last user by being turned off queued this; one let go by
 * another event (an eprobe removed) is found at the next write or
 * truncation.  tup_named_lock held.
 */
static void __tup_reap(void)
{
	struct tup_named *n, *next;
	LIST_HEAD(gone);

	if (list_empty(&tup_orphans))
		return;
	mutex_lock(&event_mutex);
	list_for_each_entry_safe(n, next, &tup_orphans, gone_node)
		if (!tup_event_busy(n))
			list_move_tail(&n->gone_node, &gone);
	/* waits for a grace period, since before they were orphaned too */
	tup_events_del_list(&gone);
	mutex_unlock(&event_mutex);
	list_for_each_entry_safe(n, next, &gone, gone_node) {
		list_del(&n->gone_node);
		tup_named_destroy(n);
		cond_resched();
	}
}

static void tup_reap(struct work_struct *work)
{
	mutex_lock(&tup_named_lock);
	__tup_reap();
	mutex_unlock(&tup_named_lock);
}

/*
 * The end of session @owner, at the last close of its file however its
 * process ended: its probes go out of every process, and go with their
 * events.  A probe whose event is still in use (on in a trace instance,
 * or referred to) becomes an orphan until the event's last user lets go.
 */
static void tup_session_end(const struct file *owner)
{
	struct tup_named *n, *next;
	LIST_HEAD(orphans);
	LIST_HEAD(gone);
	bool synced;

	mutex_lock(&tup_named_lock);
	mutex_lock(&event_mutex);
	list_for_each_entry_safe(n, next, &tup_named_list, node) {
		if (n->owner != owner)
			continue;
		n->owner = NULL;
		n->orphan = tup_event_busy(n);
		tup_named_unlist(n, n->orphan ? &orphans : &gone);
	}
	tup_events_del_list(&gone);
	mutex_unlock(&event_mutex);
	list_for_each_entry(n, &gone, gone_node) {
		utprobe_unregister_nosync(&n->up);
		cond_resched();
	}
	list_for_each_entry(n, &orphans, gone_node) {
		utprobe_unregister_nosync(&n->up);
		cond_resched();
	}
	/* one wait for the handlers of both */
	synced = !list_empty(&gone);
	tup_named_free(&gone);
	if (!list_empty(&orphans)) {
		if (!synced)
			utprobe_unregister_sync();
		list_splice_tail(&orphans, &tup_orphans);
		/* a user may have let go before they were listed */
		schedule_work(&tup_reap_work);
	}
	mutex_unlock(&tup_named_lock);
}

/* A line of a write, parsed: a definition, or a removal. */
struct tup_line {
	struct tup_named *n;		/* the probe defined, not yet listed */
	struct path path;		/* its file, held, if on a file */
	struct utprobe_spec spec;	/* where it goes */
	const char *remove;		/* or the name of a probe to remove */
};

/* The offset "(REF)" at @paren, if not NULL, into *@ref. */
static int tup_parse_ref(char *paren, u64 *ref)
{
	size_t len;
	int ret;

	*ref = 0;
	if (!paren)
		return 0;
	len = strlen(paren);
	if (len < 3 || paren[len - 1] != ')')
		return -EINVAL;
	paren[len - 1] = '\0';
	ret = kstrtou64(paren + 1, 0, ref);
	paren[len - 1] = ')';
	return ret || !*ref || *ref > LLONG_MAX ? -EINVAL : 0;
}

/*
 * "PATH:OFFSET" or "PATH:OFFSET(REF)", REF the offset of a semaphore
 * (@colon at the last colon), into @l's spec.
 */
static int tup_parse_file(struct tup_line *l, char *target, char *colon,
			  pid_t tree)
{
	char *paren = strchr(colon, '(');
	u64 offset, ref;
	int ret;

	ret = tup_parse_ref(paren, &ref);
	if (ret)
		return ret;
	*colon = '\0';
	if (paren)
		*paren = '\0';
	ret = kstrtou64(colon + 1, 0, &offset);
	if (!ret && offset > LLONG_MAX)
		ret = -EINVAL;
	if (!ret)
		ret = kern_path(target, LOOKUP_FOLLOW, &l->path);
	*colon = ':';
	if (paren)
		*paren = '(';
	if (ret)
		return ret;
	l->spec.inode = d_inode(l->path.dentry);
	l->spec.offset = offset;
	l->spec.ref_offset = ref;
	l->spec.pid = tree;
	return 0;
}

/* Does @arg read at a file offset (@+OFFSET)? */
static bool tup_arg_on_file(const struct probe_arg *arg)
{
	const struct fetch_insn *code;

	for (code = arg->code; code->op != FETCH_OP_END; code++)
		if (code->op == FETCH_OP_FOFFS)
			return true;
	return false;
}

/*
 * Parse @n's FETCHARGS @argv[0..@argc) into its event, with the kernel's
 * parser; its mistakes go to tracing/error_log.
 */
static int tup_parse_args(struct tup_named *n, int argc, const char **argv,
			  bool ret_probe, bool on_file)
{
	int i, ret = 0;

	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init("utprobe", argc, argv);
	for (i = 0; i < argc && !ret; i++) {
		struct traceprobe_parse_context ctx = {
			.flags = TPARG_FL_USER |
				 (ret_probe ? TPARG_FL_RETURN : 0),
		};

		trace_probe_log_set_index(i);
		ret = traceprobe_parse_probe_arg(&n->tp, i, argv[i], &ctx);
		traceprobe_finish_parse(&ctx);
		/* a process probe has no file to take offsets in */
		if (!ret && !on_file && tup_arg_on_file(&n->tp.args[i]))
			ret = -EINVAL;
	}
	if (!ret && tup_fixed_size(n) + n->tp.size + tup_callers_room(n) >
	    TUP_RECORD_MAX) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_TOO_BIG);
		ret = -E2BIG;
	}
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);
	if (ret)
		return ret;
	return traceprobe_set_print_fmt(&n->tp, ret_probe ?
					PROBE_PRINT_RETURN :
					PROBE_PRINT_NORMAL);
}

/*
 * A probe named @name on @target, listed as @shown, fetching @args (or
 * NULL) for its event.
 */
static struct tup_named *tup_named_new(const char *name, const char *shown,
				       const char *args, bool ret_probe,
				       bool on_file, unsigned int stack,
				       unsigned int callers)
{
	struct tup_named *n;
	char **argv = NULL;
	int argc = 0, cpu, ret;

	if (args) {
		argv = argv_split(GFP_KERNEL, args, &argc);
		if (!argv)
			return ERR_PTR(-ENOMEM);
		if (argc > MAX_TRACE_ARGS) {
			argv_free(argv);
			return ERR_PTR(-E2BIG);
		}
	}
	n = kzalloc(struct_size(n, tp.args, argc), GFP_KERNEL);
	if (!n) {
		if (argv)
			argv_free(argv);
		return ERR_PTR(-ENOMEM);
	}
	strscpy(n->name, name, sizeof(n->name));
	n->stack_size = stack;
	n->callers = callers;
	if (ret_probe)
		n->lat = alloc_percpu(struct tup_lat);
	ret = trace_probe_init(&n->tp, name, TUP_EVENT_GROUP, false, argc);
	if (!ret && argc)
		ret = tup_parse_args(n, argc, (const char **)argv, ret_probe,
				     on_file);
	if (argv)
		argv_free(argv);
	n->target = kstrdup(shown, GFP_KERNEL);
	if (args)
		n->args = kstrdup(args, GFP_KERNEL);
	if (!ret && (!n->target || (args && !n->args) ||
		     (ret_probe && !n->lat)))
		ret = -ENOMEM;
	if (ret) {
		tup_named_destroy(n);
		return ERR_PTR(ret);
	}
	n->up.name = n->name;
	if (ret_probe) {
		for_each_possible_cpu(cpu)
			per_cpu_ptr(n->lat, cpu)->min = U64_MAX;
		n->up.ret_handler = tup_named_ret;
	} else {
		n->up.handler = tup_named_hit;
	}
	/*
	 * Counting, timing returns and recording an event without values
	 * are fine in the int3 trap; fetching values may fault, so a probe
	 * with values is trap-safe only while its event is off
	 * (tup_event_reg()).
	 */
	if (!argc)
		n->up.flags = UTPROBE_TRAP_SAFE;
	else
		utprobe_set_trap_safe(&n->up, true);
	/* and it only counts until its event goes on: jumps may enter it */
	if (!ret_probe)
		utprobe_set_counting(&n->up, true);
	return n;
}

/*
 * "func=START+SIZE" at @opt: the function the probe at @at is in, from
 * START (an address or offset as the probe's is) for SIZE bytes.
 */
static int tup_parse_func(const char *opt, u64 *start, u64 *size)
{
	char buf[48], *plus;

	if (strscpy(buf, opt + 5, sizeof(buf)) < 0)
		return -EINVAL;
	plus = strchr(buf, '+');
	if (!plus)
		return -EINVAL;
	*plus = '\0';
	if (kstrtou64(buf, 0, start) || kstrtou64(plus + 1, 0, size) ||
	    !*size || *size > UTPROBE_FUNC_MAX)
		return -EINVAL;
	return 0;
}

/*
 * "p:NAME PID:ADDR [func=START+SIZE] [stack=SIZE | callers=N] [FETCHARGS]"
 * or "p:NAME PATH:OFFSET [tree=PID] [func=START+SIZE] [stack=SIZE |
 * callers=N] [FETCHARGS]"; r: if @ret_probe.  @rest is all after the
 * name.
 */
static int tup_parse_add(struct tup_line *l, char *name, char *rest,
			 bool ret_probe)
{
	char *colon, *target, *args, *shown;
	u64 fstart = 0, fsize = 0, at;
	unsigned int stack = 0, callers = 0;
	unsigned long vaddr;
	int pid, ret, tree = 0;

	if (!rest || !tup_name_valid(name))
		return -EINVAL;
	args = rest;
	target = strsep(&args, " \t");
	if (args)
		args = skip_spaces(args);
	/* "stack=" and no number is a fetch argument of that name */
	while (args && (!strncmp(args, "tree=", 5) ||
			!strncmp(args, "func=", 5) ||
			(!strncmp(args, "stack=", 6) && isdigit(args[6])) ||
			(!strncmp(args, "callers=", 8) && isdigit(args[8])))) {
		char *opt = strsep(&args, " \t");

		if (*opt == 't' &&
		    (tree || *target != '/' || kstrtoint(opt + 5, 10, &tree) ||
		     tree <= 0))
			return -EINVAL;
		if (*opt == 'f' &&
		    (fsize || tup_parse_func(opt, &fstart, &fsize)))
			return -EINVAL;
		if (*opt == 's' &&
		    (stack || kstrtouint(opt + 6, 0, &stack) || !stack ||
		     stack > TUP_STACK_MAX))
			return -EINVAL;
		if (*opt == 'c' &&
		    (callers || kstrtouint(opt + 8, 0, &callers) ||
		     !callers || callers > TUP_CALLERS_MAX))
			return -EINVAL;
		if (args)
			args = skip_spaces(args);
	}
	/* one of the two ways to the callers */
	if (stack && callers)
		return -EINVAL;
	if (args && !*args)
		args = NULL;
	colon = strrchr(target, ':');
	if (!colon || colon == target || !colon[1])
		return -EINVAL;
	if (*target == '/') {
		ret = tup_parse_file(l, target, colon, tree);
		if (ret)
			return ret;
		shown = target;
	} else {
		*colon = '\0';
		ret = kstrtoint(target, 10, &pid) || pid <= 0 ||
		      kstrtoul(colon + 1, 0, &vaddr) ? -EINVAL : 0;
		*colon = ':';
		if (ret)
			return ret;
		l->spec.pid = pid;
		l->spec.vaddr = vaddr;
		tree = pid;
		shown = colon + 1;
	}
	/* the function holds the probe */
	at = *target == '/' ? l->spec.offset : l->spec.vaddr;
	if (fsize && (at < fstart || at - fstart >= fsize))
		return -EINVAL;
	l->n = tup_named_new(name, shown, args, ret_probe, *target == '/',
			     stack, callers);
	if (IS_ERR(l->n)) {
		ret = PTR_ERR(l->n);
		l->n = NULL;
		return ret;
	}
	l->spec.up = &l->n->up;
	l->n->up.func_size = fsize;
	l->n->up.func_pos = fsize ? at - fstart : 0;
	/*
	 * the writer's pid namespace numbers it; readers see their own.
	 * Looked up once: the registration takes this very process.
	 */
	if (tree) {
		l->n->pid = find_get_pid(tree);
		if (!l->n->pid)
			return -ESRCH;
		l->spec.tgid = l->n->pid;
	}
	return 0;
}

static int tup_parse(struct tup_line *l, char *line)
{
	char *name, *target;

	line = strim(line);
	if (!*line || *line == '#')
		return 0;
	target = line;
	name = strsep(&target, " \t");
	if (target)
		target = skip_spaces(target);
	if (target && !*target)
		target = NULL;

	if (!strncmp(name, "p:", 2) || !strncmp(name, "r:", 2))
		return tup_parse_add(l, name + 2, target, name[0] == 'r');
	if (!strncmp(name, "-:", 2) && !target) {
		l->remove = name + 2;
		return 0;
	}
	return -EINVAL;
}

static int tup_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/*
 * Are the event names of @lines[0..@n) free in the group: no event of
 * another kind (a kprobe event may be put in any group), nor one of an
 * orphan of ours, holds one?  One pass over the events, each looked up
 * among the names sorted.  event_mutex held.
 */
static int tup_events_free(struct tup_line *lines, unsigned int n)
{
	struct trace_event_call *call;
	const char **names, *name;
	unsigned int i, k = 0;
	int ret = 0;

	names = kvmalloc_array(n, sizeof(*names), GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (lines[i].n)
			names[k++] = lines[i].n->name;
	sort(names, k, sizeof(*names), tup_name_cmp, NULL);
	list_for_each_entry(call, &ftrace_events, list) {
		if (!call->class->system ||
		    strcmp(call->class->system, TUP_EVENT_GROUP))
			continue;
		name = trace_event_name(call);
		if (name && bsearch(&name, names, k, sizeof(*names),
				    tup_name_cmp)) {
			ret = -EEXIST;
			break;
		}
	}
	kvfree(names);
	return ret;
}

/*
 * Make the events of the probes of @lines[0..@n), just registered: all
 * or none.  Nothing can turn on an event before this returns.
 */
static int tup_add_events(struct tup_line *lines, unsigned int n)
{
	unsigned int i, added = 0;
	int ret;

	mutex_lock(&event_mutex);
	ret = tup_events_free(lines, n);
	for (i = 0; i < n && !ret; i++) {
		if (!lines[i].n)
			continue;
		ret = tup_event_add(lines[i].n);
		added += !ret;
		cond_resched();
	}
	/* not yet listed: none can have been turned on */
	for (i = 0; ret && added; i++) {
		if (!lines[i].n)
			continue;
		WARN_ON_ONCE(tup_event_del(lines[i].n));
		added--;
	}
	mutex_unlock(&event_mutex);
	return ret;
}

/*
 * Are the names of the definitions @lines[0..@n) new, and each given
 * once?  Sorted, in O(n log n): a write may hold tens of thousands.
 * tup_named_lock held.
 */
static int tup_names_check(struct tup_line *lines, unsigned int n)
{
	const char **names;
	unsigned int i, k = 0;
	int ret = 0;

	names = kvmalloc_array(n, sizeof(*names), GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		if (!lines[i].n)
			continue;
		if (tup_named_find(lines[i].n->name))
			ret = -EEXIST;
		names[k++] = lines[i].n->name;
	}
	if (!ret)
		sort(names, k, sizeof(*names), tup_name_cmp, NULL);
	for (i = 1; i < k && !ret; i++)
		if (!strcmp(names[i - 1], names[i]))
			ret = -EEXIST;
	kvfree(names);
	return ret;
}

/*
 * Register the definitions @lines[0..@n) together, all or none, with
 * their events, and list them.  tup_named_lock held.
 */
static int tup_add_batch(struct tup_line *lines, unsigned int n)
{
	struct utprobe_spec *specs;
	unsigned int i, k = 0;
	int ret;

	ret = tup_names_check(lines, n);
	if (ret)
		return ret;
	specs = kvcalloc(n, sizeof(*specs), GFP_KERNEL);
	if (!specs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (lines[i].n)
			specs[k++] = lines[i].spec;
	ret = utprobe_register_batch(specs, k);
	if (!ret) {
		/* a name taken by another event of the group: undone */
		ret = tup_add_events(lines, n);
		if (ret) {
			for (i = 0; i < k; i++) {
				utprobe_unregister_nosync(specs[i].up);
				cond_resched();
			}
			utprobe_unregister_sync();
		}
	}
	kvfree(specs);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!lines[i].n)
			continue;
		/* the file is the probe's from now */
		if (lines[i].spec.inode) {
			lines[i].n->path = lines[i].path;
			lines[i].spec.inode = NULL;
		}
		tup_named_list_add(lines[i].n);
		lines[i].n = NULL;
	}
	return 0;
}

/*
 * Remove the probes that @lines[0..@n), removals that follow each other,
 * name, onto @gone: their events in one pass, with one grace period and
 * one clearing of the buffers for all (one each took a removal of
 * thousands of probes seconds).  As if each line were done in turn: those
 * before the first that cannot go are removed, and its error returned,
 * -%ENOENT no such probe (or, for a session @owner, not its own), -%EBUSY
 * its event is on or referred to.  tup_named_lock held.
 */
static int tup_remove_run(struct tup_line *lines, unsigned int n,
			  struct list_head *gone, const struct file *owner)
{
	struct tup_named *victim;
	LIST_HEAD(victims);
	unsigned int i;
	int ret = 0;

	mutex_lock(&event_mutex);
	for (i = 0; i < n && !ret; i++) {
		victim = tup_named_find(lines[i].remove);
		if (!victim || (owner && victim->owner != owner))
			ret = -ENOENT;
		else if (tup_event_busy(victim))
			ret = -EBUSY;
		else	/* off the hash: a second line for it finds none */
			tup_named_unlist(victim, &victims);
	}
	tup_events_del_list(&victims);
	mutex_unlock(&event_mutex);
	list_for_each_entry(victim, &victims, gone_node) {
		utprobe_unregister_nosync(&victim->up);
		cond_resched();
	}
	list_splice_tail(&victims, gone);
	return ret;
}

/*
 * Do the parsed @lines in order: definitions that follow each other
 * are registered as one batch, removals that follow each other go
 * together (tup_remove_run()), onto @gone.  A session (@owner not NULL)
 * removes only its own probes.  Stops at the first error.
 * tup_named_lock held.
 */
static int __tup_run(struct tup_line *lines, unsigned int n,
		     struct list_head *gone, const struct file *owner)
{
	unsigned int i = 0, first;
	bool remove;
	int ret = 0;

	while (i < n && !ret) {
		first = i;
		remove = lines[i].remove;
		while (i < n && !lines[i].remove == !remove)
			i++;
		if (remove)
			ret = tup_remove_run(lines + first, i - first, gone,
					     owner);
		else
			ret = tup_add_batch(lines + first, i - first);
	}
	return ret;
}

/* __tup_run(), then one wait for the probes it removed; they are freed. */
static int tup_run(struct tup_line *lines, unsigned int n,
		   const struct file *owner)
{
	LIST_HEAD(gone);
	int ret;

	ret = __tup_run(lines, n, &gone, owner);
	tup_named_free(&gone);
	return ret;
}

static void tup_lines_free(struct tup_line *lines, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (lines[i].spec.inode)
			path_put(&lines[i].path);
		if (lines[i].n)
			tup_named_destroy(lines[i].n);
		cond_resched();
	}
	kvfree(lines);
}

/*
 * A write holds one or more lines.  All of them are parsed first (the
 * names, the numbers, the files looked up): if one does not parse, the
 * write changes nothing.  Then they are done in order, each run of
 * definitions placed together (one pass per process), all or none.
 * The probes defined belong to @owner, a session, if not NULL.
 */
static ssize_t tup_write(struct file *file, const char __user *ubuf,
			 size_t count, const struct file *owner)
{
	unsigned int n = 0, i;
	struct tup_line *lines;
	char *buf, *p, *line;
	int ret = 0;

	/* the opener's credentials decide, not the writer's (a passed fd) */
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (count > TUP_WRITE_MAX)
		return -E2BIG;
	buf = kvmalloc(count + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, count)) {
		kvfree(buf);
		return -EFAULT;
	}
	buf[count] = '\0';
	/* text only: a NUL would end the lines before the write does */
	if (memchr(buf, '\0', count)) {
		kvfree(buf);
		return -EINVAL;
	}
	for (p = buf, n = 1; *p; p++)
		n += *p == '\n';
	lines = kvcalloc(n, sizeof(*lines), GFP_KERNEL);
	if (!lines) {
		kvfree(buf);
		return -ENOMEM;
	}
	p = buf;
	for (i = 0; !ret && (line = strsep(&p, "\n")); i++) {
		ret = tup_parse(&lines[i], line);
		if (lines[i].n)
			lines[i].n->owner = owner;
		cond_resched();
	}
	/*
	 * Killable: a write may wait for another's batch of thousands,
	 * which is no hung task, and its writer may give up.
	 */
	if (!ret)
		ret = mutex_lock_killable(&tup_named_lock);
	if (!ret) {
		__tup_reap();
		ret = tup_run(lines, n, owner);
		mutex_unlock(&tup_named_lock);
	}
	tup_lines_free(lines, n);
	kvfree(buf);
	return ret ? ret : count;
}

static ssize_t tup_events_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	return tup_write(file, ubuf, count, NULL);
}

static ssize_t tup_session_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return tup_write(file, ubuf, count, file);
}

/* The listings: under RCU, never waiting for a write (tup_named_lock) */
static void *tup_seq_start(struct seq_file *m, loff_t *pos)
	__acquires(RCU)
{
	rcu_read_lock();
	return seq_list_start_rcu(&tup_named_list, *pos);
}

static void *tup_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next_rcu(v, &tup_named_list, pos);
}

static void tup_seq_stop(struct seq_file *m, void *v)
	__releases(RCU)
{
	rcu_read_unlock();
}

/*
 * @n's target as written, but for its pid, which the reader's pid
 * namespace numbers (0 if the process is not in it).
 */
static void tup_target_show(struct seq_file *m, const struct tup_named *n)
{
	if (!n->pid)
		seq_puts(m, n->target);
	else if (*n->target == '/')
		seq_printf(m, "%s tree=%d", n->target, pid_vnr(n->pid));
	else
		seq_printf(m, "%d:%s", pid_vnr(n->pid), n->target);
}

static int tup_events_show(struct seq_file *m, void *v)
{
	struct tup_named *n = list_entry(v, struct tup_named, node);

	/* a session lists its own probes */
	if (m->private && n->owner != m->private)
		return 0;
	seq_printf(m, "%c:%s ", tup_named_is_ret(n) ? 'r' : 'p', n->name);
	tup_target_show(m, n);
	if (n->up.func_size)
		seq_printf(m, " func=0x%llx+0x%lx",
			   (*n->target == '/' ? n->up.offset :
			    (loff_t)n->up.vaddr) - n->up.func_pos,
			   n->up.func_size);
	if (n->stack_size)
		seq_printf(m, " stack=%u", n->stack_size);
	if (n->callers)
		seq_printf(m, " callers=%u", n->callers);
	seq_printf(m, "%s%s\n", n->args ? " " : "", n->args ?: "");
	return 0;
}

static int tup_profile_show(struct seq_file *m, void *v)
{
	struct tup_named *n = list_entry(v, struct tup_named, node);

	seq_printf(m, "%s ", n->name);
	tup_target_show(m, n);
	seq_printf(m, " %llu\n", utprobe_hits(&n->up));
	return 0;
}

static int tup_returns_show(struct seq_file *m, void *v)
{
	struct tup_named *n = list_entry(v, struct tup_named, node);
	struct utprobe_ret_counts counts;
	struct tup_lat all = { .min = U64_MAX };
	bool first = true;
	int cpu, b;

	if (!n->lat)
		return 0;
	utprobe_ret_counts(&n->up, &counts);
	for_each_possible_cpu(cpu) {
		const struct tup_lat *l = per_cpu_ptr(n->lat, cpu);

		all.min = min(all.min, l->min);
		all.max = max(all.max, l->max);
		all.sum += l->sum;
		for (b = 0; b < TUP_LAT_BUCKETS; b++)
			all.hist[b] += l->hist[b];
	}
	seq_printf(m, "%s returns=%llu unwound=%llu missed=%llu pending=%ld min_ns=%llu max_ns=%llu sum_ns=%llu hist=",
		   n->name, counts.returns, counts.unwound, counts.missed,
		   counts.pending, all.min == U64_MAX ? 0 : all.min, all.max,
		   all.sum);
	for (b = 0; b < TUP_LAT_BUCKETS; b++) {
		if (!all.hist[b])
			continue;
		seq_printf(m, "%s%d:%llu", first ? "" : ",", b, all.hist[b]);
		first = false;
	}
	seq_putc(m, '\n');
	return 0;
}

static int tup_modes_show(struct seq_file *m, void *v)
{
	struct tup_named *n = list_entry(v, struct tup_named, node);
	const char *mode = utprobe_mode(&n->up);

	if (!strcmp(mode, "jump") || !strcmp(mode, "syscall") ||
	    !strcmp(mode, "none"))
		seq_printf(m, "%s %s\n", n->name, mode);
	else
		seq_printf(m, "%s trap %s\n", n->name, mode);
	return 0;
}

/* utprobe_mode() sleeps: the modes are listed under tup_named_lock. */
static void *tup_modes_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&tup_named_lock);
	return seq_list_start(&tup_named_list, *pos);
}

static void *tup_modes_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &tup_named_list, pos);
}

static void tup_modes_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&tup_named_lock);
}

static const struct seq_operations tup_modes_seq_ops = {
	.start = tup_modes_start,
	.next = tup_modes_next,
	.stop = tup_modes_stop,
	.show = tup_modes_show,
};

static const struct seq_operations tup_returns_seq_ops = {
	.start = tup_seq_start,
	.next = tup_seq_next,
	.stop = tup_seq_stop,
	.show = tup_returns_show,
};

static const struct seq_operations tup_events_seq_ops = {
	.start = tup_seq_start,
	.next = tup_seq_next,
	.stop = tup_seq_stop,
	.show = tup_events_show,
};

static const struct seq_operations tup_profile_seq_ops = {
	.start = tup_seq_start,
	.next = tup_seq_next,
	.stop = tup_seq_stop,
	.show = tup_profile_show,
};

static int tup_events_open(struct inode *inode, struct file *file)
{
	struct tup_named *n, *next;
	LIST_HEAD(gone);
	int ret;

	/* not under lockdown, nor with tracing disabled */
	ret = tracing_check_open_get_tr(NULL);
	if (ret)
		return ret;
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
			return -EPERM;
		if (mutex_lock_killable(&tup_named_lock))
			return -EINTR;
		__tup_reap();
		ret = tup_events_del_all();
		if (!ret)
			list_for_each_entry_safe(n, next, &tup_named_list,
						 node) {
				tup_named_remove(n, &gone);
				cond_resched();
			}
		tup_named_free(&gone);
		mutex_unlock(&tup_named_lock);
		if (ret)
			return ret;
	}
	return seq_open(file, &tup_events_seq_ops);
}

/* A session lists the probes written through it (see tup_events_show()) */
static int tup_session_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	if (!ret)
		ret = seq_open(file, &tup_events_seq_ops);
	if (!ret)
		((struct seq_file *)file->private_data)->private = file;
	return ret;
}

static int tup_session_release(struct inode *inode, struct file *file)
{
	tup_session_end(file);
	return seq_release(inode, file);
}

static int tup_profile_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : seq_open(file, &tup_profile_seq_ops);
}

static int tup_modes_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : seq_open(file, &tup_modes_seq_ops);
}

static int tup_returns_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : seq_open(file, &tup_returns_seq_ops);
}

static const struct file_operations tup_modes_fops = {
	.open = tup_modes_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static const struct file_operations tup_returns_fops = {
	.open = tup_returns_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static const struct file_operations tup_events_fops = {
	.open = tup_events_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
	.write = tup_events_write,
};

static const struct file_operations tup_session_fops = {
	.open = tup_session_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = tup_session_release,
	.write = tup_session_write,
};

static const struct file_operations tup_profile_fops = {
	.open = tup_profile_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static int __init tup_trace_init(void)
{
	INIT_WORK(&tup_reap_work, tup_reap);
	tracefs_create_file("utprobe_events", 0644, NULL, NULL,
			    &tup_events_fops);
	tracefs_create_file("utprobe_session", 0644, NULL, NULL,
			    &tup_session_fops);
	tracefs_create_file("utprobe_profile", 0444, NULL, NULL,
			    &tup_profile_fops);
	tracefs_create_file("utprobe_returns", 0444, NULL, NULL,
			    &tup_returns_fops);
	tracefs_create_file("utprobe_modes", 0444, NULL, NULL,
			    &tup_modes_fops);
	return 0;
}
late_initcall(tup_trace_init);
