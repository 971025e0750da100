// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: running a command under its probes: started stopped,
 * probed, then let go, its signals forwarded, its exit status kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "listing.h"

/* main() set DEBUGINFOD_PROGRESS for libdebuginfod, not for the user */
bool progress_set;

/*
 * Our pid namespace (its inode number), which names hold with our pid:
 * a pid alone is the same number in two containers.
 */
unsigned long pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : st.st_ino;
}

/*
 * The name of probe @i of command @cmd, which places probes for a while:
 * "count<pidns>_<pid>_<i>_<function>[_return]" (the namespace in hex),
 * so that two such commands running at once do not collide, in one pid
 * namespace or in two.
 */
void run_name(struct probe *pr, const char *cmd, int i)
{
	int k = snprintf(pr->name, NAME_MAX_LEN, "%s%lx_%d_%d_", cmd,
			 pid_ns(), getpid(), i);

	probe_name(pr->name + k, NAME_MAX_LEN - k, pr);
}

/* The command count and latency run, for forward(). */
static volatile pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void restore_signals(const struct sigaction *old_int,
			    const struct sigaction *old_quit,
			    const struct sigaction *old_term,
			    const struct sigaction *old_hup)
{
	sigaction(SIGINT, old_int, NULL);
	sigaction(SIGQUIT, old_quit, NULL);
	sigaction(SIGTERM, old_term, NULL);
	sigaction(SIGHUP, old_hup, NULL);
}

/*
 * Wait, a second at most, until the child sleeps in its read of the pipe
 * that lets it execute the command.  Probes placed then do not count
 * that read: it is the tool's, not the command's.  Placed while the
 * child may still be on its way to the read, they counted it sometimes.
 */
static void wait_asleep(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 1000; i++) {
		f = fopen(path, "r");
		p = f && fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (f)
			fclose(f);
		if (!p || (p[1] == ' ' && p[2] == 'S'))
			return;
		usleep(1000);
	}
}

pid_t run_pid;

/*
 * Run @cmd with the probes @ps[0..@n) limited to its process tree (the
 * kernel's tree= scope): they are placed before it starts and, once it
 * has exited, their counts are read and they are removed.  If one cannot
 * be placed, the command does not run.  0 with the command's exit
 * status in *@status, or -errno after a message.
 */
int run_probed(struct probe *ps, int *np, char **cmd, int *status,
	       const struct run_ops *ops)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction fwd = { .sa_handler = forward };
	struct sigaction old_int, old_quit, old_term, old_hup;
	int go[2], ret = 0, st = 0, i, r, bad = 0, n = *np;
	char **lines;
	pid_t pid;

	ret = own_probes();
	if (ret)
		return ret;
	if (pipe(go)) {
		ret = -errno;
		return print_error(ret, "pipe: %s", strerror(-ret));
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		return print_error(ret, "fork: %s", strerror(-ret));
	}
	if (pid == 0) {
		char x;

		close(session_fd);
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		close(go[0]);
		if (progress_set)
			unsetenv("DEBUGINFOD_PROGRESS");
		execvp(cmd[0], cmd);
		fprintf(stderr, "uprobe-cli: %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);
	wait_asleep(pid);
	lines = file_lines(ps, n, pid);
	if (!lines)
		ret = print_error(-ENOMEM, "out of memory");
	r = lines ? place_probes(ps, lines, &n, &bad) : 0;
	lines_free(lines, n);
	*np = n;
	if (r) {
		const struct up_place *p = &ps[bad].place;

		ret = print_error(r, "%s+%#lx (%s:%#lx): %s", p->symbol,
				  p->sym_off, p->path, p->offset,
				  kernel_errmsg(r));
	}
	/*
	 * As perf stat does: ^C and ^\ go to the command alone (the whole
	 * foreground group gets them), and SIGTERM and SIGHUP are passed on
	 * to it; either way the counts are printed and the probes removed
	 * once it has ended.  In place before it starts.
	 */
	child = pid;
	run_pid = pid;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	if (!ret && ops && ops->placed)
		ret = ops->placed(ps, n, ops->arg);
	if (!ret && write(go[1], "g", 1) != 1)
		ret = print_error(-errno, "cannot start %s", cmd[0]);
	close(go[1]);
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		/* those refused are all out already */
		remove_probes(ps, r ? 0 : n);
		restore_signals(&old_int, &old_quit, &old_term, &old_hup);
		return ret;
	}
	if (ops && ops->wait)
		ops->wait(pid, &st, ops->arg);
	else
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	restore_signals(&old_int, &old_quit, &old_term, &old_hup);
	kernel_counts(ps, n, NULL);
	for (i = 0; i < n; i++)
		if (ps[i].ret)
			kernel_returns(ps[i].name, &ps[i].rets);
	remove_probes(ps, n);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}
