// SPDX-License-Identifier: GPL-2.0
/*
 * C variables at a probe, as fetch arguments for utprobe_events, with
 * libdw: the variable's location at the probe's address (location lists
 * included), its frame base through the call frame information, members
 * and elements through its type, and the fetch type from the type.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>

#include "dwarfvar.h"

/* x86-64 DWARF register numbers, by the kernel's names for them */
static const char *const regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};
#define NREGS	(sizeof(regs) / sizeof(regs[0]))

/* Where a value is: in a register, in memory, or a constant */
struct loc {
	enum { LOC_REG, LOC_MEM, LOC_FILE, LOC_IMM, LOC_RETVAL } kind;
	char base[400];		/* LOC_REG: the register; LOC_MEM: the
				 * fetch argument whose value the address
				 * is relative to */
	long off;		/* LOC_MEM: from base; LOC_FILE: the file
				 * offset, as @+OFFSET takes it */
	unsigned long imm;	/* LOC_IMM */
};

/* The probe's context for a translation */
struct at {
	struct up_binary *b;
	Dwarf_Addr pc;		/* the probe's address, in DWARF's terms */
	Dwarf_Addr dwbias;	/* DWARF's address + dwbias = libdwfl's */
	unsigned long vaddr;	/* the probe's link-time address */
	char *err;
	size_t errlen;
};

/* The message into @at's, and @err, a -errno, returned */
static int fail(struct at *at, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(at->err, at->errlen, fmt, ap);
	va_end(ap);
	return err;
}

/* @l's value as a fetch argument's text */
static void render(const struct loc *l, char *out, size_t size)
{
	switch (l->kind) {
	case LOC_REG:
		snprintf(out, size, "%%%s", l->base);
		break;
	case LOC_MEM:
		snprintf(out, size, "%c%ld(%s)", l->off < 0 ? '-' : '+',
			 labs(l->off), l->base);
		break;
	case LOC_FILE:
		snprintf(out, size, "@+%#lx", (unsigned long)l->off);
		break;
	case LOC_IMM:
		snprintf(out, size, "\\%lu", l->imm);
		break;
	case LOC_RETVAL:
		snprintf(out, size, "$retval");
		break;
	}
}

/* The value of @l is an address: the memory there, at @off */
static void follow(struct loc *l, long off)
{
	char base[sizeof(l->base)];

	render(l, base, sizeof(base));
	snprintf(l->base, sizeof(l->base), "%s", base);
	l->kind = LOC_MEM;
	l->off = off;
}

static const char *reg_name(unsigned int dwarf_reg)
{
	return dwarf_reg < NREGS ? regs[dwarf_reg] : NULL;
}

/*
 * A register-relative op (DW_OP_bregN, DW_OP_bregx) into @l: 0, or
 * -EOPNOTSUPP with a message.
 */
static int breg(struct at *at, const Dwarf_Op *op, struct loc *l)
{
	unsigned int r = op->atom == DW_OP_bregx ? op->number :
			 (unsigned int)(op->atom - DW_OP_breg0);
	long off = op->atom == DW_OP_bregx ? (long)op->number2 :
		   (long)op->number;

	if (!reg_name(r))
		return fail(at, -EOPNOTSUPP,
			    "DWARF register %u has no name in fetch arguments",
			    r);
	l->kind = LOC_MEM;
	snprintf(l->base, sizeof(l->base), "%%%s", reg_name(r));
	l->off = off;
	return 0;
}

/*
 * The canonical frame address at the probe, from the CFI, into @l: 0, or
 * -errno with a message.
 */
static int cfa(struct at *at, struct loc *l)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(at->b->mod, &bias);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	int r;

	if (!cfi)
		cfi = dwfl_module_eh_cfi(at->b->mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, at->vaddr + at->b->bias - bias,
					&frame) &&
	    !dwarf_frame_cfa(frame, &ops, &n) && n == 1 &&
	    (ops[0].atom == DW_OP_bregx ||
	     (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)))
		r = breg(at, &ops[0], l);
	else
		r = fail(at, -ENOENT,
			 "no call frame information for %#lx: cannot find its frame",
			 at->vaddr);
	free(frame);
	return r;
}

