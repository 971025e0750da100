// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes on the ordinary situations of the real process model, each
 * once seen to oops, hang, rewrite a file or kill the target: the
 * outcome is asserted exactly, and the console must stay clean.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/ptrace.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

/* A page-aligned offset of @fd's executable segment, whole in the file. */
static off_t text_page(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (int i = 0; i < eh.e_phnum; i++) {
		off_t start, end;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		start = (ph.p_offset + page - 1) & ~(page - 1);
		end = (ph.p_offset + ph.p_filesz) & ~(page - 1);
		return end > start ? start : -1;
	}
	return -1;
}

/*
 * A tmpfs file whose probed page is not in memory (a hole): its mapping
 * has no ->read_folio, so the text is read through shmem, as mainline
 * does.  Once this oopsed on a NULL ->read_folio.
 */
TEST(tmpfs_hole)
{
	const char *path = "/tmp/robust_hole";
	char buf[4096], zero[4096] = { 0 };
	off_t off;
	int fd;

	/* this program: its text has whole pages */
	ASSERT_EQ(0, copy("/proc/self/exe", path));
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	off = text_page(fd);
	ASSERT_LT(0, off);
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       off, 4096));
	EXPECT_EQ(0, events("p:hole %s:%#lx\n", path, (long)off));
	EXPECT_EQ(0, hits("hole"));
	EXPECT_EQ(0, events("-:hole\n"));
	EXPECT_EQ(-1, hits("hole"));
	/* the hole reads as zeros still: nothing was written into it */
	ASSERT_EQ((ssize_t)sizeof(buf), pread(fd, buf, sizeof(buf), off));
	EXPECT_EQ(0, memcmp(buf, zero, sizeof(buf)));
	close(fd);
	unlink(path);
}

#define CALLS 300

/* The probed function; each call must return 2x + 1, probed or not. */
__attribute__((noinline)) long r_fn(long x)
{
	__asm__ volatile("" ::: "memory");
	return 2 * x + 1;
}

/* Make @calls calls of r_fn(): how many returned a wrong value. */
static int r_calls(int calls)
{
	int bad = 0;

	for (long i = 0; i < calls; i++)
		bad += r_fn(i) != 2 * i + 1;
	return bad;
}

static int wait_status(pid_t pid, int flags)
{
	int st;

	return waitpid(pid, &st, flags) == pid ? st : -1;
}

static volatile int cvm_go;

static int cvm_sibling(void *arg)
{
	while (!cvm_go)
		;
	return r_calls(CALLS) ? 3 : 0;
}

/*
 * A task made with clone(CLONE_VM) and no CLONE_THREAD runs on the
 * probed mm, so it hits the breakpoints: it must have been given an
 * engine when the process was probed, not die of SIGTRAP.
 */
TEST(clone_vm_sibling_covered)
{
	int ready[2], go[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		size_t size = 256 * 1024;
		char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
				   -1, 0);
		pid_t sib;
		int st;

		if (stack == MAP_FAILED)
			_exit(10);
		sib = clone(cvm_sibling, stack + size, CLONE_VM | SIGCHLD,
			    NULL);
		if (sib < 0)
			_exit(11);
		put_byte(ready[1]);
		get_byte(go[0]);
		cvm_go = 1;
		st = r_calls(CALLS) ? 4 : 0;
		if (waitpid(sib, &st, 0) != sib || !WIFEXITED(st))
			_exit(WIFSIGNALED(st) ? 64 + WTERMSIG(st) : 12);
		_exit(WEXITSTATUS(st));
	}
	get_byte(ready[0]);
	ASSERT_EQ(0, events("p:cvm %d:%p\n", pid, r_fn));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(2 * CALLS, hits("cvm"));
	EXPECT_EQ(0, events("-:cvm\n"));
}

/*
 * A vfork child runs on its parent's mm until it execs or exits, while
 * the parent waits: probing the parent then covers the child too.
 */
