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

/* How the hits of @l[0..@n) come in: utprobe_modes, if the kernel has it. */
static void read_modes(struct listed *l, int n)
{
	char path[512], line[256], name[80], mode[16], why[24];
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_modes", tracefs);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		*why = '\0';
		if (sscanf(line, "%79s %15s %23s", name, mode, why) < 2)
			continue;
		for (int k = 0; k < n; k++)
			if (!strcmp(l[k].name, name)) {
				snprintf(l[k].mode, sizeof(l[k].mode), "%s", mode);
				snprintf(l[k].why, sizeof(l[k].why), "%s", why);
			}
	}
	if (f)
		fclose(f);
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

long long kernel_hits(const char *name)
{
	char path[512], line[PATH_MAX + 256], want[128];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_profile", tracefs);
	snprintf(want, sizeof(want), "%s ", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			sscanf(strrchr(line, ' '), "%lld", &n);
	fclose(f);
	return n;
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