/* The frame base of @func at the probe into @l: 0, or -errno, a message */
static int frame_base(struct at *at, Dwarf_Die *func, struct loc *l)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	if (!func || !dwarf_attr_integrate(func, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, at->pc, &ops, &n, 1) != 1 || !n)
		return fail(at, -ENOENT, "no frame base at %#lx", at->vaddr);
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return cfa(at, l);
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
		return breg(at, &ops[0], l);
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31 &&
	    reg_name(ops[0].atom - DW_OP_reg0)) {
		l->kind = LOC_MEM;
		snprintf(l->base, sizeof(l->base), "%%%s",
			 reg_name(ops[0].atom - DW_OP_reg0));
		l->off = 0;
		return 0;
	}
	return fail(at, -EOPNOTSUPP,
		    "a frame base this tool does not read (DW_OP %#x)",
		    ops[0].atom);
}

/*
 * @a, a link-time address of the binary's data, as an offset that
 * @+OFFSET takes: the kernel adds it to where the probed file's offset 0
 * would be mapped, by the probe's own segment.  0, or -ENOENT if no
 * segment holds the probe (-ENOEXEC if the program headers cannot be
 * read).
 */
static int file_offset(struct at *at, unsigned long a, long *off)
{
	size_t n;

	if (elf_getphdrnum(at->b->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(at->b->elf, i, &ph) ||
		    ph.p_type != PT_LOAD || at->vaddr < ph.p_vaddr ||
		    at->vaddr >= ph.p_vaddr + ph.p_memsz)
			continue;
		*off = (long)(a - (ph.p_vaddr - ph.p_offset));
		return 0;
	}
	return -ENOENT;
}

static const char *op_name(unsigned int atom)
{
	switch (atom) {
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		return "known only at the function's entry (DW_OP_entry_value)";
	case DW_OP_implicit_value:
		return "a value computed by the compiler (DW_OP_implicit_value)";
	case DW_OP_stack_value:
		return "a value computed from others (DW_OP_stack_value)";
	case DW_OP_implicit_pointer:
	case DW_OP_GNU_implicit_pointer:
		return "a pointer optimized out (DW_OP_implicit_pointer)";
	default:
		return NULL;
	}
}

/*
 * The location expression @ops[0..@n) into @l.  The first piece only,
 * if the value is in pieces and that one holds all of its @size bytes.
 * 0, or -errno with a message: -EOPNOTSUPP for a location this tool does
 * not read, -ENOENT for no frame or segment.
 */
static int expr_loc(struct at *at, Dwarf_Die *func, const Dwarf_Op *ops,
		    size_t n, Dwarf_Word size, struct loc *l)
{
	const char *why;
	long off;
	int r;

	for (size_t i = 1; i < n; i++) {
		if (ops[i].atom != DW_OP_piece)
			continue;
		if (i != 1 || ops[i].number < size)
			return fail(at, -EOPNOTSUPP,
				    "in pieces (DW_OP_piece), which this tool does not join");
		n = 1;
	}
	if (n == 2 && ops[1].atom == DW_OP_stack_value &&
	    ((ops[0].atom >= DW_OP_lit0 && ops[0].atom <= DW_OP_lit31) ||
	     ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_consts)) {
		l->kind = LOC_IMM;
		l->imm = ops[0].atom == DW_OP_constu ||
			 ops[0].atom == DW_OP_consts ? ops[0].number :
			 (unsigned long)(ops[0].atom - DW_OP_lit0);
		return 0;
	}
	if (n != 1) {
		for (size_t i = 0; i < n; i++) {
			why = op_name(ops[i].atom);
			if (why)
				return fail(at, -EOPNOTSUPP, "%s", why);
		}
		return fail(at, -EOPNOTSUPP,
			    "a location of %zu operations, which this tool does not compute",
			    n);
	}
	if ((ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) ||
	    ops[0].atom == DW_OP_regx) {
		unsigned int r = ops[0].atom == DW_OP_regx ? ops[0].number :
				 (unsigned int)(ops[0].atom - DW_OP_reg0);

		if (!reg_name(r))
			return fail(at, -EOPNOTSUPP,
				    "in DWARF register %u, which fetch arguments cannot read",
				    r);
		l->kind = LOC_REG;
		snprintf(l->base, sizeof(l->base), "%s", reg_name(r));
		return 0;
	}
	if ((ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) ||
	    ops[0].atom == DW_OP_bregx)
		return breg(at, &ops[0], l);
	if (ops[0].atom == DW_OP_fbreg) {
		r = frame_base(at, func, l);
		if (r)
			return r;
		l->off += (long)ops[0].number;
		return 0;
	}
	if (ops[0].atom == DW_OP_addr) {
		if (file_offset(at, ops[0].number, &off))
			return fail(at, -ENOENT,
				    "at %#lx, in no segment of the file",
				    (unsigned long)ops[0].number);
		l->kind = LOC_FILE;
		l->off = off;
		return 0;
	}
	why = op_name(ops[0].atom);
	return fail(at, -EOPNOTSUPP,
		    "%s", why ? why : "a location this tool does not read");
}

