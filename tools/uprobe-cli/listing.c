// SPDX-License-Identifier: GPL-2.0
/*
 * The probes the kernel lists: utprobe_profile's names, targets and
 * hits, utprobe_events' return probes, utprobe_returns' counts, each
 * probe described with its ELF file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "listing.h"

const char *listing_errmsg(int err)
{
	return err == -ENOMEM ? "out of memory" : kernel_errmsg(err);
}

/*
 * What a probe's file offset is, kept across listings (each scrape of
 * serve, each interval of stat): only what is new is described, as long
 * as the file is the same (device, inode, size and time of change), and
 * a listing opens each file it describes once.
 */
struct desc {
	char *path;
	unsigned long offset;
	struct stat st;
	bool ok;
	unsigned long vaddr;
	char *symbol;		/* "" if in no function */
	unsigned long sym_off;
};

static struct desc *descs;	/* sorted by path, then offset */
static size_t ndescs;

static int desc_cmp(const void *a, const void *b)
{
	const struct desc *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* @path:@offset described, from the cache or with @d; NULL out of memory */
static const struct desc *describe(struct up_describer *d, const char *path,
				   unsigned long offset)
{
	struct desc key = { .path = (char *)path, .offset = offset }, *e, *more;
	struct up_place p;
	struct stat st;

	if (stat(path, &st))
		memset(&st, 0, sizeof(st));
	e = ndescs ? bsearch(&key, descs, ndescs, sizeof(*descs), desc_cmp) :
		     NULL;
	if (e && e->symbol && same_file(&e->st, &st))
		return e;
	if (!e) {
		more = realloc(descs, (ndescs + 1) * sizeof(*descs));
		if (!more)
			return NULL;
		descs = more;
		e = &descs[ndescs];
		*e = key;
		e->path = strdup(path);
		e->symbol = NULL;
		if (!e->path)
			return NULL;
		ndescs++;
	}
	free(e->symbol);
	e->st = st;
	e->ok = d && !up_describe_in(d, path, offset, &p);
	e->vaddr = e->ok ? p.vaddr : 0;
	e->sym_off = e->ok ? p.sym_off : 0;
	e->symbol = strdup(e->ok ? p.symbol : "");
	key.path = e->path;
	/* in its place; found again there */
	qsort(descs, ndescs, sizeof(*descs), desc_cmp);
	e = bsearch(&key, descs, ndescs, sizeof(*descs), desc_cmp);
	return e && e->symbol ? e : NULL;
}

/* Call @fn with each line of utprobe_modes, if the kernel has it. */
static void modes_each(void (*fn)(const char *name, const char *mode,
				  const char *why, void *arg), void *arg)
{
	char path[512], line[256], name[80], mode[16], why[24];
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_modes", tracefs);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		*why = '\0';
		if (sscanf(line, "%79s %15s %23s", name, mode, why) >= 2)
			fn(name, mode, why, arg);
	}
	if (f)
		fclose(f);
}

struct listed_modes {
	struct listed *l;
	int n;
};

static void listed_mode(const char *name, const char *mode, const char *why,
			void *arg)
{
	struct listed_modes *m = arg;

	for (int k = 0; k < m->n; k++)
		if (!strcmp(m->l[k].name, name)) {
			snprintf(m->l[k].mode, sizeof(m->l[k].mode), "%s", mode);
			snprintf(m->l[k].why, sizeof(m->l[k].why), "%s", why);
		}
}

/* How the hits of @l[0..@n) come in. */
static void read_modes(struct listed *l, int n)
{
	struct listed_modes m = { .l = l, .n = n };

	modes_each(listed_mode, &m);
}

