/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C variables at a probe, as fetch arguments for utprobe_events.
 */
#ifndef UPROBE_CLI_DWARFVAR_H
#define UPROBE_CLI_DWARFVAR_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve.h"

/* The kernel's limit on a fetch argument's name, with its NUL. */
#define UP_ARG_NAME_MAX	32

/* One value to fetch at a probe. */
struct up_fetch {
	char name[UP_ARG_NAME_MAX];	/* its field in the event */
	char text[512];			/* NAME=FETCH:TYPE, for the kernel */
	bool string;			/* a string, shown quoted */
};

/*
 * @expr at the probe at link-time address @vaddr of the binary @b, as a
 * fetch argument in @out.  @expr is "[NAME=]VAR" with VAR a parameter or
 * variable visible there followed by any of ->FIELD, .FIELD and [N];
 * "$retval" on a return probe (@ret); or a raw fetch argument of
 * utprobe_events (%REG, @ADDR, $stackN, +OFF(...), each with :TYPE).
 *
 * Returns 0; 1 if @expr is stored in the function's own frame, which its
 * prologue has not set up at @vaddr, a function's entry (try again past
 * the prologue); or -errno with a message naming the problem in @err:
 * -EINVAL for a bad @expr, or one that does not suit the variable's type,
 * -ENOENT for no such variable, member, debug info or location there,
 * -EOPNOTSUPP for a DWARF location or type this tool or fetch arguments
 * do not read, -E2BIG for a fetch argument too long.
 */
int up_fetch_arg(struct up_binary *b, unsigned long vaddr, bool ret,
		 const char *expr, struct up_fetch *out, char *err,
		 size_t errlen);

/*
 * The first address of the function entered at @vaddr past its prologue,
 * by its line table (the first row of another line); 0, or -ENOENT.
 */
int up_after_prologue(struct up_binary *b, unsigned long vaddr,
		      unsigned long *after);

#endif /* UPROBE_CLI_DWARFVAR_H */
