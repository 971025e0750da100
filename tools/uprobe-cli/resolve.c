// SPDX-License-Identifier: GPL-2.0
/*
 * Probe specs to file offsets: symbols from .symtab, .dynsym and the
 * separate debug file (libdwfl finds it through .gnu_debuglink or the
 * build id), lines from the DWARF line table, and instruction boundaries
 * checked with the kernel's own x86 instruction decoder.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <asm/insn.h>

#include "resolve.h"
#include "sdt.h"
#include "symbols.h"

bool up_no_inline;

const char *up_debuginfo_hint(void)
{
	static char hint[512];
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!urls || !*urls)
		return "install its debug symbols, or name a debuginfod server in DEBUGINFOD_URLS";
	snprintf(hint, sizeof(hint),
		 "not found locally, nor by debuginfod at %.300s: DEBUGINFOD_VERBOSE=1 says why",
		 urls);
	return hint;
}

static int vaddr_to_offset(struct up_binary *b, unsigned long vaddr,
			   unsigned long *offset)
{
	return up_translate(b, vaddr, true, true, offset);
}

static int offset_to_vaddr(struct up_binary *b, unsigned long offset,
			   unsigned long *vaddr)
{
	return up_translate(b, offset, false, false, vaddr);
}

/*
 * Is @vaddr an instruction boundary of function @fn?  Decodes from the
 * function's start.  1 yes, 0 no (*@prev is where the instruction it is
 * in starts), or -errno if it cannot tell: -ENOENT for an address in no
 * segment, -EIO if unread, -ENOEXEC if it does not decode.
 */
static int on_boundary(struct up_binary *b, const struct func *fn,
		       unsigned long vaddr, unsigned long *prev)
{
	unsigned long off, at = fn->vaddr;
	unsigned char buf[MAX_INSN_SIZE];

	while (at < vaddr) {
		struct insn insn;
		ssize_t got;

		if (vaddr_to_offset(b, at, &off))
			return -ENOENT;
		got = pread(b->fd, buf, sizeof(buf), off);
		if (got <= 0)
			return -EIO;
		if (insn_decode(&insn, buf, got, INSN_MODE_64) < 0)
			return -ENOEXEC;
		*prev = at;
		at += insn.length;
	}
	return at == vaddr;
}

/*
 * The place at @vaddr of @b, in function @fn, after the *@n in *@places
 * (counted in): 0, -ENOMEM, or -EFAULT if @vaddr is in no executable
 * segment.
 */
static int add_place(struct up_place **places, int *n, const char *path,
		     struct up_binary *b, unsigned long vaddr,
		     const struct func *fn)
{
	struct up_place *p = realloc(*places, (*n + 1) * sizeof(**places));

	if (!p)
		return -ENOMEM;
	*places = p;
	p += *n;
	memset(p, 0, sizeof(*p));
	p->path = up_intern(path);
	if (!p->path)
		return -ENOMEM;
	p->vaddr = vaddr;
	if (vaddr_to_offset(b, vaddr, &p->offset))
		return -EFAULT;
	if (fn) {
		snprintf(p->symbol, sizeof(p->symbol), "%s", fn->shown);
		p->sym_off = vaddr - fn->vaddr;
		p->func_size = fn->size;
		p->dup = fn->dup;
		p->func_vaddr = fn->vaddr;
		p->entered_in_window = !p->sym_off &&
			up_entered_in_window(b, fn->vaddr, fn->size);
	}
	(*n)++;
	return 0;
}

/*
 * "PROVIDER:NAME" (globs in both) after BINARY:sdt: in @b: the count of
 * places, or -errno with a message in @err (-EINVAL for a bad spec,
 * -ENOENT for no such marker, up_sdt_markers()'s).
 */
