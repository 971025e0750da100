// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli as a user meets it, against a stand-in tracefs directory
 * (UPROBE_CLI_TRACEFS): the lines it writes to utprobe_events, how it
 * reads utprobe_profile and utprobe_returns in each output format, and
 * the one-line message and non-zero exit of every error it reports,
 * with nothing written.  For count and latency the command they run
 * plays the kernel, filling in the counts of the probes placed on it.
 * The kernel's own refusals are tested in the guest (uprobe_cli.sh).
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"

#ifndef FIXTURES
#error FIXTURES must name the directory of the test ELF files
#endif
#ifndef CLI
#error CLI must name the uprobe-cli binary under test
#endif
#ifndef CLI_VERSION
#error CLI_VERSION must give the version it prints
#endif

struct result {
	int status;		/* exit status, or 128 + signal */
	char out[16384];
	char err[4096];
};

static char top[32];		/* the directory of every test's stand-in */
static char fake[64];		/* the stand-in tracefs of one test */
static const char *cli_bin = CLI;	/* the binary cli() runs */

static void read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
}

/*
 * In cli()'s child: name the call that failed and why on the standard
 * error the test reads, so that the failure is not an empty message.
 */
static void child_fail(const char *call, const char *arg, int status)
{
	fprintf(stderr, "check_cli: %s(%s): %s\n", call, arg, strerror(errno));
	_exit(status);
}

/*
 * Run uprobe-cli with @args (NULL-terminated, @args[0] the program)
 * against the stand-in tracefs; as user nobody if @nobody.  Output is
 * small enough for the pipes' buffers, so both are read after the exit.
 */
