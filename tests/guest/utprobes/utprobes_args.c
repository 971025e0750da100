// SPDX-License-Identifier: GPL-2.0
/*
 * Fetch arguments of utprobes events (utprobe_events FETCHARGS): each
 * probe is the trace event utprobes/NAME, its fields and format are
 * those of the values asked for, and each record holds exactly the
 * values of the call it saw: registers, stack slots, memory through
 * pointers, strings, $retval.  The same arguments on mainline
 * uprobe_events, on a twin function called with the same values in the
 * same run, record the same text.  A bad address gives a marked value,
 * and the thread goes on.  Filters work as on any event.  Bad
 * definitions change nothing.  A module's handlers read the same values
 * with utprobe_arg() and utprobe_retval() (tests/modules/utp_args).
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"
#include "../../targets/ret_funcs.h"

#define N 50
#define INST TRACEFS "/instances/utprobes_args"
#define MAINLINE TRACEFS "/uprobe_events"
#define TRACE_MAX (1 << 20)

struct rec {
	long id;
	unsigned int small;
	const char *label;
};

static long global_value = 0x5eed1234;

/* Called with the same values: one probed by us, one by mainline. */
#define ARG_FUNC(name)							\
PROBED long name(long a, int b, const char *s, struct rec *r,		\
		 unsigned char c, long e, long g)			\
{									\
	KEEP(a);							\
	return a + b + (s ? s[0] : 0) + r->small + c + e + g;		\
}
ARG_FUNC(arg_ours)
ARG_FUNC(arg_theirs)

#define RET_FUNC(name)							\
PROBED long name(long x)						\
{									\
	KEEP(x);							\
	return x * x - 100;						\
}
RET_FUNC(ret_ours)
RET_FUNC(ret_theirs)

PROBED long big_ours(const char *s)
{
	KEEP(s);
	return s[0];
}

#define BIG 3000UL
static char big_string[BIG + 1];

static const char *const words[] = { "alpha", "", "with space", "\t" };

/* The values of call @i; its label is a bad address for one in 7. */
static void call_values(int i, struct rec *r, const char **s)
{
	r->id = 1000 + i;
	r->small = 7u * i;
	r->label = i % 7 == 3 ? (const char *)16 : words[i % 4];
	*s = i % 5 == 4 ? NULL : words[(i + 1) % 4];
}

/* The child's work: N calls of each function, with known values. */
static void calls(void)
{
	long sum = 0;

	for (int i = 0; i < N; i++) {
		struct rec r;
		const char *s;

		call_values(i, &r, &s);
		sum += arg_ours(i - 20, -i, s, &r, 200 + i, 0, 3L << 40 | i);
		sum += arg_theirs(i - 20, -i, s, &r, 200 + i, 0, 3L << 40 | i);
		sum += ret_ours(i - 10);
		sum += ret_theirs(i - 10);
	}
	KEEP(sum);
}

static char path[256];

/* The file offset of our function @fn, its path in path[] */
static long off_of(void *fn)
{
	return self_offset(fn, path, sizeof(path));
}

static int inst_write(const char *file, const char *fmt, const char *val)
{
	char p[512];

	snprintf(p, sizeof(p), INST "/%s", file);
	return write_file(p, O_TRUNC, fmt, val);
}

static int enable(const char *sys, const char *name, int on)
{
	char p[256];

	snprintf(p, sizeof(p), "events/%s/%s/enable", sys, name);
	return inst_write(p, "%s", on ? "1" : "0");
}

/* A child that runs calls() once a byte comes through *@go */
static pid_t spawn_calls(int *go)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		get_byte(p[0]);
		calls();
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* Run calls() in a child: 0 if it exited 0. */
static int run_child(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		calls();
		_exit(0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st) ? 0 : -1;
}

static char trace_buf[TRACE_MAX], ml_buf[TRACE_MAX];

/*
 * The records of event @name in the instance's trace, read into @buf, in
 * order: the text after "NAME: (...) " of each, into @out (@max of them).
 */
static int records_in(char *buf, const char *name, char **out, int max)
{
	char want[96], *line, *p, *save;
	int n = 0;

	read_file(INST "/trace", buf, TRACE_MAX);
	snprintf(want, sizeof(want), " %s: (", name);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, want);
		if (!p || *line == '#')
			continue;
		p = strchr(p + strlen(want), ')');
		if (!p || n == max)
			return -1;
		out[n++] = p[1] == ' ' ? p + 2 : p + 1;
	}
	return n;
}

