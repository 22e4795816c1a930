// SPDX-License-Identifier: GPL-2.0
/*
 * swap_thp_test: kselftest for swapping transparent huge pages to thpswap.
 *
 * Precondition (done by tests/guest/swap-suite.sh): modprobe thpswap
 * size=1G; mkswap /dev/$THPSWAP_DEV; swapon /dev/$THPSWAP_DEV, and no other
 * swap device is active.  THPSWAP_DEV defaults to thpswap0.
 * THPSWAP_TEST_DIV=N (1, 2, 4, 8) divides the big working sets (256 MiB,
 * 128 MiB, the memcg group) by N, for slow debug kernels.
 *
 * Every test checks every word of the memory it swapped.  MADV_PAGEOUT is
 * the trigger: it swaps an exclusive, PMD-mapped THP out whole,
 * synchronously, in the caller's context.  Nothing here sleeps to wait for
 * the kernel; where the kernel defers work (the per-CPU swap slot cache
 * returns freed slots to the device in batches of SWAP_BATCH = 64), the test
 * pins itself to one CPU and bounds or flushes that batch explicitly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "lib.h"

/* Pages the per-CPU swap slot cache may hold back (SWAP_SLOTS_CACHE_SIZE). */
#define SLOT_CACHE_PAGES	64
#define TEST_TIMEOUT		900	/* s; TCG with a debug kernel is slow */

FIXTURE(swap) {
	const char *dev;
	char path[128];
	char cgroup[128];
	pid_t kids[8];
	int nkids;
};

FIXTURE_SETUP(swap)
{
	self->dev = thpswap_dev_name();
	snprintf(self->path, sizeof(self->path), "/dev/%s", self->dev);
	ASSERT_TRUE(dev_has_stats(self->dev))
		TH_LOG("/sys/block/%s/thpswap/stats missing: is thpswap loaded?",
		       self->dev);
	ASSERT_TRUE(swap_active(self->path))
		TH_LOG("%s is not in /proc/swaps (swapon first)", self->path);
}

FIXTURE_TEARDOWN(swap)
{
	int i;

	for (i = 0; i < self->nkids; i++) {
		if (self->kids[i] > 0) {
			kill(self->kids[i], SIGKILL);
			waitpid(self->kids[i], NULL, 0);
		}
	}
	if (self->cgroup[0])
		rmdir(self->cgroup);
	/* Later tests need swap: undo a swapoff a failed test left behind. */
	if (!swap_active(self->path)) {
		int err = do_swapon(self->path, 0);

		if (err)
			TH_LOG("teardown: swapon %s: %s", self->path,
			       strerror(-err));
	}
}

/* Check every word of [p, p + bytes) against the pattern; fatal if wrong. */
#define ASSERT_PATTERN(p, bytes, seed, first_word, what) do {		\
	struct bad_word _b = { 0 };					\
	uint64_t _n = pattern_verify(p, bytes, seed, first_word, &_b);	\
	ASSERT_EQ((uint64_t)0, _n)					\
		TH_LOG("%s: %" PRIu64 " of %zu words wrong; first: word %" PRIu64 \
		       " (page %" PRIu64 ", word %" PRIu64 ") expected %#018" PRIx64 \
		       " got %#018" PRIx64, what, _n, (size_t)(bytes) / 8, \
		       _b.index, _b.index / 512, _b.index % 512,	\
		       _b.expected, _b.seen);				\
} while (0)

#define ASSERT_ZERO_WORDS(p, bytes, what) do {				\
	struct bad_word _b = { 0 };					\
	uint64_t _n = zero_verify(p, bytes, &_b);			\
	ASSERT_EQ((uint64_t)0, _n)					\
		TH_LOG("%s: %" PRIu64 " non-zero words; first: word %" PRIu64 \
		       " = %#018" PRIx64, what, _n, _b.index, _b.seen);	\
} while (0)

/*
 * Make sure the whole region is backed by PMD-mapped THPs (the counts the
 * tests expect depend on it): if the fault path fell back to small pages
 * somewhere, collapse synchronously.  Returns AnonHugePages in kB.
 */