/*
 * Where the value of @attr is available, for a message: "0x10-0x20,
 * ..." (link-time addresses), ranges that touch joined.
 */
static void ranges(struct at *at, Dwarf_Attribute *attr, char *out,
		   size_t size)
{
	Dwarf_Addr base, start, end, from = 0, to = 0;
	ptrdiff_t off = 0;
	Dwarf_Op *ops;
	size_t n, len = 0;
	bool any = false;

	*out = '\0';
	for (;;) {
		off = dwarf_getlocations(attr, off, &base, &start, &end, &ops,
					 &n);
		if (off > 0 && (!n || op_name(ops[0].atom) ||
				(n > 1 && op_name(ops[n - 1].atom))))
			continue;	/* not a place this tool reads */
		if (off > 0 && any && start == to) {
			to = end;
			continue;
		}
		if (any && len < size)
			len += snprintf(out + len, size - len, "%s%#lx-%#lx",
					len ? ", " : "",
					(unsigned long)(from + at->dwbias -
							at->b->bias),
					(unsigned long)(to + at->dwbias -
							at->b->bias));
		if (off <= 0)
			break;
		from = start;
		to = end;
		any = true;
	}
}

/* @type with typedefs and qualifiers taken off, into @out */
static Dwarf_Die *peel(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &t) || dwarf_peel_type(&t, out))
		return NULL;
	return out;
}