static int resolve_sdt(struct up_binary *b, const char *path,
		       const char *what, struct up_place **places, char *err,
		       size_t errlen)
{
	const char *colon = strchr(what, ':');
	struct up_sdt *m = NULL;
	struct up_place *p;
	char provider[64];
	int nm, n = 0;

	if (!colon || colon == what || !colon[1] ||
	    colon - what >= (long)sizeof(provider)) {
		up_set_err(err, errlen,
			"'sdt:%s': an SDT marker is BINARY:sdt:PROVIDER:NAME",
			what);
		return -EINVAL;
	}
	snprintf(provider, sizeof(provider), "%.*s", (int)(colon - what),
		 what);
	nm = up_sdt_markers(b, &m, err, errlen);
	for (int i = 0; i < nm; i++) {
		if (fnmatch(provider, m[i].provider, 0) ||
		    fnmatch(colon + 1, m[i].name, 0))
			continue;
		p = realloc(*places, (n + 1) * sizeof(**places));
		if (!p) {
			up_set_err(err, errlen, "out of memory");
			nm = -ENOMEM;
			break;
		}
		*places = p;
		p += n++;
		memset(p, 0, sizeof(*p));
		p->path = up_intern(path);
		if (!p->path) {
			up_set_err(err, errlen, "out of memory");
			nm = -ENOMEM;
			break;
		}
		snprintf(p->symbol, sizeof(p->symbol), "%s:%s", m[i].provider,
			 m[i].name);
		snprintf(p->sdt_args, sizeof(p->sdt_args), "%s", m[i].args);
		p->vaddr = m[i].vaddr;
		p->offset = m[i].offset;
		p->ref_offset = m[i].sem_offset;
		p->sdt = true;
		p->glob = !!strpbrk(what, "*?[");
	}
	free(m);
	if (nm >= 0 && !n)
		up_set_err(err, errlen, "%s: no SDT marker %s:%s%s", path,
			provider, colon + 1,
			nm ? "" : " (it has no .note.stapsdt)");
	if (nm < 0 || !n) {
		free(*places);
		*places = NULL;
		return nm < 0 ? nm : -ENOENT;
	}
	return n;
}

/* What a spec's part after BINARY: is resolved against. */
struct spec_ctx {
	struct up_binary *b;
	const char *path;
	const struct func *f;	/* its sym_functions() */
	size_t nf;
	char *err;
	size_t errlen;
};

/*
 * Where a spec of one place points: @vaddr, in function @fn (NULL if in
 * none); @check if it may be inside an instruction.
 */
struct target {
	unsigned long vaddr;
	const struct func *fn;
	bool check;
};

/*
 * The place @t, into *@places after the *@n there (counted in), once it
 * is known to start an instruction if it may not; 0, or -errno with a
 * message: -EINVAL inside an instruction, -EFAULT not in executable
 * text, -ENOMEM.  Never -ENOENT, which spec_symbol() keeps for no
 * function of the name.
 */
static int target_place(const struct spec_ctx *c, const struct target *t,
			struct up_place **places, int *n)
{
	const struct func *fn = t->fn;
	unsigned long prev = 0;
	int r;

	if (t->check && fn && t->vaddr != fn->vaddr &&
	    on_boundary(c->b, fn, t->vaddr, &prev) == 0) {
		up_set_err(c->err, c->errlen,
			"%s: %#lx (%s+%#lx) is inside an instruction, which starts at %s+%#lx",
			c->path, t->vaddr, fn->name, t->vaddr - fn->vaddr,
			fn->name, prev - fn->vaddr);
		return -EINVAL;
	}
	r = add_place(places, n, c->path, c->b, t->vaddr, fn);
	if (r == -EFAULT)
		up_set_err(c->err, c->errlen,
			"%s: %#lx is not in executable text", c->path,
			t->vaddr);
	else if (r)
		up_set_err(c->err, c->errlen, "out of memory");
	return r;
}

/*
 * The colon of FILE:LINE in @what, or NULL: its last colon that is not
 * half of a C++ "::".  With "::" or a '(' in it, @what is a C++ name
 * unless a line number follows that colon ("ns::f(int)",
 * "f[abi:cxx11]()"); without, it is FILE:LINE, a bad one if no number
 * follows.
 */
static const char *line_colon(const char *what)
{
	const char *colon = NULL;

	for (const char *p = what; (p = strchr(p, ':')); p++) {
		if (p[1] == ':') {
			p++;
			continue;
		}
		colon = p;
	}
	if (!colon || (!strstr(what, "::") && !strchr(what, '(')))
		return colon;
	return colon[1] && strspn(colon + 1, "0123456789") ==
			   strlen(colon + 1) ? colon : NULL;
}

