// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_auto_test: kselftest for swapin_enabled=auto, the policy that swaps
 * a THP in whole where the access is dense and 4 KiB where it is sparse
 * (thp_swpin, thp_swpin_declined, thp_swpin_promoted), and the one read of
 * a THP's cluster that brings a half-read range's missing pages back when it
 * is collapsed (thp_swpin_collapse_read), also with a child sharing the slots
 * and with swapoff running at the same time.
 *
 * Precondition (done by swapin.sh): as for swapin_test.  Each case sets
 * swapin_enabled=auto and puts the old value back.  Every word read back is
 * checked; the counters say which decision the kernel took, and the device's
 * own read counters that it really read what the counters claim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define TEST_TIMEOUT	900
#define KNOB		"/sys/kernel/mm/transparent_hugepage/swapin_enabled"
#define NR_SUB		(THP_SIZE / PAGE_SZ)

/* Counters only (SNAP_DELTA()) */
struct auto_snap {
	long long thp_swpin, declined, promoted, promote_fb, fallback;
	long long dev_thp_reads, dev_page_reads;
	long long collapse_read, pswpin;
};

static void auto_snap(const char *dev, struct auto_snap *s)
{
	s->thp_swpin = vmstat_get("thp_swpin");
	s->declined = vmstat_get("thp_swpin_declined");
	s->promoted = vmstat_get("thp_swpin_promoted");
	s->promote_fb = vmstat_get("thp_swpin_promote_fallback");
	s->fallback = vmstat_get("thp_swpin_fallback");
	s->dev_thp_reads = dev_stat(dev, "thp_reads");
	s->dev_page_reads = dev_stat(dev, "page_reads");
	s->collapse_read = vmstat_get("thp_swpin_collapse_read");
	s->pswpin = vmstat_get("pswpin");
}

#define LOG_DELTA(what, d)						\
	TH_LOG("%s: thp_swpin +%lld declined +%lld promoted +%lld "	\
	       "promote_fallback +%lld fallback +%lld, device thp_reads " \
	       "+%lld page_reads +%lld", what, (d)->thp_swpin,		\
	       (d)->declined, (d)->promoted, (d)->promote_fb,		\
	       (d)->fallback, (d)->dev_thp_reads, (d)->dev_page_reads)

/* Read one byte of every page of @mem, from the last page to the first. */
static void touch_down(const char *mem, size_t bytes)
{
	const volatile char *p = mem;
	size_t i;

	for (i = bytes / PAGE_SZ; i-- > 0;)
		(void)p[i * PAGE_SZ];
}

/*
 * Pick @k distinct pages of each THP of @mem at random (fixed seed) and
 * read them in a random order across THPs; the page numbers go to @pages
 * (n THPs * k entries).  Returns the number of bad words in those pages.
 */
static uint64_t touch_sparse(struct __test_metadata *_metadata, char *mem,
			     size_t n, size_t k, uint64_t seed, size_t *pages)
{
	uint64_t bad = 0, r = 0x2545f4914f6cdd1dULL;
	size_t i, j, t;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k; j++) {
			size_t pg;
			bool dup;

			do {
				r ^= r << 13, r ^= r >> 7, r ^= r << 17;
				pg = i * NR_SUB + r % NR_SUB;
				dup = false;
				for (t = 0; t < j; t++)
					dup |= pages[i * k + t] == pg;
			} while (dup);
			pages[i * k + j] = pg;
		}
	}
	for (i = n * k; i > 1; i--) {	/* Fisher-Yates */
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		j = r % i;
		t = pages[i - 1];
		pages[i - 1] = pages[j];
		pages[j] = t;
	}
	for (i = 0; i < n * k; i++)
		bad += verify(_metadata, "sparse page", mem + pages[i] * PAGE_SZ,
			      PAGE_SZ, seed, pages[i] * (PAGE_SZ / 8));
	return bad;
}

FIXTURE(swapin_auto) {
	const char *dev;
	char knob[32];
};

FIXTURE_SETUP(swapin_auto)
{
	char buf[64];

	self->dev = thpswap_dev_name();
	ASSERT_TRUE(dev_has_stats(self->dev));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)));
	ASSERT_LE(0, vmstat_get("thp_swpin_declined"))
		TH_LOG("no thp_swpin_declined: not a kernel with swapin_enabled=auto");
	swapin_mode(buf, self->knob);
	ASSERT_EQ(0, write_file(KNOB, "auto"));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)));
	ASSERT_STREQ("always madvise [auto] never\n", buf);
}

