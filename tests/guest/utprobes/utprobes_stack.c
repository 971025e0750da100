// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks in utprobes records (utprobe_events stack=SIZE): each record
 * holds the registers an unwinder starts from and a copy of the user
 * stack from the stack pointer up, exactly as the call that hit left
 * them.  The records are read as a tool reads them, from trace_pipe_raw
 * with the event's format, by libtraceevent: the oracle is what each
 * call saw of itself (its return address, its caller's locals).  A copy
 * ends where the stack's mapping does, and where the instance's buffer
 * takes no more; bad definitions change nothing.  And callers=N, the
 * return addresses the frame pointers lead to, against those the calls
 * saw.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"
#include "../../targets/ret_funcs.h"

#define INST TRACEFS "/instances/utprobes_stack"
#define N 40
#define MAGIC 0x5717c4c0ffee0000UL
#define NREGS 17
#define RSI 4
#define RDI 5
#define RSP 7
#define RIP 16

/* What each call of leaf() saw of itself, shared with the parent */
struct seen {
	unsigned long ret;	/* its return address */
	unsigned long marker;	/* the address of its caller's marker */
	unsigned long top;	/* the end of the mapping of its stack, or 0 */
	unsigned long mid_ret;	/* mid()'s return address */
};

static struct seen *seen;

PROBED long leaf(volatile unsigned long *marker, long i)
{
	seen[i].ret = (unsigned long)__builtin_return_address(0);
	seen[i].marker = (unsigned long)marker;
	KEEP(i);
	return marker[0] + i;
}

/*
 * Calls leaf() with a marker in its own frame, known to the parent; it
 * keeps a frame pointer, for callers=
 */
PROBED __attribute__((optimize("no-omit-frame-pointer"))) long mid(long i)
{
	volatile unsigned long marker[4];

	seen[i].mid_ret = (unsigned long)__builtin_return_address(0);
	marker[0] = MAGIC | i;
	marker[1] = ~(MAGIC | i);
	marker[2] = 0;
	marker[3] = 0;
	return leaf(marker, i) + 1;
}

/* mid() under @depth frames of 1 KiB each */
PROBED long deep(long i, int depth)
{
	volatile char pad[1024];

	pad[0] = depth;
	if (depth)
		return deep(i, depth - 1) + pad[0];
	return mid(i);
}

/* A stack of two pages, followed by no mapping */
static char *short_stack;
static ucontext_t main_uc, short_uc;
static long short_index;

static void on_short_stack(void)
{
	KEEP(short_index);
	mid(short_index);
}

static char path[256];
static long off_leaf;

static int inst(const char *file, const char *val)
{
	char p[256];

	snprintf(p, sizeof(p), INST "/%s", file);
	return write_file(p, O_TRUNC, "%s", val);
}

/* A child that makes call @first to @last of leaf() (through @how) */
enum how { PLAIN, DEEP, SHORT };

static int run_child(enum how how, long first, long last)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		for (long i = first; i <= last; i++) {
			if (how == PLAIN) {
				mid(i);
			} else if (how == DEEP) {
				deep(i, 40);
			} else {
				short_index = i;
				getcontext(&short_uc);
				short_uc.uc_stack.ss_sp = short_stack;
				short_uc.uc_stack.ss_size = 2 * getpagesize();
				short_uc.uc_link = &main_uc;
				makecontext(&short_uc, on_short_stack, 0);
				if (swapcontext(&main_uc, &short_uc))
					_exit(2);
				seen[i].top = (unsigned long)short_stack +
					      2 * getpagesize();
			}
		}
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st) ? 0 : -1;
}

/* One record of the probe's event, as read from trace_pipe_raw */
struct rec {
	unsigned long regs[NREGS];
	unsigned int len;		/* bytes of stack copied */
	unsigned char *stack;
};

static struct rec recs[N + 8];

/* The file at @p, whole, into a malloc()ed buffer; its length in @len */
static char *slurp(const char *p, int *len)
{
	char *buf = read_all(p, 0);

	*len = buf ? strlen(buf) : 0;
	return buf;
}

/*
 * Read the records of utprobes/@name from every CPU's trace_pipe_raw of
 * the instance, with the event's format: how many, or -1.
 */