static long long ensure_thp(void *p, size_t bytes)
{
	long long kb = smaps_range_kb(p, bytes, "AnonHugePages");

	if (kb >= 0 && (size_t)kb * KiB < bytes) {
		madvise(p, bytes, MADV_COLLAPSE);
		kb = smaps_range_kb(p, bytes, "AnonHugePages");
	}
	return kb;
}

/* A big working set divided by $THPSWAP_TEST_DIV, in whole THPs. */
static size_t scaled(size_t bytes)
{
	const char *e = getenv("THPSWAP_TEST_DIV");
	unsigned long div = e ? strtoul(e, NULL, 0) : 1;

	if (div != 2 && div != 4 && div != 8)
		div = 1;
	return (bytes / div) & ~(THP_SIZE - 1);
}

static void log_dev(struct __test_metadata *_metadata, const char *what,
		    const struct dev_snap *d)
{
	TH_LOG("%s: thp_writes %lld page_writes %lld thp_reads %lld page_reads %lld bytes_written %lld bytes_read %lld slot_frees %lld rejected %lld | clusters total %lld free %lld huge %lld split %lld small %lld",
	       what, d->thp_writes, d->page_writes, d->thp_reads, d->page_reads,
	       d->bytes_written, d->bytes_read, d->slot_frees, d->rejected,
	       d->c_total, d->c_free, d->c_huge, d->c_split, d->c_small);
}

/*
 * Swap out 256 MiB of THPs: each must reach the device as one 2 MiB write,
 * stay a HUGE cluster while swapped, and read back intact.
 */
TEST_F_TIMEOUT(swap, pageout_256m, TEST_TIMEOUT)
{
	const size_t bytes = scaled(256 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x5eed0000a11ce001ULL;
	struct vmstat_snap v0, v1, v2, dv, dvin;
	struct dev_snap d0, d1, d2, dd, ddin;
	long long kb;
	char *mem;

	mem = thp_alloc(bytes);
	ASSERT_NE(NULL, mem) TH_LOG("thp_alloc(%zu): %s", bytes, strerror(errno));
	pattern_fill(mem, bytes, seed, 0);
	kb = ensure_thp(mem, bytes);
	ASSERT_EQ((long long)(bytes / KiB), kb)
		TH_LOG("AnonHugePages %lld kB, want %zu kB: no THPs to swap", kb,
		       bytes / KiB);

	vmstat_snap(&v0);
	dev_snap(self->dev, &d0);
	ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT))
		TH_LOG("MADV_PAGEOUT: %s", strerror(errno));
	vmstat_snap(&v1);
	dev_snap(self->dev, &d1);
	vmstat_delta(&dv, &v0, &v1);
	dev_delta(&dd, &d0, &d1);
	log_dev(_metadata, "after pageout", &d1);

	kb = smaps_range_kb(mem, bytes, "Swap");
	ASSERT_EQ((long long)(bytes / KiB), kb)
		TH_LOG("only %lld of %zu kB swapped out (thp_swpout +%lld, fallback +%lld)",
		       kb, bytes / KiB, dv.thp_swpout, dv.thp_swpout_fallback);
	EXPECT_EQ(nthp, dv.thp_swpout)
		TH_LOG("vmstat thp_swpout +%lld, want %lld", dv.thp_swpout, nthp);
	EXPECT_EQ(0, dv.thp_swpout_fallback)
		TH_LOG("vmstat thp_swpout_fallback +%lld", dv.thp_swpout_fallback);
	EXPECT_EQ(nthp * 512, dv.pswpout)
		TH_LOG("vmstat pswpout +%lld, want %lld", dv.pswpout, nthp * 512);
	EXPECT_EQ(nthp, dd.thp_writes)
		TH_LOG("device thp_writes +%lld, want %lld", dd.thp_writes, nthp);
	EXPECT_EQ(dv.thp_swpout, dd.thp_writes)
		TH_LOG("device thp_writes +%lld != vmstat thp_swpout +%lld",
		       dd.thp_writes, dv.thp_swpout);
	EXPECT_EQ(0, dd.page_writes)
		TH_LOG("device page_writes +%lld, want 0", dd.page_writes);
	EXPECT_EQ((long long)bytes, dd.bytes_written)
		TH_LOG("device bytes_written +%lld, want %zu", dd.bytes_written,
		       bytes);
	EXPECT_EQ(0, dd.rejected)
		TH_LOG("device rejected +%lld", dd.rejected);
	EXPECT_LE(nthp, d1.c_huge)
		TH_LOG("clusters huge %lld while %lld THPs are swapped out",
		       d1.c_huge, nthp);

	ASSERT_PATTERN(mem, bytes, seed, 0, "256 MiB after swap-in");
	vmstat_snap(&v2);
	dev_snap(self->dev, &d2);
	vmstat_delta(&dvin, &v1, &v2);
	dev_delta(&ddin, &d1, &d2);
	log_dev(_metadata, "after swap-in", &d2);
	TH_LOG("swap-in: pswpin +%lld, device thp_reads +%lld page_reads +%lld bytes_read +%lld, AnonHugePages now %lld kB",
	       dvin.pswpin, ddin.thp_reads, ddin.page_reads, ddin.bytes_read,
	       smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_LE((long long)bytes, ddin.bytes_read)
		TH_LOG("device bytes_read +%lld < %zu swapped in", ddin.bytes_read,
		       bytes);
	EXPECT_EQ(ddin.thp_reads * (long long)THP_SIZE +
		  ddin.page_reads * (long long)PAGE_SZ, ddin.bytes_read)
		TH_LOG("bytes_read +%lld != thp_reads +%lld * 2M + page_reads +%lld * 4K",
		       ddin.bytes_read, ddin.thp_reads, ddin.page_reads);
	thp_free(mem, bytes);
}