static int records(const char *name, char **out, int max)
{
	return records_in(trace_buf, name, out, max);
}

/*
 * Run the child with our event @name and mainline's NAME_ml on: 0 if it
 * went well and each recorded N calls, into @ours and @theirs.
 */
static int side_by_side(const char *name, char **ours, char **theirs)
{
	char ml[64];

	snprintf(ml, sizeof(ml), "%s_ml", name);
	if (enable("utprobes", name, 1) || enable("uprobes", ml, 1) ||
	    run_child() || enable("utprobes", name, 0) ||
	    enable("uprobes", ml, 0))
		return -1;
	return records(name, ours, N + 1) == N &&
	       records_in(ml_buf, ml, theirs, N + 1) == N ? 0 : -1;
}

static int count_lines(const char *name)
{
	static char *out[4 * N];

	return records(name, out, 4 * N);
}

/* The record call @i of arg_ours must show */
static void expected_args(int i, char *buf, size_t size)
{
	char label[64], s_text[64];
	struct rec r;
	const char *s;

	call_values(i, &r, &s);
	if (r.label == (const char *)16)
		snprintf(label, sizeof(label), "(fault)");
	else
		snprintf(label, sizeof(label), "\"%s\"", r.label);
	if (s)
		snprintf(s_text, sizeof(s_text), "\"%s\"", s);
	else
		snprintf(s_text, sizeof(s_text), "(fault)");
	snprintf(buf, size,
		 "a=%d b=%d s=%s id=%ld small=%u label=%s c=%u g=0x%lx comm=\"utprobes_args\"",
		 i - 20, -i, s_text, r.id, r.small, label, 200 + i,
		 3UL << 40 | i);
}

#define ARGS "a=%%di:s64 b=%%si:s32 s=+0(%%dx):string id=+0(%%cx):s64 " \
	"small=+8(%%cx):u32 label=+0(+16(%%cx)):string c=%%r8:u8 "	\
	"g=$stack1:x64 comm=$comm"

FIXTURE(args) {
	char def[1024];
};

FIXTURE_SETUP(args)
{
	write_file(EVENTS, O_TRUNC, "");
	write_file(MAINLINE, O_TRUNC, "");
	rmdir(INST);
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_LT(0, off_of(arg_ours));
}

FIXTURE_TEARDOWN(args)
{
	rmdir(INST);
	write_file(EVENTS, O_TRUNC, "");
	write_file(MAINLINE, O_TRUNC, "");
}

/* The event's directory and format are those of the values asked for */
TEST_F(args, format)
{
	char buf[8192];

	ASSERT_EQ(0, events("p:ua_fmt %s:%#lx tree=%d " ARGS "\n", path,
			    off_of(arg_ours), getpid()));
	read_file(TRACEFS "/events/utprobes/ua_fmt/format", buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "name: ua_fmt\n"));
	EXPECT_NE(NULL, strstr(buf, "field:unsigned long __probe_ip;"));
	EXPECT_NE(NULL, strstr(buf, "field:s64 a;"));
	EXPECT_NE(NULL, strstr(buf, "field:s32 b;"));
	EXPECT_NE(NULL, strstr(buf, "field:__data_loc char[] s;"));
	EXPECT_NE(NULL, strstr(buf, "field:u32 small;"));
	EXPECT_NE(NULL, strstr(buf, "field:u8 c;"));
	EXPECT_NE(NULL, strstr(buf, "field:x64 g;") ?:
		  strstr(buf, "field:u64 g;"));
	EXPECT_NE(NULL, strstr(buf, "print fmt: \"(%lx) a=%Ld"));
	read_file(EVENTS, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, " a=%di:s64 b=%si:s32 "));
	EXPECT_NE(NULL, strstr(buf, " comm=$comm\n"));
}

/* Each record holds exactly the values of its call */
TEST_F(args, values_of_each_call)
{
	char *rec[N + 1], want[512];
	int n;

	/* and a word at address 0 (e, in r9): 0 */
	ASSERT_EQ(0, events("p:ua_vals %s:%#lx tree=%d " ARGS
			    " nul=+0(%%r9):s64\n", path, off_of(arg_ours),
			    getpid()));
	ASSERT_EQ(0, enable("utprobes", "ua_vals", 1));
	ASSERT_EQ(0, run_child());
	ASSERT_EQ(0, enable("utprobes", "ua_vals", 0));
	EXPECT_EQ(N, hits("ua_vals"));
	n = records("ua_vals", rec, N + 1);
	ASSERT_EQ(N, n);
	for (int i = 0; i < n; i++) {
		expected_args(i, want, sizeof(want));
		strcat(want, " nul=0");
		EXPECT_STREQ(want, rec[i]);
	}
}

