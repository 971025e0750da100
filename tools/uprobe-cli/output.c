// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: what it says: error messages (on stderr, and as JSON in
 * JSON mode), JSON strings, and the names of functions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"

/* The format of what the commands print: -j, --format */
enum format out_fmt = TABLE;

void json_string(json_writer_t *w, const char *s)
{
	const char *p;
	char *buf, *q;

	for (p = s; *p && (unsigned char)*p >= 0x20; p++)
		;
	buf = *p ? malloc(strlen(s) * 6 + 3) : NULL;
	if (!buf) {
		/* nothing it leaves raw, or no memory to do better */
		jsonw_string(w, s);
		return;
	}
	q = buf;
	*q++ = '"';
	for (p = s; *p; p++) {
		unsigned char c = *p;

		if (c == '"' || c == '\\')
			q += sprintf(q, "\\%c", c);
		else if (c < 0x20)
			q += sprintf(q, "\\u%04x", c);
		else
			*q++ = c;
	}
	*q++ = '"';
	*q = '\0';
	jsonw_printf(w, "%s", buf);
	free(buf);
}

void json_string_field(json_writer_t *w, const char *name, const char *s)
{
	jsonw_name(w, name);
	json_string(w, s);
}

/* In JSON mode, the error @msg as an object on stdout, as bpftool's */
static void json_error(const char *msg)
{
	/* not json_new(), which reports its own failure here */
	json_writer_t *w = jsonw_new(stdout);

	if (!w)
		return;
	jsonw_start_object(w);
	jsonw_name(w, "error");
	json_string(w, msg);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

/* The message of the functions below, on stderr and as JSON. */
static void vmessage(const char *fmt, va_list ap)
{
	char *msg = NULL;
	va_list copy;
	int len;

	va_copy(copy, ap);
	len = vasprintf(&msg, fmt, copy);
	va_end(copy);
	if (len < 0) {
		/* out of memory: the message as it goes, on stderr only */
		fputs("uprobe-cli: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		return;
	}
	fprintf(stderr, "uprobe-cli: %s\n", msg);
	if (out_fmt == JSON)
		json_error(msg);
	free(msg);
}

/*
 * A command's failure at run time: its message.  Returns EXIT_FAILURE,
 * its exit status.
 */
int run_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	return EXIT_FAILURE;
}

/*
 * A command line that cannot be run as it is (an option or argument
 * missing, unknown or malformed, two that do not go together): its
 * message, for a command.  Returns EXIT_USAGE, its exit status.
 */
int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

/*
 * A helper's failure: its message, as run_error() and usage_error()
 * print theirs.  Returns @err, the -errno the helper returns.
 */
int print_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	return err;
}

json_writer_t *json_new(void)
{
	json_writer_t *w = jsonw_new(stdout);

	if (!w)
		print_error(-ENOMEM, "out of memory");
	return w;
}

/*
 * BINARY:FUNCTION[@ADDRESS][+OFFSET] of @p, BINARY its base name, and
 * ADDRESS the function's where another function has its name.
 */
void function_name(char *out, size_t len, const struct up_place *p)
{
	const char *bin = strrchr(p->path, '/') + 1;
	char at[24] = "";

	if (p->dup)
		snprintf(at, sizeof(at), "@%#lx", p->func_vaddr);
	if (p->inline_of) {
		char off[24] = "";

		if (p->sym_off)
			snprintf(off, sizeof(off), "+%#lx", p->sym_off);
		snprintf(out, len, "%s:%s (inlined in %s%s%s)", bin,
			 p->inline_of, *p->symbol ? p->symbol : "?", at, off);
	} else if (p->sym_off)
		snprintf(out, len, "%s:%s%s+%#lx", bin, p->symbol, at,
			 p->sym_off);
	else
		snprintf(out, len, "%s:%s%s", bin,
			 *p->symbol ? p->symbol : "?", at);
}