TEST(vfork_child_covered)
{
	int ready[2], go[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t child = vfork();
		int st;

		if (child == 0) {
			put_byte(ready[1]);
			get_byte(go[0]);
			_exit(r_calls(CALLS) ? 3 : 0);
		}
		st = wait_status(child, 0);
		if (!WIFEXITED(st))
			_exit(WIFSIGNALED(st) ? 64 + WTERMSIG(st) : 12);
		if (WEXITSTATUS(st))
			_exit(WEXITSTATUS(st));
		_exit(r_calls(CALLS) ? 4 : 0);
	}
	get_byte(ready[0]);
	ASSERT_EQ(0, events("p:vfk %d:%p\n", pid, r_fn));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(2 * CALLS, hits("vfk"));
	EXPECT_EQ(0, events("-:vfk\n"));
}

/* A write to utprobe_events must come back within this, even emulated. */
#define BOUND_S 10.0

/* A child that makes CALLS calls once told to; exits 0 if all were right. */
static pid_t calls_child(int *go_fd)
{
	int go[2];
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		get_byte(go[0]);
		_exit(r_calls(CALLS) ? 3 : 0);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

/*
 * A job-control-stopped process (a ^Z'd job) cannot answer a quiesce
 * until SIGCONT: a probe is placed on it, and removed from it, at once.
 */
TEST(job_stopped_target)
{
	double t0;
	int go, st;
	pid_t pid;

	pid = calls_child(&go);

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, kill(pid, SIGSTOP));
	ASSERT_EQ(pid, waitpid(pid, &st, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(st));
	t0 = now();
	ASSERT_EQ(0, events("p:stp %d:%p\n", pid, r_fn));
	EXPECT_GT(BOUND_S, now() - t0);
	ASSERT_EQ(0, kill(pid, SIGCONT));
	put_byte(go);
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(CALLS, hits("stp"));
	EXPECT_EQ(0, events("-:stp\n"));

	/* and removed while stopped */
	pid = calls_child(&go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, events("p:stp2 %d:%p\n", pid, r_fn));
	ASSERT_EQ(0, kill(pid, SIGSTOP));
	ASSERT_EQ(pid, waitpid(pid, &st, WUNTRACED));
	t0 = now();
	EXPECT_EQ(0, events("-:stp2\n"));
	EXPECT_GT(BOUND_S, now() - t0);
	EXPECT_EQ(-1, hits("stp2"));
	ASSERT_EQ(0, kill(pid, SIGCONT));
	put_byte(go);
	EXPECT_EQ(0, wait_status(pid, 0));
}

/*
 * The parent of a vfork child waits, uninterruptibly but for SIGKILL,
 * until the child execs or exits: removing a probe meanwhile returns at
 * once, and neither the child nor the parent hits it afterwards.
 */
TEST(remove_during_vfork)
{
	int ready[2], go[2];
	double t0;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t child;
		int st;

		/* calls before the vfork: the probe is placed by then */
		get_byte(go[0]);
		if (r_calls(CALLS))
			_exit(5);
		child = vfork();
		if (child == 0) {
			put_byte(ready[1]);
			get_byte(go[0]);
			_exit(r_calls(CALLS) ? 3 : 0);
		}
		st = wait_status(child, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			_exit(WIFSIGNALED(st) ? 64 + WTERMSIG(st) : 12);
		_exit(r_calls(CALLS) ? 4 : 0);
	}
	ASSERT_EQ(0, events("p:vrm %d:%p\n", pid, r_fn));
	put_byte(go[1]);
	get_byte(ready[0]);
	EXPECT_EQ(CALLS, hits("vrm"));
	t0 = now();
	EXPECT_EQ(0, events("-:vrm\n"));
	EXPECT_GT(BOUND_S, now() - t0);
	EXPECT_EQ(-1, hits("vrm"));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
}

/* Drop CAP_SYS_ADMIN from current's effective set: 0 or -1. */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/*
 * tracefs decides on the opener's credentials, as the kernel does for
 * files whose writes are privileged: a file opened with CAP_SYS_ADMIN
 * stays writable after the capability goes, and one opened without it
 * is refused even though the writer could regain nothing.
 */
TEST(opener_credentials_decide)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(EVENTS, O_WRONLY | O_APPEND);
		char def[80];
		int n;

		if (fd < 0 || drop_sys_admin())
			_exit(10);
		n = snprintf(def, sizeof(def), "p:cred %d:%p\n", getppid(),
			     (void *)r_fn);
		if (write(fd, def, n) != n)
			_exit(11);
		close(fd);
		/* opened without the capability: refused */
		if (events("-:cred\n") != -EPERM)
			_exit(12);
		_exit(0);
	}
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(0, hits("cred"));
	EXPECT_EQ(0, events("-:cred\n"));
}

