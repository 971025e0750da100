// SPDX-License-Identifier: GPL-2.0
/*
 * Placing probes under running threads, and in batches.
 *
 * A probe goes in without stopping the target's threads; once the write
 * to utprobe_events has returned, every call of the probed function is
 * counted, by threads that were spinning through it the whole time too.
 * Several definitions in one write are placed together, all or none.
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
TEST(counted_from_the_return_of_the_write)
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