static void cli_argv(struct result *res, int nobody, const char **argv)
{
	int out[2], err[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		setenv("UPROBE_CLI_TRACEFS", fake, 1);
		/* no debuginfod server, nor its cache under $HOME */
		unsetenv("DEBUGINFOD_URLS");
		if (nobody && geteuid() == 0) {
			/* root's supplementary groups must not come along */
			if (setgroups(0, NULL))
				child_fail("setgroups", "0, NULL", 126);
			if (setgid(65534))
				child_fail("setgid", "65534", 126);
			if (setuid(65534))
				child_fail("setuid", "65534", 126);
		}
		execv(cli_bin, (char **)argv);
		child_fail("execv", cli_bin, 127);
	}
	close(out[1]);
	close(err[1]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	read_all(out[0], res->out, sizeof(res->out));
	read_all(err[0], res->err, sizeof(res->err));
	close(out[0]);
	close(err[0]);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* cli_argv() of uprobe-cli and the arguments after @nobody, to a NULL. */
static void cli(struct result *res, int nobody, ...)
{
	const char *argv[32] = { cli_bin };
	va_list ap;
	int n = 1;

	va_start(ap, nobody);
	while ((argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	cli_argv(res, nobody, argv);
}

static void put_file(const char *name, const char *text, mode_t mode)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fake, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(path, mode);
}

static const char *get_file(const char *name)
{
	static char buf[8192];
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fake, name);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	read_all(fd, buf, sizeof(buf));
	close(fd);
	return buf;
}

/*
 * A stand-in tracefs with empty utprobe_events, _profile and _returns,
 * in a directory of its own under top; main() removes them all.  Its
 * utprobe_session is utprobe_events, so that what a command writes
 * through its session is read where the others' definitions are.
 */
static void setup(void)
{
	char path[128];

	snprintf(fake, sizeof(fake), "%s/XXXXXX", top);
	ck_assert_ptr_nonnull(mkdtemp(fake));
	chmod(fake, 0755);
	cli_bin = CLI;
	put_file("utprobe_events", "", 0644);
	put_file("utprobe_profile", "", 0644);
	put_file("utprobe_returns", "", 0644);
	snprintf(path, sizeof(path), "%s/utprobe_session", fake);
	ck_assert_int_eq(symlink("utprobe_events", path), 0);
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path)) {
		fprintf(stderr, "check_cli: remove(%s): %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* nm's address of @sym in fixture @file. */
static unsigned long nm_address(const char *file, const char *sym)
{
	char cmd[1024], line[256], name[128], type;
	unsigned long addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s", FIXTURES, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, sym))
			found = addr;
	pclose(p);
	ck_assert_msg(found, "nm finds no %s in %s", sym, file);
	return found;
}

/* The size nm -S gives @sym in @file. */
static unsigned long nm_size(const char *file, const char *sym)
{
	char cmd[1024], line[256], name[128], type;
	unsigned long addr, size, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s/%s", FIXTURES, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %lx %c %127s", &addr, &size, &type,
			   name) == 4 && !strcmp(name, sym))
			found = size;
	pclose(p);
	ck_assert_msg(found, "nm -S finds no size of %s in %s", sym, file);
	return found;
}

/*
 * " func=START+SIZE" in @buf for @sym of @file, starting at @start as
 * the definition counts (a file offset, or an address in a process).
 */
static const char *func_of(const char *file, const char *sym,
			   unsigned long start, char *buf, size_t len)
{
	snprintf(buf, len, " func=%#lx+%#lx", start, nm_size(file, sym));
	return buf;
}

/* The error must be exactly one line, "uprobe-cli: ...@what...". */
static void assert_one_error(const struct result *r, const char *what)
{
	const char *nl = strchr(r->err, '\n');

	ck_assert_msg(r->status != 0, "exit status 0 for '%s'", what);
	ck_assert_msg(!strncmp(r->err, "uprobe-cli: ", 12),
		      "message '%s' does not start with the program", r->err);
	ck_assert_msg(nl && !nl[1], "not one line: '%s'", r->err);
	ck_assert_msg(strstr(r->err, what), "'%s' not in '%s'", what, r->err);
}

/*
 * Nothing on stdout after the error @msg (no quotes in it) of the
 * command @cmd but, with its -j, the error as JSON: it ran nothing.
 */
static void assert_no_output(const struct result *r,
			     const char *const *cmd, const char *msg)
{
	char want[512] = "";

	if (cmd[1] && !strcmp(cmd[1], "-j"))
		snprintf(want, sizeof(want), "{\"error\":\"%s\"}\n", msg);
	ck_assert_str_eq(r->out, want);
}

/*
 * add on SDT markers: the one with a semaphore is defined with the
 * semaphore's offset, "(REF)", the other without.
 */
START_TEST(add_sdt_markers)
{
	unsigned long off, ref, off2;
	struct result r;
	char fmt[512];
	int n;

	cli(&r, 0, "add", FIXTURES "/sdt_fix:sdt:fix:*", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	snprintf(fmt, sizeof(fmt),
		 "p:fix_guarded %s/sdt_fix:0x%%lx(0x%%lx)\n"
		 "p:fix_plain %s/sdt_fix:0x%%lx\n%%n", FIXTURES, FIXTURES);
	n = 0;
	ck_assert_int_eq(sscanf(get_file("utprobe_events"), fmt, &off, &ref,
				&off2, &n), 3);
	ck_assert_int_eq(n, strlen(get_file("utprobe_events")));
	ck_assert_uint_ne(off, 0);
	ck_assert_uint_ne(ref, 0);
	ck_assert_uint_eq(ref % 2, 0);
	ck_assert_uint_ne(off2, 0);
	cli(&r, 0, "funcs", "--sdt", FIXTURES "/sdt_fix", "fix:g*", NULL);
	snprintf(fmt, sizeof(fmt),
		 "%-40s %14s %10s %10s  %s\n%-40s %#14lx %#10lx %#10lx  %s\n",
		 "MARKER", "ADDRESS", "OFFSET", "SEMAPHORE", "ARGUMENTS",
		 "fix:guarded", off, off, ref, "-4@%edi -8@%rax 8@(%rsi)");
	ck_assert_str_eq(r.out, fmt);
}
END_TEST

START_TEST(add_writes_file_offsets)
{
	struct result r;
	char want[1024];
	unsigned long pie = nm_address("sample_pie", "sample_mul");
	unsigned long nopie = nm_address("sample_nopie", "sample_add") -
			      0x400000;
	char f1[64], f2[64];

	/* PIE: the text's file offsets are its link-time addresses */
	cli(&r, 0, "add", FIXTURES "/sample_pie:sample_mul",
	    FIXTURES "/sample_nopie:sample_add+0", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	ck_assert_str_eq(r.out, "");
	/* each with its function, for the kernel to enter it by a jump */
	snprintf(want, sizeof(want),
		 "p:sample_mul %s/sample_pie:%#lx%s\n"
		 "p:sample_add %s/sample_nopie:%#lx%s\n",
		 FIXTURES, pie,
		 func_of("sample_pie", "sample_mul", pie, f1, sizeof(f1)),
		 FIXTURES, nopie,
		 func_of("sample_nopie", "sample_add", nopie, f2, sizeof(f2)));
	ck_assert_str_eq(get_file("utprobe_events"), want);
	/* --trap: no function, the int3 */
	put_file("utprobe_events", "", 0644);
	cli(&r, 0, "add", "--trap", FIXTURES "/sample_pie:sample_mul", NULL);
	ck_assert_msg(r.status == 0, "add --trap failed: %s", r.err);
	snprintf(want, sizeof(want), "p:sample_mul %s/sample_pie:%#lx\n",
		 FIXTURES, pie);
	ck_assert_str_eq(get_file("utprobe_events"), want);
}
END_TEST

/* objdump's offset of the second instruction of @sym in fixture @file */
static unsigned long second_insn(const char *file, const char *sym)
{
	char cmd[1024], line[256];
	unsigned long addr, first = 0, second = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --disassemble=%s %s/%s", sym,
		 FIXTURES, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " %lx:\t", &addr) == 1 && strchr(line, '\t')) {
			if (!first)
				first = addr;
			else if (!second)
				second = addr;
		}
	pclose(p);
	ck_assert_msg(first && second, "objdump: no two instructions in %s",
		      sym);
	return second - first;
}

START_TEST(add_with_name_and_offset)
{
	struct result r;
	char spec[512], want[1024];
	unsigned long off = second_insn("sample_pie", "sample_mul");

	snprintf(spec, sizeof(spec), "%s/sample_pie:sample_mul+%#lx", FIXTURES,
		 off);
	cli(&r, 0, "add", "--name", "mymul", spec, NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	/* not at the entry: no func=, the int3 (see func_text()) */
	snprintf(want, sizeof(want), "p:mymul %s/sample_pie:%#lx\n", FIXTURES,
		 nm_address("sample_pie", "sample_mul") + off);
	ck_assert_str_eq(get_file("utprobe_events"), want);
}
END_TEST

/* Every error: one line naming the problem, non-zero exit, no write. */
#define ARGS_PIE FIXTURES "/args_pie"

static const struct {
	const char *args[11];
	const char *message;
} errors[] = {
	{ { "add", "/no/such/file:main" },
	  "/no/such/file: No such file or directory" },
	{ { "add", "/etc/passwd:main" }, "/etc/passwd: not an ELF file" },
	{ { "add", "nosuchprogram_xyz:main" }, "no such program or library" },
	{ { "add", FIXTURES "/sample_pie:sample_mu" },
	  "no function 'sample_mu' (did you mean: sample_mul" },
	{ { "add", FIXTURES "/sample_pie:sample_big+1" },
	  "is inside an instruction" },
	{ { "add", FIXTURES "/sample_pie:sample_add+0x1000" },
	  "is beyond the end of sample_add" },
	{ { "add", FIXTURES "/sample_pie:nomatch_*" },
	  "no function matches 'nomatch_*'" },
	{ { "add", FIXTURES "/sample_pie:sample.c:9999" }, "no code for" },
	{ { "add", FIXTURES "/sample_pie" }, "a probe is BINARY:SYMBOL" },
	/* a good spec before a bad one is not added either */
	{ { "add", FIXTURES "/sample_pie:sample_add",
	    FIXTURES "/sample_pie:sample_mx" }, "no function 'sample_mx'" },
	{ { "add", "--name", "m", FIXTURES "/sample_pie:sample_*" },
	  "--name needs a spec that names one place (3 given)" },
	{ { "add", "--name", "a b", FIXTURES "/sample_pie:sample_add" },
	  "bad probe name 'a b'" },
	{ { "add", "-p", "12x", "libc:malloc" }, "bad pid '12x'" },
	{ { "add" }, "add: no probe given" },
	{ { "del" }, "del: no probe name given" },
	{ { "list", "--format=xml" }, "unknown format 'xml'" },
	{ { "stat", "-i", "0" }, "bad interval '0'" },
	{ { "stat", "-n", "-3" }, "bad count '-3'" },
	{ { "funcs", "--format=openmetrics", FIXTURES "/sample_pie" },
	  "funcs: no counts to print as openmetrics" },
	{ { "funcs" }, "funcs: no binary given" },
	{ { "count", "--", "true" }, "count: no probe given (-e SPEC)" },
	{ { "count", "-e", FIXTURES "/sample_pie:sample_add" },
	  "count: no command given" },
	{ { "count", "-e", FIXTURES "/sample_pie:nope", "--", "true" },
	  "no function 'nope'" },
	/* a return probe is on a function's entry, and %return the suffix */
	{ { "add", FIXTURES "/sample_pie:sample.c:16%return" },
	  FIXTURES "/sample_pie: a return probe goes on a function's entry, not a source line (sample.c:16)" },
	{ { "count", "-e", FIXTURES "/sample_pie:sample.c:16%return", "--",
	    "true" }, "not a source line (sample.c:16)" },
	{ { "resolve", FIXTURES "/sample_pie:sample.c:16%return" },
	  "not a source line (sample.c:16)" },
	{ { "add", FIXTURES "/sample_pie:sample_mul%retrun" },
	  "unknown suffix '%retrun' (%return is the only one)" },
	{ { "latency" }, "latency: no probe given (SPEC -- CMD [ARGS])" },
	{ { "latency", "--", "true" },
	  "latency: no probe given (SPEC -- CMD [ARGS])" },
	{ { "latency", FIXTURES "/sample_pie:sample_mul" },
	  "latency: no command given (-- CMD [ARGS])" },
	{ { "latency", FIXTURES "/sample_pie:sample_mul", "--" },
	  "latency: no command given (-- CMD [ARGS])" },
	{ { "latency", FIXTURES "/sample_pie:sample_mul", "--frob", "--", "true" },
	  "latency: unrecognized option '--frob'" },
	{ { "latency", FIXTURES "/sample_pie:nope", "--", "true" },
	  "no function 'nope'" },
	{ { "latency", FIXTURES "/sample_pie:sample_*", "--", "true" },
	  "sample_pie:sample_*' names 3 functions; give one" },
	/* without %return too: latency's probe is a return probe */
	{ { "latency", FIXTURES "/sample_pie:sample.c:16", "--", "true" },
	  "a return probe goes on a function's entry, not a source line" },
	{ { "frobnicate" }, "frobnicate: unknown command" },
	/* the options before the command */
	{ { "-x", "list" }, "-x: unknown option" },
	{ { "-xj", "list" }, "-x: unknown option" },
	{ { "--json=1", "list" }, "--json=1: unknown option" },
	{ { "--format" }, "--format: give a format (table, json, openmetrics)" },
	{ { "--format=xml", "list" }, "unknown format 'xml'" },
	{ { "--format=openmetrics", "latency", FIXTURES "/sample_pie:sample_mul",
	    "--", "true" }, "latency: no openmetrics output (table or json)" },
	{ { "-j", "hist", "--format=openmetrics", ARGS_PIE ":args_sum", "a" },
	  "hist: no openmetrics output (table or json)" },
	/* values at probes: translated before the kernel is asked */
	{ { "trace" }, "trace: no probe given (SPEC [VALUE...] [-- CMD])" },
	{ { "trace", ARGS_PIE ":args_sum", "zz" },
	  "args_sum: no variable or parameter 'zz' at 0x11e0 (there: a, b, s, p)" },
	{ { "trace", ARGS_PIE ":args_keep", "local", "--", "true" },
	  "args_keep: 'local' is optimized out at 0x1230; it is available at 0x124d-0x127c" },
	{ { "trace", ARGS_PIE ":args_sum", "a", "--" },
	  "trace: no command after '--'" },
	{ { "trace", ARGS_PIE ":args_sum", "a", "a=%si" },
	  "two values named 'a' (give one a name: NAME=VALUE)" },
	{ { "trace", ARGS_PIE ":args_sum", "$retval" },
	  "$retval is the value a function returns: probe SPEC%return" },
	/* stacks: their options where they go */
	{ { "trace", "--stack-size", "100", ARGS_PIE ":args_sum" },
	  "trace: --stack-size and --fp go with --stack" },
	{ { "trace", "--fp", ARGS_PIE ":args_sum" },
	  "trace: --stack-size and --fp go with --stack" },
	{ { "trace", "--stack", "--fp", "--stack-size", "100",
	    ARGS_PIE ":args_sum" },
	  "trace: --stack-size or --fp, not both" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "stack", "--fp",
	    "--stack-size", "100", "--", "true" },
	  "count --by stack: --stack-size or --fp, not both" },
	{ { "trace", "--stack", "--stack-size", "40000", ARGS_PIE ":args_sum" },
	  "trace: --stack-size 40000 is more than the kernel copies, 32768" },
	{ { "hist", "--stack", ARGS_PIE ":args_sum", "a" },
	  "hist: --stack, --stack-size and --fp go with trace" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--folded", "--", "true" },
	  "count: --folded, --svg, --stack-size and --fp go with --by stack" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--fp", "--", "true" },
	  "count: --folded, --svg, --stack-size and --fp go with --by stack" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "stack", "--folded",
	    "--svg", "f.svg", "--", "true" },
	  "count --by stack: --folded or --svg, not both" },
	/* --filter: refused before anything is placed */
	{ { "trace", ARGS_PIE ":args_sum", "a", "--filter", "a > 1 &&" },
	  "--filter: expected a field name, '!' or '(' at the end" },
	{ { "trace", "--filter", "a >> 1", ARGS_PIE ":args_sum", "a" },
	  "--filter: expected a number or a string at column 4, not '>'" },
	{ { "trace", ARGS_PIE ":args_sum", "a", "--filter", "s > 1" },
	  "--filter: 's' is a string: compare it with ==, != or ~ (a glob), not >" },
	{ { "trace", ARGS_PIE ":args_sum", "--filter", "zz == 1" },
	  "args_sum: no variable or parameter 'zz' at 0x11e0 (there: a, b, s, p)" },
	{ { "hist", ARGS_PIE ":args_sum", "a", "--filter", "p == -1" },
	  "--filter: 'p' is unsigned; it is never -1" },
	{ { "trace", ARGS_PIE ":args_sum", "a", "--filter", "b > 3000000000" },
	  "--filter: 'b' is signed, of 32 bits; 3000000000 is out of its range" },
	{ { "trace", ARGS_PIE ":args_sum", "--filter", "c == 256", "c=+0(%dx):u8" },
	  "--filter: 'c' is unsigned, of 8 bits; 256 is out of its range" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "a", "--filter",
	    "b ~ \"x*\"", "--", "true" },
	  "--filter: 'b' is a number; ~ matches a string against a glob" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--filter", "a > 1 || b =",
	    "--", "true" },
	  "--filter: unexpected '=' at column 12" },
	{ { "count", "-e", ARGS_PIE ":args_sum%return", "--filter", "a > 1",
	    "--", "true" },
	  "count --filter: no return probes (the filter applies to a function's entry)" },
	{ { "hist", ARGS_PIE ":args_sum" },
	  "hist: give one probe and one value (SPEC VALUE [-- CMD])" },
	{ { "hist", ARGS_PIE ":args_sum", "s", "--", "true" },
	  "hist: 's' is a string; a histogram needs a number" },
	{ { "hist", ARGS_PIE ":args_s*", "a", "--", "true" },
	  "names 2 places; give one" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "zz", "--", "true" },
	  "no variable or parameter 'zz'" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "a",
	    "--format=openmetrics", "--", "true" },
	  "count --by: one probe (-e SPEC), as a table or JSON" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "a", "--top", "0",
	    "true" }, "bad --top '0'" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "a", "--size",
	    "64", "true" },
	  "count --by: --size 64 is outside the kernel's range, 128 to 131072" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--by", "a", "--size",
	    "262144", "true" },
	  "count --by: --size 262144 is outside the kernel's range, 128 to 131072" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--size", "x", "--", "true" },
	  "bad --size 'x'" },
	{ { "count", "-e", ARGS_PIE ":args_sum", "--size", "4096", "--",
	    "true" }, "count: --size goes with --by" },
};

