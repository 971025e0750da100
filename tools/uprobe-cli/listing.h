/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes the kernel lists, as list, stat and the metrics show them.
 */
#ifndef UPROBE_CLI_LISTING_H
#define UPROBE_CLI_LISTING_H

#include <limits.h>
#include <stdbool.h>

#include "hist.h"

/* One probe as utprobe_profile lists it, described with the ELF file. */
struct listed {
	char name[80];
	char target[PATH_MAX + 32];	/* as registered */
	char where[PATH_MAX + 64];	/* binary:function+offset, or target */
	char path[PATH_MAX];		/* "" for a probe on a process */
	char function[256];
	unsigned long address;		/* link-time, or in the process */
	unsigned long offset;
	unsigned long long hits;
	bool ret;			/* a return probe */
	char mode[16];			/* "jump", "trap", "none"; "" unknown */
	char why[24];			/* why "trap" */
};

/*
 * Every probe of utprobe_profile, in *@out (malloc'ed); their number, or
 * -errno if the kernel's files cannot be read.
 */
int read_probes(struct listed **out);
/* What read_probes()'s -errno @err means. */
const char *listing_errmsg(int err);
/* The hit count of probe @name in utprobe_profile, or -1. */
long long kernel_hits(const char *name);
/* Return probe @name's line of utprobe_returns into @r (zeros if none). */
void kernel_returns(const char *name, struct up_returns *r);

#endif /* UPROBE_CLI_LISTING_H */
