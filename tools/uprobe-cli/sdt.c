// SPDX-License-Identifier: GPL-2.0
/*
 * SDT markers.  A program built with sys/sdt.h holds, for each marker, a
 * note of type 3 owned by "stapsdt" in .note.stapsdt: the marker's
 * address (a nop), the address of .stapsdt.base at link time (so that a
 * prelinked file's addresses can be corrected), the address of its
 * semaphore (0 if none), then its provider, name and argument specs, each
 * NUL-terminated.  An argument spec is SIZE@OPERAND, SIZE negative for a
 * signed value, OPERAND in the assembler's syntax: %REG, OFF(%REG),
 * $IMM.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdt.h"

#define NT_STAPSDT	3

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* The section named @name of @elf, or NULL; its header into @shdr. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * One note's marker into @m; 0, or -errno if it is not a 64-bit marker:
 * -EINVAL for a note too short, -ENOENT for an address in no segment.
 */
static int marker(struct up_binary *b, const char *desc, size_t len,
		  long base_adjust, struct up_sdt *m)
{
	const char *p = desc + 3 * 8, *end = desc + len, *name, *args;
	unsigned long addr[3];

	if (len < 3 * 8 + 3)
		return -EINVAL;
	memcpy(addr, desc, sizeof(addr));
	name = memchr(p, '\0', end - p);
	args = name ? memchr(name + 1, '\0', end - name - 1) : NULL;
	if (!args || !memchr(args + 1, '\0', end - args - 1))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	snprintf(m->provider, sizeof(m->provider), "%s", p);
	snprintf(m->name, sizeof(m->name), "%s", name + 1);
	snprintf(m->args, sizeof(m->args), "%s", args + 1);
	m->vaddr = addr[0] + base_adjust;
	if (up_translate(b, m->vaddr, true, true, &m->offset))
		return -ENOENT;
	m->sem_vaddr = addr[2];
	if (m->sem_vaddr &&
	    up_translate(b, m->sem_vaddr, true, false, &m->sem_offset))
		return -ENOENT;
	return 0;
}

int up_sdt_markers(struct up_binary *b, struct up_sdt **out, char *err,
		   size_t errlen)
{
	GElf_Shdr shdr, base_shdr;
	struct up_sdt *all = NULL, *more;
	size_t off = 0, name_off, desc_off;
	long base_adjust = 0;
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Nhdr nh;
	int n = 0;

	*out = NULL;
	scn = section(b->elf, ".note.stapsdt", &shdr);
	if (!scn)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || gelf_getclass(b->elf) != ELFCLASS64) {
		set_err(err, errlen, "cannot read the SDT notes (not a 64-bit ELF file)");
		return -ENOEXEC;
	}
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		const char *owner = (const char *)data->d_buf + name_off;
		const char *desc = (const char *)data->d_buf + desc_off;
		unsigned long noted_base;

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof("stapsdt") ||
		    strcmp(owner, "stapsdt") || nh.n_descsz < 3 * 8)
			continue;
		/* addresses from before a prelink moved the file */
		memcpy(&noted_base, desc + 8, sizeof(noted_base));
		if (section(b->elf, ".stapsdt.base", &base_shdr))
			base_adjust = base_shdr.sh_addr - noted_base;
		more = realloc(all, (n + 1) * sizeof(*all));
		if (!more) {
			free(all);
			set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
		all = more;
		if (!marker(b, desc, nh.n_descsz, base_adjust, &all[n]))
			n++;
	}
	*out = all;
	if (!n)
		free(all);
	if (!n)
		*out = NULL;
	return n;
}

