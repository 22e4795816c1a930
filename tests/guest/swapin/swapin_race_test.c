// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_race_test: whole-THP swap-in against its neighbours.
 *
 * Precondition (done by swapin.sh): a kernel with the whole-THP swap-in
 * patches, thpswap loaded, /dev/$THPSWAP_DEV swapped on as the only swap
 * device.  THPSWAP_TEST_DIV=N divides the working sets by N.
 *
 *  - same_thp: several threads fault on the same swapped-out THPs at once.
 *    Each THP is claimed once (thp_swpin + thp_swpin_fallback rise by the
 *    number of THPs, not threads), every THP ends PMD-mapped, and the
 *    threads that lose allocate no THP: the pages allocated (pgalloc_*)
 *    stay below 1.5 THPs per THP, where a loser that allocated would add a
 *    whole THP each.
 *  - distinct_thps: threads swap in different THPs of one process at once:
 *    every THP comes back whole, one claim each, and the thread that holds
 *    the mmap write lock maps the THPs that the others have read with its
 *    own (thp_swpin_handoff).
 *  - swapoff_loop: processes with several threads each swap out, touch and
 *    verify their THPs over and over while the device is swapped off and on
 *    again in a loop; every word checked, SwapFree full at the end.
 *  - zap_while_swapping_in: one thread swaps THPs in, in order, while
 *    another zaps each one (MADV_DONTNEED) as soon as the first has begun
 *    to fault on it: the zap lands before, during and after the swap-in,
 *    including after the PMD is mapped and before the cluster is freed.
 *    Every word read is the one written or zero, and after a swapoff and
 *    swapon SwapFree is full: no slot was leaked or freed twice.
 *
 * Nothing sleeps to wait for the kernel: threads start on a barrier, the
 * swapoff loop runs until every worker has reported its rounds through a
 * pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define TEST_TIMEOUT	900

/* Pages the buddy allocator handed out, all zones. */
static long long pgalloc(void)
{
	static const char *const keys[] = {
		"pgalloc_dma", "pgalloc_dma32", "pgalloc_normal",
		"pgalloc_movable",
	};
	long long v, sum = 0;
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = vmstat_get(keys[i]);
		if (v > 0)
			sum += v;
	}
	return sum;
}

struct racer {
	pthread_barrier_t *bar;
	char *mem;
	size_t bytes;
	size_t stride;		/* touch one word per THP, from this offset */
};

static void *racer_fn(void *arg)
{
	struct racer *r = arg;
	volatile char *p;
	size_t off;

	pthread_barrier_wait(r->bar);
	for (off = 0; off < r->bytes; off += THP_SIZE) {
		p = r->mem + off + r->stride;
		(void)*p;
	}
	return NULL;
}

/*
 * @nt threads start on a barrier; thread i touches one word of each THP of
 * [@mem + i * @spread, + @bytes), at offset @off + i * @step into each.
 * Returns 0 once all have joined.
 */
