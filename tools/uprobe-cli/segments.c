// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: a binary's link-time addresses and file offsets, one from
 * the other, through its PT_LOAD segments.  Below both resolve.c and
 * sdt.c, which use it.
 */
#include <errno.h>
#include <stdbool.h>
#include <gelf.h>

#include "resolve.h"

int up_translate(struct up_binary *b, unsigned long in, bool to_offset,
		 bool exec, unsigned long *out)
{
	size_t n;

	if (elf_getphdrnum(b->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		unsigned long from, to;
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    (exec && !(ph.p_flags & PF_X)))
			continue;
		from = to_offset ? ph.p_vaddr : ph.p_offset;
		to = to_offset ? ph.p_offset : ph.p_vaddr;
		if (in < from || in >= from + ph.p_filesz)
			continue;
		*out = in - from + to;
		return 0;
	}
	return -ENOENT;
}