/* A file of @size bytes of @byte, the last one @last. */
static int make_file(const char *path, int byte, int last, size_t size)
{
	char buf[4096];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || size != sizeof(buf))
		return -1;
	memset(buf, byte, size);
	buf[size - 1] = last;
	if (write(fd, buf, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A point outlives its mapping: the probed text is unmapped and a
 * shared writable file is mapped at the same address.  A fork, and the
 * removal of the probe, must not write the saved byte into that file.
 */
TEST(shared_file_over_old_text)
{
	const char *code_path = "/tmp/robust_code", *data_path = "/tmp/robust_data";
	int code = make_file(code_path, 0x90, 0xc3, 4096);	/* nops, ret */
	int data = make_file(data_path, 'A', 'A', 4096);
	int ready[2], go[2];
	char buf[4096], want[4096];
	void *addr;
	pid_t pid;

	ASSERT_LE(0, code);
	ASSERT_LE(0, data);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	addr = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, code, 0);
	ASSERT_NE(MAP_FAILED, addr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		void (*fn)(void) = (void (*)(void))addr;
		char *p;
		pid_t gc;

		get_byte(go[0]);
		fn();
		if (munmap(addr, 4096))
			_exit(10);
		p = mmap(addr, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, data, 0);
		if (p != addr)
			_exit(11);
		gc = fork();
		if (gc == 0)
			_exit(0);
		if (wait_status(gc, 0))
			_exit(12);
		put_byte(ready[1]);
		get_byte(go[0]);
		for (int i = 0; i < 4096; i++)
			if (p[i] != 'A')
				_exit(13);
		_exit(0);
	}
	ASSERT_EQ(0, events("p:stale %d:%p\n", pid, addr));
	put_byte(go[1]);
	get_byte(ready[0]);
	EXPECT_EQ(1, hits("stale"));
	EXPECT_EQ(0, events("-:stale\n"));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
	memset(want, 'A', sizeof(want));
	ASSERT_EQ((ssize_t)sizeof(buf), pread(data, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, want, sizeof(buf)));
	close(code);
	close(data);
	unlink(code_path);
	unlink(data_path);
}

static sigjmp_buf trap_jmp;

static void on_trap(int sig)
{
	siglongjmp(trap_jmp, 1);
}

/*
 * Code made at run time (a JIT's, say) mapped anonymously over probed
 * text: the old point is stale.  An int3 the new code holds at its place
 * is the program's own, delivered as SIGTRAP and not counted, and the
 * removal of the probe leaves the new code as it is.
 */
TEST(anon_code_over_old_text)
{
	const char *code_path = "/tmp/robust_code2";
	int code = make_file(code_path, 0x90, 0xc3, 4096);	/* nops, ret */
	int ready[2], go[2];
	unsigned char *addr;
	pid_t pid;

	ASSERT_LE(0, code);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	addr = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, code, 0);
	ASSERT_NE(MAP_FAILED, addr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		void (*fn)(void) = (void (*)(void))addr;
		unsigned char *p;

		get_byte(go[0]);
		fn();
		p = mmap(addr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p != addr)
			_exit(10);
		p[0] = 0xcc;	/* int3 */
		p[1] = 0xc3;	/* ret */
		signal(SIGTRAP, on_trap);
		if (!sigsetjmp(trap_jmp, 1)) {
			fn();
			_exit(11);	/* the int3 was taken for the probe */
		}
		put_byte(ready[1]);
		get_byte(go[0]);
		_exit(p[0] == 0xcc && p[1] == 0xc3 ? 0 : 12);
	}
	/* a child that dies early gives EOF, not a wait */
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(0, events("p:jit %d:%p\n", pid, addr));
	put_byte(go[1]);
	get_byte(ready[0]);
	EXPECT_EQ(1, hits("jit"));
	EXPECT_EQ(0, events("-:jit\n"));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
	close(code);
	unlink(code_path);
}

