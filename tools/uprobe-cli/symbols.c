// SPDX-License-Identifier: GPL-2.0
/*
 * The function symbols of a binary, from .symtab, .dynsym and the
 * separate debug file as libdwfl gives them: de-duplicated, their C++
 * names demangled, statics that share a name marked; and the names
 * close to one that is not there.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* libstdc++'s demangler, the C++ ABI's own, callable from C */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

/*
 * The C++ name that @name is the mangled form of, allocated, or NULL
 * (not a mangled name, or out of memory): "_ZN2ns5KlassIlE6methodEi" is
 * "ns::Klass<long>::method(int)", a clone "_Z3fooi.cold" is
 * "foo(int) [clone .cold]".
 */
char *up_demangle(const char *name)
{
	int status;

	if (strncmp(name, "_Z", 2))
		return NULL;
	return __cxa_demangle(name, NULL, NULL, &status);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(struct func *const *)a)->name,
		      (*(struct func *const *)b)->name);
}

/*
 * Mark the functions of @f[0..@n) whose name another one has, at another
 * address (static functions of two source files, two versions): sorted
 * by name, in O(n log n).  0, or -ENOMEM.
 */
static int mark_dups(struct func *f, size_t n)
{
	struct func **by_name = malloc((n + 1) * sizeof(*by_name));

	if (!by_name)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by_name[i] = &f[i];
	qsort(by_name, n, sizeof(*by_name), name_cmp);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(by_name[i - 1]->name, by_name[i]->name))
			by_name[i - 1]->dup = by_name[i]->dup = true;
	free(by_name);
	return 0;
}

/*
 * The function symbols of @b, in address order, each name once at an
 * address.  A versioned name of a debug file's .symtab
 * ("__libc_start_main@@GLIBC_2.34", "...@GLIBC_2.2.5") goes by its
 * name alone, as in .dynsym; the names cut short live after the array,
 * in the same allocation.
 */
struct func *sym_functions(struct up_binary *b, size_t *count)
{
	int n = dwfl_module_getsymtab(b->mod);
	size_t k = 0, pool = 0;
	struct func *f;
	char *names;

	if (n < 0)
		n = 0;
	for (int i = 1; i < n; i++) {
		const char *name = dwfl_module_getsym_info(b->mod, i,
							   &(GElf_Sym){ 0 },
							   &(GElf_Addr){ 0 },
							   NULL, NULL, NULL);

		if (name && strchr(name, '@'))
			pool += strcspn(name, "@") + 1;
	}
	f = calloc(1, (n + 1) * sizeof(*f) + pool);
	if (!f)
		return NULL;
	if (!b->demangled_found && n > 0) {
		b->demangled = calloc(n, sizeof(*b->demangled));
		if (!b->demangled) {
			free(f);
			return NULL;
		}
		b->ndemangled = n;
	}
	names = (char *)(f + n + 1);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(b->mod, i, &sym,
							   &addr, NULL, NULL,
							   NULL);
		size_t len;

		if (!name || !*name || *name == '@' ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		if (strchr(name, '@')) {
			f[k].old_version = !strstr(name, "@@");
			len = strcspn(name, "@");
			memcpy(names, name, len);
			names[len] = '\0';
			name = names;
			names += len + 1;
		}
		f[k].name = name;
		if (!b->demangled_found)
			b->demangled[i] = up_demangle(name);
		f[k].shown = (size_t)i < b->ndemangled && b->demangled[i] ?
			     b->demangled[i] : name;
		f[k].vaddr = sym.st_value;
		f[k].size = sym.st_size;
		k++;
	}
	b->demangled_found = true;
	qsort(f, k, sizeof(*f), func_cmp);
	/* .symtab and .dynsym, or two versions, list one function twice */
	*count = 0;
	for (size_t i = 0; i < k; i++) {
		if (!*count || f[*count - 1].vaddr != f[i].vaddr ||
		    strcmp(f[*count - 1].name, f[i].name))
			f[(*count)++] = f[i];
		else
			f[*count - 1].old_version &= f[i].old_version;
	}
	if (mark_dups(f, *count)) {
		free(f);
		return NULL;
	}
	return f;
}

const struct func *sym_containing(const struct func *f, size_t n,
				  unsigned long vaddr)
{
	const struct func *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (f[i].vaddr <= vaddr &&
		    (vaddr < f[i].vaddr + f[i].size ||
		     (!f[i].size && f[i].vaddr == vaddr)))
			best = &f[i];
	return best;
}

static unsigned int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int *row = calloc(lb + 1, sizeof(*row)), d;

	if (!row)
		return ~0U;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

void sym_suggest(const struct func *f, size_t n, const char *name,
		 char *out, size_t len)
{
	const char *best[3] = { 0 };
	unsigned int dist[3] = { ~0U, ~0U, ~0U };
	unsigned int limit = strlen(name) / 3 + 1;

	for (size_t i = 0; i < n; i++) {
		unsigned int d = edit_distance(name, f[i].shown);

		if (d > limit && !strstr(f[i].shown, name))
			continue;
		for (int k = 0; k < 3; k++) {
			if (best[k] && !strcmp(best[k], f[i].shown))
				break;
			if (d < dist[k]) {
				for (int m = 2; m > k; m--) {
					best[m] = best[m - 1];
					dist[m] = dist[m - 1];
				}
				best[k] = f[i].shown;
				dist[k] = d;
				break;
			}
		}
	}
	*out = '\0';
	for (int k = 0; k < 3 && best[k]; k++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
			 k ? ", " : " (did you mean: ", best[k]);
	if (*out)
		snprintf(out + strlen(out), len - strlen(out), "?)");
}