/* Without values, each record is the probed address alone (trap path) */
TEST_F(args, address_only)
{
	char *rec[N + 1], want[64];

	ASSERT_EQ(0, events("p:ua_addr %s:%#lx tree=%d\n", path,
			    off_of(arg_ours), getpid()));
	ASSERT_EQ(0, enable("utprobes", "ua_addr", 1));
	ASSERT_EQ(0, run_child());
	ASSERT_EQ(0, enable("utprobes", "ua_addr", 0));
	ASSERT_EQ(N, records("ua_addr", rec, N + 1));
	for (int i = 0; i < N; i++) {
		/* each record's line, cut at its end by records() */
		snprintf(want, sizeof(want), " ua_addr: (%p)", arg_ours);
		EXPECT_EQ(0, strcmp(rec[i] - strlen(want), want)) {
			TH_LOG("record %d: '%s'", i, rec[i] - strlen(want));
		}
	}
}

/* Mainline, with the same arguments on the twin, records the same text */
TEST_F(args, same_as_mainline)
{
	char *ours[N + 1], *theirs[N + 1];
	char extra[128];

	/* and a word of our data, at its file offset from the probe's */
	snprintf(extra, sizeof(extra), " glob=@+%#lx:x64",
		 off_of(&global_value));
	ASSERT_EQ(0, events("p:ua_same %s:%#lx tree=%d " ARGS "%s\n", path,
			    off_of(arg_ours), getpid(), extra));
	ASSERT_EQ(0, write_file(MAINLINE, O_APPEND,
				"p:uprobes/ua_same_ml %s:%#lx " ARGS "%s\n",
				path, off_of(arg_theirs), extra));
	ASSERT_EQ(0, side_by_side("ua_same", ours, theirs));
	for (int i = 0; i < N; i++)
		EXPECT_STREQ(theirs[i], ours[i]);
}

/* $retval of a return probe, as mainline's */
TEST_F(args, retval)
{
	char *ours[N + 1], *theirs[N + 1], want[64];

	ASSERT_EQ(0, events("r:ua_ret %s:%#lx tree=%d rv=$retval:s64 x=%%di:s64\n",
			    path, off_of(ret_ours), getpid()));
	ASSERT_EQ(0, write_file(MAINLINE, O_APPEND,
				"r:uprobes/ua_ret_ml %s:%#lx rv=$retval:s64 x=%%di:s64\n",
				path, off_of(ret_theirs)));
	ASSERT_EQ(0, side_by_side("ua_ret", ours, theirs));
	for (int i = 0; i < N; i++) {
		long x = i - 10;

		/* %di at the return: whatever the function left there */
		snprintf(want, sizeof(want), "rv=%ld x=", x * x - 100);
		EXPECT_EQ(0, strncmp(want, ours[i], strlen(want)));
		EXPECT_STREQ(theirs[i], ours[i]);
	}
}

/* A filter on a fetched value keeps exactly the records that match it */
TEST_F(args, filter)
{
	ASSERT_EQ(0, events("p:ua_filt %s:%#lx tree=%d " ARGS "\n", path,
			    off_of(arg_ours), getpid()));
	ASSERT_EQ(0, inst_write("events/utprobes/ua_filt/filter", "%s",
				"a >= 20 && small != 210"));
	ASSERT_EQ(0, enable("utprobes", "ua_filt", 1));
	ASSERT_EQ(0, run_child());
	ASSERT_EQ(0, enable("utprobes", "ua_filt", 0));
	/* a >= 20: i >= 40, ten calls; small == 210: i == 30, not one */
	EXPECT_EQ(10, count_lines("ua_filt"));
	EXPECT_EQ(N, hits("ua_filt"));
}

/* A probe on one process fetches too; @+OFFSET needs a file */
TEST_F(args, pid_probe)
{
	char *rec[N + 1], want[512], buf[4096];
	int go, st;
	pid_t pid = spawn_calls(&go);

	ASSERT_LT(0, pid);
	EXPECT_EQ(-EINVAL, events("p:ua_pid %d:%p glob=@+0x10:u64\n", pid,
				  arg_ours));
	read_file(EVENTS, buf, sizeof(buf));
	EXPECT_EQ(NULL, strstr(buf, "ua_pid"));
	ASSERT_EQ(0, events("p:ua_pid %d:%p " ARGS "\n", pid, arg_ours));
	ASSERT_EQ(0, enable("utprobes", "ua_pid", 1));
	put_byte(go);
	close(go);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	ASSERT_EQ(0, enable("utprobes", "ua_pid", 0));
	ASSERT_EQ(N, records("ua_pid", rec, N + 1));
	for (int i = 0; i < N; i++) {
		expected_args(i, want, sizeof(want));
		EXPECT_STREQ(want, rec[i]);
	}
}

