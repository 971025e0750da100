// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks at probes.  The kernel copies, at each hit, the registers
 * and the top of the user stack into the probe's record (stack=SIZE);
 * stackraw.c reads the records from trace_pipe_raw with the event's
 * format (libtraceevent), and this unwinds each with libdwfl's unwinder,
 * the one eu-stack and perf's dwarf call graphs use, over the CFI of the
 * binaries the process maps (.eh_frame, .debug_frame, debug files found
 * by build id and debuglink), as they were mapped at the record's time
 * where stackmaps.c follows them.  stackcount.c counts the stacks.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "resolve.h"
#include "stack.h"
#include "stackmaps.h"

/* DWARF's registers of x86-64: the stack pointer, all of them */
#define REG_BP		6
#define REG_SP		7
#define NREGS		STACK_NREGS

/* ---- unwinding -------------------------------------------------------- */

/* What the unwinder knows of a process: its modules, as it mapped them */
struct stk_proc {
	int pid;
	Dwfl *dwfl;		/* NULL: its maps could not be read */
	unsigned int gen;	/* of the followed maps it was made of */
};

/* What is known of the frames at a pc of a process (its Dwfl) */
#define STK_PC_CACHE	4096
#define STK_INLINED_MAX	7
struct stk_pc {
	Dwfl *dwfl;
	Dwarf_Addr pc;
	const char *names[STK_INLINED_MAX + 1];
	int n;
	bool unmapped;
};

/*
 * A stack unwound before, to be given again without unwinding.  What an
 * unwind finds depends on the modules (the Dwfl), on the registers its
 * rules read and on the stack words it read.  A stack is kept only when
 * no rule of any of its frames reads a register but rsp and rbp (the
 * ip picks the rules); it is given again for a record of the same Dwfl,
 * ip, rsp, rbp and copy length whose copy holds the same words at every
 * address the unwind read, and fails the same reads: the unwind would
 * do again exactly what it did.
 */
#define STK_SEEN	1024
#define STK_READS_MAX	48
struct stk_read {
	Dwarf_Addr addr;
	Dwarf_Word val;
	bool ok;
};

struct stk_seen {
	Dwfl *dwfl;		/* NULL: empty */
	unsigned long ip, sp, bp;
	unsigned int len;
	int max;
	struct stk_read *reads;
	int nreads;
	const char **names;
	int n;
	bool cut;
};

struct stk_unwinder {
	struct stk_pc pcs[STK_PC_CACHE];
	struct stk_seen seen[STK_SEEN];
	bool no_seen;			/* UPROBE_CLI_STACK_CACHE=0 */
	unsigned long long nseen;	/* records given from it */
	/* the stack words the unwind in progress read */
	struct stk_read reads[STK_READS_MAX];
	int nreads;		/* > STK_READS_MAX: too many to keep */
	Dwarf_Addr fpcs[STACK_FRAMES_MAX];	/* its frames' CFI lookups */
	int nfpcs;
	struct stk_proc *procs;
	int nprocs;
	/* the record being unwound, and its frames so far */
	const struct stk_record *rec;
	const char **names;
	int n, max;
	bool cut;
	bool unmapped;		/* a frame in none of the modules known */
	Dwfl *dwfl;
	/* the processes and maps followed (stk_unwinder_follow()) */
	struct stk_tree *tree;
};

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct stk_unwinder *u = dwfl_arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->rec->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg,
		       void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = dwfl_arg;
	return true;
}

/* The word at @addr of @r's copy of the stack into @w: false if none */
static bool copy_word(const struct stk_record *r, Dwarf_Addr addr,
		      Dwarf_Word *w)
{
	unsigned long sp = r->regs[REG_SP];

	if (addr < sp || addr - sp + sizeof(*w) > r->len)
		return false;
	memcpy(w, r->stack + (addr - sp), sizeof(*w));
	return true;
}