static int read_records(const char *name, int max)
{
	struct tep_handle *tep = tep_alloc();
	struct kbuffer *kbuf = kbuffer_alloc(KBUFFER_LSIZE_8,
					     KBUFFER_ENDIAN_LITTLE);
	int n = 0, len, cpus = sysconf(_SC_NPROCESSORS_CONF);
	struct tep_format_field *regs_f;
	struct tep_event *ev;
	char p[256], sub[16], *buf;
	size_t subbuf;
	void *page;

	if (!tep || !kbuf)
		return -1;
	buf = slurp(TRACEFS "/events/header_page", &len);
	if (!buf || tep_parse_header_page(tep, buf, len, sizeof(long)))
		return -1;
	free(buf);
	snprintf(p, sizeof(p), INST "/events/utprobes/%s/format", name);
	buf = slurp(p, &len);
	if (!buf || tep_parse_event(tep, buf, len, "utprobes"))
		return -1;
	free(buf);
	ev = tep_find_event_by_name(tep, "utprobes", name);
	regs_f = ev ? tep_find_field(ev, "__stack_regs") : NULL;
	if (!regs_f || regs_f->size != NREGS * sizeof(long) ||
	    !(regs_f->flags & TEP_FIELD_IS_ARRAY) ||
	    !tep_find_field(ev, "__stack"))
		return -1;
	read_file(INST "/buffer_subbuf_size_kb", sub, sizeof(sub));
	subbuf = atoi(sub) * 1024;
	page = malloc(subbuf);
	for (int cpu = 0; page && cpu < cpus; cpu++) {
		int fd;
		ssize_t got;

		snprintf(p, sizeof(p), INST "/per_cpu/cpu%d/trace_pipe_raw",
			 cpu);
		fd = open(p, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		while ((got = read(fd, page, subbuf)) > 0) {
			unsigned long long ts;
			void *data;

			if (kbuffer_load_subbuffer(kbuf, page))
				break;
			for (data = kbuffer_read_event(kbuf, &ts); data;
			     data = kbuffer_next_event(kbuf, &ts)) {
				struct tep_record r = {
					.data = data,
					.size = kbuffer_event_size(kbuf),
				};
				struct rec *o = &recs[n];
				struct trace_seq s;
				void *stk;
				int slen;

				if (tep_data_type(tep, &r) != ev->id)
					continue;
				if (n == max)
					return -1;
				memcpy(o->regs, (char *)data + regs_f->offset,
				       sizeof(o->regs));
				trace_seq_init(&s);
				stk = tep_get_field_raw(&s, ev, "__stack", &r,
							&slen, 0);
				trace_seq_destroy(&s);
				if (!stk && slen)
					return -1;
				o->len = slen;
				o->stack = malloc(slen + 1);
				memcpy(o->stack, stk, slen);
				n++;
			}
		}
		close(fd);
	}
	free(page);
	kbuffer_free(kbuf);
	tep_free(tep);
	return n;
}

/* The 8 bytes at @off of record @r's stack copy */
static unsigned long stack_word(const struct rec *r, unsigned long off)
{
	unsigned long v;

	memcpy(&v, r->stack + off, sizeof(v));
	return v;
}

/* Which call of leaf() record @r saw (its second argument) */
static long call_of(const struct rec *r)
{
	return r->regs[RSI];
}

/* Enable @name's event, make calls @first to @last, read the records */
static int recorded(const char *name, enum how how, long first, long last)
{
	char p[128];
	int ret;

	snprintf(p, sizeof(p), "events/utprobes/%s/enable", name);
	if (inst(p, "1"))
		return -1;
	ret = run_child(how, first, last);
	if (inst(p, "0") || ret)
		return -1;
	return read_records(name, N + 8);
}

FIXTURE(stack) {
	int unused;
};

FIXTURE_SETUP(stack)
{
	seen = mmap(NULL, sizeof(*seen) * (N + 1), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, seen);
	off_leaf = self_offset(leaf, path, sizeof(path));
	ASSERT_LT(0, off_leaf);
	rmdir(INST);
	ASSERT_EQ(0, mkdir(INST, 0755));
}

FIXTURE_TEARDOWN(stack)
{
	inst("events/enable", "0");
	rmdir(INST);
	write_file(EVENTS, O_TRUNC, "");
	munmap(seen, sizeof(*seen) * (N + 1));
}

/*
 * Every call's record: the registers of the hit (the ip the probe's,
 * the arguments the call's, the stack pointer at its return address)
 * and SIZE bytes of stack holding the return address and the caller's
 * marker where the call saw them.
 */
TEST_F(stack, records_hold_the_registers_and_the_stack_of_each_call)
{
	char list[512], want[512];
	int n;

	ASSERT_EQ(0, events("p:stk %s:0x%lx stack=2048\n", path, off_leaf));
	snprintf(want, sizeof(want), "p:stk %s:0x%lx stack=2048\n", path,
		 off_leaf);
	EXPECT_STREQ(want, read_file(EVENTS, list, sizeof(list)));
	n = recorded("stk", PLAIN, 0, N - 1);
	ASSERT_EQ(N, n);
	for (int k = 0; k < n; k++) {
		const struct rec *r = &recs[k];
		long i = call_of(r);
		unsigned long off;

		ASSERT_LE(0, i);
		ASSERT_GT(N, i);
		EXPECT_EQ((unsigned long)leaf, r->regs[RIP]);
		EXPECT_EQ(seen[i].marker, r->regs[RDI]);
		EXPECT_EQ(2048U, r->len);
		/* at the first instruction: the return address on top */
		EXPECT_EQ(seen[i].ret, stack_word(r, 0));
		off = seen[i].marker - r->regs[RSP];
		ASSERT_GT(2048UL - 16, off);
		EXPECT_EQ(MAGIC | i, stack_word(r, off));
		EXPECT_EQ(~(MAGIC | i), stack_word(r, off + 8));
	}
}

/* A return probe's record: the ip is where the call returned to. */
TEST_F(stack, a_return_probe_records_the_stack_it_returns_to)
{
	int n;

	ASSERT_EQ(0, events("r:stk_ret %s:0x%lx stack=256\n", path,
			    off_leaf));
	n = recorded("stk_ret", PLAIN, 0, N - 1);
	ASSERT_EQ(N, n);
	for (int k = 0; k < n; k++) {
		/* leaf()'s own rsi is gone: match by the return address */
		EXPECT_EQ(seen[0].ret, recs[k].regs[RIP]);
		EXPECT_EQ(256U, recs[k].len);
	}
}

/* A stack whose mapping ends: the copy stops exactly there. */
TEST_F(stack, the_copy_ends_where_the_stack_mapping_does)
{
	long page = getpagesize();
	int n;

	short_stack = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, short_stack);
	ASSERT_EQ(0, munmap(short_stack + 2 * page, page));
	ASSERT_EQ(0, events("p:stk_short %s:0x%lx stack=3000\n", path,
			    off_leaf));
	n = recorded("stk_short", SHORT, 0, N - 1);
	ASSERT_EQ(N, n);
	for (int k = 0; k < n; k++) {
		const struct rec *r = &recs[k];
		long i = call_of(r);

		ASSERT_LE(0, i);
		ASSERT_GT(N, i);
		ASSERT_LT(r->regs[RSP], seen[i].top);
		ASSERT_GT(3000UL, seen[i].top - r->regs[RSP]);
		EXPECT_EQ(seen[i].top - r->regs[RSP], r->len);
		EXPECT_EQ(seen[i].ret, stack_word(r, 0));
	}
	munmap(short_stack, 2 * page);
}

