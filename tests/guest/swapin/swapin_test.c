// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_test: kselftest for swapping a THP back in whole (thp_swpin).
 *
 * Precondition (done by swapin.sh): a kernel with the whole-THP swap-in
 * patches, thpswap loaded, /dev/$THPSWAP_DEV swapped on as the only swap
 * device, /sys/kernel/mm/transparent_hugepage/swapin_enabled present.
 * THPSWAP_TEST_DIV=N divides the big working sets by N (debug kernels);
 * THPSWAP_SWAPIN_CYCLES sets the 256 MiB cycles (default 20, as issue 6 asks).
 *
 * MADV_PAGEOUT swaps a PMD-mapped THP out whole, synchronously; touching
 * it (or MADV_COLLAPSE) brings it back.  Every word is checked.  Nothing
 * sleeps to wait for the kernel: threads start on a barrier, a child
 * reports through a pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define TEST_TIMEOUT	900
#define KNOB		"/sys/kernel/mm/transparent_hugepage/swapin_enabled"
#define KHUGEPAGED	"/sys/kernel/mm/transparent_hugepage/khugepaged/"
#define DEFRAG		"/sys/kernel/mm/transparent_hugepage/defrag"
#define CG_ROOT		"/sys/fs/cgroup"

/* thp_swpin_fallback_<reason>, in the order of struct in_snap's why[] */
static const char *const fb_reason[] = {
	"alloc", "charge", "race", "io", "vma",
};
#define NR_REASONS (sizeof(fb_reason) / sizeof(fb_reason[0]))

/* Counters only (SNAP_DELTA()) */
struct in_snap {
	long long thp_swpin, fallback, pswpin, dev_thp_reads, dev_page_reads;
	long long thp_swpout, why[NR_REASONS];
};

static void in_snap(const char *dev, struct in_snap *s)
{
	char key[64];
	size_t i;

	s->thp_swpin = vmstat_get("thp_swpin");
	s->fallback = vmstat_get("thp_swpin_fallback");
	s->pswpin = vmstat_get("pswpin");
	s->dev_thp_reads = dev_stat(dev, "thp_reads");
	s->dev_page_reads = dev_stat(dev, "page_reads");
	s->thp_swpout = vmstat_get("thp_swpout");
	for (i = 0; i < NR_REASONS; i++) {
		snprintf(key, sizeof(key), "thp_swpin_fallback_%s",
			 fb_reason[i]);
		s->why[i] = vmstat_get(key);
	}
}

/* The fallback reasons of a delta, for a log line: "race +1", or "-". */
static const char *why(const struct in_snap *d)
{
	static char buf[128];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_REASONS; i++)
		if (d->why[i] && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s +%lld",
				      n ? ", " : "", fb_reason[i], d->why[i]);
	return n ? buf : "-";
}

FIXTURE(swapin) {
	const char *dev;
	char knob[32];
};

FIXTURE_SETUP(swapin)
{
	char buf[64];

	self->dev = thpswap_dev_name();
	ASSERT_TRUE(dev_has_stats(self->dev));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)))
		TH_LOG("%s missing: not a kernel with whole-THP swap-in", KNOB);
	ASSERT_LE(0, vmstat_get("thp_swpin"));
	swapin_mode(buf, self->knob);
	ASSERT_EQ(0, write_file(KNOB, "always"));
}

FIXTURE_TEARDOWN(swapin)
{
	write_file(KNOB, self->knob);
}

