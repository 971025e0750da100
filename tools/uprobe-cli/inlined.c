// SPDX-License-Identifier: GPL-2.0
/*
 * The copies of functions that the compiler inlined, from the DWARF of
 * every compile unit: where a spec naming a function also probes its
 * inlined copies, and what the funcs listing counts.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"

static int inlined_cmp(const void *a, const void *b)
{
	const struct up_inlined *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The DIEs whose children may hold inlined copies (code, or scopes) */
static bool inl_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_inlined_subroutine || tag == DW_TAG_namespace;
}

/* One more inlined copy into @b's table: 0, or -1 if out of memory */
static int inl_add(struct up_binary *b, size_t *cap, const char *name,
		   unsigned long entry)
{
	if (b->ninlined == *cap) {
		size_t more = *cap ? *cap * 2 : 256;
		struct up_inlined *t = realloc(b->inlined, more * sizeof(*t));

		if (!t)
			return -1;
		b->inlined = t;
		*cap = more;
	}
	b->inlined[b->ninlined++] = (struct up_inlined){ name, entry };
	return 0;
}

/*
 * The inlined copies among the children of @parent, into @b's table,
 * by their entry (DW_AT_entry_pc, or where their code begins): 0, or
 * -1 if out of memory.  Each under its function's name and, if it has
 * another, its linkage name: a C++ function's symbol, or the name a C
 * function's symbol has through an asm label (glibc's __GI_ aliases).
 */
static int inl_walk(struct up_binary *b, Dwarf_Die *parent, size_t *cap)
{
	Dwarf_Attribute attr;
	Dwarf_Addr entry, base, end;
	const char *name, *linkage;
	Dwarf_Die die;
	int tag;

	if (dwarf_child(parent, &die))
		return 0;
	do {
		tag = dwarf_tag(&die);
		if (!inl_scope(tag))
			continue;
		if (tag == DW_TAG_inlined_subroutine &&
		    (!dwarf_entrypc(&die, &entry) ||
		     dwarf_ranges(&die, 0, &base, &entry, &end) > 0)) {
			name = dwarf_diename(&die);
			linkage = dwarf_formstring(dwarf_attr_integrate(&die,
					DW_AT_linkage_name, &attr));
			/* DWARF 3's, before linkage names were standard */
			if (!linkage)
				linkage = dwarf_formstring(dwarf_attr_integrate(
					&die, DW_AT_MIPS_linkage_name, &attr));
			if (name && inl_add(b, cap, name, entry))
				return -1;
			if (linkage && (!name || strcmp(name, linkage)) &&
			    inl_add(b, cap, linkage, entry))
				return -1;
		}
		if (inl_walk(b, &die, cap))
			return -1;
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

/*
 * @b's inlined copies of every function, sorted by name and entry,
 * found once (one walk of every compile unit) for all the specs and
 * the funcs listing of a command: 0, or -1 if out of memory.  A copy is
 * found in whatever unit it is, its name read through its abstract
 * origin wherever that is: a header's static inline function has copies
 * in every unit that inlined it, and link-time optimization inlines a
 * function into units other than its own.
 */
int up_inlined_copies(struct up_binary *b)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0, k = 0;

	if (b->inlined_found)
		return 0;
	while ((cu = dwfl_module_nextcu(b->mod, cu, &bias)))
		if (inl_walk(b, cu, &cap)) {
			free(b->inlined);
			b->inlined = NULL;
			b->ninlined = 0;
			return -1;
		}
	if (b->ninlined)
		qsort(b->inlined, b->ninlined, sizeof(*b->inlined),
		      inlined_cmp);
	/* one copy an entry: DWARF may describe one twice */
	for (size_t i = 0; i < b->ninlined; i++)
		if (!k || inlined_cmp(&b->inlined[k - 1], &b->inlined[i]))
			b->inlined[k++] = b->inlined[i];
	b->ninlined = k;
	b->inlined_found = true;
	return 0;
}

const struct up_inlined *up_inlined_of(const struct up_binary *b,
				       const char *name, size_t *n)
{
	size_t lo = 0, hi = b->ninlined, end;

	*n = 0;
	if (!b->ninlined)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(b->inlined[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < b->ninlined &&
	     !strcmp(b->inlined[end].name, name); end++)
		;
	*n = end - lo;
	return &b->inlined[lo];
}