bool up_spec_is_line(const char *what)
{
	return line_colon(what) != NULL;
}

/*
 * FILE:LINE (@colon its colon): the line's lowest address; 0, or -EINVAL
 * (a bad line number) or -ENOENT (no code for it) with a message.
 */
static int spec_line(const struct spec_ctx *c, const char *what,
		     const char *colon, struct target *t)
{
	char file[PATH_MAX], *end;
	Dwfl_Line **lines = NULL;
	size_t nlines = 0;
	long line = strtol(colon + 1, &end, 10);

	snprintf(file, sizeof(file), "%.*s", (int)(colon - what), what);
	if (*end || line <= 0) {
		up_set_err(c->err, c->errlen, "%s: bad line number in '%s'",
			c->path, what);
		return -EINVAL;
	}
	if (dwfl_module_getsrc_file(c->b->mod, file, line, 0, &lines,
				    &nlines) || !nlines) {
		bool dwarf = dwfl_module_getdwarf(c->b->mod,
						  &(Dwarf_Addr){ 0 });

		up_set_err(c->err, c->errlen,
			"%s: no code for %s:%ld in its line table%s%s%s",
			c->path, file, line, dwarf ? "" : " (no DWARF debug info: ",
			dwarf ? "" : up_debuginfo_hint(), dwarf ? "" : ")");
		free(lines);
		return -ENOENT;
	}
	t->vaddr = ~0UL;
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Addr a;

		if (dwfl_lineinfo(lines[i], &a, NULL, NULL, NULL, NULL) &&
		    a - c->b->bias < t->vaddr)
			t->vaddr = a - c->b->bias;
	}
	free(lines);
	t->fn = sym_containing(c->f, c->nf, t->vaddr);
	return 0;
}

/* 0xADDR or a decimal address: 0, or -EINVAL with a message */
static int spec_address(const struct spec_ctx *c, const char *what,
			struct target *t)
{
	char *end;

	errno = 0;
	t->vaddr = strtoul(what, &end, 0);
	if (*end || errno) {
		up_set_err(c->err, c->errlen, "%s: bad address '%s'", c->path,
			what);
		return -EINVAL;
	}
	t->fn = sym_containing(c->f, c->nf, t->vaddr);
	t->check = true;
	return 0;
}

/*
 * A constructor's or destructor's variant that another variant calls
 * (the Itanium C++ ABI's): the deleting destructor (D0) calls the
 * complete one, and the unified ones (C4, D4) are what the complete
 * and base object variants call where they are not copies.  Probing
 * them too would count one object twice.
 */
static bool called_variant(const char *mangled)
{
	return strstr(mangled, "D0E") || strstr(mangled, "C4E") ||
	       strstr(mangled, "D4E");
}

/*
 * SYMBOL[+OFF] where several functions (not older versions) at several
 * addresses have the name of @t->fn: static functions of two source
 * files, or with @by_shown the variants of a C++ constructor or
 * destructor, which share their C++ name (less those another variant
 * calls); each of them, at @off, into *@places; their count, or -errno
 * with a message: -EINVAL for @off beyond one's end, target_place()'s.
 */
static int spec_same_name(const struct spec_ctx *c, struct target *t,
			  unsigned long off, bool by_shown,
			  struct up_place **places)
{
	const struct func *fn = t->fn;
	int n = 0, r;

	for (size_t i = 0; i < c->nf; i++) {
		if (strcmp(by_shown ? c->f[i].shown : c->f[i].name,
			   by_shown ? fn->shown : fn->name) ||
		    c->f[i].old_version)
			continue;
		if (by_shown && called_variant(c->f[i].name))
			continue;
		/* two names of one address (a C++ alias): one place */
		if (n && (*places)[n - 1].func_vaddr == c->f[i].vaddr)
			continue;
		t->fn = &c->f[i];
		t->vaddr = c->f[i].vaddr + off;
		if (c->f[i].size && off >= c->f[i].size) {
			up_set_err(c->err, c->errlen,
				"%s: %s+%#lx is beyond the end of the %s at %#lx (size %#lx)",
				c->path, fn->shown, off, fn->shown,
				c->f[i].vaddr, c->f[i].size);
			return -EINVAL;
		}
		r = target_place(c, t, places, &n);
		if (r)
			return r;
		/* told apart by address, as static functions are */
		(*places)[n - 1].dup = true;
	}
	if (!n) {
		/* only variants that others call: @fn's own */
		t->fn = fn;
		t->vaddr = fn->vaddr + off;
		r = target_place(c, t, places, &n);
		if (r)
			return r;
	}
	return n;
}