/*
 * The unwinder reads the stack from the copy; it needs memory beyond the
 * copy only when the stack goes on beyond it: it was cut.  What it read
 * is kept for the stacks seen.
 */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *dwfl_arg)
{
	struct stk_unwinder *u = dwfl_arg;
	const struct stk_record *r = u->rec;
	unsigned long sp = r->regs[REG_SP];

	bool ok;

	(void)dwfl;
	ok = copy_word(r, addr, result);
	if (u->nreads < STK_READS_MAX)
		u->reads[u->nreads] = (struct stk_read){ addr, ok ? *result : 0,
							 ok };
	u->nreads++;
	if (ok)
		return true;
	/*
	 * Just past the copy: the stack goes on beyond it.  Farther (a
	 * frame pointer that is no frame pointer, another mapping) is no
	 * stack of this thread's that was cut.
	 */
	if (addr >= sp + r->len && addr < sp + r->len + STACK_BYTES_MAX)
		u->cut = true;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct stk_unwinder *u = thread_arg;
	Dwarf_Word regs[NREGS];

	for (int i = 0; i < NREGS; i++)
		regs[i] = u->rec->regs[i];
	return dwfl_thread_state_registers(thread, 0, NREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct stk_unwinder *stk_unwinder_new(void)
{
	struct stk_unwinder *u = calloc(1, sizeof(*u));
	const char *e = getenv("UPROBE_CLI_STACK_CACHE");

	if (u)
		u->tree = stk_tree_new();
	if (!u || !u->tree) {
		free(u);
		return NULL;
	}
	u->no_seen = e && !strcmp(e, "0");
	return u;
}

int stk_unwinder_follow(struct stk_unwinder *u, pid_t pid, char *err,
			size_t errlen)
{
	return stk_tree_follow(u->tree, pid, err, errlen);
}

void stk_unwinder_poll(struct stk_unwinder *u)
{
	stk_tree_poll(u->tree);
}

unsigned long long stk_unwinder_lost(const struct stk_unwinder *u)
{
	return stk_tree_lost(u->tree);
}

unsigned long long stk_unwinder_cached(const struct stk_unwinder *u)
{
	return u->nseen;
}

static int map_cmp(const void *a, const void *b)
{
	const struct stk_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A Dwfl of the modules of process @p as followed; or NULL */
static Dwfl *maps_report(struct stk_unwinder *u, struct stk_maps *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	Dwfl *dwfl;

	if (!f)
		return NULL;
	/* as /proc/PID/maps would show them, for libdwfl to read */
	qsort(p->m, p->n, sizeof(*p->m), map_cmp);
	for (int i = 0; i < p->n; i++)
		fprintf(f, "%lx-%lx r%cp %08lx %02x:%02x %lu %s\n",
			p->m[i].start, p->m[i].end, p->m[i].exec ? 'x' : '-',
			p->m[i].pgoff, p->m[i].maj, p->m[i].min, p->m[i].ino,
			p->m[i].file);
	fclose(f);
	f = text ? fmemopen(text, len, "r") : NULL;
	dwfl = f ? dwfl_begin(&proc_callbacks) : NULL;
	if (dwfl) {
		dwfl_report_begin(dwfl);
		if (dwfl_linux_proc_maps_report(dwfl, f) ||
		    dwfl_report_end(dwfl, NULL, NULL) ||
		    !dwfl_attach_state(dwfl, NULL, p->pid, &thread_callbacks,
				       u)) {
			dwfl_end(dwfl);
			dwfl = NULL;
		}
	}
	if (f)
		fclose(f);
	free(text);
	return dwfl;
}

/* End @dwfl, and forget what was known of its pcs: the address is reused */
static void dwfl_drop(struct stk_unwinder *u, Dwfl *dwfl)
{
	if (!dwfl)
		return;
	for (int i = 0; i < STK_PC_CACHE; i++)
		if (u->pcs[i].dwfl == dwfl)
			u->pcs[i].dwfl = NULL;
	for (int i = 0; i < STK_SEEN; i++)
		if (u->seen[i].dwfl == dwfl)
			u->seen[i].dwfl = NULL;
	dwfl_end(dwfl);
}

/* A Dwfl of process @pid's modules as mapped now; or NULL */
static Dwfl *proc_report(struct stk_unwinder *u, int pid)
{
	Dwfl *dwfl = dwfl_begin(&proc_callbacks);

	if (dwfl) {
		dwfl_report_begin(dwfl);
		if (dwfl_linux_proc_report(dwfl, pid) ||
		    dwfl_report_end(dwfl, NULL, NULL) ||
		    !dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks,
				       u)) {
			dwfl_end(dwfl);
			dwfl = NULL;
		}
	}
	return dwfl;
}

/*
 * The Dwfl of process @pid, its unwinder attached; or NULL.  A process
 * followed has it made from its maps as they were at the record's time,
 * again each time its code mapped changed.  Another has its maps read
 * at its first record (one that has exited by then is not unwound), and
 * again if @again (a frame was in none of the modules it knew: a
 * library loaded since) while it lives; *@made says if it was made
 * again.
 */
static Dwfl *proc_dwfl(struct stk_unwinder *u, int pid, bool again,
		       bool *made)
{
	struct stk_maps *m = stk_tree_maps(u->tree, pid);
	struct stk_proc *more;
	Dwfl *dwfl;

	for (int i = 0; i < u->nprocs; i++) {
		if (u->procs[i].pid != pid)
			continue;
		if (m) {
			if (u->procs[i].gen == m->gen)
				return u->procs[i].dwfl;
			*made = true;
			dwfl_drop(u, u->procs[i].dwfl);
			u->procs[i].dwfl = maps_report(u, m);
			u->procs[i].gen = m->gen;
			return u->procs[i].dwfl;
		}
		dwfl = u->procs[i].dwfl;
		if (dwfl && !again)
			return dwfl;
		dwfl = proc_report(u, pid);
		if (!dwfl)
			return u->procs[i].dwfl;
		dwfl_drop(u, u->procs[i].dwfl);
		u->procs[i].dwfl = dwfl;
		*made = true;
		return dwfl;
	}
	*made = true;
	dwfl = m ? maps_report(u, m) : proc_report(u, pid);
	more = realloc(u->procs, (u->nprocs + 1) * sizeof(*more));
	if (!more) {
		if (dwfl)
			dwfl_end(dwfl);
		return NULL;
	}
	u->procs = more;
	u->procs[u->nprocs++] = (struct stk_proc){ pid, dwfl, m ? m->gen : 0 };
	return dwfl;
}

/* The name of the function at @pc, by its symbol */
static const char *frame_name(struct stk_unwinder *u, Dwfl *dwfl,
			      Dwarf_Addr pc)
{
	Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
	const char *name = NULL, *mod;
	char buf[PATH_MAX + 8], *d;
	GElf_Off off;
	GElf_Sym sym;

	if (m)
		name = dwfl_module_addrinfo(m, pc, &off, &sym, NULL, NULL,
					    NULL);
	if (name) {
		/* "__libc_start_main@@GLIBC_2.34": the version goes */
		size_t len = strcspn(name, "@");

		snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
		d = up_demangle(buf);
		name = up_intern(d ? d : buf);
		free(d);
		return name ? name : "[unknown]";
	}
	mod = m ? dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL,
				   NULL) : NULL;
	u->unmapped |= !m;
	if (!mod)
		return "[unknown]";
	snprintf(buf, sizeof(buf), "[%s]", strrchr(mod, '/') ?
		 strrchr(mod, '/') + 1 : mod);
	return up_intern(buf) ?: "[unknown]";
}

/*
 * The frames at @pc (in the call, for a return address) into u->names:
 * the functions inlined there, innermost first, then the function, by
 * its symbol.  Each pc's are kept: a hot stack has the same ones.
 */
static void frame_names(struct stk_unwinder *u, Dwfl *dwfl, Dwarf_Addr pc)
{
	struct stk_pc *c = &u->pcs[(pc ^ (pc >> 12) ^ (uintptr_t)dwfl) %
				   STK_PC_CACHE];
	Dwfl_Module *m;

	if (c->dwfl != dwfl || c->pc != pc || !dwfl) {
		m = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
		c->dwfl = dwfl;
		c->pc = pc;
		c->n = m ? up_inlined_at(m, pc, c->names, STK_INLINED_MAX) : 0;
		c->names[c->n++] = frame_name(u, dwfl, pc);
		c->unmapped = !m;
	}
	u->unmapped |= c->unmapped;
	for (int i = 0; i < c->n; i++) {
		if (u->n == u->max) {
			u->cut = true;
			break;
		}
		u->names[u->n++] = c->names[i];
	}
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct stk_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	/* a frame more than it shows: the stack is cut there */
	if (u->n == u->max) {
		u->cut = true;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/*
	 * A return address: the call is the instruction before it.  The
	 * unwinder looks an outer frame's rules up there even when it says
	 * it is an activation (a signal frame's caller): both are checked.
	 */
	if (!activation)
		pc--;
	else if (u->nfpcs && u->nfpcs < STACK_FRAMES_MAX)
		u->fpcs[u->nfpcs++] = pc - 1;
	if (u->nfpcs < STACK_FRAMES_MAX)
		u->fpcs[u->nfpcs++] = pc;
	frame_names(u, u->dwfl, pc);
	return DWARF_CB_OK;
}

/* Whether the DWARF expression @ops reads no register but rsp and rbp */
static bool ops_sp_bp(const Dwarf_Op *ops, size_t nops)
{
	for (size_t i = 0; i < nops; i++) {
		unsigned int reg;

		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg31)
			reg = ops[i].atom - DW_OP_reg0;
		else if (ops[i].atom >= DW_OP_breg0 &&
			 ops[i].atom <= DW_OP_breg31)
			reg = ops[i].atom - DW_OP_breg0;
		else if (ops[i].atom == DW_OP_regx ||
			 ops[i].atom == DW_OP_bregx)
			reg = ops[i].number;
		else
			continue;
		if (reg != REG_SP && reg != REG_BP)
			return false;
	}
	return true;
}

/* Whether @cfi's rules at @pc (if it has some) read only rsp and rbp */
static bool cfi_sp_bp(Dwarf_CFI *cfi, Dwarf_Addr pc)
{
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *frame;
	bool ok = true;
	size_t nops;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame))
		return true;
	if (dwarf_frame_cfa(frame, &ops, &nops) || !ops_sp_bp(ops, nops))
		ok = false;
	for (int reg = 0; ok && reg < NREGS; reg++)
		if (dwarf_frame_register(frame, reg, mem, &ops, &nops) ||
		    !ops_sp_bp(ops, nops))
			ok = false;
	free(frame);
	return ok;
}