/*
 * A "library" for the tests below: a copy of this program at @path,
 * opened read-only, whose page at *@base holds r_fn() at *@off, which
 * needs no relocation.  -1 on failure.
 */
static int self_lib(const char *path, long *off, off_t *base)
{
	char self[256];

	*off = self_offset((void *)r_fn, self, sizeof(self));
	if (*off <= 0 || copy(self, path))
		return -1;
	*base = *off & ~(sysconf(_SC_PAGESIZE) - 1);
	return open(path, O_RDONLY);
}

/*
 * A library closed and opened again at the same address: the new text
 * is fresh from the file, and a probe on the file is placed in it again.
 * Here the "library" is a page of self_lib() mapped by hand.
 */
TEST(file_mapped_again_at_same_place)
{
	const char *copy_path = "/tmp/robust_lib";
	long page = sysconf(_SC_PAGESIZE), off;
	off_t base;
	pid_t pid;
	int fd;

	fd = self_lib(copy_path, &off, &base);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, events("p:again %s:%#lx\n", copy_path, off));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		long (*fn)(long);
		char *p;

		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
			 base);
		if (p == MAP_FAILED)
			_exit(10);
		fn = (long (*)(long))(p + (off - base));
		if (fn(20) != 41)
			_exit(11);
		if (munmap(p, page))
			_exit(12);
		if (mmap(p, page, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, base) != p)
			_exit(13);
		if (fn(21) != 43)
			_exit(14);
		_exit(0);
	}
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(2, hits("again"));
	EXPECT_EQ(0, events("-:again\n"));
	close(fd);
	unlink(copy_path);
}

/*
 * Text moved by mremap(): the point of a probe on the file moves with it
 * and keeps counting; that of a pid probe dies with the old place, and
 * the int3 that moved with the page goes.  The program never sees one.
 */
TEST(text_moved_by_mremap)
{
	const char *copy_path = "/tmp/robust_moved";
	long page = sysconf(_SC_PAGESIZE), off;
	int ready[2], go[2], fd;
	long fn_addr;
	off_t base;
	pid_t pid;

	fd = self_lib(copy_path, &off, &base);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, events("p:mvf %s:%#lx\n", copy_path, off));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned char *p, *q, *to;
		long (*fn)(long);

		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
			 base);
		/* a free place to move to, not next to the old one */
		to = mmap(NULL, 3 * page, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || to == MAP_FAILED)
			_exit(10);
		fn = (long (*)(long))(p + (off - base));
		if (fn(20) != 41)
			_exit(11);
		fn_addr = (long)fn;
		if (write(ready[1], &fn_addr, sizeof(fn_addr)) !=
		    sizeof(fn_addr))
			_exit(12);
		get_byte(go[0]);
		q = mremap(p, page, page, MREMAP_MAYMOVE | MREMAP_FIXED,
			   to + page);
		if (q != to + page)
			_exit(13);
		fn = (long (*)(long))(q + (off - base));
		if (fn(21) != 43 || fn(22) != 45)
			_exit(14);
		put_byte(ready[1]);
		get_byte(go[0]);
		/* both probes gone: the text is the file's again */
		if (*(unsigned char *)fn == 0xcc || fn(23) != 47)
			_exit(15);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ((ssize_t)sizeof(fn_addr),
		  read(ready[0], &fn_addr, sizeof(fn_addr)));
	ASSERT_EQ(0, events("p:mvp %d:%#lx\n", pid, fn_addr));
	put_byte(go[1]);
	get_byte(ready[0]);
	EXPECT_EQ(3, hits("mvf"));
	EXPECT_EQ(0, hits("mvp"));
	EXPECT_EQ(0, events("-:mvf\n"));
	EXPECT_EQ(0, events("-:mvp\n"));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
	close(fd);
	unlink(copy_path);
}

