// SPDX-License-Identifier: GPL-2.0
/*
 * Placing and removing probes under running threads, and in batches.
 *
 * A probe goes in without stopping the target's threads; once the write
 * to utprobe_events has returned, every call of the probed function is
 * counted, by threads that were spinning through it the whole time too.
 * It comes out the same way, and a fork meanwhile never leaves an int3
 * in the child.  Several definitions in one write are placed together,
 * all or none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "utprobes_util.h"

/*
 * The tests of 100 rounds each take up to half of the harness's default
 * 30 s on the debug kernel under a loaded host: they get more.
 */
FIXTURE(place) {};
FIXTURE_SETUP(place) {}
FIXTURE_TEARDOWN(place) {}

#define SPINNERS	3	/* threads calling spin_fn(), on 2 CPUs */
#define ROUNDS		100
#define AFTER		20	/* calls each thread makes after a placement */

/* A function returning x + K, probed by the tests. */
#define ADDER(name, k)						\
	__attribute__((noinline)) long name(long x)		\
	{							\
		__asm__ volatile("" ::: "memory");		\
		return x + (k);					\
	}

/* spin_fn() is called in a tight loop; the others once in a while */
ADDER(spin_fn, 1)
ADDER(batch_a, 2)
ADDER(batch_b, 3)
ADDER(batch_c, 4)

struct spinner {
	pthread_t thread;
	volatile long calls;	/* spin_fn() calls made and returned */
	volatile int parked;	/* not calling while ->hold */
	volatile int bad;
};

static volatile int hold, stop;
static struct spinner spinners[SPINNERS];

static void *spin(void *arg)
{
	struct spinner *s = arg;
	long i = 0;

	while (!stop) {
		if (hold) {
			s->parked = 1;
			while (hold && !stop)
				;
			s->parked = 0;
			continue;
		}
		if (spin_fn(i) != i + 1)
			s->bad = 1;
		i++;
		s->calls = i;
	}
	return NULL;
}

static long sum_calls(long *each)
{
	long sum = 0;

	for (int i = 0; i < SPINNERS; i++) {
		each[i] = spinners[i].calls;
		sum += each[i];
	}
	return sum;
}

/*
 * 100 rounds: a probe on spin_fn() goes in while the spinners call it;
 * once the write has returned, every call that begins is counted.  A
 * call under way when the write returns may have passed the probed
 * instruction already: one call per thread may go uncounted, no more.
 */
TEST_F_TIMEOUT(place, counted_from_the_return_of_the_write, 300)
{
	long before[SPINNERS], after[SPINNERS], end[SPINNERS];
	int i, round;

	for (i = 0; i < SPINNERS; i++)
		ASSERT_EQ(0, pthread_create(&spinners[i].thread, NULL, spin,
					    &spinners[i]));
	for (round = 0; round < ROUNDS; round++) {
		long long since = 0, upto = 0, h;
		int ready;

		sum_calls(before);
		ASSERT_EQ(0, events("p:plc_spin %d:%#lx", getpid(),
				    (unsigned long)spin_fn));
		sum_calls(after);
		/* each thread makes AFTER calls more, then they all park */
		for (;;) {
			ready = 0;
			for (i = 0; i < SPINNERS; i++)
				ready += spinners[i].calls - after[i] >= AFTER;
			if (ready == SPINNERS)
				break;
			sched_yield();
		}
		hold = 1;
		for (i = 0; i < SPINNERS; i++)
			while (!spinners[i].parked)
				sched_yield();
		sum_calls(end);
		h = hits("plc_spin");
		for (i = 0; i < SPINNERS; i++) {
			since += end[i] - after[i] - 1;
			upto += end[i] - before[i];
		}
		if (h < since || h > upto)
			TH_LOG("round %d: %lld hits; %lld calls since the write returned, %lld since it began",
			       round, h, since + SPINNERS, upto);
		ASSERT_GE(h, since);
		ASSERT_LE(h, upto);
		ASSERT_EQ(0, events("-:plc_spin"));
		hold = 0;
	}
	stop = 1;
	for (i = 0; i < SPINNERS; i++) {
		pthread_join(spinners[i].thread, NULL);
		EXPECT_EQ(0, spinners[i].bad);
	}
}

static void start_spinners(struct __test_metadata *_metadata)
{
	stop = 0;
	hold = 0;
	for (int i = 0; i < SPINNERS; i++) {
		spinners[i].calls = 0;
		ASSERT_EQ(0, pthread_create(&spinners[i].thread, NULL, spin,
					    &spinners[i]));
	}
}