/*
 * Whether what the frames of the unwind just made depend on of the
 * registers is rsp, rbp and the ip alone: the rules of every frame's
 * CFI, from .eh_frame and .debug_frame (the unwinder tries both), read
 * no other register.  Where there is none, the unwinder follows rbp.
 */
static bool frames_sp_bp(struct stk_unwinder *u)
{
	for (int i = 0; i < u->nfpcs; i++) {
		Dwfl_Module *m = dwfl_addrmodule(u->dwfl, u->fpcs[i]);
		Dwarf_Addr bias;

		if (!m)
			continue;
		if (!cfi_sp_bp(dwfl_module_eh_cfi(m, &bias), u->fpcs[i] - bias))
			return false;
		if (!cfi_sp_bp(dwfl_module_dwarf_cfi(m, &bias),
			       u->fpcs[i] - bias))
			return false;
	}
	return true;
}

static struct stk_seen *seen_slot(struct stk_unwinder *u, Dwfl *dwfl,
				  const struct stk_record *r)
{
	unsigned long h = r->regs[NREGS - 1] ^ r->regs[REG_SP] * 31 ^
			  r->regs[REG_BP] * 7 ^ (uintptr_t)dwfl;

	return &u->seen[(h ^ (h >> 17)) % STK_SEEN];
}