/* The kernel's name of x86-64 register @reg (any width), or NULL. */
static const char *reg_name(const char *reg)
{
	static const char *const names[][5] = {
		{ "ax", "rax", "eax", "ax", "al" },
		{ "bx", "rbx", "ebx", "bx", "bl" },
		{ "cx", "rcx", "ecx", "cx", "cl" },
		{ "dx", "rdx", "edx", "dx", "dl" },
		{ "si", "rsi", "esi", "si", "sil" },
		{ "di", "rdi", "edi", "di", "dil" },
		{ "bp", "rbp", "ebp", "bp", "bpl" },
		{ "sp", "rsp", "esp", "sp", "spl" },
	};
	static char rn[8];
	char *end;
	long n;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (int k = 1; k < 5; k++)
			if (!strcmp(reg, names[i][k]))
				return names[i][0];
	/* r8..r15, and their d, w and b parts */
	if (reg[0] != 'r' || !isdigit((unsigned char)reg[1]))
		return NULL;
	n = strtol(reg + 1, &end, 10);
	if (n < 8 || n > 15 || (*end && (strchr("dwb", *end) == NULL ||
					 end[1])))
		return NULL;
	snprintf(rn, sizeof(rn), "r%ld", n);
	return rn;
}

/*
 * One argument spec @spec as "argN=FETCH:TYPE" into @out; 0, or -errno
 * with a message: -EINVAL for no SIZE@OPERAND, -EOPNOTSUPP for an
 * operand the kernel cannot fetch.
 */
static int one_arg(int i, const char *spec, char *out, size_t size,
		   char *err, size_t errlen)
{
	const char *at = strchr(spec, '@'), *op, *paren;
	char type[8], reg[16];
	const char *kreg;
	long sz;
	char *end;

	sz = strtol(spec, &end, 10);
	if (!at || end != at || !(labs(sz) == 1 || labs(sz) == 2 ||
				  labs(sz) == 4 || labs(sz) == 8)) {
		set_err(err, errlen, "argument %d '%s': no SIZE@OPERAND", i,
			spec);
		return -EINVAL;
	}
	snprintf(type, sizeof(type), "%c%ld", sz < 0 ? 's' : 'u',
		 labs(sz) * 8);
	op = at + 1;
	if (*op == '$') {
		strtol(op + 1, &end, 0);
		if (end == op + 1 || *end)
			goto bad;
		snprintf(out, size, "arg%d=\\%s:%s", i, op + 1, type);
		return 0;
	}
	paren = strchr(op, '(');
	if (sscanf(paren ? paren + 1 : op, "%%%15[a-z0-9])", reg) != 1)
		goto bad;
	kreg = reg_name(reg);
	if (!kreg || strlen(paren ? paren + 1 : op) !=
		     strlen(reg) + 1 + (paren ? 1 : 0)) {
		if (!strcmp(reg, "rip"))
			set_err(err, errlen,
				"argument %d '%s': an address relative to the instruction (%%rip) is not supported",
				i, spec);
		else
			set_err(err, errlen,
				"argument %d '%s': the kernel cannot fetch this operand",
				i, spec);
		return -EOPNOTSUPP;
	}
	if (!paren) {
		snprintf(out, size, "arg%d=%%%s:%s", i, kreg, type);
		return 0;
	}
	/* OFF(%REG), OFF empty, decimal or hexadecimal, maybe negative */
	if (paren != op) {
		strtol(op, &end, 0);
		if (end != paren)
			goto bad;
	}
	snprintf(out, size, "arg%d=%s%.*s(%%%s):%s", i,
		 *op == '-' ? "" : "+", paren == op ? 1 : (int)(paren - op),
		 paren == op ? "0" : op, kreg, type);
	return 0;
bad:
	set_err(err, errlen, "argument %d '%s': the kernel cannot fetch this operand",
		i, spec);
	return -EOPNOTSUPP;
}

int up_sdt_fetch(const char *args, char *out, size_t size, char *err,
		 size_t errlen)
{
	char copy[UP_SDT_ARGS_MAX], one[128], *tok, *save;
	size_t len = 0;
	int n = 0, r;

	snprintf(copy, sizeof(copy), "%s", args);
	*out = '\0';
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (n == UP_SDT_MAX_ARGS) {
			set_err(err, errlen, "more than %d arguments",
				UP_SDT_MAX_ARGS);
			return -E2BIG;
		}
		r = one_arg(n, tok, one, sizeof(one), err, errlen);
		if (r)
			return r;
		len += snprintf(out + len, len < size ? size - len : 0, "%s%s",
				n ? " " : "", one);
		n++;
	}
	if (len >= size) {
		set_err(err, errlen, "too many arguments");
		return -E2BIG;
	}
	return n;
}