/*
 * No room for an out-of-line slot within reach of the probed address
 * (everything around it mapped): a probe on an instruction that runs
 * out of line is refused at registration, -ENOMEM, not a SIGSEGV at its
 * first hit; an emulated one needs no slot and goes in.
 */
TEST(no_room_for_slots)
{
	/* lea 1(%rdi,%rdi), %rax; ret (stepped) and, at 16, nop; ret */
	static const unsigned char text[] = {
		0x48, 0x8d, 0x44, 0x3f, 0x01, 0xc3, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0x90, 0xc3 };
	const char *path = "/tmp/robust_noroom";
	int ready[2], go[2], fd;
	unsigned char *code;
	pid_t pid;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4096));
	ASSERT_EQ((ssize_t)sizeof(text), pwrite(fd, text, sizeof(text), 0));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* 4 GiB of address space taken, the code in its middle */
		char *all = mmap(NULL, 4UL << 30, PROT_NONE, MAP_PRIVATE |
				 MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		void (*nop)(void);

		if (all == MAP_FAILED)
			_exit(10);
		code = mmap(all + (2UL << 30), 4096, PROT_READ | PROT_EXEC,
			    MAP_PRIVATE | MAP_FIXED, fd, 0);
		if (code == MAP_FAILED)
			_exit(11);
		if (write(ready[1], &code, sizeof(code)) != sizeof(code))
			_exit(12);
		get_byte(go[0]);
		nop = (void (*)(void))(code + 16);
		nop();
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ((ssize_t)sizeof(code), read(ready[0], &code, sizeof(code)));
	EXPECT_EQ(-ENOMEM, events("p:noroom %d:%p\n", pid, code));
	EXPECT_EQ(-1, hits("noroom"));
	EXPECT_EQ(0, events("p:room %d:%p\n", pid, code + 16));
	put_byte(go[1]);
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(1, hits("room"));
	EXPECT_EQ(0, events("-:room\n"));
	close(fd);
	unlink(path);
}

static int idle_fd, idle_ack;

/* Answers each byte on idle_fd with one on idle_ack. */
static void *idle_thread(void *arg)
{
	for (;;) {
		get_byte(idle_fd);
		put_byte(idle_ack);
	}
	return NULL;
}

/*
 * A child of two threads, each asleep in read() between rounds: its main
 * thread makes CALLS calls of r_fn() per byte on go (and execs a program
 * that exits 0 on an 'e'), until go closes; the other answers each byte
 * on idle with one on ack.
 */
struct sleepy {
	pid_t pid;
	int go, done, idle, ack;
};

static struct sleepy sleepy_child(void)
{
	int go[2], done[2], idle[2], ack[2];
	struct sleepy c = { .pid = -1 };

	if (pipe(go) || pipe(done) || pipe(idle) || pipe(ack))
		return c;
	c.pid = fork();
	if (c.pid == 0) {
		pthread_t t;
		char b;

		close(go[1]);
		idle_fd = idle[0];
		idle_ack = ack[1];
		if (pthread_create(&t, NULL, idle_thread, NULL))
			_exit(10);
		while (read(go[0], &b, 1) == 1) {
			if (b == 'e') {
				execl("/bin/true", "true", (char *)NULL);
				_exit(12);
			}
			if (r_calls(CALLS))
				_exit(11);
			put_byte(done[1]);
		}
		_exit(0);
	}
	close(go[0]);
	c.go = go[1];
	c.done = done[0];
	c.idle = idle[1];
	c.ack = ack[0];
	return c;
}

/* A round of calls in @c, and one of its idle thread: both ran. */
static void sleepy_round(struct sleepy *c)
{
	put_byte(c->go);
	get_byte(c->done);
	put_byte(c->idle);
	get_byte(c->ack);
}

