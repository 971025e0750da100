// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli funcs and resolve: what a binary offers to probe, and
 * where a spec lands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "json_writer.h"
#include "sdt.h"

/* A function of funcs: a table's row, or an object of the JSON writer @arg */
static void print_func(const struct up_place *p, unsigned long size,
		       unsigned int inlined, void *arg)
{
	json_writer_t *w = arg;

	if (!w) {
		printf("%-40s %#14lx %#10lx %6lu %7u\n", p->symbol, p->vaddr,
		       p->offset, size, inlined);
		return;
	}
	jsonw_start_object(w);
	json_string_field(w, "function", p->symbol);
	jsonw_uint_field(w, "address", p->vaddr);
	jsonw_uint_field(w, "offset", p->offset);
	jsonw_uint_field(w, "size", size);
	jsonw_uint_field(w, "inlined", inlined);
	jsonw_end_object(w);
}

/* An SDT marker of funcs --sdt, as print_func() prints a function */
static void print_marker(const struct up_sdt *m, const char *name,
			 json_writer_t *w)
{
	if (!w) {
		printf("%-40s %#14lx %#10lx %#10lx  %s\n", name, m->vaddr,
		       m->offset, m->sem_offset, m->args);
		return;
	}
	jsonw_start_object(w);
	json_string_field(w, "provider", m->provider);
	json_string_field(w, "name", m->name);
	jsonw_uint_field(w, "address", m->vaddr);
	jsonw_uint_field(w, "offset", m->offset);
	jsonw_uint_field(w, "semaphore_offset", m->sem_offset);
	json_string_field(w, "args", m->args);
	jsonw_end_object(w);
}

/* The array that ends a JSON document of funcs, if @w is a writer */
static void end_array(json_writer_t *w)
{
	if (!w)
		return;
	jsonw_end_array(w);
	jsonw_destroy(&w);
}

/*
 * The header of funcs' table, @header, or for JSON (@json) the writer
 * whose array holds the rows, in *@w.  0, or -ENOMEM after a message.
 */
static int begin_rows(bool json, const char *header, json_writer_t **w)
{
	*w = NULL;
	if (!json) {
		fputs(header, stdout);
		return 0;
	}
	*w = json_new();
	if (!*w)
		return -ENOMEM;
	jsonw_start_array(*w);
	return 0;
}

/*
 * funcs --sdt: the SDT markers of @path matching @glob (PROVIDER:NAME).
 * 0, or -errno after a message.
 */
static int print_markers(const char *path, const char *glob, bool json)
{
	struct up_binary b;
	struct up_sdt *m;
	char err[1024], name[160], header[128];
	json_writer_t *w;
	int n, r;

	if (up_binary_open(path, &b, err, sizeof(err)))
		return print_error(-EIO, "%s", err);
	n = up_sdt_markers(&b, &m, err, sizeof(err));
	up_binary_close(&b);
	if (n < 0)
		return print_error(-EIO, "%s: %s", path, err);
	snprintf(header, sizeof(header), "%-40s %14s %10s %10s  %s\n",
		 "MARKER", "ADDRESS", "OFFSET", "SEMAPHORE", "ARGUMENTS");
	r = begin_rows(json, header, &w);
	if (r) {
		free(m);
		return r;
	}
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s:%s", m[i].provider,
			 m[i].name);
		if (!glob || !fnmatch(glob, name, 0))
			print_marker(&m[i], name, w);
	}
	end_array(w);
	free(m);
	return 0;
}

/* funcs' rows, begun at the first one (or at the end, when there is none) */
struct func_rows {
	const char *header;
	bool json;
	bool begun;
	int err;		/* begin_rows()'s */
	json_writer_t *w;
};

static void func_row(const struct up_place *p, unsigned long size,
		     unsigned int inlined, void *arg)
{
	struct func_rows *fr = arg;

	if (!fr->begun) {
		fr->begun = true;
		fr->err = begin_rows(fr->json, fr->header, &fr->w);
	}
	if (!fr->err)
		print_func(p, size, inlined, fr->w);
}

/*
 * funcs: the functions of @path matching @glob.  The table's header or
 * the JSON array begins only with the first row, so that a file libdwfl
 * refuses prints its error alone, one JSON document in JSON mode.  0,
 * or -errno after a message.
 */
static int print_funcs(const char *path, const char *glob, bool json)
{
	char err[1024], header[128];
	struct func_rows fr = { .header = header, .json = json };
	int r;

	snprintf(header, sizeof(header), "%-40s %14s %10s %6s %7s\n",
		 "FUNCTION", "ADDRESS", "OFFSET", "SIZE", "INLINED");
	r = up_functions(path, glob, func_row, &fr, err, sizeof(err));
	if (!r && !fr.begun)
		fr.err = begin_rows(json, header, &fr.w);
	if (fr.err)
		return fr.err;
	end_array(fr.w);
	return r ? print_error(-EIO, "%s", err) : 0;
}

int cmd_funcs(int argc, char **argv)
{
	char path[PATH_MAX], err[1024];
	bool sdt = false;
	struct view_opts o = { .sdt = &sdt };
	const char *glob;

	if (parse_format(argc, argv, &o))
		return EXIT_USAGE;
	if (out_fmt == OPENMETRICS)
		return usage_error("funcs: no counts to print as openmetrics (table or json)");
	if (optind >= argc)
		return usage_error("funcs: no binary given");
	if (up_find_binary(argv[optind], 0, path, sizeof(path), err,
			   sizeof(err)))
		return run_error("%s", err);
	glob = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (sdt)
		return print_markers(path, glob, out_fmt == JSON) ?
		       EXIT_FAILURE : 0;
	return print_funcs(path, glob, out_fmt == JSON) ? EXIT_FAILURE : 0;
}

int cmd_resolve(int argc, char **argv)
{
	struct probe *ps = NULL;
	pid_t pid = 0;
	int c, n = 0;

	while ((c = getopt(argc, argv, "+p:")) != -1) {
		pid = c == 'p' ? parse_pos("pid", optarg) : 0;
		if (!pid)
			return EXIT_USAGE;
	}
	if (optind >= argc)
		return usage_error("resolve: no probe given");
	/* any failure, an unknown suffix too, is EXIT_FAILURE */
	if (resolve_probes(argv[optind], pid, false, &ps, &n))
		return EXIT_FAILURE;
	for (int i = 0; i < n; i++) {
		const struct up_place *p = &ps[i].place;

		printf("%s %#lx %#lx %s+%#lx%s\n", p->path, p->offset, p->vaddr,
		       *p->symbol ? p->symbol : "?", p->sym_off,
		       ps[i].ret ? "%return" : "");
	}
	free(ps);
	return 0;
}
