// SPDX-License-Identifier: GPL-2.0
/*
 * pt_exec - the program the process tracer tests exec in a followed
 * child: one system call with known arguments, then exit status 3.
 *
 *   pt_exec      close(5000) (fails with EBADF) and exit 3
 */
#include <unistd.h>

int main(void)
{
	close(5000);
	return 3;
}