FIXTURE_TEARDOWN(swapin_auto)
{
	write_file(KNOB, self->knob);
}

/*
 * A sequential pass, up or down: the first THP has no run next to it, so it
 * is declined, then promoted at its 17th page (going up; going down at the
 * 16th, whose 15 pages after it are the run), and its 496 (497) missing
 * pages come with one read of its cluster; every later one comes in whole,
 * and nothing is read twice.
 */
static void dense_pass(struct __test_metadata *_metadata, const char *dev,
		       size_t bytes, uint64_t seed, bool down)
{
	const long long nthp = bytes / THP_SIZE;
	struct auto_snap a, b, d;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	auto_snap(dev, &a);
	if (down)
		touch_down(mem, bytes);
	else
		touch_pages(mem, bytes);
	auto_snap(dev, &b);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA(down ? "descending" : "ascending", &d);
	ASSERT_EQ(0, verify(_metadata, "after swap-in", mem, bytes, seed, 0));
	EXPECT_EQ(1, d.declined);
	EXPECT_EQ(1, d.promoted);
	EXPECT_EQ(0, d.promote_fb);
	EXPECT_EQ(nthp - 1, d.thp_swpin);
	EXPECT_EQ(1, d.collapse_read);
	EXPECT_EQ(nthp, d.dev_thp_reads);
	EXPECT_EQ(down ? 15 : 16, d.dev_page_reads);
	EXPECT_EQ(0, d.fallback);
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	thp_free(mem, bytes);
}

TEST_F_TIMEOUT(swapin_auto, dense_sequential, TEST_TIMEOUT)
{
	dense_pass(_metadata, self->dev, scaled(64 * MiB), 0xa070de45eULL,
		   false);
}

TEST_F_TIMEOUT(swapin_auto, dense_descending, TEST_TIMEOUT)
{
	dense_pass(_metadata, self->dev, scaled(32 * MiB), 0xde5cULL, true);
}

/*
 * Swap @bytes out and read 5 pages of each THP (1 %) in a random order:
 * every THP is declined at its first fault, and nothing but the pages read
 * is read (swap-in amplification 1).  Returns the region, still mapped.
 */
static char *sparse_read(struct __test_metadata *_metadata, const char *dev,
			 size_t bytes, uint64_t seed)
{
	const size_t k = 5;
	const long long nthp = bytes / THP_SIZE;
	struct auto_snap a, b, d;
	size_t *pages;
	char *mem;

	pages = calloc(nthp * k, sizeof(*pages));
	if (!pages)
		return NULL;
	mem = thp_out(_metadata, bytes, seed);
	if (!mem) {
		free(pages);
		return NULL;
	}
	auto_snap(dev, &a);
	EXPECT_EQ(0, touch_sparse(_metadata, mem, nthp, k, seed, pages));
	auto_snap(dev, &b);
	free(pages);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA("1 % random", &d);
	EXPECT_EQ(nthp, d.declined);
	EXPECT_EQ(0, d.thp_swpin);
	EXPECT_EQ(0, d.promoted);
	EXPECT_EQ(0, d.dev_thp_reads);
	EXPECT_EQ(nthp * (long long)k, d.dev_page_reads);
	EXPECT_EQ((long long)((bytes - nthp * k * PAGE_SZ) / KiB),
		  smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "AnonHugePages"));
	return mem;
}

TEST_F_TIMEOUT(swapin_auto, sparse_random, TEST_TIMEOUT)
{
	const size_t bytes = scaled(64 * MiB);
	const uint64_t seed = 0x5ba45eULL;
	char *mem = sparse_read(_metadata, self->dev, bytes, seed);

	ASSERT_NE(NULL, mem);
	EXPECT_EQ(0, verify(_metadata, "all of it", mem, bytes, seed, 0));
	thp_free(mem, bytes);
}

/*
 * Read sparsely first (every THP declined), then densely: each THP is
 * promoted, and the whole region ends up PMD-mapped.
 */
TEST_F_TIMEOUT(swapin_auto, sparse_then_dense, TEST_TIMEOUT)
{
	const size_t bytes = scaled(32 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x5d5d5dULL;
	struct auto_snap b, c, d;
	char *mem = sparse_read(_metadata, self->dev, bytes, seed);

	ASSERT_NE(NULL, mem);
	auto_snap(self->dev, &b);
	touch_pages(mem, bytes);
	auto_snap(self->dev, &c);
	SNAP_DELTA(&d, &b, &c);
	LOG_DELTA("then dense", &d);
	EXPECT_EQ(nthp, d.promoted);
	EXPECT_EQ(0, d.promote_fb);
	EXPECT_EQ(0, d.thp_swpin);
	EXPECT_EQ(0, d.declined);
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, verify(_metadata, "after promotion", mem, bytes, seed, 0));
	thp_free(mem, bytes);
}