/* Do other functions, at other addresses, have @fn's C++ name? */
static bool shown_dup(const struct spec_ctx *c, const struct func *fn)
{
	for (size_t i = 0; i < c->nf; i++)
		if (c->f[i].vaddr != fn->vaddr && !c->f[i].old_version &&
		    !strcmp(c->f[i].shown, fn->shown))
			return true;
	return false;
}

/*
 * Where the offset of SYMBOL+OFF begins: the last '+' if a digit
 * follows it; else NULL in a C++ operator's name, whose '+' is its own
 * ("operator+(V const&)", "operator++"); else that '+' (a bad offset).
 */
static const char *offset_plus(const char *what)
{
	const char *plus = strrchr(what, '+');

	if (!plus || isdigit((unsigned char)plus[1]))
		return plus;
	return strstr(what, "operator") ? NULL : plus;
}

static int spec_inlined(const struct spec_ctx *c, const char *name,
			const char *shown, struct up_place **places, int n);

/*
 * A C++ name without its parameters, @name[+@off]: every overload
 * ("ns::Klass::method" is "ns::Klass::method(int)" and
 * "ns::Klass::method(double) const", "f" is "f[abi:cxx11]()" too), and
 * with @inline_too the copies
 * of each that were inlined.  Their count, 0 if none has the name, or
 * -errno with a message: -EINVAL for @off beyond one's end,
 * target_place()'s, spec_inlined()'s.
 */
static int spec_overloads(const struct spec_ctx *c, const char *name,
			  unsigned long off, bool inline_too,
			  struct up_place **places)
{
	const struct func *fn, *last = NULL;
	size_t len = strlen(name);
	int n = 0, r;

	/* variants that others call only if nothing else has the name */
	for (size_t k = 0; k < 2 * c->nf && !(k == c->nf && n); k++) {
		size_t i = k % c->nf;
		struct target t = { .check = off != 0, .fn = &c->f[i] };

		fn = &c->f[i];
		if (k == c->nf)
			last = NULL;
		/* a clone (.cold, .isra) is no function's entry */
		if (fn->shown == fn->name || fn->old_version ||
		    strncmp(fn->shown, name, len) ||
		    (fn->shown[len] != '(' &&
		     strncmp(fn->shown + len, "[abi:", 5)) ||
		    strstr(fn->shown, " [clone ") ||
		    (k < c->nf && called_variant(fn->name)))
			continue;
		/* two names of one address (a C++ alias): one place */
		if (last && last->vaddr == fn->vaddr)
			continue;
		last = fn;
		if (fn->size && off >= fn->size) {
			up_set_err(c->err, c->errlen,
				"%s: %s+%#lx is beyond the end of %s (size %#lx)",
				c->path, fn->shown, off, fn->shown, fn->size);
			return -EINVAL;
		}
		t.vaddr = fn->vaddr + off;
		r = target_place(c, &t, places, &n);
		if (r)
			return r;
		if (inline_too) {
			n = spec_inlined(c, fn->name, fn->shown, places, n);
			if (n < 0)
				return n;
		}
	}
	/* a constructor's variants: one name, told apart by address */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (!(*places)[i].inline_of && !(*places)[j].inline_of &&
			    (*places)[i].func_vaddr != (*places)[j].func_vaddr &&
			    !strcmp((*places)[i].symbol, (*places)[j].symbol))
				(*places)[i].dup = true;
	return n;
}

/*
 * SYMBOL[+OFF]: the default version of a versioned name, as ld.so
 * binds; a C++ name (demangled) as well as its mangled one.  0 with
 * @t set, the count of places if it gave several, -ENOENT no such
 * function (which a function the compiler only inlined lacks), or
 * another -errno with a message (-EINVAL for a bad offset).
 */