static int run_racers(int nt, char *mem, size_t bytes, size_t spread,
		      size_t off, size_t step)
{
	struct racer r[nt];
	pthread_barrier_t bar;
	pthread_t th[nt];
	int i;

	pthread_barrier_init(&bar, NULL, nt);
	for (i = 0; i < nt; i++) {
		r[i] = (struct racer){ &bar, mem + i * spread, bytes,
				       off + i * step };
		/* The ones started wait on the barrier until the test exits. */
		if (pthread_create(&th[i], NULL, racer_fn, &r[i]))
			return -1;
	}
	for (i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	return 0;
}

FIXTURE(race) {
	const char *dev;
	char path[64];
};

FIXTURE_SETUP(race)
{
	self->dev = thpswap_dev_name();
	snprintf(self->path, sizeof(self->path), "/dev/%s", self->dev);
	ASSERT_TRUE(swap_active(self->path))
		TH_LOG("%s is not swapped on", self->path);
	ASSERT_LE(0, vmstat_get("thp_swpin"))
		TH_LOG("no thp_swpin in /proc/vmstat: not a patched kernel");
	ASSERT_LE(0, vmstat_get("pgalloc_normal") + vmstat_get("pgalloc_dma32"));
	ASSERT_EQ(0, write_file("/sys/kernel/mm/transparent_hugepage/swapin_enabled",
				"always"));
}

FIXTURE_TEARDOWN(race)
{
}

TEST_F_TIMEOUT(race, same_thp, TEST_TIMEOUT)
{
	enum { NT = 4 };
	const size_t bytes = scaled(64 * THP_SIZE);
	const long long thps = bytes / THP_SIZE;
	const uint64_t seed = 0x5a3e7badULL;
	long long in0, fb0, al0, in1, fb1, al1;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	in0 = vmstat_get("thp_swpin");
	fb0 = vmstat_get("thp_swpin_fallback");
	al0 = pgalloc();
	/* All threads on the same THP at once, each at its own page. */
	ASSERT_EQ(0, run_racers(NT, mem, bytes, 0, 0, 129 * PAGE_SZ));
	al1 = pgalloc();
	in1 = vmstat_get("thp_swpin");
	fb1 = vmstat_get("thp_swpin_fallback");
	TH_LOG("%lld THPs, %d threads: thp_swpin +%lld, fallback +%lld, pages allocated %lld (%.2f THPs per THP)",
	       thps, NT, in1 - in0, fb1 - fb0, al1 - al0,
	       (double)(al1 - al0) / 512 / thps);
	/* One claim per THP, whichever thread made it. */
	EXPECT_EQ(thps, (in1 - in0) + (fb1 - fb0));
	/* The losers map the winner's THP whole, not 4 KiB of it. */
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	/* A loser that allocated a THP would add 512 pages for each. */
	EXPECT_LT(al1 - al0, thps * 512 * 3 / 2);
	EXPECT_EQ(0, pattern_verify(mem, bytes, seed, 0, NULL));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	thp_free(mem, bytes);
}

TEST_F_TIMEOUT(race, distinct_thps, TEST_TIMEOUT)
{
	enum { NT = 4 };
	const size_t per = scaled(32 * THP_SIZE);
	const size_t bytes = NT * per;
	const uint64_t seed = 0xd157177cULL;
	long long in0, fb0, ho0, in1, fb1, ho1;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	in0 = vmstat_get("thp_swpin");
	fb0 = vmstat_get("thp_swpin_fallback");
	ho0 = vmstat_get("thp_swpin_handoff");
	ASSERT_LE(0, ho0) TH_LOG("no thp_swpin_handoff in /proc/vmstat");
	ASSERT_EQ(0, run_racers(NT, mem, per, per, 4242 * 8, 0));
	in1 = vmstat_get("thp_swpin");
	fb1 = vmstat_get("thp_swpin_fallback");
	ho1 = vmstat_get("thp_swpin_handoff");
	TH_LOG("%zu THPs in %d threads: thp_swpin +%lld, fallback +%lld, mapped by another thread +%lld",
	       bytes / THP_SIZE, NT, in1 - in0, fb1 - fb0, ho1 - ho0);
	EXPECT_EQ((long long)(bytes / THP_SIZE), in1 - in0);
	EXPECT_EQ(0, fb1 - fb0);
	/*
	 * Four threads on fewer CPUs: the write lock is never free for all
	 * of them, and a thread that finds it taken hands its THP over.
	 */
	EXPECT_LT(0, ho1 - ho0);
	EXPECT_GE(in1 - in0, ho1 - ho0);
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, pattern_verify(mem, bytes, seed, 0, NULL));
	thp_free(mem, bytes);
}

/*
 * One worker process: NT threads, each with its own THPs, @rounds times
 * fill, swap out, touch everything back and verify.  Writes one byte to
 * @fd per round done; exits 0 if every word was right.
 */
struct worker {
	pthread_barrier_t *bar;
	size_t bytes;
	uint64_t seed;
	int rounds, fd;
	uint64_t bad;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	char *mem = thp_alloc(w->bytes);
	int i;