int read_probes(struct listed **out)
{
	char path[512], line[PATH_MAX + 256];
	struct up_describer *d = up_describer_new();
	struct listed *l = NULL;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_profile", tracefs);
	f = fopen(path, "re");
	if (!f) {
		up_describer_free(d);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, ' '), *colon, *sp;
		const struct desc *p;
		struct listed *e;

		e = realloc(l, (n + 1) * sizeof(*l));
		if (!e) {
			free(l);
			fclose(f);
			up_describer_free(d);
			return -ENOMEM;
		}
		l = e;
		e = &l[n];
		memset(e, 0, sizeof(*e));
		if (!last || sscanf(line, "%79s", e->name) != 1 ||
		    sscanf(last, "%llu", &e->hits) != 1)
			continue;
		*last = '\0';
		snprintf(e->target, sizeof(e->target), "%s",
			 line + strlen(e->name) + 1);
		snprintf(e->where, sizeof(e->where), "%s", e->target);
		sp = strchr(e->target, ' ');
		colon = strrchr(e->target, ':');
		if (e->target[0] == '/' && colon && (!sp || colon < sp)) {
			snprintf(e->path, sizeof(e->path), "%.*s",
				 (int)(colon - e->target), e->target);
			e->offset = strtoul(colon + 1, NULL, 0);
			p = describe(d, e->path, e->offset);
			if (p && p->ok)
				e->address = p->vaddr;
			if (e->address && *p->symbol) {
				snprintf(e->function, sizeof(e->function), "%s",
					 p->symbol);
				snprintf(e->where, sizeof(e->where), "%s:%s+%#lx",
					 strrchr(e->path, '/') + 1, p->symbol,
					 p->sym_off);
			}
		} else if (colon) {
			e->address = strtoul(colon + 1, NULL, 0);
		}
		n++;
	}
	fclose(f);
	up_describer_free(d);
	/* which are return probes only utprobe_events tells: "r:NAME ..." */
	snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \n")] = '\0';
		for (int k = 0; k < n && !strncmp(line, "r:", 2); k++) {
			size_t w = strlen(l[k].where);

			if (strcmp(l[k].name, line + 2))
				continue;
			l[k].ret = true;
			/* as a spec would say it */
			snprintf(l[k].where + w, sizeof(l[k].where) - w,
				 "%%return");
		}
	}
	if (f)
		fclose(f);
	read_modes(l, n);
	*out = l;
	return n;
}

/* A probe's name and index, for kernel_counts()'s lookups. */
struct name_ix {
	const char *name;
	int i;
};

static int name_ix_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_ix *)a)->name,
		      ((const struct name_ix *)b)->name);
}

/* The index in @ix[0..@n) of the probe named @name, or -1. */
static int name_ix_find(const struct name_ix *ix, int n, const char *name)
{
	struct name_ix key = { .name = name };
	const struct name_ix *e = bsearch(&key, ix, n, sizeof(*ix),
					  name_ix_cmp);

	return e ? e->i : -1;
}

struct ix_modes {
	const struct name_ix *ix;
	int n;
	char (*modes)[UP_MODE_MAX];
};

static void ix_mode(const char *name, const char *mode, const char *why,
		    void *arg)
{
	struct ix_modes *m = arg;
	int i = name_ix_find(m->ix, m->n, name);

	if (i >= 0)
		snprintf(m->modes[i], UP_MODE_MAX, "%s%s%s", mode,
			 *why ? ":" : "", why);
}

int kernel_counts(struct probe *ps, int n, char (*modes)[UP_MODE_MAX])
{
	char path[512], line[PATH_MAX + 256], name[80];
	struct name_ix *ix = malloc((n ?: 1) * sizeof(*ix));
	char *last;
	FILE *f;
	int i;

	if (!ix)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ix[i] = (struct name_ix){ .name = ps[i].name, .i = i };
		ps[i].hits = -1;
		if (modes)
			*modes[i] = '\0';
	}
	qsort(ix, n, sizeof(*ix), name_ix_cmp);
	snprintf(path, sizeof(path), "%s/utprobe_profile", tracefs);
	f = fopen(path, "re");
	if (!f) {
		free(ix);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		last = strrchr(line, ' ');
		if (!last || sscanf(line, "%79s", name) != 1)
			continue;
		i = name_ix_find(ix, n, name);
		if (i >= 0)
			sscanf(last, "%lld", &ps[i].hits);
	}
	fclose(f);
	if (modes) {
		struct ix_modes m = { .ix = ix, .n = n, .modes = modes };

		modes_each(ix_mode, &m);
	}
	free(ix);
	return 0;
}

void kernel_returns(const char *name, struct up_returns *r)
{
	/* 65 buckets of up to 25 characters, and the counts */
	char path[512], line[4096], got[96];
	bool found = false;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/utprobe_returns", tracefs);
	f = fopen(path, "re");
	if (!f)
		return;
	while (!found && fgets(line, sizeof(line), f))
		found = !up_returns_parse(line, got, sizeof(got), r) &&
			!strcmp(got, name);
	if (!found)
		memset(r, 0, sizeof(*r));
	fclose(f);
}