/*
 * A copy larger than the buffer's records is cut to what one takes, and
 * the record still comes; a larger sub-buffer takes all of it.
 */
TEST_F(stack, the_buffer_bounds_the_copy_and_never_loses_the_record)
{
	int n;

	ASSERT_EQ(0, events("p:stk_big %s:0x%lx stack=32768\n", path,
			    off_leaf));
	n = recorded("stk_big", DEEP, 0, 3);
	ASSERT_EQ(4, n);
	for (int k = 0; k < n; k++) {
		EXPECT_LT(3000U, recs[k].len);
		EXPECT_GT((unsigned int)getpagesize(), recs[k].len);
		EXPECT_EQ(seen[call_of(&recs[k])].ret, stack_word(&recs[k], 0));
	}
	ASSERT_EQ(0, inst("buffer_subbuf_size_kb", "64"));
	n = recorded("stk_big", DEEP, 4, 7);
	ASSERT_EQ(4, n);
	for (int k = 0; k < n; k++) {
		const struct rec *r = &recs[k];
		long i = call_of(r);

		ASSERT_LE(4, i);
		ASSERT_GE(7, i);
		EXPECT_EQ(32768U, r->len);
		EXPECT_EQ(MAGIC | i,
			  stack_word(r, seen[i].marker - r->regs[RSP]));
	}
}

