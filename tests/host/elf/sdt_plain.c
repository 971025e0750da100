// SPDX-License-Identifier: GPL-2.0
/* A fixture of the SDT tests: a marker without a semaphore. */
#include <sys/sdt.h>

int plain(int x)
{
	STAP_PROBE1(fix, plain, x);
	return x;
}