	pthread_barrier_wait(w->bar);
	if (!mem) {
		w->bad = 1;
		return NULL;
	}
	for (i = 0; i < w->rounds; i++) {
		uint64_t seed = w->seed + i;

		pattern_fill(mem, w->bytes, seed, 0);
		/* With swap off this swaps nothing out, and that is fine. */
		madvise(mem, w->bytes, MADV_PAGEOUT);
		w->bad += pattern_verify(mem, w->bytes, seed, 0, NULL);
		if (write(w->fd, "r", 1) != 1)
			w->bad++;
	}
	thp_free(mem, w->bytes);
	return NULL;
}

static int worker_process(size_t bytes, uint64_t seed, int rounds, int fd)
{
	enum { NT = 2 };
	struct worker w[NT];
	pthread_barrier_t bar;
	pthread_t th[NT];
	uint64_t bad = 0;
	int i;

	pthread_barrier_init(&bar, NULL, NT);
	for (i = 0; i < NT; i++) {
		w[i] = (struct worker){ &bar, bytes, seed + 1000 * i, rounds,
					fd, 0 };
		if (pthread_create(&th[i], NULL, worker_fn, &w[i]))
			return 2;
	}
	for (i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		bad += w[i].bad;
	}
	return bad ? 1 : 0;
}

TEST_F_TIMEOUT(race, swapoff_loop, TEST_TIMEOUT)
{
	enum { NP = 2, NT = 2 };
	const size_t bytes = scaled(24 * THP_SIZE);
	const int rounds = 12;
	const int total = NP * NT * rounds;
	const char *path = self->path;
	char c;
	long long in0, in1, out0, out1;
	int fds[2], i, done = 0, cycles = 0, status, err;
	int offs_during = 0;
	pid_t pid[NP];

	ASSERT_EQ(0, pipe(fds));
	in0 = vmstat_get("thp_swpin");
	out0 = vmstat_get("thp_swpout");
	for (i = 0; i < NP; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			close(fds[0]);
			_exit(worker_process(bytes, 0xabcdef00ULL * (i + 1),
					     rounds, fds[1]));
		}
	}
	close(fds[1]);
	/*
	 * swapoff and swapon while the workers run, until they are all done:
	 * swapoff brings their swapped-out THPs back (try_to_unuse) while their
	 * faults swap other ones in whole.
	 */
	while (done < total) {
		err = do_swapoff(path);
		if (err && err != -ENOMEM) {
			TH_LOG("swapoff: %s", strerror(-err));
			break;
		}
		if (!err && done < total)
			offs_during++;
		err = do_swapon(path, 0);
		if (err) {
			TH_LOG("swapon: %s", strerror(-err));
			break;
		}
		cycles++;
		/* Let at least one worker round through between cycles. */
		if (read(fds[0], &c, 1) == 1)
			done++;
		else
			break;
	}
	while (read(fds[0], &c, 1) == 1)
		done++;
	close(fds[0]);
	for (i = 0; i < NP; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("worker %d status %#x", i, status);
	}
	in1 = vmstat_get("thp_swpin");
	out1 = vmstat_get("thp_swpout");
	TH_LOG("%d swapoff/swapon cycles (%d while workers ran), %d of %d rounds, thp_swpout +%lld, thp_swpin +%lld",
	       cycles, offs_during, done, total, out1 - out0, in1 - in0);
	EXPECT_TRUE(swap_active(path));
	EXPECT_EQ(total, done);
	EXPECT_LE(4, offs_during);
	/* Swapping happened between the swapoffs, whole both ways. */
	EXPECT_LT(0, out1 - out0);
	EXPECT_LT(0, in1 - in0);
	/* Everything the workers had in swap is free again. */
	EXPECT_EQ(0, do_swapoff(path));
	EXPECT_EQ(0, do_swapon(path, 0));
	EXPECT_EQ(meminfo_kb("SwapTotal"), meminfo_kb("SwapFree"));
}

struct zap_race {
	pthread_barrier_t bar;
	char *mem;
	size_t bytes;
	uint64_t seed;
	int started;		/* THPs the reader began; INT_MAX: done */
	uint64_t zero, kept, bad;	/* words the reader saw */
};