START_TEST(errors_name_the_problem)
{
	const char *const *a = errors[_i].args;
	struct result r;

	cli(&r, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
	    NULL);
	assert_one_error(&r, errors[_i].message);
	ck_assert_str_eq(get_file("utprobe_events"), "");
}
END_TEST

/*
 * Errors in JSON mode: the text line on stderr as without it, the same
 * exit status, and {"error":"MESSAGE"} on stdout, MESSAGE escaped.
 */
static const struct {
	const char *args[6];	/* after -j (or nothing) */
	const char *message;	/* the whole line, without "uprobe-cli: " */
	const char *json;	/* the JSON string of it, quotes and all */
} json_errors[] = {
	{ { "--format=xml", "list" },
	  "unknown format 'xml' (table, json, openmetrics)",
	  "\"unknown format 'xml' (table, json, openmetrics)\"" },
	{ { "add", "--name", "a b", FIXTURES "/sample_pie:sample_add" },
	  "bad probe name 'a b'", "\"bad probe name 'a b'\"" },
	{ { "funcs", FIXTURES "/nope" },
	  FIXTURES "/nope: No such file or directory",
	  "\"" FIXTURES "/nope: No such file or directory\"" },
	{ { "frob\"nicate" },
	  "frob\"nicate: unknown command (see uprobe-cli --help)",
	  "\"frob\\\"nicate: unknown command (see uprobe-cli --help)\"" },
	{ { "frob\001nicate" },
	  "frob\001nicate: unknown command (see uprobe-cli --help)",
	  "\"frob\\u0001nicate: unknown command (see uprobe-cli --help)\"" },
	{ { "latency", "--", "true" },
	  "latency: no probe given (SPEC -- CMD [ARGS])",
	  "\"latency: no probe given (SPEC -- CMD [ARGS])\"" },
};

START_TEST(errors_in_json)
{
	const char *const *a = json_errors[_i].args;
	struct result text, json;
	char want[1024];

	cli(&text, 0, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
	snprintf(want, sizeof(want), "uprobe-cli: %s\n", json_errors[_i].message);
	ck_assert_str_eq(text.err, want);
	ck_assert_str_eq(text.out, "");
	ck_assert_int_ne(text.status, 0);
	cli(&json, 0, "-j", a[0], a[1], a[2], a[3], a[4], a[5], NULL);
	ck_assert_str_eq(json.err, want);
	ck_assert_int_eq(json.status, text.status);
	snprintf(want, sizeof(want), "{\"error\":%s}\n", json_errors[_i].json);
	ck_assert_str_eq(json.out, want);
}
END_TEST

START_TEST(kernel_without_utprobes)
{
	static const char *const cmds[][3] = {
		{ "add", FIXTURES "/sample_pie:sample_add" },
		{ "list" },
		{ "del", "--all" },
		{ "stat", "-n", "1" },
		{ "count", "-e", FIXTURES "/sample_pie:sample_add" },
		{ "add", FIXTURES "/sample_pie:sample_add%return" },
		{ "count", "-e", FIXTURES "/sample_pie:sample_add%return" },
		{ "latency", "-j", FIXTURES "/sample_pie:sample_add" },
	};
	static const char *const files[] = {
		"utprobe_events", "utprobe_profile", "utprobe_returns",
	};
	struct result r;
	char path[128];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fake, files[i]);
		unlink(path);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(cmds[i][0], "count") ||
		    !strcmp(cmds[i][0], "latency"))
			cli(&r, 0, cmds[i][0], cmds[i][1], cmds[i][2], "--",
			    "sh", "-c", "echo ran", NULL);
		else
			cli(&r, 0, cmds[i][0], cmds[i][1], cmds[i][2], NULL);
		assert_one_error(&r,
				 "this kernel has no utprobes (no utprobe_events in tracefs)");
		/* count did not run the command */
		assert_no_output(&r, cmds[i],
				 "this kernel has no utprobes (no utprobe_events in tracefs)");
	}
}
END_TEST

/*
 * A kernel with utprobe_events but no utprobe_session: the commands
 * whose probes die with them say so, and run nothing.
 */
START_TEST(kernel_without_sessions)
{
	struct result r;
	char path[128], want[256];

	snprintf(path, sizeof(path), "%s/utprobe_session", fake);
	unlink(path);
	cli(&r, 0, "count", "-e", FIXTURES "/sample_pie:sample_add", "--",
	    "sh", "-c", "echo ran", NULL);
	snprintf(want, sizeof(want),
		 "%s: no such file (a kernel without probe sessions)", path);
	assert_one_error(&r, want);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(get_file("utprobe_events"), "");
}
END_TEST

