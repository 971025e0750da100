// SPDX-License-Identifier: GPL-2.0
/*
 * top_target - a program whose hottest function is known, for the tests
 * of uprobe-cli top.
 *
 *   top_target ROUNDS FILE [STOP]
 *	ROUNDS times, 100 ms apart: 1000 calls of hot(), 100 of warm(),
 *	10 of cold(); with STOP, go on with more rounds until the file
 *	STOP exists.  Then write "hot N warm N cold N rounds N" (the calls
 *	and rounds made) to FILE and exit 0 if every call gave the right
 *	result.
 *   top_target wait
 *	call hot() until killed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long hot(long x), warm(long x), cold(long x);

/* each with a frame first: entered by a jump when probed to count */
#define FN(name, k)							\
	".p2align 4\n.globl " #name "\n.type " #name ", @function\n"	\
	#name ":\n	push %rbp\n	mov %rsp, %rbp\n"			\
	"	lea " #k "(%rdi), %rax\n	pop %rbp\n	ret\n"		\
	".size " #name ", . - " #name "\n"
asm(".text\n" FN(hot, 1) FN(warm, 2) FN(cold, 3));

int main(int argc, char **argv)
{
	long calls[3] = { 0 }, bad = 0, rounds = 0;
	FILE *f;
	int r;

	if (argc == 2 && !strcmp(argv[1], "wait")) {
		for (long i = 0;; i++) {
			bad += hot(i) != i + 1;
			if (i % 1000 == 0)
				usleep(1000);
		}
	}
	if (argc != 3 && argc != 4)
		return 2;
	for (r = atoi(argv[1]); r > 0 || (argc == 4 && access(argv[3], F_OK));
	     r--, rounds++) {
		for (long i = 0; i < 1000; i++, calls[0]++)
			bad += hot(i) != i + 1;
		for (long i = 0; i < 100; i++, calls[1]++)
			bad += warm(i) != i + 2;
		for (long i = 0; i < 10; i++, calls[2]++)
			bad += cold(i) != i + 3;
		usleep(100000);
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 3;
	fprintf(f, "hot %ld warm %ld cold %ld rounds %ld\n",
		calls[0], calls[1], calls[2], rounds);
	return fclose(f) || bad ? 1 : 0;
}