/* The text output says how much was copied. */
TEST_F(stack, the_text_record_says_how_many_bytes_were_copied)
{
	char *trace, want[128];

	ASSERT_EQ(0, events("p:stk_txt %s:0x%lx stack=64 %%di\n", path,
			    off_leaf));
	ASSERT_EQ(0, inst("events/utprobes/stk_txt/enable", "1"));
	ASSERT_EQ(0, run_child(PLAIN, 0, 0));
	ASSERT_EQ(0, inst("events/utprobes/stk_txt/enable", "0"));
	trace = read_all(INST "/trace", 0);
	ASSERT_NE(NULL, trace);
	snprintf(want, sizeof(want), "stk_txt: (0x%lx) arg1=0x%lx stack=64\n",
		 (unsigned long)leaf, seen[0].marker);
	EXPECT_NE(NULL, strstr(trace, want)) TH_LOG("%s", trace);
	free(trace);
}

/* Bad sizes and repeats are refused, and change nothing. */
TEST_F(stack, bad_stack_options_are_refused)
{
	static const char *const bad[] = {
		"stack=0", "stack=32769", "stack=-1", "stack=", "stack=4k",
		"stack=64 stack=64", "callers=0", "callers=129",
		"callers=8 callers=8", "stack=64 callers=8", "callers=8 stack=64",
	};
	char list[4096], want[512];

	for (unsigned int k = 0; k < ARRAY_SIZE(bad); k++)
		EXPECT_EQ(-EINVAL, events("p:stk_bad %s:0x%lx %s\n", path,
					  off_leaf, bad[k]));
	EXPECT_STREQ("", read_file(EVENTS, list, sizeof(list)));
	/* a value named "stack" is a fetch argument, as on mainline */
	EXPECT_EQ(0, events("p:stk_named %s:0x%lx stack=$stack\n", path,
			    off_leaf));
	snprintf(want, sizeof(want), "p:stk_named %s:0x%lx stack=$stack\n",
		 path, off_leaf);
	EXPECT_STREQ(want, read_file(EVENTS, list, sizeof(list)));
	EXPECT_EQ(NULL, strstr(read_file(INST "/events/utprobes/stk_named/format",
					 list, sizeof(list)), "__stack_regs"));
}

/*
 * callers=N: the word at the stack pointer (at leaf()'s entry, its
 * return address into mid()), then the return addresses the frame
 * pointers lead to: mid() keeps one, so the next is mid()'s own return
 * address.  The text shows them, the format has the field, the listing
 * the option.
 */
TEST_F(stack, callers_follow_the_frame_pointers)
{
	char list[4096], want[512], *trace, *line;

	ASSERT_EQ(0, events("p:stk_fp %s:0x%lx callers=8\n", path, off_leaf));
	snprintf(want, sizeof(want), "p:stk_fp %s:0x%lx callers=8\n", path,
		 off_leaf);
	EXPECT_STREQ(want, read_file(EVENTS, list, sizeof(list)));
	EXPECT_NE(NULL, strstr(read_file(INST "/events/utprobes/stk_fp/format",
					 list, sizeof(list)),
			       "field:__data_loc unsigned long[] __callers;"));
	ASSERT_EQ(0, inst("events/utprobes/stk_fp/enable", "1"));
	ASSERT_EQ(0, run_child(PLAIN, 0, 3));
	ASSERT_EQ(0, inst("events/utprobes/stk_fp/enable", "0"));
	trace = read_all(INST "/trace", 0);
	ASSERT_NE(NULL, trace);
	line = trace;
	for (long i = 0; i <= 3; i++) {
		snprintf(want, sizeof(want), "stk_fp: (0x%lx) callers=0x%lx,0x%lx",
			 (unsigned long)leaf, seen[i].ret, seen[i].mid_ret);
		line = strstr(line, want);
		ASSERT_NE(NULL, line) TH_LOG("call %ld, %s not in:\n%s", i, want,
					     trace);
		line += strlen(want);
	}
	free(trace);
}

TEST_HARNESS_MAIN