/* Issue 6 item 1: 256 MiB out and back, whole, with nothing leaked. */
TEST_F_TIMEOUT(swapin, cycles_256m, TEST_TIMEOUT)
{
	const size_t bytes = scaled(256 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const char *c = getenv("THPSWAP_SWAPIN_CYCLES");
	int cycles = c ? atoi(c) : 20, i;
	const uint64_t seed = 0x5a1b0000c0ffee01ULL;
	long long free0, free1, kb;
	struct in_snap a, b, d;
	double t0, t1;
	char *mem;

	free0 = meminfo_kb("SwapFree");
	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	for (i = 0; i < cycles; i++) {
		if (i)
			ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
		ASSERT_EQ((long long)(bytes / KiB),
			  smaps_range_kb(mem, bytes, "Swap"));
		in_snap(self->dev, &a);
		t0 = now_s();
		touch_pages(mem, bytes);
		t1 = now_s();
		in_snap(self->dev, &b);
		SNAP_DELTA(&d, &a, &b);
		kb = smaps_range_kb(mem, bytes, "AnonHugePages");
		TH_LOG("cycle %d: %zu MiB in %.3f s (%.1f MB/s), thp_swpin +%lld fallback +%lld (%s) pswpin +%lld, device thp_reads +%lld page_reads +%lld, AnonHugePages %lld kB (%.1f%%)",
		       i, bytes / MiB, t1 - t0, bytes / 1e6 / (t1 - t0),
		       d.thp_swpin, d.fallback, why(&d), d.pswpin,
		       d.dev_thp_reads,
		       d.dev_page_reads, kb, 100.0 * kb * KiB / bytes);
		ASSERT_EQ(0, verify(_metadata, "after swap-in", mem, bytes,
				    seed, 0));
		EXPECT_EQ(nthp, d.thp_swpin);
		EXPECT_EQ(nthp, d.dev_thp_reads);
		EXPECT_EQ(0, d.dev_page_reads);
		EXPECT_EQ(0, d.fallback);
		EXPECT_LE((long long)(bytes / KiB) * 95 / 100, kb);
		EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	}
	/* Whole clusters are freed at once, not through the slot cache. */
	free1 = meminfo_kb("SwapFree");
	EXPECT_EQ(free0, free1)
		TH_LOG("SwapFree %lld kB before, %lld kB after", free0, free1);
	thp_free(mem, bytes);
}

struct toucher {
	pthread_barrier_t *bar;
	char *mem;
	size_t bytes;
	unsigned int start;
};

static void *toucher_fn(void *arg)
{
	struct toucher *t = arg;
	size_t n = t->bytes / THP_SIZE, i;
	volatile char *p = (volatile char *)t->mem;

	pthread_barrier_wait(t->bar);
	for (i = 0; i < n; i++)
		(void)p[((i + t->start) % n) * THP_SIZE +
			(t->start * PAGE_SZ) % THP_SIZE];
	return NULL;
}

/* Issue 6 item 2: threads faulting on the same swapped-out THPs at once. */
TEST_F_TIMEOUT(swapin, concurrent_threads, TEST_TIMEOUT)
{
	enum { NT = 6 };
	const size_t bytes = 32 * THP_SIZE;
	const uint64_t seed = 0x7417ead5ULL;
	struct toucher t[NT];
	pthread_barrier_t bar;
	pthread_t th[NT];
	struct in_snap a, b, d;
	int round, i;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	for (round = 0; round < 4; round++) {
		if (round)
			ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
		in_snap(self->dev, &a);
		pthread_barrier_init(&bar, NULL, NT);
		for (i = 0; i < NT; i++) {
			t[i] = (struct toucher){ &bar, mem, bytes,
						 (unsigned int)(i & 1) * 7 };
			ASSERT_EQ(0, pthread_create(&th[i], NULL, toucher_fn,
						    &t[i]));
		}
		for (i = 0; i < NT; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&bar);
		in_snap(self->dev, &b);
		SNAP_DELTA(&d, &a, &b);
		TH_LOG("round %d: thp_swpin +%lld fallback +%lld (%s) pswpin +%lld",
		       round, d.thp_swpin, d.fallback, why(&d), d.pswpin);
		ASSERT_EQ(0, verify(_metadata, "after threads", mem, bytes,
				    seed, 0));
		EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
		/*
		 * Whole, each once: a thread that loses the race finds the PMD
		 * mapped, which is neither a second read nor a fallback.
		 */
		EXPECT_EQ((long long)(bytes / THP_SIZE), d.thp_swpin);
		EXPECT_EQ((long long)(bytes / THP_SIZE), d.dev_thp_reads);
		EXPECT_EQ(0, d.dev_page_reads);
		EXPECT_EQ(0, d.fallback);
	}
	thp_free(mem, bytes);
}

/* Issue 6 item 3: fork with swapped-out THPs, and before swap-out. */
TEST_F_TIMEOUT(swapin, fork_before_after, TEST_TIMEOUT)
{
	const size_t bytes = 16 * THP_SIZE;
	const uint64_t seed = 0xf0f0ULL, seed2 = 0xc41dULL, seed3 = 0x9a4eULL;
	char *a, *b;
	int fds[2], status;
	char res = 0;
	pid_t pid;

	/* a: swapped out before fork (count 2: must fall back) */
	a = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, a);
	/* b: resident at fork, swapped out by each side afterwards */
	b = thp_alloc(bytes);
	ASSERT_NE(NULL, b);
	pattern_fill(b, bytes, seed, 0);
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t bad = verify(_metadata, "child a", a, bytes, seed, 0);

		pattern_fill(a, bytes, seed2, 0);
		pattern_fill(b, bytes, seed2, 0);
		madvise(a, bytes, MADV_PAGEOUT);
		madvise(b, bytes, MADV_PAGEOUT);
		bad += verify(_metadata, "child a again", a, bytes, seed2, 0);
		bad += verify(_metadata, "child b", b, bytes, seed2, 0);
		res = bad ? 'F' : 'P';
		if (write(fds[1], &res, 1) != 1)
			_exit(2);
		_exit(bad ? 1 : 0);
	}
	close(fds[1]);
	EXPECT_EQ(0, verify(_metadata, "parent a", a, bytes, seed, 0));
	EXPECT_EQ(1, read(fds[0], &res, 1));
	EXPECT_EQ('P', res);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* The child is gone: the parent's THPs are exclusive again. */
	EXPECT_EQ(0, verify(_metadata, "parent b", b, bytes, seed, 0));
	ASSERT_EQ(0, madvise(b, bytes, MADV_PAGEOUT));
	EXPECT_EQ(0, verify(_metadata, "parent b swapped", b, bytes, seed, 0));
	pattern_fill(a, bytes, seed3, 0);
	ASSERT_EQ(0, madvise(a, bytes, MADV_PAGEOUT));
	EXPECT_EQ(0, verify(_metadata, "parent a rewritten", a, bytes, seed3,
			    0));
	close(fds[0]);
	thp_free(a, bytes);
	thp_free(b, bytes);
}