/* MADV_RANDOM: 4 KiB even for a sequential pass; MADV_SEQUENTIAL: whole. */
TEST_F_TIMEOUT(swapin_auto, madvise_hints, TEST_TIMEOUT)
{
	const size_t bytes = scaled(16 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x4147ULL;
	struct auto_snap a, b, d;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, madvise(mem, bytes, MADV_RANDOM));
	auto_snap(self->dev, &a);
	touch_pages(mem, bytes);
	auto_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA("MADV_RANDOM", &d);
	EXPECT_EQ(0, verify(_metadata, "MADV_RANDOM", mem, bytes, seed, 0));
	EXPECT_EQ(nthp, d.declined);
	EXPECT_EQ(0, d.thp_swpin);
	EXPECT_EQ(0, d.promoted);
	EXPECT_EQ((long long)(bytes / PAGE_SZ), d.dev_page_reads);
	thp_free(mem, bytes);

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, madvise(mem, bytes, MADV_SEQUENTIAL));
	auto_snap(self->dev, &a);
	touch_pages(mem, bytes);
	auto_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA("MADV_SEQUENTIAL", &d);
	EXPECT_EQ(0, verify(_metadata, "MADV_SEQUENTIAL", mem, bytes, seed,
			    0));
	EXPECT_EQ(0, d.declined);
	EXPECT_EQ(nthp, d.thp_swpin);
	EXPECT_EQ(0, d.dev_page_reads);
	thp_free(mem, bytes);
}

/*
 * Read-ahead: a fault that shows a sequential access (here MADV_SEQUENTIAL)
 * brings in its own THP and up to 3 intact ones after it, mapped under one
 * write lock; it stops at the end of the VMA and at a range that is no
 * longer intact.
 */
#define AHEAD_THPS	4	/* the faulting THP and THP_SWAPIN_AHEAD more */