/*
 * Swap entries and THPs shared by fork: region A is swapped out before
 * fork (both processes then hold its swap entries, swap count 2, and read
 * them back concurrently); region B is resident at fork, the child rewrites
 * it (copy-on-write) and swaps its copy out, then the parent swaps out its
 * original THPs, now exclusive again.  Both check every word of A and B.
 */
TEST_F_TIMEOUT(swap, fork_then_swap, TEST_TIMEOUT)
{
	const size_t bytes = 16 * MiB;
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed_a = 0x5eed00000000a001ULL;
	const uint64_t seed_b = 0x5eed00000000b001ULL;
	const uint64_t seed_c = 0x5eed00000000c001ULL;	/* child's B */
	struct vmstat_snap v0, v1, v2, dv;
	struct dev_snap d0, d1, d2, dd;
	int ready[2], status;
	char *a, *b, msg = 0;
	long long kb;
	ssize_t n;
	pid_t pid;

	a = thp_alloc(bytes);
	b = thp_alloc(bytes);
	ASSERT_TRUE(a && b) TH_LOG("thp_alloc: %s", strerror(errno));
	pattern_fill(a, bytes, seed_a, 0);
	pattern_fill(b, bytes, seed_b, 0);
	kb = ensure_thp(a, bytes);
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("A: AnonHugePages %lld kB", kb);
	kb = ensure_thp(b, bytes);
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("B: AnonHugePages %lld kB", kb);

	vmstat_snap(&v0);
	dev_snap(self->dev, &d0);
	ASSERT_EQ(0, madvise(a, bytes, MADV_PAGEOUT)) TH_LOG("%s", strerror(errno));
	vmstat_snap(&v1);
	dev_snap(self->dev, &d1);
	vmstat_delta(&dv, &v0, &v1);
	dev_delta(&dd, &d0, &d1);
	kb = smaps_range_kb(a, bytes, "Swap");
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("A: Swap %lld kB before fork", kb);
	EXPECT_EQ(nthp, dv.thp_swpout) TH_LOG("A: thp_swpout +%lld", dv.thp_swpout);
	EXPECT_EQ(nthp, dd.thp_writes) TH_LOG("A: device thp_writes +%lld", dd.thp_writes);

	ASSERT_EQ(0, pipe(ready));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid) TH_LOG("fork: %s", strerror(errno));
	if (pid == 0) {
		struct bad_word fb;
		uint64_t bad_a, bad_b;
		long long swap_b;
		int rc = 0;

		close(ready[0]);
		/* All COW pages on one CPU's LRU add batch: drained by PAGEOUT. */
		pin_to_current_cpu();
		pattern_fill(b, bytes, seed_c, 0);
		madvise(b, bytes, MADV_PAGEOUT);
		swap_b = smaps_range_kb(b, bytes, "Swap");
		msg = 'r';
		if (write(ready[1], &msg, 1) != 1)
			rc |= 8;
		close(ready[1]);
		bad_a = pattern_verify(a, bytes, seed_a, 0, &fb);
		if (bad_a) {
			fprintf(stderr, "# child: A: %" PRIu64 " bad words, first word %" PRIu64
				" expected %#" PRIx64 " got %#" PRIx64 "\n",
				bad_a, fb.index, fb.expected, fb.seen);
			rc |= 1;
		}
		bad_b = pattern_verify(b, bytes, seed_c, 0, &fb);
		if (bad_b) {
			fprintf(stderr, "# child: B: %" PRIu64 " bad words, first word %" PRIu64
				" expected %#" PRIx64 " got %#" PRIx64 "\n",
				bad_b, fb.index, fb.expected, fb.seen);
			rc |= 2;
		}
		if (swap_b != (long long)(bytes / KiB)) {
			fprintf(stderr, "# child: B: only %lld kB of its copy swapped out\n",
				swap_b);
			rc |= 4;
		}
		_exit(rc);
	}
	self->kids[self->nkids++] = pid;
	close(ready[1]);
	n = read(ready[0], &msg, 1);
	close(ready[0]);
	ASSERT_EQ(1, n) TH_LOG("child died before swapping its copy of B");

	/* The child no longer maps B's THPs: they are ours alone again. */
	dev_snap(self->dev, &d1);
	vmstat_snap(&v1);
	ASSERT_EQ(0, madvise(b, bytes, MADV_PAGEOUT)) TH_LOG("%s", strerror(errno));
	vmstat_snap(&v2);
	dev_snap(self->dev, &d2);
	vmstat_delta(&dv, &v1, &v2);
	dev_delta(&dd, &d1, &d2);
	kb = smaps_range_kb(b, bytes, "Swap");
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("parent B: Swap %lld kB", kb);
	EXPECT_EQ(nthp, dv.thp_swpout)
		TH_LOG("parent B: thp_swpout +%lld fallback +%lld", dv.thp_swpout,
		       dv.thp_swpout_fallback);
	EXPECT_EQ(nthp, dd.thp_writes)
		TH_LOG("parent B: device thp_writes +%lld page_writes +%lld",
		       dd.thp_writes, dd.page_writes);

	/* Concurrently with the child reading the same swap entries of A. */
	ASSERT_PATTERN(a, bytes, seed_a, 0, "parent A");
	ASSERT_PATTERN(b, bytes, seed_b, 0, "parent B");

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	self->nkids = 0;
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("child killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child failed: %s%s%s%s", WEXITSTATUS(status) & 1 ? "A corrupt; " : "",
		       WEXITSTATUS(status) & 2 ? "B corrupt; " : "",
		       WEXITSTATUS(status) & 4 ? "B not swapped out; " : "",
		       WEXITSTATUS(status) & 8 ? "pipe write failed" : "");
	dev_snap(self->dev, &d2);
	dev_delta(&dd, &d0, &d2);
	EXPECT_EQ(0, dd.rejected) TH_LOG("device rejected +%lld", dd.rejected);
	log_dev(_metadata, "end", &d2);
	thp_free(a, bytes);
	thp_free(b, bytes);
}