/*
 * Issue 6 item 4: one THP each gets a 4 KiB munmap, mprotect, mremap,
 * MADV_DONTNEED or MADV_FREE while swapped out; the others stay intact.
 */
TEST_F_TIMEOUT(swapin, partial_ops, TEST_TIMEOUT)
{
	const size_t n = 8, bytes = n * THP_SIZE;
	const uint64_t seed = 0x9a27ULL;
	const size_t W = PAGE_SZ / 8;
	struct in_snap sa, sb, d;
	char *mem, *moved, *hole;
	size_t i;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	/* THP 1: munmap one page; 2: mprotect one page read-only */
	ASSERT_EQ(0, munmap(mem + 1 * THP_SIZE + 5 * PAGE_SZ, PAGE_SZ));
	ASSERT_EQ(0, mprotect(mem + 2 * THP_SIZE + 9 * PAGE_SZ, PAGE_SZ,
			      PROT_READ));
	/* THP 3: move one page out with mremap */
	hole = mmap(NULL, PAGE_SZ, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	moved = mremap(mem + 3 * THP_SIZE + 17 * PAGE_SZ, PAGE_SZ, PAGE_SZ,
		       MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_EQ(hole, moved);
	/* THP 4: MADV_DONTNEED one page; 5: MADV_FREE one page */
	ASSERT_EQ(0, madvise(mem + 4 * THP_SIZE + 33 * PAGE_SZ, PAGE_SZ,
			     MADV_DONTNEED));
	ASSERT_EQ(0, madvise(mem + 5 * THP_SIZE + 65 * PAGE_SZ, PAGE_SZ,
			     MADV_FREE));

	in_snap(self->dev, &sa);
	for (i = 0; i < n; i++) {
		char *t = mem + i * THP_SIZE;
		uint64_t w = i * THP_SIZE / 8;
		size_t pg = i == 1 ? 5 : i == 3 ? 17 : i == 4 ? 33 :
			    i == 5 ? 65 : 0;

		if (!pg) {	/* intact, or mprotect only */
			EXPECT_EQ(0, verify(_metadata, "intact", t, THP_SIZE,
					    seed, w));
			continue;
		}
		EXPECT_EQ(0, verify(_metadata, "before hole", t, pg * PAGE_SZ,
				    seed, w));
		EXPECT_EQ(0, verify(_metadata, "after hole",
				    t + (pg + 1) * PAGE_SZ,
				    THP_SIZE - (pg + 1) * PAGE_SZ, seed,
				    w + (pg + 1) * W));
		if (i == 3)
			EXPECT_EQ(0, verify(_metadata, "moved page", moved,
					    PAGE_SZ, seed, w + pg * W));
		if (i == 4)
			EXPECT_EQ(0, zero_verify(t + pg * PAGE_SZ, PAGE_SZ,
						 NULL));
		if (i == 5) {
			/* MADV_FREE on a swap PTE drops it: zero or old */
			uint64_t z = zero_verify(t + pg * PAGE_SZ, PAGE_SZ,
						 NULL);
			uint64_t o = pattern_verify(t + pg * PAGE_SZ, PAGE_SZ,
						    seed, w + pg * W, NULL);
			EXPECT_TRUE(!z || !o);
		}
	}
	in_snap(self->dev, &sb);
	SNAP_DELTA(&d, &sa, &sb);
	TH_LOG("thp_swpin +%lld fallback +%lld (%s) pswpin +%lld", d.thp_swpin,
	       d.fallback, why(&d), d.pswpin);
	/* THPs 0, 6, 7 are intact; 2 straddles two VMAs now. */
	EXPECT_EQ(3, d.thp_swpin);
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	munmap(moved, PAGE_SZ);
	thp_free(mem, bytes);
}

/* Issue 6 item 5: swapoff while THPs are swapped out whole. */
TEST_F_TIMEOUT(swapin, swapoff_with_thps, TEST_TIMEOUT)
{
	const size_t bytes = scaled(64 * MiB);
	const uint64_t seed = 0x50ffULL;
	char path[128];
	char *mem;

	snprintf(path, sizeof(path), "/dev/%s", self->dev);
	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, do_swapoff(path));
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, verify(_metadata, "after swapoff", mem, bytes, seed, 0));
	ASSERT_EQ(0, do_swapon(path, 0));
	ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
	EXPECT_EQ(0, verify(_metadata, "after swapon", mem, bytes, seed, 0));
	thp_free(mem, bytes);
}