/* Both threads of @c asleep, for good: their context switches then. */
static long sleepy_asleep(struct sleepy *c)
{
	double t0 = now();
	long switches;

	while ((switches = asleep_switches(c->pid)) < 0 &&
	       now() - t0 < BOUND_S)
		usleep(10000);
	usleep(100000);
	return asleep_switches(c->pid);
}

/* Wait until no thread of @pid has an engine: 1 if so. */
static int engines_gone(pid_t pid)
{
	double t0 = now();

	while (!no_engine(pid) && now() - t0 < BOUND_S)
		usleep(10000);
	return no_engine(pid);
}

/*
 * Once the last probe of a process is removed, the process is as it was
 * before it was probed: every thread loses its engine (no utrace event
 * left), those asleep in read() too, without being woken for it (no
 * context switch of either thread meanwhile); a debugger can attach,
 * and the text is the file's again.  A probe that comes before the
 * threads have run again gives them engines anew, and counts.
 */
TEST(no_engine_after_last_probe)
{
	struct sleepy c = sleepy_child();
	unsigned char byte;
	long switches;

	ASSERT_LT(0, c.pid);
	ASSERT_EQ(0, events("p:gone %d:%p\n", c.pid, r_fn));
	EXPECT_FALSE(no_engine(c.pid));
	sleepy_round(&c);
	EXPECT_EQ(CALLS, hits("gone"));
	switches = sleepy_asleep(&c);
	ASSERT_LE(0, switches);
	EXPECT_EQ(0, events("-:gone\n"));
	EXPECT_TRUE(engines_gone(c.pid));
	usleep(100000);
	EXPECT_EQ(switches, asleep_switches(c.pid));
	ASSERT_EQ(0, text_read(c.pid, r_fn, &byte, 1));
	EXPECT_EQ(*(unsigned char *)r_fn, byte);
	/* a new probe before they ran: engines again, every call counted */
	ASSERT_EQ(0, events("p:again %d:%p\n", c.pid, r_fn));
	EXPECT_FALSE(no_engine(c.pid));
	sleepy_round(&c);
	EXPECT_EQ(CALLS, hits("again"));
	EXPECT_EQ(0, events("-:again\n"));
	/* the threads run on without engines; a debugger can attach */
	sleepy_round(&c);
	EXPECT_TRUE(no_engine(c.pid));
	EXPECT_EQ(0, ptrace(PTRACE_SEIZE, c.pid, 0, 0));
	close(c.go);
	EXPECT_EQ(0, wait_status(c.pid, 0));
}

/*
 * Threads let go of while asleep, stopped by job control, then killed,
 * or woken into an exec, or continued: each ends or runs on as it would
 * have unprobed (what the engine kept of them is freed on their way out,
 * which the debug kernel's kmemleak and KASAN watch).
 */
TEST(let_go_asleep_then_killed_exec_or_continued)
{
	static const char *const how[] = { "killed", "exec", "stopped" };
	unsigned int i;

	for (i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		struct sleepy c = sleepy_child();
		int st;

		ASSERT_LT(0, c.pid);
		ASSERT_EQ(0, events("p:asleep %d:%p\n", c.pid, r_fn));
		sleepy_round(&c);
		EXPECT_EQ(CALLS, hits("asleep"));
		ASSERT_LE(0, sleepy_asleep(&c));
		if (i == 2) {
			ASSERT_EQ(0, kill(c.pid, SIGSTOP));
			ASSERT_EQ(c.pid, waitpid(c.pid, &st, WUNTRACED));
			ASSERT_TRUE(WIFSTOPPED(st));
		}
		EXPECT_EQ(0, events("-:asleep\n"));
		EXPECT_TRUE(engines_gone(c.pid)) TH_LOG("%s", how[i]);
		switch (i) {
		case 0:
			ASSERT_EQ(0, kill(c.pid, SIGKILL));
			st = wait_status(c.pid, 0);
			EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
			break;
		case 1:
			ASSERT_EQ(1, write(c.go, "e", 1));
			EXPECT_EQ(0, wait_status(c.pid, 0));
			break;
		default:
			ASSERT_EQ(0, kill(c.pid, SIGCONT));
			sleepy_round(&c);
			EXPECT_TRUE(no_engine(c.pid));
			close(c.go);
			c.go = -1;
			EXPECT_EQ(0, wait_status(c.pid, 0));
		}
		if (c.go >= 0)
			close(c.go);
		close(c.done);
		close(c.idle);
		close(c.ack);
	}
}