/*
 * Push this CPU's swap slot cache out: swap out and free 1 MiB of small
 * pages, so that every slot freed on this CPU before now has been returned
 * to the swap device (the cache holds at most SLOT_CACHE_PAGES).
 */
static int flush_slot_cache(void)
{
	const size_t bytes = 4 * SLOT_CACHE_PAGES * PAGE_SZ;
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret = 0;

	if (p == MAP_FAILED)
		return -1;
	if (madvise(p, bytes, MADV_NOHUGEPAGE))
		ret = -1;
	pattern_fill(p, bytes, 0xf1, 0);
	if (madvise(p, bytes, MADV_PAGEOUT))
		ret = -1;
	if (smaps_range_kb(p, bytes, "Swap") != (long long)(bytes / KiB))
		ret = -1;
	munmap(p, bytes);
	return ret;
}

/*
 * Free parts of swapped-out THPs: munmap half of one, MADV_DONTNEED 64 KiB
 * of another.  The device must see its HUGE clusters become SPLIT, the rest
 * of the data must read back intact, and once everything is gone the
 * clusters and SwapFree must be back where they started.
 */
TEST_F_TIMEOUT(swap, partial_munmap_dontneed, TEST_TIMEOUT)
{
	const size_t bytes = 16 * MiB;
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x5eed0000000c0001ULL;
	/* munmap the second half of THP 2; DONTNEED 64 KiB inside THP 5 */
	const size_t hole_off = 2 * THP_SIZE + THP_SIZE / 2, hole_len = THP_SIZE / 2;
	const size_t dn_off = 5 * THP_SIZE + 512 * KiB, dn_len = 64 * KiB;
	long long swapfree0, swapfree1, swapfree2, kb;
	struct dev_snap d0, d1, d2, d3, dd;
	struct vmstat_snap v0, v1, dv;
	char *mem;
	int cpu;

	/*
	 * All our slot frees go to this CPU's slot cache, whose size is
	 * bounded.  Flush it first: frees earlier tests left there would
	 * otherwise reach the device during this test and move the counts.
	 */
	cpu = pin_to_current_cpu();
	ASSERT_LE(0, cpu) TH_LOG("sched_setaffinity: %s", strerror(errno));
	ASSERT_EQ(0, flush_slot_cache()) TH_LOG("could not swap small pages");

	mem = thp_alloc(bytes);
	ASSERT_NE(NULL, mem) TH_LOG("thp_alloc: %s", strerror(errno));
	pattern_fill(mem, bytes, seed, 0);
	kb = ensure_thp(mem, bytes);
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("AnonHugePages %lld kB", kb);

	swapfree0 = meminfo_kb("SwapFree");
	dev_snap(self->dev, &d0);
	vmstat_snap(&v0);
	ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT)) TH_LOG("%s", strerror(errno));
	vmstat_snap(&v1);
	dev_snap(self->dev, &d1);
	vmstat_delta(&dv, &v0, &v1);
	dev_delta(&dd, &d0, &d1);
	swapfree1 = meminfo_kb("SwapFree");
	log_dev(_metadata, "baseline", &d0);
	log_dev(_metadata, "swapped out", &d1);
	kb = smaps_range_kb(mem, bytes, "Swap");
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("Swap %lld kB", kb);
	EXPECT_EQ(nthp, dv.thp_swpout) TH_LOG("thp_swpout +%lld", dv.thp_swpout);
	EXPECT_EQ(nthp, dd.thp_writes) TH_LOG("device thp_writes +%lld", dd.thp_writes);
	EXPECT_EQ(nthp, dd.c_huge)
		TH_LOG("clusters huge %lld -> %lld, want +%lld", d0.c_huge,
		       d1.c_huge, nthp);
	/* Huge swap allocations bypass the slot cache: SwapFree is exact. */
	EXPECT_EQ(swapfree0 - (long long)(bytes / KiB), swapfree1)
		TH_LOG("SwapFree %lld -> %lld kB after swapping out %zu kB",
		       swapfree0, swapfree1, bytes / KiB);

	/*
	 * DONTNEED first: if the slot cache holds its 16 frees back, the 256
	 * frees of the munmap that follows push them out to the device.
	 */
	ASSERT_EQ(0, madvise(mem + dn_off, dn_len, MADV_DONTNEED))
		TH_LOG("MADV_DONTNEED: %s", strerror(errno));
	ASSERT_EQ(0, munmap(mem + hole_off, hole_len)) TH_LOG("%s", strerror(errno));
	dev_snap(self->dev, &d2);
	log_dev(_metadata, "after munmap+dontneed", &d2);
	EXPECT_EQ(d1.c_split + 2, d2.c_split)
		TH_LOG("clusters split %lld -> %lld, want +2", d1.c_split, d2.c_split);
	EXPECT_EQ(d1.c_huge - 2, d2.c_huge)
		TH_LOG("clusters huge %lld -> %lld, want -2", d1.c_huge, d2.c_huge);
	kb = smaps_range_kb(mem, bytes, "Swap");
	EXPECT_EQ((long long)((bytes - hole_len - dn_len) / KiB), kb)
		TH_LOG("Swap %lld kB after freeing %zu kB", kb,
		       (hole_len + dn_len) / KiB);

	/* [0, hole) pattern, hole, pattern, [dn_off, +dn_len) zero, pattern */
	ASSERT_PATTERN(mem, hole_off, seed, 0, "before the hole");
	ASSERT_PATTERN(mem + hole_off + hole_len, dn_off - hole_off - hole_len,
		       seed, (hole_off + hole_len) / 8, "between hole and DONTNEED");
	ASSERT_ZERO_WORDS(mem + dn_off, dn_len, "DONTNEED range");
	ASSERT_PATTERN(mem + dn_off + dn_len, bytes - dn_off - dn_len, seed,
		       (dn_off + dn_len) / 8, "after the DONTNEED range");
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));

	thp_free(mem, bytes);
	/*
	 * Every slot is free now, but up to SLOT_CACHE_PAGES frees may sit in
	 * this CPU's slot cache (and as many from earlier tests may have been
	 * pushed out by ours): SwapFree is exact to within that batch.
	 */
	swapfree2 = meminfo_kb("SwapFree");
	EXPECT_GE(SLOT_CACHE_PAGES * 4, llabs(swapfree2 - swapfree0))
		TH_LOG("SwapFree %lld kB at start, %lld kB after unmapping everything",
		       swapfree0, swapfree2);

	ASSERT_EQ(0, flush_slot_cache()) TH_LOG("could not swap small pages");
	dev_snap(self->dev, &d3);
	log_dev(_metadata, "all freed, slot cache flushed", &d3);
	EXPECT_EQ(d0.c_huge, d3.c_huge)
		TH_LOG("clusters huge %lld at start, %lld at end", d0.c_huge, d3.c_huge);
	EXPECT_EQ(d0.c_split, d3.c_split)
		TH_LOG("clusters split %lld at start, %lld at end", d0.c_split,
		       d3.c_split);
	dev_delta(&dd, &d0, &d3);
	EXPECT_EQ(0, dd.rejected) TH_LOG("device rejected +%lld", dd.rejected);
}

