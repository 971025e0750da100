/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function symbols of a binary, as resolution sees them
 * (symbols.c): private to resolve.c.
 */
#ifndef UPROBE_CLI_SYMBOLS_H
#define UPROBE_CLI_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve.h"

/* Function symbols, de-duplicated, in address order. */
struct func {
	const char *name;
	const char *shown;	/* its C++ name if mangled, else @name */
	unsigned long vaddr;
	unsigned long size;
	bool old_version;	/* NAME@VERSION, not the default @@ */
	bool dup;		/* another function has its name (statics) */
};

/*
 * The function symbols of @b, in address order, each name once at an
 * address, and (*@count) how many; malloc()ed, NULL if out of memory.
 */
struct func *sym_functions(struct up_binary *b, size_t *count);

/* The function of @f[0..@n) that holds @vaddr, or NULL. */
const struct func *sym_containing(const struct func *f, size_t n,
				  unsigned long vaddr);

/*
 * " (did you mean: a, b, c?)" into @out for an unknown function @name:
 * up to three of @f[0..@n) whose names are close; "" if none is.
 */
void sym_suggest(const struct func *f, size_t n, const char *name,
		 char *out, size_t len);

#endif