static int spec_symbol(const struct spec_ctx *c, const char *what,
		       struct target *t, struct up_place **places)
{
	const char *plus = offset_plus(what);
	char name[1024], hint[512], *end;
	unsigned long off = 0;
	bool by_shown;

	snprintf(name, sizeof(name), "%.*s",
		 (int)(plus ? plus - what : (long)strlen(what)), what);
	if (plus) {
		errno = 0;
		off = strtoul(plus + 1, &end, 0);
		if (*end || errno || plus[1] == '\0') {
			up_set_err(c->err, c->errlen, "%s: bad offset in '%s'",
				c->path, what);
			return -EINVAL;
		}
		t->check = true;
	}
	/* by its symbol's name first, then by its C++ name */
	for (size_t i = 0; i < c->nf; i++)
		if (!strcmp(c->f[i].name, name) &&
		    (!t->fn || (t->fn->old_version && !c->f[i].old_version)))
			t->fn = &c->f[i];
	by_shown = !t->fn;
	for (size_t i = 0; by_shown && i < c->nf; i++)
		if (!strcmp(c->f[i].shown, name) && !c->f[i].old_version &&
		    (!t->fn || called_variant(t->fn->name)))
			t->fn = &c->f[i];
	if (!t->fn && !strchr(name, '(')) {
		int n = spec_overloads(c, name, off,
				       !plus && !up_no_inline, places);

		if (n)
			return n;
	}
	if (!t->fn) {
		sym_suggest(c->f, c->nf, name, hint, sizeof(hint));
		up_set_err(c->err, c->errlen, "%s: no function '%s'%s", c->path,
			name, hint);
		/* only inlined, maybe: see spec_inlined() */
		return -ENOENT;
	}
	/*
	 * static functions of one name in several source files: all; the
	 * variants of a constructor or destructor named by its C++ name
	 */
	if (!t->fn->old_version &&
	    (t->fn->dup || (by_shown && shown_dup(c, t->fn))))
		return spec_same_name(c, t, off, by_shown, places);
	if (t->fn->size && off >= t->fn->size) {
		up_set_err(c->err, c->errlen,
			"%s: %s+%#lx is beyond the end of %s (size %#lx)",
			c->path, name, off, name, t->fn->size);
		return -EINVAL;
	}
	t->vaddr = t->fn->vaddr + off;
	return 0;
}

/*
 * The copies of function @name (its symbol's name, or DWARF's) that the
 * compiler inlined, after the @n places in *@places (each at most once),
 * shown as copies of @shown: the new count, or -errno with a message
 * (-ENOMEM, target_place()'s).
 */
static int spec_inlined(const struct spec_ctx *c, const char *name,
			const char *shown, struct up_place **places, int n)
{
	const struct up_inlined *in;
	const char *kept = up_intern(shown);
	size_t k;
	int r;

	if (!kept || up_inlined_copies(c->b)) {
		up_set_err(c->err, c->errlen, "out of memory");
		return -ENOMEM;
	}
	in = up_inlined_of(c->b, name, &k);
	for (size_t i = 0; i < k; i++) {
		struct target t = { .check = true, .vaddr = in[i].entry };
		bool there = false;

		for (int j = 0; j < n && !there; j++)
			there = (*places)[j].vaddr == t.vaddr;
		if (there)
			continue;
		t.fn = sym_containing(c->f, c->nf, t.vaddr);
		r = target_place(c, &t, places, &n);
		if (r)
			return r;
		(*places)[n - 1].inline_of = kept;
	}
	return n;
}

/*
 * Of two names of one function, is @a the one to show rather than @b?
 * The one with fewer leading underscores (execve, not __execve or
 * __GI___execve), then the shorter, then the first in byte order.
 */
static bool alias_better(const char *a, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_");

	if (ua != ub)
		return ua < ub;
	if (strlen(a) != strlen(b))
		return strlen(a) < strlen(b);
	return strcmp(a, b) < 0;
}

/* Does glob @glob match @f's name, or its C++ name? */
static bool func_matches(const struct func *f, const char *glob)
{
	return !fnmatch(glob, f->name, 0) ||
	       (f->shown != f->name && !fnmatch(glob, f->shown, 0));
}