/*
 * swapoff must bring every page of swapped-out THPs back intact; the device
 * then holds no live slot.  Swap is re-enabled for the tests that follow.
 */
TEST_F_TIMEOUT(swap, swapoff_with_data, TEST_TIMEOUT)
{
	const size_t bytes = scaled(128 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x5eed0000000d0001ULL;
	struct dev_snap d0, d1, d2, dd;
	long long kb;
	char *mem;
	int err;

	mem = thp_alloc(bytes);
	ASSERT_NE(NULL, mem) TH_LOG("thp_alloc: %s", strerror(errno));
	pattern_fill(mem, bytes, seed, 0);
	kb = ensure_thp(mem, bytes);
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("AnonHugePages %lld kB", kb);

	dev_snap(self->dev, &d0);
	ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT)) TH_LOG("%s", strerror(errno));
	dev_snap(self->dev, &d1);
	dev_delta(&dd, &d0, &d1);
	kb = smaps_range_kb(mem, bytes, "Swap");
	ASSERT_EQ((long long)(bytes / KiB), kb) TH_LOG("Swap %lld kB", kb);
	EXPECT_EQ(nthp, dd.thp_writes) TH_LOG("device thp_writes +%lld", dd.thp_writes);

	err = do_swapoff(self->path);
	ASSERT_EQ(0, err) TH_LOG("swapoff %s: %s", self->path, strerror(-err));
	EXPECT_FALSE(swap_active(self->path));
	dev_snap(self->dev, &d2);
	log_dev(_metadata, "after swapoff", &d2);
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, d2.c_huge) TH_LOG("clusters huge %lld after swapoff", d2.c_huge);
	EXPECT_EQ(0, d2.c_split) TH_LOG("clusters split %lld after swapoff", d2.c_split);

	ASSERT_PATTERN(mem, bytes, seed, 0, "after swapoff");

	err = do_swapon(self->path, 0);
	ASSERT_EQ(0, err) TH_LOG("swapon %s: %s", self->path, strerror(-err));
	ASSERT_TRUE(swap_active(self->path));
	thp_free(mem, bytes);
}

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_PROCS	3
#define CG_WSET		scaled(96 * MiB)
#define CG_MAX		scaled(160 * MiB)