/* The frames of a stack seen that @r's unwind would find again, or 0 */
static int seen_take(struct stk_unwinder *u, Dwfl *dwfl,
		     const struct stk_record *r)
{
	struct stk_seen *e = seen_slot(u, dwfl, r);
	Dwarf_Word w;

	if (!dwfl || u->no_seen || r->callers || e->dwfl != dwfl ||
	    e->ip != r->regs[NREGS - 1] ||
	    e->sp != r->regs[REG_SP] || e->bp != r->regs[REG_BP] ||
	    e->len != r->len || e->max != u->max)
		return 0;
	for (int i = 0; i < e->nreads; i++) {
		bool ok = copy_word(r, e->reads[i].addr, &w);

		if (ok != e->reads[i].ok || (ok && w != e->reads[i].val))
			return 0;
	}
	memcpy(u->names, e->names, e->n * sizeof(*e->names));
	u->n = e->n;
	u->cut = e->cut;
	u->nseen++;
	return e->n;
}

/* Keep the unwind just made of @r by @dwfl, if it can be given again */
static void seen_put(struct stk_unwinder *u, Dwfl *dwfl,
		     const struct stk_record *r)
{
	struct stk_seen *e = seen_slot(u, dwfl, r);
	const char **names;
	struct stk_read *reads;

	if (!dwfl || u->no_seen || r->callers || u->unmapped || !u->n ||
	    u->nreads > STK_READS_MAX ||
	    u->nfpcs == STACK_FRAMES_MAX || !frames_sp_bp(u))
		return;
	names = malloc(u->n * sizeof(*names));
	reads = malloc((u->nreads ?: 1) * sizeof(*reads));
	if (!names || !reads) {
		free(names);
		free(reads);
		return;
	}
	free(e->names);
	free(e->reads);
	memcpy(names, u->names, u->n * sizeof(*names));
	memcpy(reads, u->reads, u->nreads * sizeof(*reads));
	*e = (struct stk_seen){
		.dwfl = dwfl, .ip = r->regs[NREGS - 1], .sp = r->regs[REG_SP],
		.bp = r->regs[REG_BP], .len = r->len, .max = u->max,
		.reads = reads, .nreads = u->nreads, .names = names,
		.n = u->n, .cut = u->cut,
	};
}