static void ahead_case(struct __test_metadata *_metadata, const char *dev,
		       const char *what, size_t seq_thps, long zap_thp,
		       long long expect)
{
	const size_t bytes = 8 * THP_SIZE;
	const uint64_t seed = 0xaeadULL + seq_thps;
	struct auto_snap a, b, d;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, madvise(mem, seq_thps * THP_SIZE, MADV_SEQUENTIAL));
	if (zap_thp >= 0)
		ASSERT_EQ(0, madvise(mem + zap_thp * THP_SIZE + 7 * PAGE_SZ,
				     PAGE_SZ, MADV_DONTNEED));
	auto_snap(dev, &a);
	(void)*(volatile char *)mem;	/* one fault, at THP 0 */
	auto_snap(dev, &b);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA(what, &d);
	EXPECT_EQ(expect, d.thp_swpin);
	EXPECT_EQ(expect, d.dev_thp_reads);
	EXPECT_EQ(0, d.dev_page_reads);
	EXPECT_EQ(0, d.fallback);
	EXPECT_EQ(expect * (long long)(THP_SIZE / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ((long long)((bytes - expect * THP_SIZE) / KiB) -
		  (zap_thp >= 0 ? (long long)(PAGE_SZ / KiB) : 0),
		  smaps_range_kb(mem, bytes, "Swap"));
	if (zap_thp >= 0) {
		EXPECT_EQ(0, verify(_metadata, what, mem, zap_thp * THP_SIZE,
				    seed, 0));
	} else {
		EXPECT_EQ(0, verify(_metadata, what, mem, bytes, seed, 0));
	}
	thp_free(mem, bytes);
}

TEST_F_TIMEOUT(swapin_auto, read_ahead, TEST_TIMEOUT)
{
	ahead_case(_metadata, self->dev, "8 THPs sequential", 8, -1,
		   AHEAD_THPS);
	ahead_case(_metadata, self->dev, "VMA of 2 THPs", 2, -1, 2);
	ahead_case(_metadata, self->dev, "THP 3 not intact", 8, 3, 3);
}

/*
 * Half of each THP read at random (swap-in amplification 1: every THP
 * declined, 256 reads of 4 KiB each), then the range collapsed: the 256
 * pages still swapped out are at their own slots of the THP's cluster, so
 * the collapse reads them with one 2 MiB read of it (thp_swpin_collapse_read)
 * instead of 256 of 4 KiB.
 */
#define HALF		(NR_SUB / 2)
#define HALF_THPS	8

static char *half_read(struct __test_metadata *_metadata, const char *dev,
		       uint64_t seed, size_t *pages)
{
	const size_t bytes = HALF_THPS * THP_SIZE;
	struct auto_snap a, b, d;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	if (!mem)
		return NULL;
	auto_snap(dev, &a);
	EXPECT_EQ(0, touch_sparse(_metadata, mem, HALF_THPS, HALF, seed,
				  pages));
	auto_snap(dev, &b);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA("50 % random", &d);
	EXPECT_EQ(HALF_THPS, d.declined);
	EXPECT_EQ(0, d.thp_swpin);
	EXPECT_EQ(0, d.promoted);
	EXPECT_EQ(0, d.dev_thp_reads);
	EXPECT_EQ((long long)(HALF_THPS * HALF), d.dev_page_reads);
	EXPECT_EQ(0, d.collapse_read);
	EXPECT_EQ((long long)(bytes / 2 / KiB),
		  smaps_range_kb(mem, bytes, "Swap"));
	return mem;
}

/* Milliseconds on CLOCK_MONOTONIC, to log how long a phase took. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A read fault maps a swapped-in page read-only, and khugepaged and
 * MADV_COLLAPSE want a writable page in a range: write one word of a page
 * read in each THP back.  (@pages is shuffled across THPs.)
 */
static void write_each_thp(char *mem, const size_t *pages)
{
	size_t i, j;

	for (i = 0; i < HALF_THPS; i++) {
		for (j = 0; pages[j] / NR_SUB != i; j++)
			;
		*(volatile uint64_t *)(mem + pages[j] * PAGE_SZ) =
			*(volatile uint64_t *)(mem + pages[j] * PAGE_SZ);
	}
}

/* What the collapse of the half-read region brought back, and how. */
static void half_check(struct __test_metadata *_metadata, const char *what,
		       char *mem, uint64_t seed, const struct auto_snap *d,
		       long long page_reads)
{
	const size_t bytes = HALF_THPS * THP_SIZE;

	TH_LOG("%s: thp_swpin_collapse_read +%lld pswpin +%lld, device "
	       "thp_reads +%lld page_reads +%lld (%lld expected)", what,
	       d->collapse_read, d->pswpin, d->dev_thp_reads,
	       d->dev_page_reads, page_reads);
	EXPECT_EQ(HALF_THPS, d->collapse_read);
	EXPECT_EQ(HALF_THPS, d->dev_thp_reads);
	EXPECT_EQ(page_reads, d->dev_page_reads);
	/* pswpin: the 512 pages of each 2 MiB read, as for a whole swap-in */
	EXPECT_EQ(page_reads + HALF_THPS * (long long)NR_SUB, d->pswpin);
	EXPECT_EQ(0, d->thp_swpin);
	EXPECT_EQ(0, d->fallback);
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, verify(_metadata, what, mem, bytes, seed, 0));
}

/* MADV_COLLAPSE: every missing page comes back with the one read. */
TEST_F_TIMEOUT(swapin_auto, half_random_collapse, TEST_TIMEOUT)
{
	const size_t bytes = HALF_THPS * THP_SIZE;
	const uint64_t seed = 0x4a1fc011ULL;
	size_t pages[HALF_THPS * HALF];
	struct auto_snap a, b, d;
	char *mem;
	double t;

	EXPECT_LE(0, vmstat_get("thp_swpin_collapse_read"))
		TH_LOG("no thp_swpin_collapse_read in /proc/vmstat");
	mem = half_read(_metadata, self->dev, seed, pages);
	ASSERT_NE(NULL, mem);
	write_each_thp(mem, pages);
	auto_snap(self->dev, &a);
	t = now_ms();
	EXPECT_EQ(0, madvise(mem, bytes, MADV_COLLAPSE))
		TH_LOG("MADV_COLLAPSE: %s", strerror(errno));
	t = now_ms() - t;
	auto_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	TH_LOG("MADV_COLLAPSE of %d half-read THPs: %.1f ms", HALF_THPS, t);
	half_check(_metadata, "MADV_COLLAPSE", mem, seed, &d, 0);
	thp_free(mem, bytes);
}

/*
 * The 4 KiB reads a sequential pass over the half-read region makes before
 * each range is promoted, as thp_swapin_fault() decides: a fault at a
 * missing page whose index in its range is a multiple of 16 promotes the
 * range if 15 of the 16 pages before it (not before the VMA) or after it
 * are mapped; any other missing page is read alone.
 */