static int cg_child(const char *cg, int ready, int go, int check, int i)
{
	const uint64_t seed = 0x5eed00000e000001ULL + ((uint64_t)i << 32);
	const size_t wset = CG_WSET;
	char path[256], buf[32], c;
	struct bad_word fb;
	uint64_t bad;
	int pass, rc = 0;
	char *mem;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(buf, sizeof(buf), "%d", getpid());
	if (write_file(path, buf))
		return 10;
	c = 'r';
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		return 11;
	mem = thp_alloc(wset);
	if (!mem)
		return 12;
	pattern_fill(mem, wset, seed, 0);
	/*
	 * Hold the memory until every child has filled its own, so the
	 * group really exceeds memory.max at once, however fast one child
	 * would otherwise finish (small working sets on THPSWAP_TEST_DIV).
	 */
	c = 'f';
	if (write(ready, &c, 1) != 1 || read(check, &c, 1) != 1)
		return 11;
	for (pass = 1; pass <= 2; pass++) {
		bad = pattern_verify(mem, wset, seed, 0, &fb);
		if (bad) {
			fprintf(stderr, "# memcg child %d pass %d: %" PRIu64 " bad words, first word %"
				PRIu64 " expected %#" PRIx64 " got %#" PRIx64 "\n",
				i, pass, bad, fb.index, fb.expected, fb.seen);
			rc = 1;
		}
	}
	return rc;
}