static bool is_char(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;

	return t && dwarf_tag(t) == DW_TAG_base_type &&
	       dwarf_bytesize(t) == 1 &&
	       dwarf_attr_integrate(t, DW_AT_encoding, &attr) &&
	       !dwarf_formudata(&attr, &enc) &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

/*
 * The member @name of struct or union @t into @m, its offset in *@off: 0,
 * -ENOENT if there is none, -EOPNOTSUPP for a bit-field.
 */
static int member(Dwarf_Die *t, const char *name, Dwarf_Die *m, long *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (dwarf_child(t, m))
		return -ENOENT;
	do {
		const char *mn = dwarf_diename(m);

		if (dwarf_tag(m) != DW_TAG_member || !mn || strcmp(mn, name))
			continue;
		if (dwarf_hasattr(m, DW_AT_bit_size))
			return -EOPNOTSUPP;
		*off = 0;
		if (dwarf_attr_integrate(m, DW_AT_data_member_location,
					 &attr)) {
			if (dwarf_formudata(&attr, &w))
				return -ENOENT;
			*off = (long)w;
		}
		return 0;
	} while (dwarf_siblingof(m, m) == 0);
	return -ENOENT;
}

/*
 * The accessors of @path ("->f", ".f", "[N]") applied to @l, of the type
 * of @die; the final type into @type.  0, or -errno with a message:
 * -EINVAL for accessors that do not suit the type, -ENOENT for no such
 * member or type, -EOPNOTSUPP for what fetch arguments cannot read.
 */
static int accessors(struct at *at, const char *var, const char *path,
		     Dwarf_Die *die, struct loc *l, Dwarf_Die *type)
{
	Dwarf_Die t, m, elem;
	char name[128];
	long off;
	int r;

	if (!peel(die, &t))
		return fail(at, -ENOENT,
			    "'%s' has no type in the debug info", var);
	while (*path) {
		bool arrow = !strncmp(path, "->", 2);
		int tag = dwarf_tag(&t);

		if (arrow || *path == '.') {
			size_t k;

			path += arrow ? 2 : 1;
			for (k = 0; isalnum((unsigned char)path[k]) ||
			     path[k] == '_'; k++)
				;
			if (!k || k >= sizeof(name))
				return fail(at, -EINVAL,
					    "bad member name in '%s'", var);
			snprintf(name, sizeof(name), "%.*s", (int)k, path);
			path += k;
			if (arrow) {
				if (tag != DW_TAG_pointer_type ||
				    !peel(&t, &t))
					return fail(at, -EINVAL,
						    "'->%s' in '%s': not a pointer to a struct",
						    name, var);
				tag = dwarf_tag(&t);
			}
			if (tag != DW_TAG_structure_type &&
			    tag != DW_TAG_union_type && tag != DW_TAG_class_type)
				return fail(at, -EINVAL,
					    "'%s' in '%s': not a struct or union",
					    name, var);
			r = member(&t, name, &m, &off);
			if (r == -EOPNOTSUPP)
				return fail(at, -EOPNOTSUPP,
					    "'%s' in '%s' is a bit-field, which this tool does not read",
					    name, var);
			if (r)
				return fail(at, -ENOENT,
					    "no member '%s' in '%s'", name,
					    var);
			if (arrow)
				follow(l, off);
			else if (l->kind == LOC_MEM || l->kind == LOC_FILE)
				l->off += off;
			else
				return fail(at, -EOPNOTSUPP,
					    "'%s' is in a register, not in memory: '.%s' cannot be read",
					    var, name);
			if (!peel(&m, &t))
				return fail(at, -ENOENT,
					    "'%s' has no type", name);
		} else if (*path == '[') {
			char *end;
			long i = strtol(path + 1, &end, 0);
			Dwarf_Word size;

			if (end == path + 1 || *end != ']')
				return fail(at, -EINVAL,
					    "bad index in '%s'", var);
			path = end + 1;
			if ((tag != DW_TAG_array_type &&
			     tag != DW_TAG_pointer_type) || !peel(&t, &elem))
				return fail(at, -EINVAL,
					    "'[%ld]' in '%s': not an array or pointer",
					    i, var);
			if (dwarf_aggregate_size(&elem, &size))
				size = 0;
			if (!size)
				return fail(at, -EOPNOTSUPP,
					    "'%s': elements of unknown size",
					    var);
			if (tag == DW_TAG_pointer_type)
				follow(l, i * (long)size);
			else if (l->kind == LOC_MEM || l->kind == LOC_FILE)
				l->off += i * (long)size;
			else
				return fail(at, -EOPNOTSUPP,
					    "'%s' is not in memory", var);
			t = elem;
		} else {
			return fail(at, -EINVAL,
				    "'%s': expected ->FIELD, .FIELD or [N] at '%s'",
				    var, path);
		}
	}
	*type = t;
	return 0;
}

/*
 * The fetch argument for a value at @l of type @t (peeled) into @out:
 * "FETCH:TYPE", a char pointer or array as a string.  0, or -errno:
 * -EINVAL or -EOPNOTSUPP with a message, -E2BIG without one if the text
 * does not fit.
 */
static int typed(struct at *at, const char *var, struct loc *l, Dwarf_Die *t,
		 struct up_fetch *out)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = DW_ATE_unsigned;
	Dwarf_Die pointee;
	char fetch[450];
	int tag = dwarf_tag(t), size = dwarf_bytesize(t);

	if (tag == DW_TAG_pointer_type && is_char(peel(t, &pointee))) {
		follow(l, 0);
		render(l, fetch, sizeof(fetch));
		out->string = true;
		return snprintf(out->text, sizeof(out->text), "%s=%s:string",
				out->name, fetch) >= (int)sizeof(out->text) ?
		       -E2BIG : 0;
	}
	if (tag == DW_TAG_array_type && is_char(peel(t, &pointee))) {
		/* a string is read at the address a memory fetch would read */
		if (l->kind != LOC_MEM && l->kind != LOC_FILE)
			return fail(at, -EOPNOTSUPP,
				    "'%s': a char array not in memory", var);
		render(l, fetch, sizeof(fetch));
		out->string = true;
		return snprintf(out->text, sizeof(out->text), "%s=%s:string",
				out->name, fetch) >= (int)sizeof(out->text) ?
		       -E2BIG : 0;
	}
	render(l, fetch, sizeof(fetch));
	if (tag == DW_TAG_pointer_type) {
		size = 8;
		enc = 0;
	} else if (tag == DW_TAG_enumeration_type) {
		enc = DW_ATE_signed;
	} else if (tag == DW_TAG_base_type) {
		if (dwarf_attr_integrate(t, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
			return fail(at, -EOPNOTSUPP,
				    "'%s' is floating point, which fetch arguments do not read",
				    var);
	} else if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		   tag == DW_TAG_class_type) {
		return fail(at, -EINVAL,
			    "'%s' is a struct or union: give a member (.FIELD or ->FIELD)",
			    var);
	} else if (tag == DW_TAG_array_type) {
		return fail(at, -EINVAL,
			    "'%s' is an array: give an element ([N])", var);
	} else {
		return fail(at, -EOPNOTSUPP,
			    "'%s' has a type this tool does not read (DWARF tag %#x)",
			    var, tag);
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return fail(at, -EOPNOTSUPP,
			    "'%s' is %d bytes, which no fetch type is", var,
			    size);
	return snprintf(out->text, sizeof(out->text), "%s=%s:%c%d", out->name,
			fetch, !enc ? 'x' : enc == DW_ATE_signed ||
			enc == DW_ATE_signed_char ? 's' : 'u', size * 8) >=
	       (int)sizeof(out->text) ? -E2BIG : 0;
}

/* The innermost scope of @scopes[0..@n) that is a function, or NULL */
static Dwarf_Die *function_of(Dwarf_Die *scopes, int n)
{
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			return &scopes[i];
	return NULL;
}

/* Up to @size bytes of the names visible at the probe, for a hint */
static void visible(Dwarf_Die *scopes, int n, char *out, size_t size)
{
	size_t len = 0;
	Dwarf_Die d;

	*out = '\0';
	for (int i = 0; i < n && len < size; i++) {
		if (dwarf_child(&scopes[i], &d))
			continue;
		do {
			int tag = dwarf_tag(&d);
			const char *name = dwarf_diename(&d);

			if ((tag == DW_TAG_variable ||
			     tag == DW_TAG_formal_parameter) && name &&
			    len < size)
				len += snprintf(out + len, size - len, "%s%s",
						len ? ", " : "", name);
		} while (dwarf_siblingof(&d, &d) == 0);
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
}

/*
 * Is the location @ops[0..@n) in the function's own frame, below its
 * frame base, and the probe at the function's entry, where the prologue
 * has not stored it yet?
 */
static bool in_own_frame(struct at *at, Dwarf_Die *func, const Dwarf_Op *ops,
			 size_t n)
{
	Dwarf_Addr entry;

	return func && n && ops[0].atom == DW_OP_fbreg &&
	       (long)ops[0].number < 0 && !dwarf_entrypc(func, &entry) &&
	       entry == at->pc;
}

/*
 * A variable @name (with accessors @path) at the probe into @out: 0, 1
 * if it is not stored yet (see up_fetch_arg()), or -errno with a message.
 */
static int variable(struct at *at, const char *expr, const char *name,
		    const char *path, struct up_fetch *out)
{
	Dwarf_Die *cu, *scopes = NULL, *func, var, type;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	Dwarf_Word size = 0;
	struct loc l = { 0 };
	char hint[300], where[300];
	size_t n;
	int nscopes, r = 0;

	cu = dwfl_module_addrdie(at->b->mod, at->vaddr + at->b->bias,
				 &at->dwbias);
	if (!cu)
		return fail(at, -ENOENT, "no DWARF debug info for %#lx (%s)",
			    at->vaddr, up_debuginfo_hint());
	at->pc = at->vaddr + at->b->bias - at->dwbias;
	nscopes = dwarf_getscopes(cu, at->pc, &scopes);
	if (nscopes <= 0)
		return fail(at, -ENOENT, "no scope in the debug info for %#lx",
			    at->vaddr);
	func = function_of(scopes, nscopes);
	if (dwarf_getscopevar(scopes, nscopes, name, 0, NULL, 0, 0,
			      &var) < 0) {
		visible(scopes, nscopes, hint, sizeof(hint));
		r = fail(at, -ENOENT,
			 "no variable or parameter '%s' at %#lx%s%s%s", name,
			 at->vaddr, *hint ? " (there: " : "", hint,
			 *hint ? ")" : "");
		goto out;
	}
	if (peel(&var, &type) && dwarf_aggregate_size(&type, &size))
		size = 0;
	if (dwarf_attr_integrate(&var, DW_AT_const_value, &attr)) {
		Dwarf_Sword v;

		if (dwarf_formsdata(&attr, &v)) {
			r = fail(at, -EOPNOTSUPP,
				 "'%s' is a constant this tool does not read",
				 name);
			goto out;
		}
		l.kind = LOC_IMM;
		l.imm = (unsigned long)v;
	} else if (!dwarf_attr_integrate(&var, DW_AT_location, &attr)) {
		r = fail(at, -ENOENT,
			 "'%s' is optimized out: no location in the debug info",
			 name);
		goto out;
	} else if (dwarf_getlocation_addr(&attr, at->pc, &ops, &n, 1) != 1 ||
		   !n) {
		ranges(at, &attr, where, sizeof(where));
		r = fail(at, -ENOENT, "'%s' is optimized out at %#lx%s%s",
			 name, at->vaddr,
			 *where ? "; it is available at " : "", where);
		goto out;
	} else if (in_own_frame(at, func, ops, n)) {
		r = 1;
		goto out;
	} else {
		r = expr_loc(at, func, ops, n, size, &l);
	}
	if (r) {
		char why[256];

		snprintf(why, sizeof(why), "%s", at->err);
		fail(at, r, "'%s' at %#lx: %s", name, at->vaddr, why);
		goto out;
	}
	r = accessors(at, expr, path, &var, &l, &type);
	if (r)
		goto out;
	r = typed(at, expr, &l, &type, out);
	if (r && !*at->err)
		fail(at, r, "'%s': too long a fetch argument", expr);
out:
	free(scopes);
	return r;
}

/* $retval, typed by the function that returns at the probe: 0 or -errno */
static int retval(struct at *at, struct up_fetch *out)
{
	Dwarf_Die *cu, *scopes = NULL, *func, type;
	struct loc l = { .kind = LOC_RETVAL };
	int nscopes, r;

	cu = dwfl_module_addrdie(at->b->mod, at->vaddr + at->b->bias,
				 &at->dwbias);
	at->pc = at->vaddr + at->b->bias - at->dwbias;
	nscopes = cu ? dwarf_getscopes(cu, at->pc, &scopes) : -1;
	func = nscopes > 0 ? function_of(scopes, nscopes) : NULL;
	if (!func) {
		/* no debug info: the whole register */
		snprintf(out->text, sizeof(out->text), "%s=$retval:x64",
			 out->name);
		r = 0;
	} else if (!peel(func, &type)) {
		r = fail(at, -ENOENT, "%s returns void: there is no $retval",
			 dwarf_diename(func) ?: "the function");
	} else {
		r = typed(at, "$retval", &l, &type, out);
	}
	free(scopes);
	return r;
}

/* @s as a field name: letters, digits and '_' */
static void field_name(const char *s, size_t len, char *out)
{
	size_t k = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		out[k++] = '_';
	for (size_t i = 0; i < len && k < UP_ARG_NAME_MAX - 1; i++) {
		if (isalnum((unsigned char)s[i]) || s[i] == '_')
			out[k++] = s[i];
		else if (k && out[k - 1] != '_')
			out[k++] = '_';
	}
	while (k > 1 && out[k - 1] == '_')
		k--;
	out[k] = '\0';
}

int up_fetch_arg(struct up_binary *b, unsigned long vaddr, bool ret,
		 const char *expr, struct up_fetch *out, char *err,
		 size_t errlen)
{
	struct at at = { .b = b, .vaddr = vaddr, .err = err,
			 .errlen = errlen };
	const char *eq = strchr(expr, '='), *what = expr, *path;
	char name[128];
	size_t k;

	memset(out, 0, sizeof(*out));
	*err = '\0';
	if (eq && eq > expr && strspn(expr, "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
				(size_t)(eq - expr)) {
		if (eq - expr >= UP_ARG_NAME_MAX ||
		    isdigit((unsigned char)*expr))
			return fail(&at, -EINVAL,
				    "'%.*s': not a field name (a letter or '_', then letters, digits or '_', %d at most)",
				    (int)(eq - expr), expr,
				    UP_ARG_NAME_MAX - 1);
		snprintf(out->name, sizeof(out->name), "%.*s",
			 (int)(eq - expr), expr);
		what = eq + 1;
	}
	if (!*what)
		return fail(&at, -EINVAL, "'%s': nothing to fetch", expr);
	if (!strcmp(what, "$retval")) {
		if (!ret)
			return fail(&at, -EINVAL,
				    "$retval is the value a function returns: probe SPEC%%return");
		if (!*out->name)
			snprintf(out->name, sizeof(out->name), "retval");
		return retval(&at, out);
	}
	if (strchr("%@$+-\\", *what)) {
		/* a fetch argument as the kernel takes it */
		if (!*out->name)
			field_name(what + strspn(what, "%@$+-\\"),
				   strcspn(what, ":") - strspn(what, "%@$+-\\"),
				   out->name);
		out->string = strstr(what, ":string") ||
			      strstr(what, ":ustring");
		snprintf(out->text, sizeof(out->text), "%s=%s", out->name,
			 what);
		return 0;
	}
	if (ret)
		return fail(&at, -EINVAL,
			    "'%s': a return probe fetches $retval or raw fetch arguments, not variables",
			    what);
	k = strspn(what, "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (!k || isdigit((unsigned char)*what) || k >= sizeof(name))
		return fail(&at, -EINVAL,
			    "'%s': not a variable (NAME, NAME->FIELD, NAME.FIELD, NAME[N]) or a fetch argument",
			    what);
	snprintf(name, sizeof(name), "%.*s", (int)k, what);
	path = what + k;
	if (!*out->name)
		field_name(what, strlen(what), out->name);
	return variable(&at, what, name, path, out);
}

int up_after_prologue(struct up_binary *b, unsigned long vaddr,
		      unsigned long *after)
{
	Dwarf_Addr dwbias, pc, low, high, best = 0;
	Dwarf_Die *cu, *scopes = NULL, *func;
	Dwarf_Lines *lines;
	size_t nl;
	int n, entry_line = -1;

	cu = dwfl_module_addrdie(b->mod, vaddr + b->bias, &dwbias);
	if (!cu)
		return -ENOENT;
	pc = vaddr + b->bias - dwbias;
	n = dwarf_getscopes(cu, pc, &scopes);
	func = n > 0 ? function_of(scopes, n) : NULL;
	if (!func || dwarf_lowpc(func, &low) || dwarf_highpc(func, &high) ||
	    dwarf_getsrclines(cu, &lines, &nl)) {
		free(scopes);
		return -ENOENT;
	}
	free(scopes);
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *line = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int no;

		if (!line || dwarf_lineaddr(line, &a) || dwarf_lineno(line, &no))
			continue;
		if (a == pc && entry_line < 0)
			entry_line = no;
	}
	for (size_t i = 0; i < nl && entry_line >= 0; i++) {
		Dwarf_Line *line = dwarf_onesrcline(lines, i);
		bool stmt = false;
		Dwarf_Addr a;
		int no;

		if (!line || dwarf_lineaddr(line, &a) ||
		    dwarf_lineno(line, &no) ||
		    dwarf_linebeginstatement(line, &stmt))
			continue;
		if (stmt && a > pc && a < high && no != entry_line &&
		    (!best || a < best))
			best = a;
	}
	if (!best)
		return -ENOENT;
	*after = best + dwbias - b->bias;
	return 0;
}
