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

#include "cli.h"
#include "listing.h"

const char *listing_errmsg(int err)
{
	return err == -ENOMEM ? "out of memory" : kernel_errmsg(err);
}

int read_probes(struct listed **out)
{
	char path[512], line[PATH_MAX + 256];
	struct listed *l = NULL;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_profile", tracefs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, ' '), *colon, *sp;
		struct listed *e;
		struct up_place p;

		e = realloc(l, (n + 1) * sizeof(*l));
		if (!e) {
			free(l);
			fclose(f);
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
			if (!up_describe(e->path, e->offset, &p))
				e->address = p.vaddr;
			if (e->address && *p.symbol) {
				snprintf(e->function, sizeof(e->function), "%s",
					 p.symbol);
				snprintf(e->where, sizeof(e->where), "%s:%s+%#lx",
					 strrchr(e->path, '/') + 1, p.symbol,
					 p.sym_off);
			}
		} else if (colon) {
			e->address = strtoul(colon + 1, NULL, 0);
		}
		n++;
	}
	fclose(f);
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