static void *zap_reader(void *arg)
{
	struct zap_race *z = arg;
	const uint64_t *w = (const uint64_t *)z->mem;
	size_t i, n = z->bytes / sizeof(*w), per = THP_SIZE / sizeof(*w);
	uint64_t v;

	pthread_barrier_wait(&z->bar);
	for (i = 0; i < n; i += PAGE_SZ / sizeof(*w)) {
		if (!(i % per))
			__atomic_store_n(&z->started, i / per + 1,
					 __ATOMIC_RELEASE);
		v = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
		if (!v)
			z->zero++;
		else if (v == pattern_word(z->seed, i))
			z->kept++;
		else
			z->bad++;
	}
	__atomic_store_n(&z->started, INT_MAX, __ATOMIC_RELEASE);
	return NULL;
}

static void *zap_zapper(void *arg)
{
	struct zap_race *z = arg;
	int i, n = z->bytes / THP_SIZE;

	pthread_barrier_wait(&z->bar);
	for (i = 0; i < n; i++) {
		volatile unsigned long spin;

		/*
		 * After the reader's first touch of THP i, by 0 to 6 steps of
		 * a delay, so that the zap lands at a different point of each
		 * swap-in; or, every 8th THP, once the reader has moved on.
		 */
		while (__atomic_load_n(&z->started, __ATOMIC_ACQUIRE) <=
		       (i % 8 == 7 ? i + 1 : i))
			;
		for (spin = 0; spin < (i % 8) * 40000UL; spin++)
			;
		madvise(z->mem + i * THP_SIZE, THP_SIZE, MADV_DONTNEED);
	}
	return NULL;
}

TEST_F_TIMEOUT(race, zap_while_swapping_in, TEST_TIMEOUT)
{
	const size_t bytes = scaled(32 * THP_SIZE);
	const int rounds = 8;
	uint64_t zero = 0, kept = 0, bad = 0;
	long long in0, in1, fb0, fb1;
	pthread_t tr, tz;
	int r;

	in0 = vmstat_get("thp_swpin");
	fb0 = vmstat_get("thp_swpin_fallback");
	for (r = 0; r < rounds; r++) {
		struct zap_race z = { .bytes = bytes, .seed = 0x2a9ULL + r };

		z.mem = thp_out(_metadata, bytes, z.seed);
		ASSERT_NE(NULL, z.mem);
		pthread_barrier_init(&z.bar, NULL, 2);
		ASSERT_EQ(0, pthread_create(&tr, NULL, zap_reader, &z));
		ASSERT_EQ(0, pthread_create(&tz, NULL, zap_zapper, &z));
		pthread_join(tr, NULL);
		pthread_join(tz, NULL);
		pthread_barrier_destroy(&z.bar);
		zero += z.zero;
		kept += z.kept;
		bad += z.bad;
		thp_free(z.mem, bytes);
	}
	in1 = vmstat_get("thp_swpin");
	fb1 = vmstat_get("thp_swpin_fallback");
	TH_LOG("%d rounds of %zu THPs: words read %" PRIu64 " as written, %" PRIu64 " zero, %" PRIu64 " other; thp_swpin +%lld, fallback +%lld",
	       rounds, bytes / THP_SIZE, kept, zero, bad, in1 - in0, fb1 - fb0);
	/* Each word as written or, zapped, zero; never anything else. */
	EXPECT_EQ(0, bad);
	/*
	 * Whole swap-ins happened (every 8th THP is zapped only after the
	 * reader is done with it), and so did zaps under the reader.
	 */
	EXPECT_LT(0, in1 - in0);
	EXPECT_LT(0, zero);
	/*
	 * Nothing maps the slots any more: a swapoff finds none in use (a
	 * slot counted but never freed would keep it busy) and afterwards
	 * every slot is free.
	 */
	EXPECT_EQ(0, do_swapoff(self->path));
	EXPECT_EQ(0, do_swapon(self->path, 0));
	EXPECT_EQ(meminfo_kb("SwapTotal"), meminfo_kb("SwapFree"));
}

TEST_HARNESS_MAIN