/* --version and -V: one line on standard output, exit 0. */
START_TEST(version)
{
	static const char *const opts[] = { "--version", "-V" };
	struct result r;
	char want[128];

	/* the version of the libdw both this test and the CLI load */
	snprintf(want, sizeof(want), "uprobe-cli " CLI_VERSION
		 " (elfutils %s)\n", dwfl_version(NULL));
	for (unsigned int i = 0; i < 2; i++) {
		cli(&r, 0, opts[i], NULL);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(r.out, want);
		ck_assert_str_eq(r.err, "");
	}
	cli(&r, 0, "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "uprobe-cli --version | --help\n"));
	ck_assert_str_eq(get_file("utprobe_events"), "");
}
END_TEST

/* Copy @src to @name in the stand-in tracefs directory, with @mode. */
static const char *copy_in(const char *src, const char *name, mode_t mode)
{
	static char dst[4][128];
	static int next;
	char *path = dst[next++ % 4], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(dst[0]), "%s/%s", fake, name);
	in = open(src, O_RDONLY);
	ck_assert_int_ge(in, 0);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	close(out);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

/*
 * A FIFO where a binary is named: every command that reads binaries
 * says it is not a regular file, at once, and writes nothing (opening
 * it would block until a writer came).
 */
START_TEST(fifo_is_not_a_binary)
{
	static const char *const cmds[][3] = {
		{ "funcs", NULL }, { "funcs", "--sdt" }, { "resolve", NULL },
		{ "add", NULL },
	};
	char path[128], spec[160], want[192];
	struct result r;

	snprintf(path, sizeof(path), "%s/fifo", top);
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	snprintf(spec, sizeof(spec), "%s:main", path);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	for (unsigned int i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *arg = !strcmp(cmds[i][0], "funcs") ? path : spec;

		if (cmds[i][1])
			cli(&r, 0, cmds[i][0], cmds[i][1], arg, NULL);
		else
			cli(&r, 0, cmds[i][0], arg, NULL);
		assert_one_error(&r, want);
		ck_assert_str_eq(r.out, "");
	}
	ck_assert_str_eq(get_file("utprobe_events"), "");
	unlink(path);
}
END_TEST

/*
 * A binary whose path holds a space: refused with a message that says
 * why, since the kernel splits a definition at white space; nothing is
 * written.
 */
START_TEST(path_with_a_space_is_refused)
{
	char dir[160], spec[192];
	const char *path;
	struct result r;

	snprintf(dir, sizeof(dir), "%s/with space", fake);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	path = copy_in(FIXTURES "/sample_pie", "with space/sample_pie", 0644);
	snprintf(spec, sizeof(spec), "%s:sample_mul", path);
	cli(&r, 0, "add", spec, NULL);
	assert_one_error(&r, "cannot take a path with white space");
	ck_assert_msg(strstr(r.err, path), "path not named: %s", r.err);
	ck_assert_str_eq(get_file("utprobe_events"), "");
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * Two static functions named helper (two source files): add probes both,
 * each under a name that holds its address, in one batch.
 */
START_TEST(add_static_functions_of_one_name)
{
	char want[1024], cmd[512], line[256], name[64], type;
	unsigned long addr[2], size[2], a, s;
	struct result r;
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -n -S %s/dup_statics", FIXTURES);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %lx %c %63s", &a, &s, &type, name) == 4 &&
		    type == 't' && !strcmp(name, "helper") && n < 2) {
			size[n] = s;
			addr[n++] = a;
		}
	pclose(p);
	ck_assert_int_eq(n, 2);
	cli(&r, 0, "add", FIXTURES "/dup_statics:helper", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	/* a PIE: file offsets are link-time addresses */
	snprintf(want, sizeof(want),
		 "p:helper_%lx %s/dup_statics:%#lx func=%#lx+%#lx\n"
		 "p:helper_%lx %s/dup_statics:%#lx func=%#lx+%#lx\n",
		 addr[0], FIXTURES, addr[0], addr[0], size[0],
		 addr[1], FIXTURES, addr[1], addr[1], size[1]);
	ck_assert_str_eq(get_file("utprobe_events"), want);
}
END_TEST

/*
 * Probes of one command that would share a name get names of their
 * own: a glob over a library whose two versions of a function take its
 * versioned name (libc's fmemopen), and one function name in two
 * binaries.  All go in, in one batch.
 */
START_TEST(add_names_its_probes_apart)
{
	char want[1024];
	unsigned long old = nm_address("libver.so", "ver2@V1");
	unsigned long new = nm_address("libver.so", "ver2@@V2");
	unsigned long lo = old < new ? old : new, hi = old ^ new ^ lo;
	unsigned long main_pie = nm_address("sample_pie", "main");
	unsigned long main_nopie = nm_address("sample_nopie", "main");
	struct result r;

	ck_assert(old && new && main_pie && main_nopie);
	cli(&r, 0, "add", FIXTURES "/libver.so:*ver2*", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	snprintf(want, sizeof(want),
		 "p:ver2_%lx %s/libver.so:%#lx func=%#lx+%#lx\n"
		 "p:ver2_%lx %s/libver.so:%#lx func=%#lx+%#lx\n",
		 lo, FIXTURES, lo, lo,
		 nm_size("libver.so", lo == old ? "__ver2_old" : "__ver2_new"),
		 hi, FIXTURES, hi, hi,
		 nm_size("libver.so", lo == old ? "__ver2_new" : "__ver2_old"));
	ck_assert_str_eq(get_file("utprobe_events"), want);
	put_file("utprobe_events", "", 0644);

	cli(&r, 0, "add", FIXTURES "/sample_pie:main",
	    FIXTURES "/sample_nopie:main", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	ck_assert_msg(strstr(get_file("utprobe_events"), "p:main ") &&
		      strstr(get_file("utprobe_events"), "p:main_1 "),
		      "names: %s", get_file("utprobe_events"));
}
END_TEST

/*
 * A user without CAP_SYS_ADMIN: as root, the CLI runs as nobody, which
 * cannot write the root-owned 0644 utprobe_events; as a user, the file
 * is read-only.  The binary and the fixture are copies in the stand-in
 * tracefs directory under /tmp, so nobody can reach them wherever the
 * checkout lives (a 0700 home directory, say).
 */
START_TEST(permission_denied)
{
	char spec[160];
	struct result r;

	if (geteuid() != 0)
		put_file("utprobe_events", "", 0444);
	cli_bin = copy_in(CLI, "uprobe-cli", 0755);
	snprintf(spec, sizeof(spec), "%s:sample_add",
		 copy_in(FIXTURES "/sample_pie", "sample_pie", 0644));
	cli(&r, 1, "add", spec, NULL);
	assert_one_error(&r, "permission denied (probes need CAP_SYS_ADMIN)");
	cli(&r, 1, "del", "--all", NULL);
	assert_one_error(&r, "permission denied (probes need CAP_SYS_ADMIN)");
	cli_bin = CLI;
	ck_assert_str_eq(get_file("utprobe_events"), "");
}
END_TEST

/*
 * utprobe_profile as the kernel writes it, NAME TARGET HITS: probe @name
 * at @off in sample_pie with 42 hits, and one on a process.
 */
static void profile(const char *name, unsigned long off)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "%s %s/sample_pie:%#lx 42\n"
		 "ppid 123:0x7f0000001000 7\n", name, FIXTURES, off);
	put_file("utprobe_profile", text, 0644);
}

/* list's table for profile(@name, @off), the first probe at @where. */
static void list_want(char *want, size_t len, const char *name,
		      const char *where, unsigned long off)
{
	char offs[32];

	/* in a PIE the link-time address is the file offset */
	snprintf(offs, sizeof(offs), "%#lx", off);
	snprintf(want, len,
		 "%-24s %-40s %-14s %-10s %12s %s\n"
		 "%-24s %-40s %-14s %-10s %12s %s\n"
		 "%-24s %-40s %-14s %-10s %12s %s\n",
		 "NAME", "WHERE", "ADDRESS", "OFFSET", "HITS", "MODE",
		 name, where, offs, offs, "42", "-",
		 "ppid", "123:0x7f0000001000", "0x7f0000001000", "-", "7", "-");
}

/* list -j for profile(@name, @off); @ret: the first is a return probe */
static void list_json_want(char *want, size_t len, const char *name,
			   unsigned long off, int ret)
{
	snprintf(want, len,
		 "[{\"name\":\"%s\",\"target\":\"%s/sample_pie:%#lx\",\"return\":%s,\"function\":\"sample_mul\",\"address\":%lu,\"offset\":%lu,\"hits\":42},"
		 "{\"name\":\"ppid\",\"target\":\"123:0x7f0000001000\",\"return\":false,\"function\":\"\",\"address\":%lu,\"offset\":0,\"hits\":7}]\n",
		 name, FIXTURES, off, ret ? "true" : "false", off, off,
		 0x7f0000001000UL);
}

START_TEST(list_table)
{
	struct result r;
	char want[2048];
	unsigned long off = nm_address("sample_pie", "sample_mul") + 4;

	profile("sample_mul", off);
	cli(&r, 0, "list", NULL);
	ck_assert_int_eq(r.status, 0);
	list_want(want, sizeof(want), "sample_mul", "sample_pie:sample_mul+0x4",
		  off);
	ck_assert_str_eq(r.out, want);
}
END_TEST

/*
 * A kernel that says how each probe's hits come in: list shows it, and
 * why one traps; so does its JSON.
 */
START_TEST(list_modes)
{
	unsigned long off = nm_address("sample_pie", "sample_mul");
	struct result r;
	char want[2048];

	profile("sample_mul", off);
	put_file("utprobe_modes", "sample_mul jump\nppid trap branch\n", 0644);
	cli(&r, 0, "list", NULL);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof(want), " %12s %s\n", "42", "jump");
	ck_assert_msg(strstr(r.out, want), "no jump in '%s'", r.out);
	snprintf(want, sizeof(want), " %12s %s\n", "7", "trap:branch");
	ck_assert_msg(strstr(r.out, want), "no trap:branch in '%s'", r.out);
	cli(&r, 0, "list", "-j", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "\"hits\":42,\"mode\":\"jump\"}") &&
		      strstr(r.out, "\"hits\":7,\"mode\":\"trap\",\"trap_reason\":\"branch\"}"),
		      "modes missing from '%s'", r.out);
}
END_TEST