static long long half_dense_reads(const size_t *pages)
{
	static bool res[HALF_THPS * NR_SUB];
	const size_t n = HALF_THPS * NR_SUB;
	long long reads = 0;
	size_t g, j, before, after;

	memset(res, 0, sizeof(res));
	for (g = 0; g < HALF_THPS * HALF; g++)
		res[pages[g]] = true;
	for (g = 0; g < n; g++) {
		if (res[g])
			continue;
		if (g % 16 == 0) {
			before = after = 0;
			for (j = 1; j <= 16 && g >= 16; j++)
				before += res[g - j];
			for (j = 1; j <= 16 && g + j < n; j++)
				after += res[g + j];
			if (before >= 15 || after >= 15) {
				memset(res + g / NR_SUB * NR_SUB, 1,
				       NR_SUB * sizeof(res[0]));
				continue;
			}
		}
		res[g] = true;
		reads++;
	}
	return reads;
}

/*
 * swapin_enabled=auto's promotion: a sequential pass reads a few pages of
 * each range 4 KiB, until a fault shows the run, and the collapse that
 * promotes the range reads the rest with one read.
 */
TEST_F_TIMEOUT(swapin_auto, half_random_then_dense, TEST_TIMEOUT)
{
	const size_t bytes = HALF_THPS * THP_SIZE;
	const uint64_t seed = 0x4a1fde45eULL;
	size_t pages[HALF_THPS * HALF];
	struct auto_snap a, b, d;
	long long reads;
	char *mem;
	double t;

	EXPECT_LE(0, vmstat_get("thp_swpin_collapse_read"))
		TH_LOG("no thp_swpin_collapse_read in /proc/vmstat");
	mem = half_read(_metadata, self->dev, seed, pages);
	ASSERT_NE(NULL, mem);
	reads = half_dense_reads(pages);
	auto_snap(self->dev, &a);
	t = now_ms();
	touch_pages(mem, bytes);
	t = now_ms() - t;
	auto_snap(self->dev, &b);
	TH_LOG("sequential pass over %d half-read THPs: %.1f ms", HALF_THPS, t);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA("then dense", &d);
	EXPECT_EQ(HALF_THPS, d.promoted);
	EXPECT_EQ(0, d.promote_fb);
	EXPECT_EQ(0, d.declined);
	half_check(_metadata, "promoted", mem, seed, &d, reads);
	thp_free(mem, bytes);
}

#define KHUGEPAGED	"/sys/kernel/mm/transparent_hugepage/khugepaged/"

/*
 * khugepaged itself, allowed to swap in 256 pages of a range (max_ptes_swap
 * 511; with its default, 64, it leaves such a range alone): it collapses
 * each range with one read.  Waits for the region to be PMD-mapped, at most
 * 120 s.
 */
TEST_F_TIMEOUT(swapin_auto, half_random_khugepaged, TEST_TIMEOUT)
{
	const size_t bytes = HALF_THPS * THP_SIZE;
	const uint64_t seed = 0x4a1f6b68ULL;
	char sleep_ms[32] = "", to_scan[32] = "", swap[32] = "";
	size_t pages[HALF_THPS * HALF];
	struct auto_snap a, b, d;
	long long kb = 0;
	char *mem, *dummy;
	double t;

	EXPECT_LE(0, vmstat_get("thp_swpin_collapse_read"))
		TH_LOG("no thp_swpin_collapse_read in /proc/vmstat");
	ASSERT_LT(0, read_file(KHUGEPAGED "scan_sleep_millisecs", sleep_ms,
			       sizeof(sleep_ms)));
	ASSERT_LT(0, read_file(KHUGEPAGED "pages_to_scan", to_scan,
			       sizeof(to_scan)));
	ASSERT_LT(0, read_file(KHUGEPAGED "max_ptes_swap", swap,
			       sizeof(swap)));
	mem = half_read(_metadata, self->dev, seed, pages);
	ASSERT_NE(NULL, mem);
	write_each_thp(mem, pages);
	/*
	 * The last pages swapped in sit in the CPUs' LRU batches, where
	 * khugepaged never looks (SCAN_PAGE_LRU): mlock() drains them all.
	 */
	dummy = mmap(NULL, PAGE_SZ, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dummy);
	ASSERT_EQ(0, mlock(dummy, PAGE_SZ));
	munmap(dummy, PAGE_SZ);
	auto_snap(self->dev, &a);
	EXPECT_EQ(0, write_file(KHUGEPAGED "max_ptes_swap", "511"));
	EXPECT_EQ(0, write_file(KHUGEPAGED "pages_to_scan", "4096"));
	EXPECT_EQ(0, write_file(KHUGEPAGED "scan_sleep_millisecs", "0"));
	for (t = now_ms(); now_ms() - t < 120e3; usleep(20000)) {
		kb = smaps_range_kb(mem, bytes, "AnonHugePages");
		if (kb == (long long)(bytes / KiB))
			break;
	}
	t = now_ms() - t;
	write_file(KHUGEPAGED "scan_sleep_millisecs", sleep_ms);
	write_file(KHUGEPAGED "pages_to_scan", to_scan);
	write_file(KHUGEPAGED "max_ptes_swap", swap);
	auto_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	TH_LOG("khugepaged: AnonHugePages %lld kB after %.0f ms", kb, t);
	half_check(_metadata, "khugepaged", mem, seed, &d, 0);
	thp_free(mem, bytes);
}