/* The MADV_COLLAPSE trigger reads intact THPs back without a fault. */
TEST_F_TIMEOUT(swapin, madv_collapse, TEST_TIMEOUT)
{
	const size_t bytes = 32 * THP_SIZE;
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0xc011a95eULL;
	struct in_snap a, b, d;
	char *mem;
	int i;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	in_snap(self->dev, &a);
	i = madvise(mem, bytes, MADV_COLLAPSE);
	in_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	ASSERT_EQ(0, i)
		TH_LOG("MADV_COLLAPSE: %s (thp_swpin +%lld, fallback +%lld)",
		       strerror(errno), d.thp_swpin, d.fallback);
	EXPECT_EQ(nthp, d.thp_swpin);
	EXPECT_EQ(nthp, d.dev_thp_reads);
	EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ((long long)(bytes / KiB),
		  smaps_range_kb(mem, bytes, "AnonHugePages"));
	EXPECT_EQ(0, verify(_metadata, "after MADV_COLLAPSE", mem, bytes,
			    seed, 0));
	thp_free(mem, bytes);
}

/* swapin_enabled=never: the stock 4 KiB path, same data. */
TEST_F_TIMEOUT(swapin, knob_never, TEST_TIMEOUT)
{
	const size_t bytes = 16 * THP_SIZE;
	const uint64_t seed = 0x4e7e4ULL;
	struct in_snap a, b, d;
	char *mem;

	mem = thp_out(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, write_file(KNOB, "never"));
	in_snap(self->dev, &a);
	touch_pages(mem, bytes);
	in_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	EXPECT_EQ(0, d.thp_swpin);
	EXPECT_EQ(0, d.dev_thp_reads);
	EXPECT_EQ((long long)(bytes / PAGE_SZ), d.dev_page_reads);
	EXPECT_EQ(0, verify(_metadata, "4 KiB path", mem, bytes, seed, 0));
	thp_free(mem, bytes);
}

