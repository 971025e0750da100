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
/* A probe's mode as kernel_counts() gives it: "jump", "trap:WHY"... */
#define UP_MODE_MAX	48

struct probe;

/*
 * The hits of each of @ps[0..@n), from one read of utprobe_profile,
 * into its ->hits (-1 if the kernel does not list it); with @modes, its
 * mode from one read of utprobe_modes into @modes[i] ("" if not
 * listed).  Thousands of probes cost a read of each file.  0 or -errno.
 */
int kernel_counts(struct probe *ps, int n, char (*modes)[UP_MODE_MAX]);
/* Return probe @name's line of utprobe_returns into @r (zeros if none). */
void kernel_returns(const char *name, struct up_returns *r);

#endif /* UPROBE_CLI_LISTING_H */