/*
 * Three processes with 96 MiB of THP memory each in a cgroup limited to
 * 160 MiB: memcg reclaim swaps to thpswap; each process writes its pattern
 * and reads it back twice, which only works if swap-out and swap-in are
 * exact under real reclaim.
 */
TEST_F_TIMEOUT(swap, memcg_pressure, TEST_TIMEOUT)
{
	struct vmstat_snap v0, v1, dv;
	struct dev_snap d0, d1, dd;
	char path[256], buf[4096];
	int ready[2], go[2], check[2], i, status, err, failed = 0;
	long long oom_kill, max_events;

	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "memory"))
		SKIP(return, "no cgroup v2 memory controller at " CG_ROOT);
	err = write_file(CG_ROOT "/cgroup.subtree_control", "+memory");
	ASSERT_EQ(0, err) TH_LOG("enable +memory: %s", strerror(-err));
	snprintf(self->cgroup, sizeof(self->cgroup), CG_ROOT "/thpswap-test.%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->cgroup, 0755))
		TH_LOG("mkdir %s: %s", self->cgroup, strerror(errno));
	snprintf(path, sizeof(path), "%s/memory.max", self->cgroup);
	snprintf(buf, sizeof(buf), "%zu", CG_MAX);
	err = write_file(path, buf);
	ASSERT_EQ(0, err) TH_LOG("memory.max: %s", strerror(-err));

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	/* A pipe per barrier: a fast child must not take a slow one's byte. */
	ASSERT_EQ(0, pipe(check));
	vmstat_snap(&v0);
	dev_snap(self->dev, &d0);
	fflush(NULL);
	for (i = 0; i < CG_PROCS; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid) TH_LOG("fork: %s", strerror(errno));
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			close(check[1]);
			_exit(cg_child(self->cgroup, ready[1], go[0], check[0], i));
		}
		self->kids[self->nkids++] = pid;
	}
	close(ready[1]);
	close(go[0]);
	close(check[0]);
	/* Start together once all have joined the cgroup. */
	for (i = 0; i < CG_PROCS; i++) {
		char c;

		ASSERT_EQ(1, read(ready[0], &c, 1))
			TH_LOG("a child died before joining %s", self->cgroup);
	}
	ASSERT_EQ(CG_PROCS, write(go[1], "ggg", CG_PROCS));
	/* ...and check their memory once all of it has been written. */
	for (i = 0; i < CG_PROCS; i++) {
		char c;

		ASSERT_EQ(1, read(ready[0], &c, 1))
			TH_LOG("a child died before filling its memory");
	}
	ASSERT_EQ(CG_PROCS, write(check[1], "ccc", CG_PROCS));
	close(go[1]);
	close(check[1]);
	close(ready[0]);

	for (i = 0; i < CG_PROCS; i++) {
		pid_t pid = self->kids[i];

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		self->kids[i] = 0;
		if (WIFSIGNALED(status)) {
			TH_LOG("child %d killed by signal %d%s", i, WTERMSIG(status),
			       WTERMSIG(status) == SIGKILL ? " (OOM kill?)" : "");
			failed++;
		} else if (WEXITSTATUS(status)) {
			TH_LOG("child %d exited %d (1 corrupt, 10 join, 11 sync, 12 mmap)",
			       i, WEXITSTATUS(status));
			failed++;
		}
	}
	self->nkids = 0;
	vmstat_snap(&v1);
	dev_snap(self->dev, &d1);
	vmstat_delta(&dv, &v0, &v1);
	dev_delta(&dd, &d0, &d1);

	snprintf(path, sizeof(path), "%s/memory.events", self->cgroup);
	oom_kill = file_key_value(path, "oom_kill");
	max_events = file_key_value(path, "max");
	TH_LOG("memory.events: max %lld oom_kill %lld; vmstat pswpout +%lld pswpin +%lld thp_swpout +%lld fallback +%lld",
	       max_events, oom_kill, dv.pswpout, dv.pswpin, dv.thp_swpout,
	       dv.thp_swpout_fallback);
	TH_LOG("device: thp_writes +%lld page_writes +%lld thp_reads +%lld page_reads +%lld rejected +%lld",
	       dd.thp_writes, dd.page_writes, dd.thp_reads, dd.page_reads,
	       dd.rejected);
	ASSERT_EQ(0, failed) TH_LOG("%d of %d processes failed", failed, CG_PROCS);
	EXPECT_EQ(0, oom_kill);
	EXPECT_LT(0, dd.thp_writes)
		TH_LOG("no THP reached the device under memcg pressure");
	EXPECT_LT(0, dv.pswpin) TH_LOG("nothing was swapped back in");
	EXPECT_EQ(0, dd.rejected) TH_LOG("device rejected +%lld", dd.rejected);
	EXPECT_EQ(0, rmdir(self->cgroup)) TH_LOG("rmdir: %s", strerror(errno));
	self->cgroup[0] = 0;
}

