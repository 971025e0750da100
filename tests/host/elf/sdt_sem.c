// SPDX-License-Identifier: GPL-2.0
/*
 * A fixture of the SDT tests: a marker guarded by a semaphore, with
 * arguments in registers and in memory, linked with sdt_plain.c.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short fix_guarded_semaphore __attribute__((section(".probes")));

int plain(int x);

int main(int argc, char **argv)
{
	long big = argc * 1000L;

	if (fix_guarded_semaphore)
		STAP_PROBE3(fix, guarded, argc, big, argv[0]);
	return plain(argc);
}