START_TEST(list_json_and_openmetrics)
{
	struct result r;
	char want[2048];
	unsigned long off = nm_address("sample_pie", "sample_mul") + 4;

	profile("sample_mul", off);
	cli(&r, 0, "list", "-j", NULL);
	ck_assert_int_eq(r.status, 0);
	list_json_want(want, sizeof(want), "sample_mul", off, 0);
	ck_assert_str_eq(r.out, want);
	cli(&r, 0, "list", "--format=openmetrics", NULL);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof(want),
		 "# TYPE uprobe_hits counter\n"
		 "# HELP uprobe_hits Times a utprobe was hit (calls, for a return probe).\n"
		 "uprobe_hits_total{probe=\"sample_mul\",target=\"%s/sample_pie:%#lx\",function=\"sample_mul\"} 42\n"
		 "uprobe_hits_total{probe=\"ppid\",target=\"123:0x7f0000001000\",function=\"\"} 7\n"
		 "# EOF\n", FIXTURES, off);
	ck_assert_str_eq(r.out, want);
}
END_TEST

START_TEST(funcs_table_and_json)
{
	struct result r;
	char want[512];
	unsigned long add = nm_address("sample_pie", "sample_add");

	cli(&r, 0, "funcs", FIXTURES "/sample_pie", "sample_ad*", NULL);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof(want), "%-40s %14s %10s %6s %7s\n"
		 "%-40s %#14lx %#10lx %6d %7d\n", "FUNCTION", "ADDRESS",
		 "OFFSET", "SIZE", "INLINED", "sample_add", add, add, 4, 0);
	ck_assert_str_eq(r.out, want);
	cli(&r, 0, "funcs", "-j", FIXTURES "/sample_pie", "sample_ad*", NULL);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof(want),
		 "[{\"function\":\"sample_add\",\"address\":%lu,\"offset\":%lu,\"size\":4,\"inlined\":0}]\n",
		 add, add);
	ck_assert_str_eq(r.out, want);
	/* the format before the command, as after it */
	cli(&r, 0, "-j", "funcs", FIXTURES "/sample_pie", "sample_ad*", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, want);
	cli(&r, 0, "--format", "json", "funcs", FIXTURES "/sample_pie",
	    "sample_ad*", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, want);
	/* the last one given counts */
	cli(&r, 0, "--json", "funcs", "--format=table", FIXTURES "/sample_pie",
	    "sample_ad*", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "FUNCTION"));
}
END_TEST

/*
 * funcs says how many copies of each function the compiler inlined:
 * inline_target's it_step, in its three callers.
 */
START_TEST(funcs_count_inlined_copies)
{
	struct result r;

	cli(&r, 0, "funcs", "-j", FIXTURES "/inline_target", "it_*", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "{\"function\":\"it_step\",") &&
		      strstr(strstr(r.out, "{\"function\":\"it_step\","),
			     "\"inlined\":3}"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "{\"function\":\"it_a\",") &&
		      strstr(strstr(r.out, "{\"function\":\"it_a\","),
			     "\"inlined\":0}"), "%s", r.out);
}
END_TEST

/*
 * C++ functions go by their C++ names: funcs lists them so, a glob
 * matches them, and add, given a method without its parameters, probes
 * each overload under a name made of the C++ name's words.
 */
START_TEST(cxx_names)
{
	unsigned long m_int = nm_address("cxx_names", "_ZN2ns5KlassIlE6methodEi");
	unsigned long m_dbl = nm_address("cxx_names", "_ZNK2ns5KlassIlE6methodEd");
	char want[1024];
	struct result r;

	ck_assert(m_int && m_dbl);
	cli(&r, 0, "funcs", "-j", FIXTURES "/cxx_names", "ns::V::*", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "{\"function\":\"ns::V::operator+(ns::V const&) const\",") &&
		      strstr(r.out, "{\"function\":\"ns::V::operator++()\",") &&
		      strstr(r.out, "{\"function\":\"ns::V::V(long)\","),
		      "%s", r.out);
	cli(&r, 0, "add", FIXTURES "/cxx_names:ns::Klass<long>::method", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	snprintf(want, sizeof(want),
		 "p:ns_Klass_long_method_int %s/cxx_names:%#lx func=%#lx+%#lx\n"
		 "p:ns_Klass_long_method_double_const %s/cxx_names:%#lx func=%#lx+%#lx\n",
		 FIXTURES, m_int, m_int,
		 nm_size("cxx_names", "_ZN2ns5KlassIlE6methodEi"),
		 FIXTURES, m_dbl, m_dbl,
		 nm_size("cxx_names", "_ZNK2ns5KlassIlE6methodEd"));
	ck_assert_str_eq(get_file("utprobe_events"), want);
}
END_TEST

/*
 * json_writer leaves control characters other than \b \f \n \r \t raw:
 * a symbol with one in its name must still come out as valid JSON.
 */
START_TEST(json_escapes_control_characters)
{
	static const char old[] = "\0sample_add", new[] = "\0sample\001add";
	char path[64], *elf, *p;
	struct result r;
	size_t len;
	FILE *f;

	f = fopen(FIXTURES "/sample_pie", "r");
	ck_assert_ptr_nonnull(f);
	elf = malloc(1 << 20);
	ck_assert_ptr_nonnull(elf);
	len = fread(elf, 1, 1 << 20, f);
	fclose(f);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_lt(len, 1 << 20);
	for (p = elf; (p = memmem(p, elf + len - p, old, sizeof(old))); p++)
		memcpy(p, new, sizeof(new));
	snprintf(path, sizeof(path), "%s/ctl_pie", top);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(elf, 1, len, f), len);
	fclose(f);
	free(elf);
	cli(&r, 0, "funcs", "-j", path, "sample?add", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out,
				     "[{\"function\":\"sample\\u0001add\","));
}
END_TEST

/*
 * A file with an ELF header that libdwfl refuses: funcs prints the error
 * alone, no table header and in JSON mode one document, not "[]" too.
 */
START_TEST(funcs_on_a_broken_elf_file)
{
	char path[64], head[64], want[256];
	struct result r;
	FILE *f;

	f = fopen(FIXTURES "/sample_pie", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(head, 1, sizeof(head), f), sizeof(head));
	fclose(f);
	snprintf(path, sizeof(path), "%s/broken_elf", top);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(head, 1, sizeof(head), f), sizeof(head));
	fclose(f);
	cli(&r, 0, "funcs", path, NULL);
	snprintf(want, sizeof(want), "%s: invalid data", path);
	assert_one_error(&r, want);
	ck_assert_str_eq(r.out, "");
	cli(&r, 0, "-j", "funcs", path, NULL);
	ck_assert_int_eq(r.status, 1);
	snprintf(want, sizeof(want), "{\"error\":\"%s: invalid data\"}\n",
		 path);
	ck_assert_str_eq(r.out, want);
}
END_TEST