/* What the breeder and the test share: flags set by one, read by the other. */
struct breed {
	volatile int stop;	/* the test: stop breeding */
	volatile int waiting;	/* the breeder: stopped, waits for go */
	volatile int go;	/* the test: make CALLS threads, then exit */
	volatile int made;	/* the breeder: threads made while breeding */
};

/* A thread the breeder made: it calls r_fn() once, then waits. */
struct born {
	pthread_t t;
	long x;
	sem_t leave;
};

static void *born_thread(void *arg)
{
	struct born *b = arg;
	long bad = r_fn(b->x) != 2 * b->x + 1;

	while (sem_wait(&b->leave))
		;
	return (void *)bad;
}

static int born_start(struct born *b, long x)
{
	b->x = x;
	return sem_init(&b->leave, 0, 0) ||
	       pthread_create(&b->t, NULL, born_thread, b);
}

/* Let @b end and join it: 0 if it called r_fn() right. */
static int born_end(struct born *b)
{
	void *bad;

	sem_post(&b->leave);
	if (pthread_join(b->t, &bad))
		return 1;
	sem_destroy(&b->leave);
	return bad != NULL;
}

/*
 * Make threads one after another until @b->stop, each living until the
 * next is made, the last until @b->go; then CALLS more, one at a time.
 */
static int breeder(struct breed *b)
{
	struct born two[2];	/* the one alive, the next */
	int cur = 0;
	long i;

	if (born_start(&two[cur], 0))
		return 1;
	while (!b->stop) {
		if (born_start(&two[!cur], ++b->made) || born_end(&two[cur]))
			return 1;
		cur = !cur;
	}
	b->waiting = 1;
	while (!b->go)
		usleep(1000);
	if (born_end(&two[cur]))
		return 1;
	for (i = 0; i < CALLS; i++)
		if (born_start(&two[0], i) || born_end(&two[0]))
			return 2;
	return 0;
}

/*
 * Threads are born while the process's last probe goes and comes back,
 * again and again: a new thread gets its engine from its creator's
 * clone report, which runs alongside the removal letting the threads
 * go.  One let go of while its engine was being set up was freed twice
 * (its own task_work freed it again when it first ran); one attached
 * just after the threads were let go of kept its engine.  Every thread
 * runs right, none is left with an engine once the last probe has
 * gone, and a probe placed afterwards counts each new thread's call
 * exactly.  UTP_BORN_ROUNDS sets how many times the probe comes and
 * goes.
 */
TEST(threads_born_while_let_go)
{
	int rounds = getenv("UTP_BORN_ROUNDS") ?
		     atoi(getenv("UTP_BORN_ROUNDS")) : 150;
	struct breed *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t0;
	pid_t pid;
	int i;

	ASSERT_NE(MAP_FAILED, b);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(breeder(b));
	for (i = 0; i < rounds; i++) {
		ASSERT_EQ(0, events("p:born %d:%p\n", pid, r_fn));
		ASSERT_EQ(0, events("-:born\n"));
	}
	b->stop = 1;
	t0 = now();
	while (!b->waiting && now() - t0 < BOUND_S)
		usleep(1000);
	ASSERT_TRUE(b->waiting);
	TH_LOG("%d threads born over %d rounds", b->made, rounds);
	EXPECT_LT(0, b->made);
	EXPECT_TRUE(engines_gone(pid));
	ASSERT_EQ(0, events("p:born %d:%p\n", pid, r_fn));
	b->go = 1;
	EXPECT_EQ(0, wait_status(pid, 0));
	EXPECT_EQ(CALLS, hits("born"));
	EXPECT_EQ(0, events("-:born\n"));
	munmap(b, sizeof(*b));
}

TEST_HARNESS_MAIN