/* The exit status in a wait status, or -1 if a signal ended the process. */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Wait for @pid; its exit status, or -1 if a signal ended it. */
static int wait_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return exit_code(status);
}

/*
 * A child, forked now (after the page-out: it shares every slot of @mem),
 * that holds its references until told (a byte on *@go), then reads all of
 * its copy: exits 0 if every word is right and nothing of it is left in
 * swap, 3 if a word is wrong, 4 if some is still in swap.
 */
static pid_t holder_start(const char *mem, size_t bytes, uint64_t seed,
			  int *go)
{
	int fd[2];
	pid_t pid;
	char ch;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid) {
		close(fd[0]);
		if (pid < 0)
			close(fd[1]);
		*go = fd[1];
		return pid;
	}
	close(fd[1]);
	if (read(fd[0], &ch, 1) != 1)
		_exit(2);
	if (pattern_verify(mem, bytes, seed, 0, NULL))
		_exit(3);
	_exit(smaps_range_kb(mem, bytes, "Swap") ? 4 : 0);
}

/*
 * Shared with a child forked after the page-out (swap count 2, as after a
 * redis BGSAVE fork): the collapse still reads each range with one read,
 * into a private copy, and drops only its own references.  The child, told
 * after the parent's collapse and a write into each THP, still reads its
 * own, unwritten copy, every word, from the slots it kept.
 */
TEST_F_TIMEOUT(swapin_auto, half_random_shared, TEST_TIMEOUT)
{
	const size_t bytes = HALF_THPS * THP_SIZE;
	const uint64_t seed = 0x4a1f54a7eULL;
	size_t pages[HALF_THPS * HALF];
	struct auto_snap a, b, c, d;
	char *mem;
	pid_t pid;
	size_t i;
	int go;

	EXPECT_LE(0, vmstat_get("thp_swpin_collapse_read"))
		TH_LOG("no thp_swpin_collapse_read in /proc/vmstat");
	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	pid = holder_start(mem, bytes, seed, &go);
	ASSERT_LE(0, pid);
	auto_snap(self->dev, &a);
	EXPECT_EQ(0, touch_sparse(_metadata, mem, HALF_THPS, HALF, seed,
				  pages));
	write_each_thp(mem, pages);
	auto_snap(self->dev, &b);
	EXPECT_EQ(0, madvise(mem, bytes, MADV_COLLAPSE))
		TH_LOG("MADV_COLLAPSE: %s", strerror(errno));
	auto_snap(self->dev, &c);
	SNAP_DELTA(&d, &a, &b);
	LOG_DELTA("shared, 50 % random", &d);
	SNAP_DELTA(&d, &b, &c);
	LOG_DELTA("shared, MADV_COLLAPSE", &d);
	TH_LOG("thp_swpin_collapse_read +%lld pswpin +%lld", d.collapse_read,
	       d.pswpin);
	EXPECT_EQ(HALF_THPS, d.collapse_read);
	EXPECT_EQ(HALF_THPS, d.dev_thp_reads);
	EXPECT_EQ(0, d.dev_page_reads);
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, verify(_metadata, "shared", mem, bytes, seed, 0));
	/* The parent's copy is its own: the child must not see this. */
	for (i = 0; i < HALF_THPS; i++)
		*(volatile uint64_t *)(mem + i * THP_SIZE + 8) ^= ~0ULL;
	ASSERT_EQ(1, write(go, "g", 1));
	close(go);
	EXPECT_EQ(0, wait_status(pid))
		TH_LOG("child (3: bad words, 4: swap left)");
	thp_free(mem, bytes);
}