static void stop_spinners(struct __test_metadata *_metadata)
{
	stop = 1;
	for (int i = 0; i < SPINNERS; i++) {
		pthread_join(spinners[i].thread, NULL);
		EXPECT_EQ(0, spinners[i].bad);
	}
}

/* Until each spinner has made @n calls more than in @from. */
static void spin_on(const long *from, long n)
{
	for (int i = 0; i < SPINNERS; i++)
		while (spinners[i].calls - from[i] < n)
			sched_yield();
}

/* What the thread @tid of this process reports in its status for @key. */
static long task_status(pid_t tid, const char *key)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	p = strstr(read_file(path, buf, sizeof(buf)), key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int sleeper_pipe[2];
static volatile pid_t sleeper_tid;

static void *sleeper(void *arg)
{
	sleeper_tid = gettid();
	get_byte(sleeper_pipe[0]);
	return NULL;
}

/*
 * 100 rounds of a probe on spin_fn() placed and removed while the
 * spinners call it: once the removal's write has returned the original
 * instruction is back in the text, and the spinners go on calling it.
 * Neither the placement nor the removal stops or wakes the threads: a
 * thread asleep in read() the whole time never runs (its voluntary
 * context switches stay as they were).  Another probe of the process
 * stays meanwhile: the removal of a process's last probe lets its
 * threads go, which they do at a report.
 */
TEST_F_TIMEOUT(place, removed_under_running_threads, 300)
{
	unsigned char orig = *(volatile unsigned char *)spin_fn;
	long mark[SPINNERS], switches;
	pthread_t sleeping;
	int round;

	ASSERT_NE(0xcc, orig);
	ASSERT_EQ(0, events("p:plc_keep %d:%#lx", getpid(),
			    (unsigned long)batch_c));
	ASSERT_EQ(0, pipe(sleeper_pipe));
	ASSERT_EQ(0, pthread_create(&sleeping, NULL, sleeper, NULL));
	start_spinners(_metadata);
	while (!sleeper_tid)
		sched_yield();
	/* asleep in read(), and for good */
	while (task_status(sleeper_tid, "State:\tS") < 0)
		usleep(1000);
	usleep(100000);
	switches = task_status(sleeper_tid, "voluntary_ctxt_switches:");
	ASSERT_LT(0, switches);
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, events("p:plc_spin %d:%#lx", getpid(),
				    (unsigned long)spin_fn));
		ASSERT_EQ(0xcc, *(volatile unsigned char *)spin_fn);
		sum_calls(mark);
		spin_on(mark, AFTER);
		ASSERT_LE(SPINNERS * AFTER, hits("plc_spin"));
		ASSERT_EQ(0, events("-:plc_spin"));
		ASSERT_EQ(orig, *(volatile unsigned char *)spin_fn)
			TH_LOG("round %d: the int3 outlived its removal", round);
		sum_calls(mark);
		spin_on(mark, AFTER);
	}
	EXPECT_EQ(switches, task_status(sleeper_tid,
					"voluntary_ctxt_switches:"));
	stop_spinners(_metadata);
	put_byte(sleeper_pipe[1]);
	pthread_join(sleeping, NULL);
	ASSERT_EQ(0, events("-:plc_keep"));
}

static volatile long forks, fork_bad;

/* Forks children that call spin_fn(), until stopped. */
static void *forker(void *arg)
{
	int st;

	while (!stop) {
		pid_t pid = fork();

		if (pid < 0) {
			fork_bad = -errno;
			return NULL;
		}
		if (!pid) {
			for (long k = 0; k < 50; k++)
				if (spin_fn(k) != k + 1)
					_exit(2);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st))
			fork_bad = st ? st : -1;
		forks++;
	}
	return NULL;
}

/*
 * A thread forks again and again while probes on spin_fn() come and go.
 * A probe on one process is not inherited: every child, whenever it was
 * forked, finds the original instruction there (an int3 left in it
 * would kill it with SIGTRAP).
 */
TEST_F_TIMEOUT(place, forks_while_probes_come_and_go, 300)
{
	pthread_t t;
	int round;

	stop = 0;
	forks = 0;
	fork_bad = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, forker, NULL));
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, events("p:plc_spin %d:%#lx", getpid(),
				    (unsigned long)spin_fn));
		ASSERT_EQ(0, events("-:plc_spin"));
	}
	stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(0, fork_bad) TH_LOG("a child's status: %#lx", fork_bad);
	EXPECT_LT(0, forks);
}