/*
 * Is @what the name of one of @f[0..@n)?  A C++ name has glob characters
 * of its own ("V::operator*(V const&)", "f[abi:cxx11]()"): given whole,
 * it is that function, not a glob.
 */
static bool names_one(const struct func *f, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, what) || !strcmp(f[i].shown, what))
			return true;
	return false;
}

/*
 * GLOB: every function it matches, into *@places, once per address
 * (under the name alias_better() picks); their count, or -errno with a
 * message: -ENOENT if none matches, -E2BIG if too many do, -ENOMEM.
 */
static int spec_glob(const struct spec_ctx *c, const char *what,
		     struct up_place **places)
{
	int n = 0;

	for (size_t i = 0; i < c->nf; i++) {
		if (!func_matches(&c->f[i], what))
			continue;
		/* another name of the last one's address: one probe */
		if (n && (*places)[n - 1].vaddr == c->f[i].vaddr) {
			struct up_place *p = &(*places)[n - 1];

			/* its name, and whether another function has it */
			if (alias_better(c->f[i].shown, p->symbol)) {
				snprintf(p->symbol, sizeof(p->symbol), "%s",
					 c->f[i].shown);
				p->dup = c->f[i].dup;
			}
			continue;
		}
		if (n >= UP_GLOB_MAX) {
			up_set_err(c->err, c->errlen,
				"%s: '%s' matches more than %d functions; narrow it",
				c->path, what, UP_GLOB_MAX);
			return -E2BIG;
		}
		if (add_place(places, &n, c->path, c->b, c->f[i].vaddr,
			      &c->f[i]) == -ENOMEM) {
			up_set_err(c->err, c->errlen, "out of memory");
			return -ENOMEM;
		}
		(*places)[n - 1].glob = true;
	}
	if (!n)
		up_set_err(c->err, c->errlen, "%s: no function matches '%s'",
			c->path, what);
	return n ? n : -ENOENT;
}

/*
 * Resolve the part after BINARY: in @b, by its kind: FILE:LINE, an
 * address, a glob or SYMBOL[+OFF].  The count of places, or -errno
 * with a message (-EINVAL for a bad spec, -ENOENT for nothing found).
 */
static int resolve_in(struct up_binary *b, const char *path, const char *what,
		      struct up_place **places, char *err, size_t errlen)
{
	struct spec_ctx c = {
		.b = b, .path = path, .err = err, .errlen = errlen,
	};
	const char *colon = line_colon(what);
	struct target t = { 0 };
	struct func *f = sym_functions(b, &c.nf);
	bool inline_too = false;
	int n;

