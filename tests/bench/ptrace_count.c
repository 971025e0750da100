// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_count - what a debugger-style breakpoint counter costs: run a
 * program under ptrace with an int3 at ADDR, and at each hit put the
 * original instruction back, single-step it and insert the int3 again.
 *
 *   ptrace_count ADDR PROGRAM [ARGS]
 *
 * The program's output passes through; then "hits N" on standard error.
 * Exits with the program's status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long addr, orig, brk;
	struct user_regs_struct regs;
	long hits = 0;
	int st, sig = 0;
	pid_t pid;

	if (argc < 3)
		return 2;
	addr = strtoul(argv[1], NULL, 0);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	/* stopped at the exec */
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return 1;
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		return 1;
	brk = (orig & ~0xffUL) | 0xcc;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)brk))
		return 1;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			return 1;
		sig = 0;
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);
			continue;
		}
		ptrace(PTRACE_GETREGS, pid, NULL, &regs);
		if (regs.rip != addr + 1)
			continue;
		hits++;
		regs.rip = addr;
		ptrace(PTRACE_SETREGS, pid, NULL, &regs);
		ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)orig);
		ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			return 1;
		ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)brk);
	}
	fprintf(stderr, "hits %ld\n", hits);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