START_TEST(add_return_probes)
{
	struct result r;
	char want[2048], f[64];
	unsigned long mul = nm_address("sample_pie", "sample_mul");
	unsigned long add = nm_address("sample_pie", "sample_add");

	/* +0 is the entry; a plain probe beside them is still p: */
	cli(&r, 0, "add", FIXTURES "/sample_pie:sample_mul%return",
	    FIXTURES "/sample_nopie:sample_add+0%return",
	    FIXTURES "/sample_pie:sample_add", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	ck_assert_str_eq(r.out, "");
	snprintf(want, sizeof(want),
		 "r:sample_mul_return %s/sample_pie:%#lx\n"
		 "r:sample_add_return %s/sample_nopie:%#lx\n"
		 "p:sample_add %s/sample_pie:%#lx%s\n",
		 FIXTURES, mul, FIXTURES,
		 nm_address("sample_nopie", "sample_add") - 0x400000,
		 FIXTURES, add, func_of("sample_pie", "sample_add", add, f,
					sizeof(f)));
	ck_assert_str_eq(get_file("utprobe_events"), want);
	/* a glob: each function's entry; --name as given */
	put_file("utprobe_events", "", 0644);
	cli(&r, 0, "add", FIXTURES "/sample_pie:sample_[am]*%return", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	cli(&r, 0, "add", "--name", "mymul",
	    FIXTURES "/sample_pie:sample_mul%return", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
	snprintf(want, sizeof(want),
		 "r:sample_add_return %s/sample_pie:%#lx\n"
		 "r:sample_mul_return %s/sample_pie:%#lx\n"
		 "r:mymul %s/sample_pie:%#lx\n",
		 FIXTURES, add, FIXTURES, mul, FIXTURES, mul);
	ck_assert_str_eq(get_file("utprobe_events"), want);
	cli(&r, 0, "resolve", FIXTURES "/sample_pie:sample_mul%return", NULL);
	ck_assert_int_eq(r.status, 0);
	snprintf(want, sizeof(want), "%s/sample_pie %#lx %#lx sample_mul+0%%return\n",
		 FIXTURES, mul, mul);
	ck_assert_str_eq(r.out, want);
}
END_TEST

/* Inside a function, by offset or by address: refused, nothing run. */
START_TEST(return_probe_not_on_entry)
{
	unsigned long off = second_insn("sample_pie", "sample_mul");
	unsigned long addr = nm_address("sample_pie", "sample_mul") + off;
	char spec[512], want[1024];
	struct result r;

	snprintf(spec, sizeof(spec), "%s/sample_pie:sample_mul+%#lx%%return",
		 FIXTURES, off);
	snprintf(want, sizeof(want),
		 "uprobe-cli: %s/sample_pie: a return probe goes on a function's entry, not sample_mul+%#lx\n",
		 FIXTURES, off);
	cli(&r, 0, "add", spec, NULL);
	assert_one_error(&r, "");
	ck_assert_str_eq(r.err, want);
	cli(&r, 0, "count", "-e", spec, "--", "sh", "-c", "echo ran", NULL);
	ck_assert_str_eq(r.err, want);
	ck_assert_str_eq(r.out, "");
	/* latency takes the spec as a return probe's without %return */
	spec[strlen(spec) - strlen("%return")] = '\0';
	cli(&r, 0, "latency", spec, "--", "sh", "-c", "echo ran", NULL);
	ck_assert_str_eq(r.err, want);
	ck_assert_str_eq(r.out, "");
	snprintf(spec, sizeof(spec), "%s/sample_pie:%#lx%%return", FIXTURES,
		 addr);
	cli(&r, 0, "add", spec, NULL);
	snprintf(want, sizeof(want), "not %#lx (sample_mul+%#lx)", addr, off);
	assert_one_error(&r, want);
	ck_assert_str_eq(get_file("utprobe_events"), "");
}
END_TEST

START_TEST(kernel_without_return_probes)
{
	static const char *const cmds[][3] = {
		{ "add", FIXTURES "/sample_pie:sample_add%return" },
		{ "count", "-e", FIXTURES "/sample_pie:sample_add%return" },
		{ "latency", "-j", FIXTURES "/sample_pie:sample_add" },
	};
	struct result r;
	char path[128];

	snprintf(path, sizeof(path), "%s/utprobe_returns", fake);
	unlink(path);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(cmds[i][0], "add"))
			cli(&r, 0, cmds[i][0], cmds[i][1], cmds[i][2], "--",
			    "sh", "-c", "echo ran", NULL);
		else
			cli(&r, 0, cmds[i][0], cmds[i][1], NULL);
		assert_one_error(&r,
				 "this kernel has no return probes (no utprobe_returns in tracefs)");
		assert_no_output(&r, cmds[i],
				 "this kernel has no return probes (no utprobe_returns in tracefs)");
	}
	ck_assert_str_eq(get_file("utprobe_events"), "");
	/* plain probes still go in */
	cli(&r, 0, "add", FIXTURES "/sample_pie:sample_add", NULL);
	ck_assert_msg(r.status == 0, "add failed: %s", r.err);
}
END_TEST

START_TEST(list_return_probe)
{
	struct result r;
	char text[1024], want[2048];
	unsigned long mul = nm_address("sample_pie", "sample_mul");

	/* only utprobe_events tells a return probe from a plain one */
	snprintf(text, sizeof(text),
		 "r:sample_mul_return %s/sample_pie:%#lx\n"
		 "p:ppid 123:0x7f0000001000\n", FIXTURES, mul);
	put_file("utprobe_events", text, 0644);
	profile("sample_mul_return", mul);
	cli(&r, 0, "list", NULL);
	ck_assert_int_eq(r.status, 0);
	list_want(want, sizeof(want), "sample_mul_return",
		  "sample_pie:sample_mul+0%return", mul);
	ck_assert_str_eq(r.out, want);
	cli(&r, 0, "list", "-j", NULL);
	ck_assert_int_eq(r.status, 0);
	list_json_want(want, sizeof(want), "sample_mul_return", mul, 1);
	ck_assert_str_eq(r.out, want);
}
END_TEST

/*
 * The command count and latency run here does what the kernel would:
 * it checks that each probe placed on it is scoped to its process tree,
 * then lists each in utprobe_profile with 3 hits times its line number,
 * and each return probe in utprobe_returns with the counts in $1.  It
 * exits 3, which uprobe-cli passes on.
 */
static const char play_kernel[] =
	"d=$UPROBE_CLI_TRACEFS\n"
	"grep -v \" tree=$$\\$\" $d/utprobe_events && exit 99\n"
	"awk -F'[: ]' '{ print $2, \"t\", NR * 3 }' $d/utprobe_events > $d/utprobe_profile\n"
	"awk -F'[: ]' -v r=\"$1\" '$1 == \"r\" { print $2, r }' $d/utprobe_events > $d/utprobe_returns\n"
	"exit 3\n";

/*
 * What a command that places probes for a while left in utprobe_events:
 * each probe's definition, then its removal.  @prefix is the command's,
 * @names and @defs the rest of each probe's name and definition.
 */
static void assert_placed_and_removed(const char *prefix, int n,
				      const char *const *names,
				      const char *const *defs)
{
	const char *ev = get_file("utprobe_events");
	char want[4096], head[64], ns[32];
	const char *tree;
	int pid, tree_pid, k = 0;
	struct stat st;

	/* our pid namespace, in hex, then the command's pid */
	ck_assert_int_eq(stat("/proc/self/ns/pid", &st), 0);
	snprintf(ns, sizeof(ns), "%s%lx", prefix, (unsigned long)st.st_ino);
	prefix = ns;
	snprintf(head, sizeof(head), "%c:%s_%%d_", defs[0][0], prefix);
	ck_assert_msg(sscanf(ev, head, &pid) == 1, "no %s probe in '%s'",
		      prefix, ev);
	/* the command's pid, which the command itself checked */
	tree = strstr(ev, " tree=");
	ck_assert_ptr_nonnull(tree);
	ck_assert_int_eq(sscanf(tree, " tree=%d", &tree_pid), 1);
	for (int i = 0; i < n; i++)
		k += snprintf(want + k, sizeof(want) - k,
			      "%c:%s_%d_%d_%s %s tree=%d\n", defs[i][0], prefix,
			      pid, i, names[i], defs[i] + 1, tree_pid);
	for (int i = 0; i < n; i++)
		k += snprintf(want + k, sizeof(want) - k, "-:%s_%d_%d_%s\n",
			      prefix, pid, i, names[i]);
	ck_assert_str_eq(ev, want);
}

/* Count a return probe and a plain probe, in format @opt. */
static void count_mul_add(struct result *r, const char *opt)
{
	put_file("utprobe_events", "", 0644);
	cli(r, 0, "count", opt, "-e", FIXTURES "/sample_pie:sample_mul%return",
	    "-e", FIXTURES "/sample_pie:sample_add", "--", "sh", "-c",
	    play_kernel, "sh",
	    "returns=2 unwound=1 missed=0 pending=0 min_ns=40 max_ns=3000 sum_ns=3040 hist=6:1,12:1",
	    NULL);
	ck_assert_msg(r->status == 3, "status %d: %s", r->status, r->err);
	ck_assert_str_eq(r->err, "");
}

START_TEST(count_return_probes)
{
	const char *names[] = { "sample_mul_return", "sample_add" };
	char defs[2][1024], want[2048], f[64];
	const char *defp[] = { defs[0], defs[1] };
	const char *bin = FIXTURES "/sample_pie";
	struct result r;

	snprintf(defs[0], sizeof(defs[0]), "r%s:%#lx", bin,
		 nm_address("sample_pie", "sample_mul"));
	snprintf(defs[1], sizeof(defs[1]), "p%s:%#lx%s", bin,
		 nm_address("sample_pie", "sample_add"),
		 func_of("sample_pie", "sample_add",
			 nm_address("sample_pie", "sample_add"), f, sizeof(f)));
	count_mul_add(&r, "--format=table");
	snprintf(want, sizeof(want),
		 "%14s  %14s  %s\n%14s  %14s  %s\n%14s  %14s  %s\n",
		 "CALLS", "RETURNS", "FUNCTION",
		 "6", "-", "sample_pie:sample_add",
		 "3", "2", "sample_pie:sample_mul%return");
	ck_assert_str_eq(r.out, want);
	assert_placed_and_removed("count", 2, names, defp);

	count_mul_add(&r, "-j");
	snprintf(want, sizeof(want),
		 "{\"command\":\"sh\",\"probes\":["
		 "{\"binary\":\"%s\",\"function\":\"sample_mul\",\"offset\":0,\"file_offset\":%lu,\"hits\":3,\"returns\":2},"
		 "{\"binary\":\"%s\",\"function\":\"sample_add\",\"offset\":0,\"file_offset\":%lu,\"hits\":6}]}\n",
		 bin, nm_address("sample_pie", "sample_mul"), bin,
		 nm_address("sample_pie", "sample_add"));
	ck_assert_str_eq(r.out, want);

	count_mul_add(&r, "--format=openmetrics");
	snprintf(want, sizeof(want),
		 "# TYPE uprobe_hits counter\n"
		 "# HELP uprobe_hits Times a utprobe was hit.\n"
		 "uprobe_hits_total{binary=\"%s\",function=\"sample_mul\",offset=\"0\"} 3\n"
		 "uprobe_hits_total{binary=\"%s\",function=\"sample_add\",offset=\"0\"} 6\n"
		 "# TYPE uprobe_returns counter\n"
		 "# HELP uprobe_returns Times a function with a utprobe return probe returned.\n"
		 "uprobe_returns_total{binary=\"%s\",function=\"sample_mul\",offset=\"0\"} 2\n"
		 "# EOF\n", bin, bin, bin);
	ck_assert_str_eq(r.out, want);
}
END_TEST

/*
 * Exit statuses, the same in every command: 2 for a command line that
 * cannot run as it is, 1 for a failure at run time, 0 for success; one
 * message for an error, whatever comes after it.
 */
static const struct {
	const char *args[10];
	int status;
} statuses[] = {
	{ { "--frob" }, 2 },
	{ { "frobnicate" }, 2 },
	{ { "help", "frobnicate" }, 2 },
	{ { "add" }, 2 },
	{ { "add", "--frob", "--frob", FIXTURES "/sample_pie:sample_add" }, 2 },
	{ { "add", "-p", "x", "-p", "y", FIXTURES "/sample_pie:sample_add" }, 2 },
	{ { "del" }, 2 },
	{ { "count", "--", "true" }, 2 },
	{ { "count", "--frob", "--frob", "-e", FIXTURES "/sample_pie:sample_add",
	    "--", "true" }, 2 },
	{ { "count", "--top", "0", "--size", "x", "-e",
	    FIXTURES "/sample_pie:sample_add", "--", "true" }, 2 },
	{ { "count", "--all", "--by", "a", "-e", ARGS_PIE ":args_sum", "--",
	    "true" }, 2 },
	{ { "count", "--by", "a", "--filter", "a >", "-e", ARGS_PIE ":args_sum",
	    "--", "true" }, 2 },
	{ { "trace", "--filter", "b == \"x\"", ARGS_PIE ":args_sum", "--",
	    "true" }, 2 },
	{ { "latency" }, 2 },
	{ { "latency", FIXTURES "/sample_pie:sample_mul", "--frob", "--frob",
	    "--", "true" }, 2 },
	{ { "trace" }, 2 },
	{ { "hist", FIXTURES "/sample_pie:sample_mul" }, 2 },
	{ { "list", "--format=xml" }, 2 },
	{ { "stat", "-i", "0" }, 2 },
	{ { "serve" }, 2 },
	{ { "serve", "--listen", "localhost:9100", "-e",
	    FIXTURES "/sample_pie:sample_add" }, 2 },
	{ { "serve", "--listen", "9100", "-e",
	    FIXTURES "/sample_pie:sample_add" }, 2 },
	{ { "top", "-i", "0", "-n", "0" }, 2 },
	{ { "top" }, 2 },
	{ { "funcs" }, 2 },
	{ { "resolve" }, 2 },
	{ { "add", FIXTURES "/sample_pie:nope" }, 1 },
	{ { "resolve", FIXTURES "/sample_pie:nope" }, 1 },
	{ { "funcs", FIXTURES "/nope" }, 1 },
	{ { "latency", FIXTURES "/sample_pie:sample_*", "--", "true" }, 1 },
	{ { "resolve", FIXTURES "/sample_pie:sample_add" }, 0 },
	{ { "list" }, 0 },
};

START_TEST(exit_statuses)
{
	const char *const *a = statuses[_i].args;
	struct result r;

	cli(&r, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
	    a[9], NULL);
	ck_assert_msg(r.status == statuses[_i].status,
		      "%s %s: exit status %d, not %d (%s)", a[0],
		      a[1] ? a[1] : "", r.status, statuses[_i].status, r.err);
	if (r.status)
		assert_one_error(&r, "");
	ck_assert_str_eq(get_file("utprobe_events"), "");
}
END_TEST

/*
 * help COMMAND and COMMAND --help: that command's forms of the usage
 * and what the words mean, on stdout, exit 0; help alone, all of it.
 */
START_TEST(help_of_each_command)
{
	static const char *const names[] = {
		"add", "del", "count", "latency", "trace", "serve", "top",
		"hist", "list", "stat", "funcs", "resolve",
	};
	struct result all, r, h;

	cli(&all, 0, "--help", NULL);
	cli(&r, 0, "help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, all.out);
	cli(&r, 0, "help", "help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(!strncmp(r.out, "usage: uprobe-cli help [COMMAND]", 32),
		      "%s", r.out);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char head[64], *line, *blank;

		cli(&r, 0, "help", names[i], NULL);
		cli(&h, 0, names[i], "--help", NULL);
		ck_assert_msg(r.status == 0 && h.status == 0, "%s: %d, %d",
			      names[i], r.status, h.status);
		ck_assert_str_eq(r.out, h.out);
		ck_assert_str_eq(r.err, "");
		snprintf(head, sizeof(head), "usage: uprobe-cli %s ", names[i]);
		ck_assert_msg(!strncmp(r.out, head, strlen(head)), "%s: %s",
			      names[i], r.out);
		/* each form is the command's; then the words, as in --help */
		blank = strstr(r.out, "\n\n");
		ck_assert_ptr_nonnull(blank);
		ck_assert_ptr_nonnull(strstr(all.out, blank));
		snprintf(head, sizeof(head), "uprobe-cli %s ", names[i]);
		for (line = r.out; line < blank; line = strchr(line, '\n') + 1)
			ck_assert_msg(!strncmp(line + 7, head, strlen(head)) ||
				      line[7] == ' ', "%s: '%.40s'", names[i],
				      line);
	}
}
END_TEST

/*
 * Options anywhere before "--": latency's -j after the probe does what
 * it does before it.
 */
START_TEST(options_after_the_probe)
{
	static const char returns[] = "returns=2 unwound=1 missed=0 pending=0 min_ns=40 max_ns=3000 sum_ns=3040 hist=6:1,12:1";
	struct result before, after;

	cli(&before, 0, "latency", "-j", FIXTURES "/sample_pie:sample_mul",
	    "--", "sh", "-c", play_kernel, "sh", returns, NULL);
	put_file("utprobe_events", "", 0644);
	cli(&after, 0, "latency", FIXTURES "/sample_pie:sample_mul", "-j",
	    "--", "sh", "-c", play_kernel, "sh", returns, NULL);
	ck_assert_int_eq(after.status, 3);
	ck_assert_str_eq(after.err, "");
	ck_assert_ptr_nonnull(strstr(after.out, "\"calls\":3"));
	ck_assert_str_eq(after.out, before.out);
}
END_TEST

/* A stand-in kernel whose probes got the hits "$1" lists, in order. */
static const char hits_kernel[] =
	"d=$UPROBE_CLI_TRACEFS\n"
	"awk -F'[: ]' -v h=\"$1\" 'BEGIN { split(h, a, \" \") } { print $2, \"t\", a[NR] }' $d/utprobe_events > $d/utprobe_profile\n";

/* count with @opt (or none) of four probes hit 0, 5, 9 and 0 times. */
static void count_four(struct result *r, const char *opt, const char *arg)
{
	const char *argv[24];
	int k = 0;

	put_file("utprobe_events", "", 0644);
	argv[k++] = cli_bin;
	argv[k++] = "count";
	if (opt)
		argv[k++] = opt;
	if (arg)
		argv[k++] = arg;
	argv[k++] = "-e";
	argv[k++] = FIXTURES "/sample_pie:sample_add";
	argv[k++] = "-e";
	argv[k++] = FIXTURES "/sample_pie:sample_mul";
	argv[k++] = "-e";
	argv[k++] = FIXTURES "/sample_pie:sample_big";
	argv[k++] = "-e";
	argv[k++] = FIXTURES "/sample_pie:main";
	argv[k++] = "--";
	argv[k++] = "sh";
	argv[k++] = "-c";
	argv[k++] = hits_kernel;
	argv[k++] = "sh";
	argv[k++] = "0 5 9 0";
	argv[k] = NULL;
	cli_argv(r, 0, argv);
	ck_assert_msg(r->status == 0, "status %d: %s", r->status, r->err);
}

/*
 * The count table: most hits first; the probes never hit left out, with
 * a note, unless --all; --top N, the first N.
 */
START_TEST(count_table_by_hits)
{
	char want[512];
	struct result r;

	count_four(&r, NULL, NULL);
	snprintf(want, sizeof(want), "%14s  %s\n%14s  %s\n%14s  %s\n",
		 "HITS", "FUNCTION", "9", "sample_pie:sample_big",
		 "5", "sample_pie:sample_mul");
	ck_assert_str_eq(r.out, want);
	ck_assert_str_eq(r.err,
			 "uprobe-cli: 2 of the probes were not hit (--all lists them)\n");

	count_four(&r, "--all", NULL);
	snprintf(want, sizeof(want),
		 "%14s  %s\n%14s  %s\n%14s  %s\n%14s  %s\n%14s  %s\n",
		 "HITS", "FUNCTION", "9", "sample_pie:sample_big",
		 "5", "sample_pie:sample_mul", "0", "sample_pie:sample_add",
		 "0", "sample_pie:main");
	ck_assert_str_eq(r.out, want);
	ck_assert_str_eq(r.err, "");

	count_four(&r, "--top", "1");
	snprintf(want, sizeof(want), "%14s  %s\n%14s  %s\n", "HITS",
		 "FUNCTION", "9", "sample_pie:sample_big");
	ck_assert_str_eq(r.out, want);
}
END_TEST

/*
 * count on sample_add, running "sh -c @script sh ''": the exit status
 * must be @status and the table must show @hits; the probe was placed
 * for the command's tree and removed.
 */
static void count_add(const char *script, int status, const char *hits)
{
	const char *names[] = { "sample_add" };
	const char *bin = FIXTURES "/sample_pie";
	unsigned long add = nm_address("sample_pie", "sample_add");
	char def[1024], want[512], f[64];
	const char *defp[] = { def };
	struct result r;

	snprintf(def, sizeof(def), "p%s:%#lx%s", bin, add,
		 func_of("sample_pie", "sample_add", add, f, sizeof(f)));
	cli(&r, 0, "count", "-e", FIXTURES "/sample_pie:sample_add", "--",
	    "sh", "-c", script, "sh", "", NULL);
	ck_assert_msg(r.status == status, "status %d: %s", r.status, r.err);
	snprintf(want, sizeof(want), "%14s  %s\n%14s  %s\n", "HITS",
		 "FUNCTION", hits, "sample_pie:sample_add");
	ck_assert_str_eq(r.out, want);
	assert_placed_and_removed("count", 1, names, defp);
}

/*
 * A SIGTERM to uprobe-cli goes on to the command; the counts are still
 * printed (none, from the stand-in kernel) and the probes removed.
 */
START_TEST(count_passes_sigterm_on)
{
	count_add("kill -TERM $PPID; exec sleep 5", 128 + SIGTERM, "-1");
}
END_TEST

/* Without a return probe, count prints what it always has. */
START_TEST(count_plain_probes)
{
	count_add(play_kernel, 3, "3");
	ck_assert_str_eq(get_file("utprobe_returns"), "");
}
END_TEST

START_TEST(latency_table_and_json)
{
	static const char returns[] = "returns=2 unwound=1 missed=0 pending=0 min_ns=40 max_ns=3000 sum_ns=3040 hist=6:1,12:1";
	const char *names[] = { "sample_mul_return" };
	const char *bin = FIXTURES "/sample_pie";
	unsigned long mul = nm_address("sample_pie", "sample_mul");
	char def[1024], want[1024];
	const char *defp[] = { def };
	struct result r;

	snprintf(def, sizeof(def), "r%s:%#lx", bin, mul);
	cli(&r, 0, "latency", FIXTURES "/sample_pie:sample_mul", "--", "sh",
	    "-c", play_kernel, "sh", returns, NULL);
	ck_assert_msg(r.status == 3, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(r.out,
		"sample_pie:sample_mul  calls 3  returns 2  unwound 1  missed 0  min 40ns  p50 64ns  p99 3.00us  max 3.00us\n"
		"[32ns, 64ns)                  1 |########################################|\n"
		"[2.05us, 4.10us)              1 |########################################|\n");
	assert_placed_and_removed("latency", 1, names, defp);

	put_file("utprobe_events", "", 0644);
	cli(&r, 0, "latency", "-j", FIXTURES "/sample_pie:sample_mul%return",
	    "sh", "-c", play_kernel, "sh", returns, NULL);
	ck_assert_int_eq(r.status, 3);
	snprintf(want, sizeof(want),
		 "{\"command\":\"sh\",\"binary\":\"%s\",\"function\":\"sample_mul\","
		 "\"calls\":3,\"returns\":2,\"unwound\":1,\"missed\":0,"
		 "\"min_ns\":40,\"p50_ns\":64,\"p99_ns\":3000,\"max_ns\":3000,\"sum_ns\":3040,"
		 "\"buckets\":[{\"lo_ns\":32,\"hi_ns\":64,\"count\":1},{\"lo_ns\":2048,\"hi_ns\":4096,\"count\":1}]}\n",
		 bin);
	ck_assert_str_eq(r.out, want);

	/* no returns yet */
	put_file("utprobe_events", "", 0644);
	cli(&r, 0, "latency", FIXTURES "/sample_pie:sample_mul", "--", "sh",
	    "-c", play_kernel, "sh", "returns=0 unwound=0 missed=0 pending=1 min_ns=0 max_ns=0 sum_ns=0 hist=",
	    NULL);
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(r.out,
		"sample_pie:sample_mul  calls 3  returns 0  min -  p50 -  p99 -  max -\n");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, add_writes_file_offsets);
	tcase_add_test(tc, add_with_name_and_offset);
	tcase_add_loop_test(tc, errors_name_the_problem, 0,
			    sizeof(errors) / sizeof(errors[0]));
	tcase_add_loop_test(tc, errors_in_json, 0,
			    sizeof(json_errors) / sizeof(json_errors[0]));
	tcase_add_loop_test(tc, exit_statuses, 0,
			    sizeof(statuses) / sizeof(statuses[0]));
	tcase_add_test(tc, help_of_each_command);
	tcase_add_test(tc, options_after_the_probe);
	tcase_add_test(tc, kernel_without_utprobes);
	tcase_add_test(tc, kernel_without_sessions);
	tcase_add_test(tc, add_sdt_markers);
	tcase_add_test(tc, permission_denied);
	tcase_add_test(tc, version);
	tcase_add_test(tc, list_table);
	tcase_add_test(tc, list_modes);
	tcase_add_test(tc, list_json_and_openmetrics);
	tcase_add_test(tc, funcs_table_and_json);
	tcase_add_test(tc, funcs_count_inlined_copies);
	tcase_add_test(tc, cxx_names);
	tcase_add_test(tc, json_escapes_control_characters);
	tcase_add_test(tc, funcs_on_a_broken_elf_file);
	tcase_add_test(tc, fifo_is_not_a_binary);
	tcase_add_test(tc, path_with_a_space_is_refused);
	tcase_add_test(tc, add_static_functions_of_one_name);
	tcase_add_test(tc, add_names_its_probes_apart);
	tcase_add_test(tc, count_table_by_hits);
	tcase_add_test(tc, add_return_probes);
	tcase_add_test(tc, return_probe_not_on_entry);
	tcase_add_test(tc, kernel_without_return_probes);
	tcase_add_test(tc, list_return_probe);
	tcase_add_test(tc, count_return_probes);
	tcase_add_test(tc, count_plain_probes);
	tcase_add_test(tc, count_passes_sigterm_on);
	tcase_add_test(tc, latency_table_and_json);
}

int main(void)
{
	int failed;

	/*
	 * The tests' stand-ins go in here, under /tmp so that nobody can
	 * reach the copies in them, and are removed below after all tests
	 * ran: a checked fixture's teardown is skipped when a test fails.
	 */
	snprintf(top, sizeof(top), "/tmp/check_cli.XXXXXX");
	if (!mkdtemp(top)) {
		fprintf(stderr, "check_cli: mkdtemp(%s): %s\n", top,
			strerror(errno));
		return 1;
	}
	chmod(top, 0755);
	failed = check_run("cli", add_tests);
	if (nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS))
		failed = 1;
	return failed ? 1 : 0;
}