	if (!f) {
		up_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c.f = f;
	if (!*what) {
		up_set_err(err, errlen, "%s: no symbol, address or line given",
			path);
		n = -EINVAL;
	} else if (colon) {
		n = spec_line(&c, what, colon, &t);
	} else if (!strncmp(what, "0x", 2) || isdigit((unsigned char)*what)) {
		n = spec_address(&c, what, &t);
	} else if (strpbrk(what, "*?[") && !names_one(f, c.nf, what)) {
		n = spec_glob(&c, what, places);
	} else {
		n = spec_symbol(&c, what, &t, places);
		/* its copies inlined into its callers too */
		inline_too = !up_no_inline && !offset_plus(what);
	}
	/* one place, unless a glob or a shared name gave their own */
	if (!n) {
		int r = target_place(&c, &t, places, &n);

		if (r)
			n = r;
	}
	/*
	 * -ENOENT: no symbol, which a function the compiler only inlined
	 * lacks.  A C++ function's copies go by its mangled (linkage) name.
	 */
	if (inline_too && (n >= 0 || n == -ENOENT)) {
		int k = spec_inlined(&c, t.fn ? t.fn->name : what,
				     t.fn ? t.fn->shown : what, places,
				     n < 0 ? 0 : n);

		if (k)
			n = k;
	}
	free(f);
	if (n < 0) {
		free(*places);
		*places = NULL;
	}
	return n;
}

int up_resolve(const char *spec, pid_t pid, struct up_place **places,
	       char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	char name[PATH_MAX], path[PATH_MAX];
	struct up_binary *b;
	int r;

	*places = NULL;
	if (!colon || colon == spec) {
		up_set_err(err, errlen,
			"'%s': a probe is BINARY:SYMBOL[+OFF], BINARY:0xADDR, BINARY:FILE:LINE or BINARY:GLOB",
			spec);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	r = up_find_binary(name, pid, path, sizeof(path), err, errlen);
	if (r)
		return r;
	b = up_binary_get(path, err, errlen);
	if (!b)
		return -errno;
	if (!strncmp(colon + 1, "sdt:", 4))
		return resolve_sdt(b, path, colon + 5, places, err, errlen);
	return resolve_in(b, path, colon + 1, places, err, errlen);
}

int up_functions(const char *path, const char *glob,
		 void (*fn)(const struct up_place *place, unsigned long size,
			    unsigned int inlined, void *arg),
		 void *arg, char *err, size_t errlen)
{
	const char *kept = up_intern(path);
	struct up_binary *b;
	bool exact;
	struct func *f;
	size_t nf = 0, k;
	int ret;

	if (!kept) {
		up_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b = up_binary_get(path, err, errlen);
	if (!b)
		return -errno;
	f = sym_functions(b, &nf);
	if (f && up_inlined_copies(b)) {
		free(f);
		f = NULL;
	}
	if (!f)
		up_set_err(err, errlen, "out of memory");
	/* a whole name with glob characters of its own: that function */
	exact = glob && f && names_one(f, nf, glob);
	for (size_t i = 0; f && i < nf; i++) {
		struct up_place p = { .vaddr = f[i].vaddr, .path = kept };

		if (glob && (exact ? strcmp(f[i].name, glob) &&
				     strcmp(f[i].shown, glob) :
				     !func_matches(&f[i], glob)))
			continue;
		if (vaddr_to_offset(b, f[i].vaddr, &p.offset))
			continue;
		snprintf(p.symbol, sizeof(p.symbol), "%s", f[i].shown);
		up_inlined_of(b, f[i].name, &k);
		fn(&p, f[i].size, k, arg);
	}
	ret = f ? 0 : -ENOMEM;
	free(f);
	return ret;
}

/* A binary kept open to describe many of its offsets */
struct up_describer {
	char path[PATH_MAX];
	bool open;		/* @b and @f are @path's */
	struct up_binary b;
	struct func *f;
	size_t nf;
};

struct up_describer *up_describer_new(void)
{
	return calloc(1, sizeof(struct up_describer));
}

static void describer_drop(struct up_describer *d)
{
	if (d->open) {
		free(d->f);
		up_binary_close(&d->b);
	}
	d->open = false;
}

void up_describer_free(struct up_describer *d)
{
	if (d)
		describer_drop(d);
	free(d);
}

int up_describe_in(struct up_describer *d, const char *path,
		   unsigned long offset, struct up_place *place)
{
	const struct func *fn;
	char err[256];
	int r;

	memset(place, 0, sizeof(*place));
	place->path = up_intern(path);
	if (!place->path)
		return -ENOMEM;
	place->offset = offset;
	if (!d->open || strcmp(d->path, path)) {
		describer_drop(d);
		r = up_binary_open(path, &d->b, err, sizeof(err));
		if (r)
			return r;
		d->nf = 0;
		d->f = sym_functions(&d->b, &d->nf);
		snprintf(d->path, sizeof(d->path), "%s", path);
		d->open = true;
	}
	r = offset_to_vaddr(&d->b, offset, &place->vaddr);
	if (r)
		return r;
	fn = d->f ? sym_containing(d->f, d->nf, place->vaddr) : NULL;
	if (fn) {
		snprintf(place->symbol, sizeof(place->symbol), "%s", fn->shown);
		place->sym_off = place->vaddr - fn->vaddr;
	}
	return 0;
}

int up_describe(const char *path, unsigned long offset,
		struct up_place *place)
{
	struct up_describer *d = up_describer_new();
	int ret = d ? up_describe_in(d, path, offset, place) : -ENOMEM;

	up_describer_free(d);
	return ret;
}