/*
 * main: TEST_HARNESS_MAIN plus the test selection later kernels' harness
 * has (6.1's ignores its arguments):
 *   swap_thp_test [-l] [-t TEST]...   -t TEST  run only TEST (repeatable;
 *   "name" or "swap.name");  -l  list the tests and exit.
 */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

static bool test_selected(const struct __fixture_metadata *f,
			  const struct __test_metadata *t,
			  char **want, bool *used, int nwant)
{
	bool hit = !nwant;
	char full[256];
	int i;

	snprintf(full, sizeof(full), "%s.%s", f->name, t->name);
	for (i = 0; i < nwant; i++)
		if (!strcmp(want[i], t->name) || !strcmp(want[i], full))
			hit = used[i] = true;
	return hit;
}

int main(int argc, char **argv)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t, *next, *head, *tail;
	bool used[64] = { false };
	char *want[64];
	int nwant = 0, opt, i;
	bool list = false;

	while ((opt = getopt(argc, argv, "lt:h")) != -1) {
		switch (opt) {
		case 't':
			if (nwant < (int)ARRAY_SIZE(want))
				want[nwant++] = optarg;
			break;
		case 'l':
			list = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-l] [-t TEST]...\n", argv[0]);
			return opt == 'h' ? 0 : KSFT_FAIL;
		}
	}
	/* Keep only the selected tests, in order, in each fixture's list. */
	for (f = __fixture_list; f; f = f->next) {
		head = tail = NULL;
		for (t = f->tests; t; t = next) {
			next = t->next;
			if (list)
				printf("%s.%s\n", f->name, t->name);
			if (!test_selected(f, t, want, used, nwant))
				continue;
			t->next = NULL;
			if (!head) {
				head = t;
			} else {
				tail->next = t;
				t->prev = tail;
			}
			tail = t;
			head->prev = tail;
		}
		f->tests = head;
	}
	if (list)
		return 0;
	for (i = 0; i < nwant; i++) {
		if (!used[i]) {
			fprintf(stderr, "%s: -t %s: no such test (see -l)\n",
				argv[0], want[i]);
			return KSFT_FAIL;
		}
	}
	return test_harness_run(argc, argv);
}