/*
 * The process that runs swapoff of @path when told ('s' on @cmd), forked
 * before anything of the caller's is in swap: a fork after that would share
 * the caller's slots and write-protect its PTEs.  With @bytes > 0 it first
 * has that much of 4 KiB pages of its own, which it swaps out when told ('o'
 * on @cmd; it answers 'r' on @ready once they are out, 'x' if they did not
 * go): after the caller's region, so that swapoff's try_to_unuse(), which
 * takes the mms most recently put on the swap list first, reads them back
 * one by one before it gets to the caller.  Exits with swapoff's errno, or
 * 0, or 200 if a word of its own pages came back wrong.
 */
static pid_t swapoff_helper(const char *path, size_t bytes, uint64_t seed,
			    int cmd[2], int ready[2])
{
	char *p = NULL, c;
	pid_t pid;
	int err;

	if (pipe(cmd) || pipe(ready))
		return -1;
	pid = fork();
	if (pid) {
		close(cmd[0]);
		close(ready[1]);
		return pid;
	}
	close(cmd[1]);
	close(ready[0]);
	if (bytes) {
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || madvise(p, bytes, MADV_NOHUGEPAGE))
			_exit(201);
		pattern_fill(p, bytes, seed, 0);
		if (read(cmd[0], &c, 1) != 1 || c != 'o')
			_exit(201);
		c = madvise(p, bytes, MADV_PAGEOUT) ||
		    smaps_range_kb(p, bytes, "Swap") !=
		    (long long)(bytes / KiB) ? 'x' : 'r';
		if (write(ready[1], &c, 1) != 1 || c != 'r')
			_exit(201);
	}
	if (read(cmd[0], &c, 1) != 1 || c != 's')
		_exit(201);
	err = -do_swapoff(path);
	if (err)
		_exit(err);
	_exit(bytes && pattern_verify(p, bytes, seed, 0, NULL) ? 200 : 0);
}

/*
 * swapoff racing the collapse read.  Each round half-reads a region, then
 * another process runs swapoff while this one collapses the region with
 * MADV_COLLAPSE; every other round a child forked after the page-out holds
 * a second reference on every slot (the shared claim).
 *  - Rounds 0 and 1: the swapoff process's own 4 KiB pages come first on
 *    swapoff's list, so swapoff is well into try_to_unuse() (SwapTotal has
 *    dropped) when the collapse claims the slots and reads them: the read
 *    must hold swapoff off with its device reference, and swapoff must
 *    then find the slots freed.  On a loaded host swapoff can get through
 *    its own pages first and reach some of these ranges before the
 *    collapse does (EAGAIN, as below): at least one read must still have
 *    been the collapse's.
 *  - Rounds 2 and 3: swapoff goes for this process's mm at once and meets
 *    the collapse on its mmap_lock; whichever goes first, the other must
 *    cope.  If swapoff brought the pages in first, MADV_COLLAPSE may find
 *    one locked or on a CPU's LRU batch (EAGAIN): it is tried again after.
 * In every round every word is checked in every process, swapoff succeeds,
 * nothing is left in swap, and after swapon all of it is free.
 */
