/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What uprobe-cli's commands share: messages, the kernel's tracefs
 * files, and the probes a command places for the run of a program.
 *
 * The commands (cmd_*()) return an exit status: 0, EXIT_FAILURE for a
 * failure at run time, EXIT_USAGE for a command line that cannot run as
 * it is.  A helper that can fail returns 0 or -errno, having printed
 * its message (print_error()).
 */
#ifndef UPROBE_CLI_CLI_H
#define UPROBE_CLI_CLI_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/types.h>

#include "hist.h"
#include "resolve.h"

/* tracefs, or $UPROBE_CLI_TRACEFS */
extern const char *tracefs;

/* The kernel's limit on a probe name, its terminating NUL included. */
#define NAME_MAX_LEN	64
/* a definition for utprobe_events */
#define LINE_MAX_LEN	(PATH_MAX + 256)

enum format { TABLE, JSON, OPENMETRICS };

/* The output format: -j or --format=FMT, before the command or after it */
extern enum format out_fmt;

/* getopt_long()'s entries for -j, --json and --format=FMT */
#define FORMAT_LONGOPTS \
	{ "json", no_argument, NULL, 'j' }, \
	{ "format", required_argument, NULL, 'f' }

/* A probe this command places: its name, where, and what it counted. */
struct probe {
	char name[96];
	struct up_place place;
	bool ret;			/* a return probe */
	char *fetch;			/* its fetch arguments, or NULL */
	int stack;			/* bytes of stack its records copy */
	bool fp;			/* ... or the frame pointers' callers */
	int row;			/* their row in values.c's table, */
					/* which placement does not move */
	long long hits;			/* calls, for a return probe */
	struct up_returns rets;		/* a return probe's */
	bool optional;			/* one of a glob's: may be dropped */
	bool dropped;			/* ... and was (place_probes()) */
};

/*
 * What a command does around the run of its program, each optional:
 * @placed once the probes are in, before the program starts (0, or
 * -errno after a message: it does not start); @wait until the program
 * has ended, its wait status into *@status (default: waitpid()), its
 * return not looked at; @arg for them.
 */
struct run_ops {
	int (*placed)(struct probe *ps, int n, void *arg);
	int (*wait)(pid_t pid, int *status, void *arg);
	void *arg;
};

/*
 * The exit status of a command line that cannot run as it is; that of a
 * failure at run time is EXIT_FAILURE, 1.
 */
#define EXIT_USAGE	2

/*
 * "uprobe-cli: " and the message, on stderr, and in JSON mode as
 * {"error":"MESSAGE"} on stdout too.  None exits.  For the commands:
 * run_error() returns EXIT_FAILURE, usage_error() EXIT_USAGE.  For the
 * helpers, which return 0 or -errno: print_error() returns @err.
 */
int run_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int print_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The exit status of a command whose helper returned @err: 0 for 0,
 * EXIT_USAGE for -EINVAL, EXIT_FAILURE for another -errno.  Only for a
 * helper whose -EINVAL is the command line's alone, as its comment
 * says; a command turns another's failure into EXIT_FAILURE.
 */
static inline int exit_status(int err)
{
	if (!err)
		return 0;
	return err == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
}
/*
 * The options of list, stat and funcs: the format, and those a command
 * takes, each where its pointer is not NULL.
 */
struct view_opts {
	double *interval;	/* stat's -i */
	int *count;		/* stat's -n */
	const char **textfile;	/* stat's --textfile */
	bool *sdt;		/* funcs' --sdt */
};
/* Those options in @argv; 0, or -EINVAL after a message */
int parse_format(int argc, char **argv, struct view_opts *o);
/* Where the first "--" of @argv is (after argv[0]), or @argc. */
int dashes_at(int argc, char **argv);
/* A positive number from @arg, or 0 after a message naming @what. */
long parse_pos(const char *what, const char *arg);
/* Write @text to the file at @path opened with @flags; 0 or -errno. */
int file_write(const char *path, int flags, const char *text);
/*
 * From now on, the probes this command places are its own: written
 * through a utprobe_session of its own, which the kernel removes with
 * them when the command ends, however it ends.  0, or -errno after a
 * message.
 */
int own_probes(void);
/* The session own_probes() opened, or -1: a child closes it */
extern int session_fd;
/* A name for probe @pr of the kernel's, from its function, into @out */
void probe_name(char *out, size_t len, const struct probe *pr);
/*
 * Write definitions to utprobe_events, or to the session after
 * own_probes(); 0 or -errno.
 */
