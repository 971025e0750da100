// SPDX-License-Identifier: GPL-2.0
/*
 * probe_target - a dynamically linked PIE program for the utprobes tests.
 *
 *   probe_target offsets          print where work() and libc's getppid()
 *                                 are, then exit
 *   probe_target run N [fork]     call both, and framed(), N times (and
 *                                 as many again in a forked child), exit
 *                                 0 if work() and framed() gave the right
 *                                 results
 *   probe_target wait N [fork]    print as "offsets" does, wait for a line
 *                                 on stdin, then "run"
 *   probe_target print N          print work(i) for i < N, one per line
 *
 * Lines printed: "self PATH OFFSET ADDR" and "libc PATH OFFSET ADDR"
 * (none for libc when linked statically, as probe_target_static is),
 * OFFSET the file offset of the function's first instruction and ADDR
 * its address in this process.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

long work(long x), framed(long x);
asm(".text\n"
    ".globl work\n"
    ".type work, @function\n"
    "work:\n"
    "	lea 1(%rdi), %rax\n"
    "	ret\n"
    ".size work, . - work\n"
    /* a frame first: a probe here may be entered by a jump */
    ".p2align 4\n"
    ".globl framed\n"
    ".type framed, @function\n"
    "framed:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    "	lea 2(%rdi), %rax\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size framed, . - framed\n"
    /* never called: an instruction the kernel refuses to probe */
    ".globl privileged\n"
    ".type privileged, @function\n"
    "privileged:\n"
    "	cli\n"
    "	ret\n"
    ".size privileged, . - privileged\n");

struct where {
	unsigned long addr;
	char path[4096];
	unsigned long offset;
	int found;
};

static int find(struct dl_phdr_info *info, size_t size __attribute__((unused)),
		void *arg)
{
	struct where *w = arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		unsigned long start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || w->addr < start ||
		    w->addr >= start + ph->p_memsz)
			continue;
		w->offset = w->addr - start + ph->p_offset;
		if (info->dlpi_name[0]) {
			snprintf(w->path, sizeof(w->path), "%s",
				 info->dlpi_name);
		} else {
			ssize_t n = readlink("/proc/self/exe", w->path,
					     sizeof(w->path) - 1);

			w->path[n > 0 ? n : 0] = '\0';
		}
		w->found = 1;
		return 1;
	}
	return 0;
}

static int print_where(const char *what, void *addr)
{
	struct where w = { .addr = (unsigned long)addr };
	char real[4096];

	dl_iterate_phdr(find, &w);
	if (!w.found || !realpath(w.path, real))
		return -1;
	printf("%s %s %#lx %#lx\n", what, real, w.offset, w.addr);
	return 0;
}

static int run(long n)
{
	int bad = 0;

	for (long i = 0; i < n; i++) {
		bad += work(i) != i + 1;
		bad += framed(i) != i + 2;
		/* 0 in the first process of a pid namespace */
		bad += getppid() < 0;
	}
	return bad;
}

int main(int argc, char **argv)
{
	void *libc_getppid = dlsym(RTLD_DEFAULT, "getppid");
	long n = argc > 2 ? atol(argv[2]) : 0;
	int do_fork = argc > 3 && !strcmp(argv[3], "fork");
	int bad, st;
	char line[16];
	pid_t pid;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "print")) {
		for (long i = 0; i < n; i++)
			printf("%ld\n", work(i));
		return 0;
	}
	if (!strcmp(argv[1], "offsets") || !strcmp(argv[1], "wait")) {
		/* linked statically, it has no libc of its own to show */
		if (print_where("self", (void *)work) ||
		    (libc_getppid && print_where("libc", libc_getppid)))
			return 3;
		fflush(stdout);
		if (!strcmp(argv[1], "offsets"))
			return 0;
		if (!fgets(line, sizeof(line), stdin))
			return 4;
	} else if (strcmp(argv[1], "run")) {
		return 2;
	}
	pid = do_fork ? fork() : 1;
	bad = run(n);
	if (pid == 0)
		_exit(bad ? 1 : 0);
	if (do_fork && (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			WEXITSTATUS(st)))
		bad++;
	return bad ? 1 : 0;
}