/*
 * A record is a page at most: strings beyond it are cut or left out,
 * never written past the record; a definition whose fixed fields alone
 * are bigger is refused.
 */
TEST_F(args, record_of_a_page)
{
	char def[1024], *rec[2], want[64];
	size_t len;
	int n = 0, st;
	pid_t pid;

	n = snprintf(def, sizeof(def), "p:ua_page %s:%#lx tree=%d", path,
		     off_of(big_ours), getpid());
	for (int i = 0; i < 8; i++)
		n += snprintf(def + n, sizeof(def) - n, " s%d=+0(%%di):string",
			      i);
	ASSERT_EQ(0, events("%s\n", def));
	ASSERT_EQ(0, enable("utprobes", "ua_page", 1));
	memset(big_string, 'x', BIG);
	pid = fork();
	if (pid == 0)
		_exit(big_ours(big_string) == 'x' ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	ASSERT_EQ(0, enable("utprobes", "ua_page", 0));
	ASSERT_EQ(1, records("ua_page", rec, 2));
	/* s0 whole; s1 cut where the page ends; the others without room */
	snprintf(want, sizeof(want), "s0=\"%.20s", big_string);
	EXPECT_EQ(0, strncmp(rec[0], want, strlen(want)));
	len = strcspn(rec[0] + 4, "\"");
	EXPECT_EQ(BIG, len);
	len = strcspn(strstr(rec[0], " s1=\"") + 5, "\"");
	EXPECT_LT(100UL, len);
	EXPECT_GT(BIG, len);
	EXPECT_NE(NULL, strstr(rec[0], " s2=(fault) s3=(fault)"));
	EXPECT_NE(NULL, strstr(rec[0], " s7=(fault)"));
	/* 9 arrays of 64 words: 4608 bytes of fixed fields */
	n = snprintf(def, sizeof(def), "p:ua_huge %s:%#lx", path,
		     off_of(big_ours));
	for (int i = 0; i < 9; i++)
		n += snprintf(def + n, sizeof(def) - n, " a%d=+0(%%di):u64[64]",
			      i);
	EXPECT_EQ(-E2BIG, events("%s\n", def));
	EXPECT_NE(0, access(TRACEFS "/events/utprobes/ua_huge", F_OK));
}

/*
 * Records of a removed event are cleared with it: an event made next,
 * which may take its type, is not shown the old records.
 */
TEST_F(args, removal_clears_records)
{
	char *rec[N + 1];

	ASSERT_EQ(0, events("p:ua_old %s:%#lx tree=%d s=+0(%%dx):string\n",
			    path, off_of(arg_ours), getpid()));
	ASSERT_EQ(0, enable("utprobes", "ua_old", 1));
	ASSERT_EQ(0, run_child());
	ASSERT_EQ(0, enable("utprobes", "ua_old", 0));
	ASSERT_EQ(N, records("ua_old", rec, N + 1));
	ASSERT_EQ(0, events("-:ua_old\np:ua_new %s:%#lx tree=%d a=%%di:s64\n",
			    path, off_of(arg_ours), getpid()));
	EXPECT_EQ(0, records("ua_old", rec, N + 1));
	EXPECT_EQ(0, records("ua_new", rec, N + 1));
}

/* Definitions the parser refuses: -EINVAL, nothing added, a logged error */
TEST_F(args, bad_definitions)
{
	static const char *const bad[] = {
		"p:ua_bad %s:%#lx a=%%zz",		/* no such register */
		"p:ua_bad %s:%#lx a=%%di:u12",		/* no such type */
		"p:ua_bad %s:%#lx rv=$retval",		/* not a return */
		"p:ua_bad %s:%#lx a=+0(%%di",		/* unbalanced */
		"p:ua_bad %s:%#lx a=%%di a=%%si",	/* one name twice */
		"p:ua_bad %s:%#lx 1a=%%di",		/* not a name */
		"p:ua_bad %s:%#lx a=$arg1",		/* kernel only */
	};
	char buf[8192];
	long off = off_of(arg_ours);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(TRACEFS "/error_log", O_TRUNC, "");
		EXPECT_EQ(-EINVAL, events(bad[i], path, off)) {
			TH_LOG("%s", bad[i]);
		}
		read_file(TRACEFS "/error_log", buf, sizeof(buf));
		EXPECT_NE(NULL, strstr(buf, "utprobe: error:")) {
			TH_LOG("%s: error_log '%s'", bad[i], buf);
		}
	}
	read_file(EVENTS, buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	read_file(TRACEFS "/events/utprobes/ua_bad/format", buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	/* an event name the group has already: nothing added */
	EXPECT_EQ(-EEXIST, events("p:utprobe_hit %s:%#lx\n", path, off));
	read_file(EVENTS, buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(-1, hits("utprobe_hit"));
}

/* An event that is on keeps its probe: removal is -EBUSY until it is off */
TEST_F(args, busy_while_on)
{
	char buf[4096];
	int fd;

	ASSERT_EQ(0, events("p:ua_busy %s:%#lx a=%%di\n", path,
			    off_of(arg_ours)));
	ASSERT_EQ(0, enable("utprobes", "ua_busy", 1));
	EXPECT_EQ(-EBUSY, events("-:ua_busy\n"));
	fd = open(EVENTS, O_WRONLY | O_TRUNC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	if (fd >= 0)
		close(fd);
	read_file(EVENTS, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "p:ua_busy "));
	ASSERT_EQ(0, enable("utprobes", "ua_busy", 0));
	EXPECT_EQ(0, events("-:ua_busy\n"));
	read_file(EVENTS, buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	EXPECT_NE(0, access(TRACEFS "/events/utprobes/ua_busy", F_OK));
}

/*
 * How many utprobe_hit records of probe @name the instance's trace
 * holds, and in *@irqs_off how many of them were made with interrupts
 * off: in the int3 trap (the flags column after the CPU reads "d").
 */
static int hit_records(const char *name, int *irqs_off)
{
	char want[96], *line, *p, *save;
	int n = 0;

	*irqs_off = 0;
	read_file(INST "/trace", trace_buf, TRACE_MAX);
	snprintf(want, sizeof(want), " utprobe_hit: pid=");
	for (line = strtok_r(trace_buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char probe[64];

		p = strstr(line, want);
		if (!p || *line == '#')
			continue;
		snprintf(probe, sizeof(probe), " probe=%s ip=", name);
		if (!strstr(p, probe))
			continue;
		n++;
		p = strstr(line, "] ");
		if (p && p[2] == 'd')
			(*irqs_off)++;
	}
	return n;
}

/*
 * A probe with values costs the trap alone while its event is off: its
 * hits are taken in the trap (irqs off) as often as those of a probe
 * without values on the twin function, and out of it, with every
 * value, while the event is on.
 */
TEST_F(args, trap_while_event_off)
{
	char *rec[N + 1], want[512];
	int n, off, ctl;

	ASSERT_EQ(0, events("p:ua_quiet %s:%#lx tree=%d " ARGS "\n", path,
			    off_of(arg_ours), getpid()));
	ASSERT_EQ(0, events("p:ua_ctl %s:%#lx tree=%d\n", path,
			    off_of(arg_theirs), getpid()));
	ASSERT_EQ(0, enable("utprobes", "utprobe_hit", 1));
	for (int round = 0; round < 3; round++) {
		bool on = round == 1;

		ASSERT_EQ(0, inst_write("trace", "%s", ""));
		ASSERT_EQ(0, enable("utprobes", "ua_quiet", on));
		ASSERT_EQ(0, run_child());
		ASSERT_EQ(0, enable("utprobes", "ua_quiet", 0));
		EXPECT_EQ((round + 1) * N, hits("ua_quiet"));
		n = records("ua_quiet", rec, N + 1);
		ASSERT_EQ(on ? N : 0, n) TH_LOG("round %d", round);
		for (int i = 0; i < n; i++) {
			expected_args(i, want, sizeof(want));
			EXPECT_STREQ(want, rec[i]);
		}
		EXPECT_EQ(N, hit_records("ua_ctl", &ctl));
		/* a new process makes its slot out of the trap, once */
		EXPECT_LE(N - 1, ctl);
		EXPECT_EQ(N, hit_records("ua_quiet", &off));
		EXPECT_EQ(on ? 0 : ctl, off) TH_LOG("round %d", round);
	}
	ASSERT_EQ(0, enable("utprobes", "utprobe_hit", 0));
}

#define TOGGLES 40
#define TOGGLE_ROUNDS_MAX 200

/*
 * The event turned on and off again and again while a thread hits the
 * probe: each hit counted, each record whole (fetched out of the trap).
 */
TEST_F(args, event_toggled_under_hits)
{
	static char *rec[TOGGLE_ROUNDS_MAX * N + 1];
	int stop[2], done[2], rounds = 0, st, n;
	pid_t pid;

	ASSERT_EQ(0, events("p:ua_toggle %s:%#lx tree=%d a=%%di:s64 "
			    "id=+0(%%cx):s64\n", path, off_of(arg_ours),
			    getpid()));
	ASSERT_EQ(0, pipe(stop));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char x;

		fcntl(stop[0], F_SETFL, O_NONBLOCK);
		do {
			calls();
		} while (++rounds < TOGGLE_ROUNDS_MAX &&
			 read(stop[0], &x, 1) != 1);
		_exit(write(done[1], &rounds, sizeof(rounds)) !=
		      sizeof(rounds));
	}
	close(done[1]);
	for (int i = 1; i <= TOGGLES; i++) {
		ASSERT_EQ(0, enable("utprobes", "ua_toggle", i & 1));
		usleep(1000);
	}
	put_byte(stop[1]);
	ASSERT_EQ((ssize_t)sizeof(rounds),
		  read(done[0], &rounds, sizeof(rounds)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	close(stop[1]);
	close(done[0]);
	ASSERT_EQ(0, enable("utprobes", "ua_toggle", 0));
	EXPECT_EQ(rounds * N, hits("ua_toggle"));
	n = records("ua_toggle", rec, TOGGLE_ROUNDS_MAX * N + 1);
	ASSERT_LE(0, n);
	TH_LOG("%d rounds, %d of %d hits recorded", rounds, n, rounds * N);
	for (int i = 0; i < n; i++) {
		long a, id;

		ASSERT_EQ(2, sscanf(rec[i], "a=%ld id=%ld", &a, &id))
			TH_LOG("record '%s'", rec[i]);
		EXPECT_LE(-20, a);
		EXPECT_GT(N - 20, a);
		EXPECT_EQ(1000 + a + 20, id) TH_LOG("record '%s'", rec[i]);
	}
}

static int load_args(pid_t pid, int trap)
{
	char mod[256], params[200];
	struct utsname u;
	int fd, ret;

	uname(&u);
	snprintf(mod, sizeof(mod), "/lib/modules/%s/extra/utp_args.ko",
		 u.release);
	snprintf(params, sizeof(params), "pid=%d addr=%lu nargs=7 trap=%d",
		 pid, (unsigned long)arg_ours, trap);
	fd = open(mod, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * A module's handlers read the arguments (the seventh on the stack) and
 * the return value, in the trap or not: those of the first calls.
 */
TEST(module_api)
{
	for (int trap = 0; trap < 2; trap++) {
		char buf[4096], *line, *save;
		int go, st, i = 0;
		pid_t pid = spawn_calls(&go);

		ASSERT_LT(0, pid);
		ASSERT_EQ(0, load_args(pid, trap));
		put_byte(go);
		close(go);
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		EXPECT_EQ(0, st);
		read_file("/sys/module/utp_args/parameters/log", buf,
			  sizeof(buf));
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save), i++) {
			unsigned long a[7], ret;
			struct rec r;
			const char *s;

			call_values(i, &r, &s);
			ASSERT_EQ(8, sscanf(line, "%lx %lx %lx %lx %lx %lx %lx = %lx",
					    &a[0], &a[1], &a[2], &a[3], &a[4],
					    &a[5], &a[6], &ret)) {
				TH_LOG("trap %d line '%s'", trap, line);
			}
			EXPECT_EQ((unsigned long)(i - 20), a[0]);
			EXPECT_EQ((unsigned int)-i, (unsigned int)a[1]);
			EXPECT_EQ((unsigned long)s, a[2]);
			EXPECT_EQ(200UL + i, a[4] & 0xff);
			EXPECT_EQ(0UL, a[5]);
			EXPECT_EQ(3UL << 40 | i, a[6]);
			EXPECT_EQ((unsigned long)(i - 20 - i + (s ? s[0] : 0) +
						  r.small + 200 + i +
						  (3L << 40 | i)), ret);
		}
		EXPECT_EQ(8, i);
		EXPECT_EQ(0, syscall(SYS_delete_module, "utp_args",
				     O_NONBLOCK));
	}
}

TEST_HARNESS_MAIN