int kernel_write(const char *line);
/* What the kernel's -errno @err means for a probe. */
const char *kernel_errmsg(int err);
/* 0 if the kernel has return probes, or -errno after a message. */
int need_returns(void);
/*
 * "(OFFSET)" of the semaphore of the SDT marker at @p, as utprobe_events
 * takes it after PATH:OFFSET, in @buf; "" if it has none.
 */
const char *ref_text(const struct up_place *p, char *buf, size_t size);
/*
 * Whether the probes this command places only count, and may be
 * entered by a jump (count, stat, serve, add without --trap).
 */
extern bool jump_ok;
/*
 * " func=START+SIZE" for @pr at @at (its offset, or its address in a
 * process) in @buf, letting the kernel enter it by a jump; "" if it may
 * not be (a return probe, values, not a function's entry, jump_ok not
 * set).
 */
const char *func_text(const struct probe *pr, unsigned long at, char *buf,
		      size_t size);
/* Is one of @ps[0..@n) a return probe? */
bool any_return(const struct probe *ps, int n);
/* Remove the probes @ps[0..@n) (but those dropped). */
void remove_probes(const struct probe *ps, int n);
/*
 * Place the probes @ps[0..*@n), each defined by its line of @lines, as
 * few writes as the size allows (the kernel places each write's
 * together, all or none).  A probe a glob chose (->optional) whose
 * instruction the kernel refuses is dropped from @ps and @lines, *@n
 * lowered, with a note on stderr.  0; or -errno, *@bad the index of the
 * probe refused, and every probe placed removed again.
 */
int place_probes(struct probe *ps, char **lines, int *n, int *bad);
/*
 * Place @ps[0..*@n) on their files (limited to @tree's processes if not
 * 0) through this command's own session: 0, or -errno after a message
 * (naming the probe the kernel refused, with its -errno).  As
 * place_probes(), drops some.
 */
int place_session_probes(struct probe *ps, int *n, pid_t tree);
char **lines_new(int n, size_t size);
/*
 * The definitions of @ps[0..@n), probes on their files (in the process
 * tree of @tree only, if not 0), with their fetch arguments, for
 * place_probes(); NULL when out of memory.
 */
char **file_lines(const struct probe *ps, int n, pid_t tree);
void lines_free(char **lines, int n);
/*
 * @spec's places as more probes at the end of *@ps; 0, or -errno after a
 * message, -EINVAL if the command line's (an unknown suffix) alone.
 */
int resolve_probes(const char *spec, pid_t pid, bool ret_probe,
		   struct probe **ps, int *n);
/*
 * Take -j (@opt 'j') or --format=@arg (@opt 'f'); 0, or -EINVAL after a
 * message.
 */
int format_option(int opt, const char *arg);
/* 0 if the format is a table or JSON, or -EINVAL after a message for @cmd. */
int table_or_json(const char *cmd);
/* bpftool's JSON writer (json_writer.h) */
typedef struct json_writer json_writer_t;
/*
 * A JSON writer of one document on stdout, which jsonw_destroy() ends
 * with its newline; NULL after a message when out of memory.
 */
json_writer_t *json_new(void);
/*
 * @s as a JSON string value into @w: json_writer leaves control
 * characters other than \b \f \n \r \t raw, which JSON forbids.
 */
void json_string(json_writer_t *w, const char *s);
/* The same as the value of the member @name of an object. */
void json_string_field(json_writer_t *w, const char *name, const char *s);
/* Name probe @i of a command @cmd that places probes for a while. */
unsigned long pid_ns(void);
void run_name(struct probe *pr, const char *cmd, int i);
/*
 * Run @cmd with the probes @ps[0..*@n) on its process tree (some may be
 * dropped: see place_probes()); 0 with its exit status in *@status, or
 * -errno after a message.
 */
int run_probed(struct probe *ps, int *n, char **cmd, int *status,
	       const struct run_ops *ops);
/* The command run_probed() runs, once forked (before it starts) */
extern pid_t run_pid;
/* main() set DEBUGINFOD_PROGRESS, which the command is not given */
extern bool progress_set;
/* BINARY:FUNCTION[+OFFSET] of @p, BINARY its base name. */
void function_name(char *out, size_t len, const struct up_place *p);

#endif /* UPROBE_CLI_CLI_H */
