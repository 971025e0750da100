// SPDX-License-Identifier: GPL-2.0
/*
 * The copies of functions that the compiler inlined, from the DWARF of
 * every compile unit: where a spec naming a function also probes its
 * inlined copies, and what the funcs listing counts; and the functions
 * inlined at an address, the frames a stack shows there.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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

/* One more inlined copy into @b's table: 0, or -ENOMEM */
static int inl_add(struct up_binary *b, size_t *cap, const char *name,
		   unsigned long entry)
{
	if (b->ninlined == *cap) {
		size_t more = *cap ? *cap * 2 : 256;
		struct up_inlined *t = realloc(b->inlined, more * sizeof(*t));

		if (!t)
			return -ENOMEM;
		b->inlined = t;
		*cap = more;
	}
	b->inlined[b->ninlined++] = (struct up_inlined){ name, entry };
	return 0;
}

/*
 * The inlined copies among the children of @parent, into @b's table,
 * by their entry (DW_AT_entry_pc, or where their code begins): 0, or
 * -ENOMEM.  Each under its function's name and, if it has
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
				return -ENOMEM;
			if (linkage && (!name || strcmp(name, linkage)) &&
			    inl_add(b, cap, linkage, entry))
				return -ENOMEM;
		}
		if (inl_walk(b, &die, cap))
			return -ENOMEM;
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

/*
 * @b's inlined copies of every function, sorted by name and entry,
 * found once (one walk of every compile unit) for all the specs and
 * the funcs listing of a command: 0, or -ENOMEM.  A copy is
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
			return -ENOMEM;
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

/*
 * The name of function @die with the namespaces and classes that hold
 * its declaration ("ns::f<int>"), as C++ would write it: for one with no
 * linkage name (a static one only ever inlined, say); malloc()ed
 */
static char *die_qualified(Dwarf_Die *die)
{
	Dwarf_Die decl = *die, *chain = NULL;
	const char *name = dwarf_diename(die);
	Dwarf_Attribute attr;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int n, hops = 0;

	/* an inlined copy's function, and where that one was declared */
	while (hops++ < 8 &&
	       (dwarf_attr(&decl, DW_AT_abstract_origin, &attr) ||
		dwarf_attr(&decl, DW_AT_specification, &attr)))
		if (!dwarf_formref_die(&attr, &decl))
			break;
	if (!name)
		return NULL;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	n = dwarf_getscopes_die(&decl, &chain);
	for (int i = n - 1; i > 0; i--) {
		int tag = dwarf_tag(&chain[i]);
		const char *scope = dwarf_diename(&chain[i]);

		/* an unnamed namespace as the demangler names it */
		if (!scope && tag == DW_TAG_namespace)
			scope = "(anonymous namespace)";
		if (scope && (tag == DW_TAG_namespace ||
			      tag == DW_TAG_class_type ||
			      tag == DW_TAG_structure_type ||
			      tag == DW_TAG_union_type))
			fprintf(f, "%s::", scope);
	}
	fputs(name, f);
	fclose(f);
	free(chain);
	return out;
}

/* The name of @die, a function or what is inlined of one, demangled */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die,
				DW_AT_linkage_name, &attr));
	char *d = name ? up_demangle(name) : NULL;

	if (!d)
		d = die_qualified(die);
	name = d ? up_intern(d) : NULL;
	free(d);
	return name;
}

/*
 * The innermost function, inlined copy or block under @die whose code
 * holds @pc, into *@out, found through every child: the code of a
 * lambda, or of a member function of a class defined in a function, is
 * described inside that function, which does not hold it, and which
 * dwarf_getscopes() therefore does not look into.
 */
static bool die_holding(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die child;
	int tag;

	if (dwarf_child(die, &child))
		return false;
	do {
		tag = dwarf_tag(&child);
		if ((tag == DW_TAG_subprogram ||
		     tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block) &&
		    dwarf_haspc(&child, pc) > 0) {
			*out = child;
			die_holding(&child, pc, out);
			return true;
		}
		/* code is described only in these: the rest is data */
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type ||
		     tag == DW_TAG_union_type) &&
		    die_holding(&child, pc, out))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

int up_inlined_at(Dwfl_Module *m, Dwarf_Addr pc, const char **out, int max)
{
	Dwarf_Die *cu, *scopes = NULL, in;
	Dwarf_Addr bias;
	int n = 0, ns;

	cu = dwfl_module_addrdie(m, pc, &bias);
	ns = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
	/* no function of the unit holds it where dwarf_getscopes() looks */
	if (cu && (ns <= 0 || dwarf_tag(&scopes[0]) == DW_TAG_compile_unit) &&
	    die_holding(cu, pc - bias, &in)) {
		if (ns <= 0) {
			free(scopes);
			scopes = malloc(sizeof(*scopes));
			if (!scopes)
				return 0;
			ns = 1;
		}
		scopes[0] = in;
	}
	/*
	 * Those scopes stop at the innermost inlined function, and go on
	 * where it was defined; the functions it was inlined into are the
	 * scopes that hold its DIE, up to the real function.
	 */
	if (ns > 0) {
		Dwarf_Die *chain = NULL;
		int nc = dwarf_getscopes_die(&scopes[0], &chain);

		free(scopes);
		scopes = chain;
		ns = nc;
	}
	for (int i = 0; i < ns && n < max; i++) {
		const char *name;

		/* the real function: what holds it is no caller */
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		name = die_name(&scopes[i]);
		if (name)
			out[n++] = name;
	}
	free(scopes);
	return n;
}
