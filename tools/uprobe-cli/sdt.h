/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SDT markers (sys/sdt.h, the .note.stapsdt notes): where they are, their
 * semaphores, and their arguments as fetch arguments.
 */
#ifndef UPROBE_CLI_SDT_H
#define UPROBE_CLI_SDT_H

#include <stddef.h>

#include "resolve.h"

/* One marker of a binary. */
struct up_sdt {
	char provider[64];
	char name[64];
	unsigned long vaddr;		/* its link-time address */
	unsigned long offset;		/* its offset in the file */
	unsigned long sem_vaddr;	/* its semaphore's address, or 0 */
	unsigned long sem_offset;	/* and offset in the file */
	char args[UP_SDT_ARGS_MAX];	/* its argument specs, as noted */
};

/*
 * The markers of the open binary @b in *@out (malloc'ed, NULL if none),
 * in the notes' order; their number, or -errno with a message in @err
 * (-ENOEXEC for notes not of a 64-bit ELF file, -ENOMEM).
 */
int up_sdt_markers(struct up_binary *b, struct up_sdt **out, char *err,
		   size_t errlen);

/* A marker has at most this many arguments (sys/sdt.h's limit) */
#define UP_SDT_MAX_ARGS	12

/*
 * The argument specs @args of a marker (as "-4@%edi 8@-8(%rbp) 8@$5")
 * as fetch arguments named arg0, arg1...: into @out (@size bytes), one
 * "argN=FETCH:TYPE" per argument, separated by spaces.  Returns the
 * number of arguments, or -errno with a message naming the argument the
 * kernel cannot fetch in @err: -EOPNOTSUPP for an operand it cannot
 * fetch, -EINVAL for a spec not SIZE@OPERAND, -E2BIG for too many.
 */
int up_sdt_fetch(const char *args, char *out, size_t size, char *err,
		 size_t errlen);

#endif /* UPROBE_CLI_SDT_H */
