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

/*
 * Two versions of ver2 whose own names have more underscores than the
 * versioned name: a glob's probe of each takes the name ver2, which
 * both have (glibc's fmemopen and __old_fmemopen).
 */
__asm__(".symver __ver2_old, ver2@V1");
__asm__(".symver __ver2_new, ver2@@V2");

__attribute__((noinline)) int __ver2_old(void)
{
	return 3;
}

__attribute__((noinline)) int __ver2_new(void)
{
	return 4;
}
