// SPDX-License-Identifier: GPL-2.0
/*
 * What lands in the window of a jump at a function's entry: the direct
 * branches of the whole binary and the function's jump tables, which the
 * kernel, checking the function's own direct branches only, does not
 * see.  Decoded with the kernel's x86 instruction decoder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <asm/insn.h>

#include "resolve.h"

/* Functions bigger than the kernel decodes (UTPROBE_FUNC_MAX) */
#define UP_FUNC_MAX	(1UL << 20)
/* A jump table's entries are read this far at most. */
#define UP_TABLE_MAX	4096
/* A jmp rel32: the fewest bytes a jump's window has. */
#define UP_JUMP_SIZE	5

/*
 * The address @insn at @at reads at a fixed place (rip-relative, or an
 * absolute disp32 with no base), or 0.
 */
static unsigned long fixed_operand(struct insn *insn, unsigned long at)
{
	unsigned char mod = X86_MODRM_MOD(insn->modrm.value);

	if (!insn->modrm.nbytes || mod != 0)
		return 0;
	if (insn_rip_relative(insn))
		return at + insn->length + insn->displacement.value;
	if (insn->sib.nbytes && X86_SIB_BASE(insn->sib.value) == 5)
		return (unsigned long)(long)insn->displacement.value;
	return 0;
}

/*
 * Does a table at @table, of 32-bit offsets from it (@wide false: as
 * PIC code's switch tables are) or of 64-bit addresses (@wide), send
 * control strictly inside the first @wlen bytes of the function at
 * @start, @len bytes long?  Its entries are read while they land in
 * the function.
 */
static bool table_into(struct up_binary *b, unsigned long start,
		       unsigned long len, unsigned long table, bool wide,
		       unsigned long wlen)
{
	for (unsigned int k = 0; k < UP_TABLE_MAX; k++) {
		unsigned long off, to;
		union { int32_t rel; uint64_t abs; } e;
		size_t size = wide ? 8 : 4;

		if (up_translate(b, table + k * size, true, false, &off) ||
		    pread(b->fd, &e, size, off) != (ssize_t)size)
			return false;
		to = wide ? e.abs : table + e.rel;
		if (to < start || to >= start + len)
			return false;
		if (to > start && to < start + wlen)
			return true;
	}
	return false;
}

/* The target of @insn at @at if it is a direct branch or call, else 0. */
static unsigned long branch_target(struct insn *insn, unsigned long at)
{
	unsigned char op = insn->opcode.bytes[0];

	if (op == 0xe8 || op == 0xe9 || op == 0xeb || (op >= 0x70 && op <= 0x7f) ||
	    (op >= 0xe0 && op <= 0xe3) ||
	    (op == 0x0f && insn->opcode.bytes[1] >= 0x80 &&
	     insn->opcode.bytes[1] <= 0x8f))
		return at + insn->length + insn->immediate.value;
	return 0;
}

static int ulong_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a,
		      y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Add the direct branch targets of @text, at @addr, to @b's: 0, -ENOMEM */
static int add_targets(struct up_binary *b, const unsigned char *text,
		       size_t size, unsigned long addr)
{
	size_t at = 0, cap = b->ntargets;

	while (at < size) {
		struct insn insn;
		unsigned long to;

		/* data, or padding the decoder refuses: the next byte */
		if (insn_decode(&insn, text + at, size - at, INSN_MODE_64) < 0) {
			at++;
			continue;
		}
		to = branch_target(&insn, addr + at);
		at += insn.length;
		if (!to)
			continue;
		if (b->ntargets == cap) {
			unsigned long *t;

			cap = cap ? 2 * cap : 4096;
			t = realloc(b->targets, cap * sizeof(*t));
			if (!t)
				return -ENOMEM;
			b->targets = t;
		}
		b->targets[b->ntargets++] = to;
	}
	return 0;
}

/*
 * Every direct branch and call target of @b's executable sections,
 * sorted, found once: each section is decoded from its start, a byte
 * that does not decode skipped (what is not code only adds targets,
 * which only keeps more functions from jumps).  0, or -ENOMEM.
 */
static int branch_targets(struct up_binary *b)
{
	Elf_Scn *scn = NULL;
	int ret = 0;

	if (b->targets_found)
		return 0;
	while (!ret && (scn = elf_nextscn(b->elf, scn))) {
		unsigned char *text;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		text = malloc(sh.sh_size);
		if (!text)
			return -ENOMEM;
		if (pread(b->fd, text, sh.sh_size, sh.sh_offset) ==
		    (ssize_t)sh.sh_size)
			ret = add_targets(b, text, sh.sh_size, sh.sh_addr);
		free(text);
	}
	if (!ret) {
		qsort(b->targets, b->ntargets, sizeof(*b->targets), ulong_cmp);
		b->targets_found = true;
	}
	return ret;
}

/* Does a direct branch of @b land strictly inside [@start, @end)? */
static bool branch_into(struct up_binary *b, unsigned long start,
			unsigned long end)
{
	size_t lo = 0, hi = b->ntargets;

	/* the first target above start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->targets[mid] <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->ntargets && b->targets[lo] < end;
}

/*
 * Does something land inside the instructions a jump at the entry of the
 * function at @start, @size bytes long, would replace, that the kernel
 * does not see?  The kernel checks the
 * function's own direct branches only.  A direct branch from anywhere
 * in the binary, then, and one of @fn's jump tables: where the function
 * has an indirect jmp, each fixed address it reads (where a switch's
 * table is) is read as a table of either kind.  A function that cannot
 * be read or decoded says no: the kernel's decoding refuses it then;
 * so does one whose binary's branches cannot be found (out of memory).
 */
bool up_entered_in_window(struct up_binary *b, unsigned long start,
			  unsigned long size)
{
	unsigned long at, wlen = 0, off, *fixed = NULL;
	size_t nfixed = 0, i;
	unsigned char *text;
	bool indirect = false, into = false;

	if (!size || size > UP_FUNC_MAX ||
	    up_translate(b, start, true, true, &off))
		return false;
	text = malloc(size);
	if (!text || pread(b->fd, text, size, off) != (ssize_t)size)
		goto out;
	for (at = 0; at < size; ) {
		struct insn insn;
		unsigned long addr;

		if (insn_decode(&insn, text + at, size - at,
				INSN_MODE_64) < 0)
			goto out;
		/* jmp r/m (ff /4, /5), notrack or not */
		indirect |= insn.opcode.bytes[0] == 0xff &&
			    (X86_MODRM_REG(insn.modrm.value) & 6) == 4;
		addr = fixed_operand(&insn, start + at);
		if (addr) {
			unsigned long *f = realloc(fixed, (nfixed + 1) *
						   sizeof(*fixed));

			if (!f)
				goto out;
			fixed = f;
			fixed[nfixed++] = addr;
		}
		at += insn.length;
		if (wlen < UP_JUMP_SIZE)
			wlen = at;
	}
	into = !branch_targets(b) &&
	       branch_into(b, start, start + wlen);
	for (i = 0; indirect && !into && i < nfixed; i++)
		into = table_into(b, start, size, fixed[i], false, wlen) ||
		       table_into(b, start, size, fixed[i], true, wlen);
out:
	free(fixed);
	free(text);
	return into;
}