/*
 * Name the frames of u->rec, a frame-pointer walk's: its ip, the word at
 * the stack pointer if the hit is at its function's entry (the return
 * address, there), then the return addresses the walk found.  It has a
 * word more than it shows: one that filled them all was cut.  The chain
 * ends at a word in no module: past a frame built without frame
 * pointers, the words mean nothing.
 */
static void unwind_callers(struct stk_unwinder *u, Dwfl *dwfl)
{
	const struct stk_record *r = u->rec;
	unsigned int n = r->len / sizeof(unsigned long);
	unsigned long w;

	frame_names(u, dwfl, r->regs[NREGS - 1]);
	if (n > STACK_CALLERS) {
		n = STACK_CALLERS;
		u->cut = true;
	}
	for (unsigned int k = r->at_entry ? 0 : 1; k < n; k++) {
		memcpy(&w, r->stack + k * sizeof(w), sizeof(w));
		/* a return address: the call is the instruction before it */
		if (!w || !dwfl || !dwfl_addrmodule(dwfl, w - 1))
			break;
		if (u->n == u->max) {
			u->cut = true;
			break;
		}
		frame_names(u, dwfl, w - 1);
	}
}

/* Process @pid has exited: what was kept of it goes */
static void proc_forget(struct stk_unwinder *u, int pid)
{
	int k = 0;

	for (int i = 0; i < u->nprocs; i++) {
		if (u->procs[i].pid != pid) {
			u->procs[k++] = u->procs[i];
			continue;
		}
		dwfl_drop(u, u->procs[i].dwfl);
	}
	u->nprocs = k;
	stk_tree_forget(u->tree, pid);
}

/* stk_tree_until()'s word that process @pid's last thread exited */
static void proc_gone(void *arg, int pid)
{
	proc_forget(arg, pid);
}

/* Unwind u->rec with @dwfl into u->names */
static void unwind_with(struct stk_unwinder *u, Dwfl *dwfl)
{
	u->n = 0;
	u->cut = false;
	u->unmapped = false;
	u->dwfl = dwfl;
	u->nreads = 0;
	u->nfpcs = 0;
	if (u->rec->callers) {
		unwind_callers(u, dwfl);
		return;
	}
	if (dwfl)
		dwfl_getthread_frames(dwfl, u->rec->tid, frame_cb, u);
	if (!u->n)
		frame_names(u, dwfl, u->rec->regs[NREGS - 1]);
}

int stk_unwind(struct stk_unwinder *u, const struct stk_record *r,
	       const char **names, int max)
{
	bool made = false;
	Dwfl *dwfl;
	int pid;

	if (max < 2)
		return 0;
	/* the threads, forks, execs and mappings made before this hit */
	stk_tree_until(u->tree, r->ts, proc_gone, u);
	pid = stk_tree_tgid(u->tree, r->tid);
	u->rec = r;
	u->names = names;
	u->max = max - 1;	/* room for STACK_CUT */
	dwfl = proc_dwfl(u, pid, false, &made);
	if (seen_take(u, dwfl, r))
		goto out;
	unwind_with(u, dwfl);
	seen_put(u, dwfl, r);
	if (u->unmapped && dwfl && !stk_tree_maps(u->tree, pid)) {
		made = false;
		dwfl = proc_dwfl(u, pid, true, &made);
		if (made)
			unwind_with(u, dwfl);
	}
out:
	if (u->cut)
		names[u->n++] = STACK_CUT;
	return u->n;
}

int stk_unwinder_pid(struct stk_unwinder *u, int tid)
{
	return stk_tree_tgid(u->tree, tid);
}

void stk_unwinder_watch(struct stk_unwinder *u, int pid)
{
	bool made;

	for (int i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid)
			return;
	proc_dwfl(u, pid, false, &made);
}

void stk_unwinder_free(struct stk_unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < u->nprocs; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	free(u->procs);
	stk_tree_free(u->tree);
	for (int i = 0; i < STK_SEEN; i++) {
		free(u->seen[i].names);
		free(u->seen[i].reads);
	}
	free(u);
}
