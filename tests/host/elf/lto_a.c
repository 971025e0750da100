// SPDX-License-Identifier: GPL-2.0
/*
 * lto_step, defined here and called only from lto_b.c: built with
 * -flto, the link inlines it into main() there and keeps no copy of its
 * own, its DWARF's abstract description in another unit than the copy.
 */
int lto_step(int x)
{
	return x * 3 + 1;
}
