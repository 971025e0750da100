// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library with a versioned function, as glibc has them: its
 * .symtab names ver_func@V1 and ver_func@@V2, its .dynsym ver_func.
 */
__asm__(".symver ver_old, ver_func@V1");
__asm__(".symver ver_new, ver_func@@V2");

__attribute__((noinline)) int ver_old(void)
{
	return 1;
}

__attribute__((noinline)) int ver_new(void)
{
	return 2;
}