static char self[256];
static long off_a, off_b, off_c;

static void offsets(struct __test_metadata *_metadata)
{
	off_a = self_offset(batch_a, self, sizeof(self));
	off_b = self_offset(batch_b, NULL, 0);
	off_c = self_offset(batch_c, NULL, 0);
	ASSERT_LT(0, off_a);
	ASSERT_LT(0, off_b);
	ASSERT_LT(0, off_c);
}

static int probes_listed(void)
{
	char buf[4096];
	int n = 0;

	read_file(EVENTS, buf, sizeof(buf));
	for (char *p = buf; (p = strstr(p, "plc_")); p++)
		n++;
	return n;
}

#define CHILDREN	4
#define CALLS		300

/*
 * Three probes on a file in one write, placed in four running processes
 * that map it: each process's calls are all counted, exactly.
 */
TEST(one_write_places_many_probes_in_many_processes)
{
	int go[2], i, st;
	pid_t pid[CHILDREN];

	offsets(_metadata);
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < CHILDREN; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			long bad = 0;

			close(go[1]);
			get_byte(go[0]);
			for (long k = 0; k < CALLS; k++)
				bad += batch_a(k) != k + 2 ||
				       batch_b(k) != k + 3 ||
				       batch_c(k) != k + 4;
			_exit(bad ? 1 : 0);
		}
	}
	close(go[0]);
	ASSERT_EQ(0, events("p:plc_a %s:%#lx\np:plc_b %s:%#lx\nr:plc_c %s:%#lx\n",
			    self, off_a, self, off_b, self, off_c));
	ASSERT_EQ(3, probes_listed());
	for (i = 0; i < CHILDREN; i++)
		put_byte(go[1]);
	for (i = 0; i < CHILDREN; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	close(go[1]);
	EXPECT_EQ(CHILDREN * CALLS, hits("plc_a"));
	EXPECT_EQ(CHILDREN * CALLS, hits("plc_b"));
	EXPECT_EQ(CHILDREN * CALLS, hits("plc_c"));
	ASSERT_EQ(0, events("-:plc_a\n-:plc_b\n-:plc_c"));
	EXPECT_EQ(0, probes_listed());
}

/* A write whose definitions cannot all go in leaves none of them. */
TEST(a_batch_goes_in_whole_or_not_at_all)
{
	unsigned char byte;

	offsets(_metadata);
	/* the second one's process does not exist */
	EXPECT_EQ(-ESRCH, events("p:plc_a %s:%#lx\np:plc_b 999999:%#lx\n",
				 self, off_a, (unsigned long)batch_b));
	EXPECT_EQ(0, probes_listed());
	/* the same name twice */
	EXPECT_EQ(-EEXIST, events("p:plc_a %s:%#lx\np:plc_a %s:%#lx\n",
				  self, off_a, self, off_b));
	EXPECT_EQ(0, probes_listed());
	/* the second one is not on text */
	EXPECT_EQ(-EFAULT, events("p:plc_a %d:%#lx\np:plc_b %d:%#lx\n",
				  getpid(), (unsigned long)batch_a, getpid(),
				  (unsigned long)&stop));
	EXPECT_EQ(0, probes_listed());
	/* nothing of the first one left in the text */
	ASSERT_EQ(0, text_read(getpid(), batch_a, &byte, 1));
	EXPECT_NE(0xcc, byte);
	EXPECT_EQ(0, batch_a(0) - 2);
}

/* A line that does not parse: the write changes nothing, removals too. */
TEST(a_write_that_does_not_parse_changes_nothing)
{
	offsets(_metadata);
	ASSERT_EQ(0, events("p:plc_a %s:%#lx", self, off_a));
	EXPECT_EQ(-EINVAL, events("-:plc_a\np:plc_b %s:%#lx\nbogus\n",
				  self, off_b));
	EXPECT_EQ(1, probes_listed());
	EXPECT_EQ(-ENOENT, events("p:plc_b %s:%#lx\np:plc_c /no/such/file:0x10\n",
				  self, off_b));
	EXPECT_EQ(1, probes_listed());
	batch_a(1);
	EXPECT_EQ(1, hits("plc_a"));
	ASSERT_EQ(0, events("-:plc_a"));
	EXPECT_EQ(0, probes_listed());
}

TEST_HARNESS_MAIN