TEST_F_TIMEOUT(swapin_auto, half_random_swapoff_race, TEST_TIMEOUT)
{
	const size_t bytes = HALF_THPS * THP_SIZE;
	const int rounds = 4;
	int round, hold, cmd[2], ready[2], ret, err, status, overlaps = 0;
	size_t pages[HALF_THPS * HALF];
	long long total, reads = 0, busy_reads = 0;
	struct auto_snap a, b, d;
	bool shared, busy, done;
	pid_t holder, off;
	char path[64], ch;
	uint64_t seed;
	char *mem;
	double t;
	size_t i;

	snprintf(path, sizeof(path), "/dev/%s", self->dev);
	ASSERT_TRUE(swap_active(path)) TH_LOG("%s is not swapped on", path);
	for (round = 0; round < rounds; round++) {
		seed = 0x4a1f0ffULL + round;
		shared = round & 1;
		busy = round < 2;
		off = swapoff_helper(path, busy ? scaled(64 * MiB) : 0, ~seed,
				     cmd, ready);
		ASSERT_LE(0, off);
		mem = thp_out(_metadata, bytes, seed);
		ASSERT_NE(NULL, mem);
		holder = -1;
		if (shared) {
			holder = holder_start(mem, bytes, seed, &hold);
			ASSERT_LE(0, holder);
		}
		EXPECT_EQ(0, touch_sparse(_metadata, mem, HALF_THPS, HALF, seed,
					  pages));
		write_each_thp(mem, pages);
		if (busy) {
			ASSERT_EQ(1, write(cmd[1], "o", 1));
			ASSERT_EQ(1, read(ready[0], &ch, 1));
			ASSERT_EQ('r', ch) TH_LOG("ballast not swapped out");
		}
		total = meminfo_kb("SwapTotal");
		auto_snap(self->dev, &a);
		ASSERT_EQ(1, write(cmd[1], "s", 1));
		/* swapoff takes the device's pages off SwapTotal first. */
		done = false;
		for (t = now_ms(); meminfo_kb("SwapTotal") == total && !done &&
		     now_ms() - t < 60e3;)
			done = waitpid(off, &status, WNOHANG) == off;
		EXPECT_GT(total, meminfo_kb("SwapTotal"))
			TH_LOG("round %d: swapoff did not start", round);
		ret = madvise(mem, bytes, MADV_COLLAPSE) ? errno : 0;
		if (!done)
			done = waitpid(off, &status, WNOHANG) == off;
		if (done) {
			err = exit_code(status);
		} else {
			overlaps += busy;
			err = wait_status(off);
		}
		close(cmd[1]);
		close(ready[0]);
		auto_snap(self->dev, &b);
		SNAP_DELTA(&d, &a, &b);
		TH_LOG("round %d (%s, %s): MADV_COLLAPSE %s, collapse_read +%lld, device thp_reads +%lld page_reads +%lld, swapoff %s",
		       round, shared ? "shared" : "private",
		       busy ? "swapoff busy elsewhere" : "swapoff at once",
		       ret ? strerror(ret) : "ok", d.collapse_read,
		       d.dev_thp_reads, d.dev_page_reads,
		       done ? "over by then" : "still running");
		EXPECT_EQ(0, err) TH_LOG("round %d: swapoff process: %d (%s)",
					 round, err, err > 0 && err < 200 ?
					 strerror(err) : "bad words, or killed");
		EXPECT_TRUE(!ret || ret == EAGAIN);
		if (ret)
			EXPECT_EQ(0, madvise(mem, bytes, MADV_COLLAPSE))
				TH_LOG("MADV_COLLAPSE after swapoff: %s",
				       strerror(errno));
		reads += d.collapse_read;
		if (busy)
			busy_reads += d.collapse_read;
		EXPECT_EQ((long long)(bytes / KiB),
			  smaps_range_kb(mem, bytes, "AnonHugePages"));
		EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
		EXPECT_EQ(0, verify(_metadata, "after the race", mem, bytes,
				    seed, 0));
		if (shared) {
			/* The parent's copy is its own: the child must not see this. */
			for (i = 0; i < HALF_THPS; i++)
				*(volatile uint64_t *)(mem + i * THP_SIZE + 8) ^=
					~0ULL;
			ASSERT_EQ(1, write(hold, "g", 1));
			close(hold);
			EXPECT_EQ(0, wait_status(holder))
				TH_LOG("round %d: child (3: bad words, 4: swap left)",
				       round);
		}
		EXPECT_EQ(0, do_swapon(path, 0));
		EXPECT_EQ(meminfo_kb("SwapTotal"), meminfo_kb("SwapFree"));
		thp_free(mem, bytes);
	}
	TH_LOG("%d rounds: %lld collapse reads, %d of 2 collapses ended while swapoff still ran",
	       rounds, reads, overlaps);
	/* The read ran inside swapoff's try_to_unuse() at least once. */
	EXPECT_LT(0, overlaps);
	EXPECT_LT(0, busy_reads)
		TH_LOG("no collapse read while swapoff was busy elsewhere");
	EXPECT_TRUE(swap_active(path));
}

/* The knob takes exactly its four values. */
TEST_F(swapin_auto, knob_values)
{
	static const char *const vals[] = {
		"always", "madvise", "never", "auto",
	};
	char buf[64], want[64];
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		ASSERT_EQ(0, write_file(KNOB, vals[i]));
		ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)));
		snprintf(want, sizeof(want), "[%s]", vals[i]);
		EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("%s: %s", vals[i], buf);
		EXPECT_EQ(1, (int)(strchr(buf, '[') == strrchr(buf, '[')));
	}
	EXPECT_EQ(-EINVAL, write_file(KNOB, "sometimes"));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)));
	EXPECT_STREQ("always madvise [auto] never\n", buf);
}

TEST_HARNESS_MAIN