static long long khugepaged_full_scans(void)
{
	char buf[32];

	if (read_file(KHUGEPAGED "full_scans", buf, sizeof(buf)) <= 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * Issue 6 item 7: khugepaged scanning without pause, allowed to swap in
 * whole ranges (max_ptes_swap 511), while THPs go out and come back; it
 * takes some back itself, racing with MADV_PAGEOUT and with the faults.
 * Either way every THP comes back whole and every word is right.
 */
TEST_F_TIMEOUT(swapin, khugepaged_aggressive, TEST_TIMEOUT)
{
	const size_t bytes = scaled(128 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x6b6875ULL;
	char sleep_ms[32] = "", pages[32] = "", swap[32] = "";
	struct in_snap a, b, d;
	long long scans0, out;
	double t0;
	int i;
	char *mem;

	read_file(KHUGEPAGED "scan_sleep_millisecs", sleep_ms,
		  sizeof(sleep_ms));
	read_file(KHUGEPAGED "pages_to_scan", pages, sizeof(pages));
	read_file(KHUGEPAGED "max_ptes_swap", swap, sizeof(swap));
	mem = thp_alloc(bytes);
	ASSERT_NE(NULL, mem);
	pattern_fill(mem, bytes, seed, 0);
	ASSERT_EQ(0, write_file(KHUGEPAGED "scan_sleep_millisecs", "0"));
	ASSERT_EQ(0, write_file(KHUGEPAGED "pages_to_scan", "65536"));
	ASSERT_EQ(0, write_file(KHUGEPAGED "max_ptes_swap", "511"));
	/*
	 * A range that fell back comes back as 4 KiB pages; until khugepaged
	 * collapses it again it goes out as 4 KiB pages too (thp_swpout
	 * does not count it) and comes back the same way, which is no new
	 * fallback.  Every range that went out whole must come back whole
	 * or be counted as a fallback.
	 */
	/*
	 * A THP the faults catch still in the swap cache (MADV_PAGEOUT has
	 * not freed it yet) is mapped back by PTEs without a read, and
	 * khugepaged may then collapse it in place: that range came back
	 * whole through thp_collapse_alloc, not thp_swpin.  The whole
	 * swap-in allocates its own THP, so the two never count the same
	 * range.  Such a collapse may still be under way when the faults
	 * are done, and a whole swap-in that khugepaged made counts
	 * thp_swpin only after the PMD is mapped and the mmap_lock dropped
	 * (thp_swapin_done()): until khugepaged has finished two full scans
	 * after the faults (at most 120 s), wait for the ranges to be
	 * PMD-mapped and counted, and read the counters after the mappings
	 * they explain (read before them, a range was once counted nowhere).
	 */
	for (i = 0; i < 4; i++) {
		long long coll0 = vmstat_get("thp_collapse_alloc"), coll;
		long long scans, kb, want;

		in_snap(self->dev, &a);
		ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
		out = vmstat_get("thp_swpout") - a.thp_swpout;
		EXPECT_EQ(0, verify(_metadata, "with khugepaged", mem, bytes,
				    seed, 0));
		scans = khugepaged_full_scans();
		ASSERT_LE(0, scans);
		for (t0 = now_s();; usleep(20000)) {
			kb = smaps_range_kb(mem, bytes, "AnonHugePages");
			in_snap(self->dev, &b);
			SNAP_DELTA(&d, &a, &b);
			coll = vmstat_get("thp_collapse_alloc") - coll0;
			want = out - d.fallback;
			if (want * (long long)(THP_SIZE / KiB) <= kb &&
			    want <= d.thp_swpin + coll)
				break;
			if (khugepaged_full_scans() >= scans + 2 ||
			    now_s() - t0 >= 120)
				break;
		}
		TH_LOG("round %d: thp_swpout +%lld, thp_swpin +%lld (of %lld) collapsed +%lld fallback +%lld (%s), settled in %.2f s",
		       i, out, d.thp_swpin, nthp, coll, d.fallback, why(&d),
		       now_s() - t0);
		EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
		EXPECT_LE(want * (long long)(THP_SIZE / KiB), kb);
		EXPECT_LE(want, d.thp_swpin + coll);
	}
	/*
	 * The mechanism itself: with nothing touching the range, khugepaged
	 * alone swaps the intact THPs back in (it may start before
	 * MADV_PAGEOUT returns).  Of the scans that end after MADV_PAGEOUT
	 * returned, the second has visited every range; what khugepaged left
	 * in swap it must have counted as a fallback, or it went out as
	 * 4 KiB pages (512 swap PTEs: more than max_ptes_swap allows).
	 */
	in_snap(self->dev, &a);
	ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
	out = vmstat_get("thp_swpout") - a.thp_swpout;
	scans0 = khugepaged_full_scans();
	ASSERT_LE(0, scans0);
	/*
	 * Wait until khugepaged has dealt with every range, as far as it
	 * says (a full scan may pass an mm whose mmap_lock it cannot take):
	 * two full scans, and whatever is still in swap counted as a
	 * fallback or gone out as 4 KiB pages; at most 120 s.
	 */
	for (t0 = now_s(); now_s() - t0 < 120; usleep(50000)) {
		if (khugepaged_full_scans() < scans0 + 2)
			continue;
		if (smaps_range_kb(mem, bytes, "Swap") <=
		    (vmstat_get("thp_swpin_fallback") - a.fallback +
		     nthp - out) * (long long)(THP_SIZE / KiB))
			break;
	}
	in_snap(self->dev, &b);
	SNAP_DELTA(&d, &a, &b);
	TH_LOG("khugepaged alone, %lld full scans in %.1f s: thp_swpout +%lld, thp_swpin +%lld (of %lld) fallback +%lld (%s), Swap %lld kB left",
	       khugepaged_full_scans() - scans0, now_s() - t0, out,
	       d.thp_swpin, nthp, d.fallback, why(&d),
	       smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_LE(scans0 + 2, khugepaged_full_scans());
	EXPECT_LT(0, d.thp_swpin);
	EXPECT_LE(smaps_range_kb(mem, bytes, "Swap"),
		  (d.fallback + nthp - out) * (long long)(THP_SIZE / KiB));
	EXPECT_EQ(0, verify(_metadata, "after khugepaged", mem, bytes, seed, 0));
	write_file(KHUGEPAGED "scan_sleep_millisecs", sleep_ms);
	write_file(KHUGEPAGED "pages_to_scan", pages);
	write_file(KHUGEPAGED "max_ptes_swap", swap);
	thp_free(mem, bytes);
}

/*
 * Issue 6 item 6: a memcg at its limit during swap-in.  A child in a
 * cgroup limited to 24 MiB fills 32 MiB of THPs (memcg reclaim swaps them
 * out whole) and reads them back twice with defrag=never, so that a THP
 * page fault never reclaims.  The whole swap-in still charges the way the
 * 4 KiB swap-in of the same pages would, reclaiming (patches/0011): most
 * THPs come back whole; a charge that reclaim could not make room for
 * falls back, counted.  No word may be lost.
 */
TEST_F_TIMEOUT(swapin, memcg_limit, TEST_TIMEOUT)
{
	const size_t bytes = 16 * THP_SIZE;
	const uint64_t seed = 0x3e3c6ULL;
	char cg[128], path[192], buf[256], defrag[128] = "";
	long long fb0, fb1, ch0, ch1, in0, in1;
	int status, err;
	pid_t pid;

	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "memory"))
		SKIP(return, "no cgroup v2 memory controller at " CG_ROOT);
	ASSERT_EQ(0, write_file(CG_ROOT "/cgroup.subtree_control", "+memory"));
	snprintf(cg, sizeof(cg), CG_ROOT "/swapin-test.%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, write_file(path, "25165824"));
	read_file(DEFRAG, defrag, sizeof(defrag));
	fb0 = vmstat_get("thp_swpin_fallback");
	ch0 = vmstat_get("thp_swpin_fallback_charge");
	in0 = vmstat_get("thp_swpin");
	/* -1 is a missing counter: the comparisons below would hold. */
	ASSERT_LE(0, fb0);
	ASSERT_LE(0, ch0);
	ASSERT_LE(0, in0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *mem;
		uint64_t bad;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		if (write_file(path, "0"))
			_exit(3);
		mem = thp_alloc(bytes);
		if (!mem)
			_exit(4);
		pattern_fill(mem, bytes, seed, 0);
		write_file(DEFRAG, "never");
		bad = verify(_metadata, "memcg pass 1", mem, bytes, seed, 0);
		bad += verify(_metadata, "memcg pass 2", mem, bytes, seed, 0);
		_exit(bad ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	write_file(DEFRAG, strstr(defrag, "[always]") ? "always" :
		   strstr(defrag, "[defer]") ? "defer" :
		   strstr(defrag, "[defer+madvise]") ? "defer+madvise" :
		   strstr(defrag, "[never]") ? "never" : "madvise");
	fb1 = vmstat_get("thp_swpin_fallback");
	ch1 = vmstat_get("thp_swpin_fallback_charge");
	in1 = vmstat_get("thp_swpin");
	TH_LOG("thp_swpin +%lld, fallback +%lld (charge +%lld)", in1 - in0,
	       fb1 - fb0, ch1 - ch0);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status %#x", status);
	EXPECT_LE(ch1 - ch0, fb1 - fb0);
	/* Memcg reclaim swapped THPs out whole: each came back whole or fell back, counted. */
	EXPECT_LT(0, (in1 - in0) + (fb1 - fb0));
	/*
	 * The charge reclaims as a 4 KiB swap-in's does: THPs come back whole,
	 * more of them than charges fail (before 0011: thp_swpin +0, every
	 * one a charge fallback).
	 */
	EXPECT_LT(0, in1 - in0);
	EXPECT_LT(ch1 - ch0, in1 - in0);
	err = rmdir(cg);
	EXPECT_EQ(0, err);
}

TEST_HARNESS_MAIN
