// SPDX-License-Identifier: GPL-2.0
/*
 * swapout_pte_test: kselftest for swapping out whole a THP that only PTEs
 * map (patches/0011: thp_swpout_pte_mapped, thp_split_reclaim).
 *
 * Precondition (done by swapin.sh): a kernel with the series, thpswap
 * loaded, /dev/$THPSWAP_DEV swapped on as the only swap device.
 * THPSWAP_TEST_DIV=N divides the working sets by N (debug kernels).
 *
 * A THP stays one compound page when its PMD is split: mprotect() of one
 * of its pages and back leaves 512 PTEs mapping it, and smaps no longer
 * counts it in AnonHugePages.  Such THPs must go to swap whole, both by
 * MADV_PAGEOUT and by memcg reclaim (memory.reclaim), into the 512 slots
 * of one cluster, and come back whole and PMD-mapped on touch.  A THP with
 * one page unmapped must be split instead, and so must one with a page
 * mlock()ed once reclaim finds it cannot unmap it whole.  Every word is
 * checked; nothing sleeps to wait for the kernel.
 *
 * On the kernel without patches/0011 every case fails: pageout and
 * memcg_reclaim because the THPs are split and written 4 KiB at a time,
 * the two split cases only because their counters do not exist (6.1
 * split those THPs already).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define TEST_TIMEOUT	900
#define KNOB		"/sys/kernel/mm/transparent_hugepage/swapin_enabled"
#define SCAN_SLEEP	"/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs"
#define CG_ROOT		"/sys/fs/cgroup"

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_THP			22

#define NR_PTES		(THP_SIZE / PAGE_SZ)

struct snap {
	long long thp_swpout, pte_mapped, split_reclaim, fallback;
	long long thp_split_page, thp_swpin, pswpout;
	struct dev_snap dev;
};

static void snap(const char *dev, struct snap *s)
{
	s->thp_swpout = vmstat_get("thp_swpout");
	s->pte_mapped = vmstat_get("thp_swpout_pte_mapped");
	s->split_reclaim = vmstat_get("thp_split_reclaim");
	s->fallback = vmstat_get("thp_swpout_fallback");
	s->thp_split_page = vmstat_get("thp_split_page");
	s->thp_swpin = vmstat_get("thp_swpin");
	s->pswpout = vmstat_get("pswpout");
	dev_snap(dev, &s->dev);
}

static void delta(struct snap *d, const struct snap *a, const struct snap *b)
{
	/* A counter this kernel lacks stays -1 in the delta. */
#define D(f) (d->f = (a->f < 0 || b->f < 0) ? -1 : b->f - a->f)
	D(thp_swpout);
	D(pte_mapped);
	D(split_reclaim);
	D(fallback);
	D(thp_split_page);
	D(thp_swpin);
	D(pswpout);
#undef D
	dev_delta(&d->dev, &a->dev, &b->dev);
}

static void log_out(struct __test_metadata *_metadata, const char *what,
		    const struct snap *d, double secs)
{
	TH_LOG("%s: %.3f s, thp_swpout +%lld thp_swpout_pte_mapped +%lld thp_split_reclaim +%lld thp_swpout_fallback +%lld thp_split_page +%lld pswpout +%lld, device thp_writes +%lld page_writes +%lld",
	       what, secs, d->thp_swpout, d->pte_mapped, d->split_reclaim,
	       d->fallback, d->thp_split_page, d->pswpout, d->dev.thp_writes,
	       d->dev.page_writes);
}

/*
 * Whether each 2 MiB of @mem is still one THP: page 0 a compound head, the
 * others its tails, physically contiguous, all flagged THP.  Needs root
 * (pagemap PFNs, /proc/kpageflags).  Returns the number of THPs that are,
 * or -1 if the files cannot be read.
 */
static long count_thps(const char *mem, size_t bytes)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	uint64_t e[NR_PTES], fl;
	long n = 0;
	size_t t, i;

	if (pm < 0 || kf < 0)
		goto fail;
	for (t = 0; t < bytes / THP_SIZE; t++) {
		off_t off = ((uintptr_t)mem / PAGE_SZ + t * NR_PTES) * 8;
		uint64_t pfn0;
		bool thp = true;

		if (pread(pm, e, sizeof(e), off) != sizeof(e))
			goto fail;
		pfn0 = e[0] & ((1ULL << 55) - 1);
		for (i = 0; i < NR_PTES && thp; i++) {
			uint64_t want = 1ULL << KPF_THP |
				1ULL << (i ? KPF_COMPOUND_TAIL : KPF_COMPOUND_HEAD);

			if (!(e[i] >> 63) ||
			    (e[i] & ((1ULL << 55) - 1)) != pfn0 + i ||
			    pread(kf, &fl, 8, (pfn0 + i) * 8) != 8 ||
			    (fl & want) != want)
				thp = false;
		}
		n += thp;
	}
	close(pm);
	close(kf);
	return n;
fail:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return -1;
}

/*
 * Whether every THP of @mem went to swap in the 512 slots of one cluster,
 * in order: the layout a whole-THP swap-in needs.  Returns how many did.
 */
static long count_whole_in_swap(const char *mem, size_t bytes)
{
	long n = 0;
	size_t t, i;

	for (t = 0; t < bytes / THP_SIZE; t++) {
		unsigned int type0, type;
		uint64_t off0, off;
		bool whole;

		whole = pagemap_swap(mem + t * THP_SIZE, &type0, &off0) == 1 &&
			off0 % NR_PTES == 0;
		for (i = 1; i < NR_PTES && whole; i++)
			whole = pagemap_swap(mem + t * THP_SIZE + i * PAGE_SZ,
					     &type, &off) == 1 &&
				type == type0 && off == off0 + i;
		n += whole;
	}
	return n;
}

/*
 * Split the PMD of every THP of @mem and keep all 512 PTEs: mprotect() one
 * page read-only, then the whole region read-write again (the VMAs merge
 * back into one).
 */
static int split_pmds(char *mem, size_t bytes)
{
	size_t t;

	for (t = 0; t < bytes / THP_SIZE; t++)
		if (mprotect(mem + t * THP_SIZE + 7 * PAGE_SZ, PAGE_SZ,
			     PROT_READ))
			return -1;
	return mprotect(mem, bytes, PROT_READ | PROT_WRITE);
}

/* A filled region of @bytes whose THPs only PTEs map; NULL on failure. */
static char *pte_mapped_thps(struct __test_metadata *_metadata, size_t bytes,
			     uint64_t seed)
{
	long nthp = bytes / THP_SIZE, n;
	long long kb;
	char *mem = thp_filled(_metadata, bytes, seed);

	if (!mem)
		return NULL;
	if (split_pmds(mem, bytes)) {
		TH_LOG("mprotect: %s", strerror(errno));
		goto fail;
	}
	kb = smaps_range_kb(mem, bytes, "AnonHugePages");
	n = count_thps(mem, bytes);
	TH_LOG("%ld THPs, PMDs split: AnonHugePages %lld kB, Rss %lld kB, %ld still THPs",
	       nthp, kb, smaps_range_kb(mem, bytes, "Rss"), n);
	if (kb != 0 || n != nthp)
		goto fail;
	return mem;
fail:
	thp_free(mem, bytes);
	return NULL;
}

/*
 * Touch a swapped-out region back in and check it: every THP whole, PMD-
 * mapped again, every word right.
 */
static void back_whole(struct __test_metadata *_metadata, const char *dev,
		       char *mem, size_t bytes, uint64_t seed)
{
	long long nthp = bytes / THP_SIZE, kb;
	struct snap a, b, d;

	snap(dev, &a);
	touch_pages(mem, bytes);
	snap(dev, &b);
	delta(&d, &a, &b);
	kb = smaps_range_kb(mem, bytes, "AnonHugePages");
	TH_LOG("touched: thp_swpin +%lld, device thp_reads +%lld page_reads +%lld, AnonHugePages %lld kB of %zu",
	       d.thp_swpin, d.dev.thp_reads, d.dev.page_reads, kb,
	       bytes / KiB);
	EXPECT_EQ(0, verify(_metadata, "after swap-in", mem, bytes, seed, 0));
	EXPECT_EQ(nthp, d.thp_swpin);
	EXPECT_EQ(nthp, d.dev.thp_reads);
	EXPECT_EQ(0, d.dev.page_reads);
	EXPECT_EQ((long long)(bytes / KiB), kb);
}

/*
 * Move this test's process into a new child cgroup of the v2 root, @cg
 * (its path), so that what it maps from now on is charged there.
 * Returns 0, 1 if there is no cgroup v2 memory controller, or -1.
 */
static int cg_enter(char cg[128])
{
	char path[192], buf[256];

	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "memory"))
		return 1;
	if (write_file(CG_ROOT "/cgroup.subtree_control", "+memory"))
		return -1;
	snprintf(cg, 128, CG_ROOT "/swapout-pte.%d", getpid());
	if (mkdir(cg, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	if (write_file(path, "0")) {
		rmdir(cg);
		return -1;
	}
	return 0;
}

/* Back to the root cgroup; remove @cg.  Returns 0 or -1. */
static int cg_leave(const char *cg)
{
	write_file(CG_ROOT "/cgroup.procs", "0");
	return rmdir(cg);
}

/*
 * Write memory.reclaim of @cg until the @n regions of @what hold @want kB
 * of swap each, at most four times (-EAGAIN only says that less than asked
 * was reclaimed: the outcome is what counts).  Returns the writes made.
 */
static int cg_reclaim(const char *cg, size_t amount, char *const what[],
		      const size_t bytes[], const long long want[], int n)
{
	char path[192], buf[32];
	int round, i, ok;

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	snprintf(buf, sizeof(buf), "%zu", amount);
	for (round = 1; round <= 4; round++) {
		write_file(path, buf);
		for (ok = 1, i = 0; i < n; i++)
			ok &= smaps_range_kb(what[i], bytes[i], "Swap") == want[i];
		if (ok)
			break;
	}
	return round > 4 ? 4 : round;
}

FIXTURE(pte) {
	const char *dev;
	char knob[32];
	char scan_sleep[32];
};

/*
 * swapin_enabled=always: a touch brings a whole THP back whatever the
 * access looks like.  khugepaged waits ten minutes between scans, so that
 * it does not collapse the PTE-mapped THPs under the test.
 */
FIXTURE_SETUP(pte)
{
	char buf[64];

	self->dev = thpswap_dev_name();
	ASSERT_TRUE(dev_has_stats(self->dev));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)))
		TH_LOG("%s missing: not a kernel with whole-THP swap-in", KNOB);
	swapin_mode(buf, self->knob);
	ASSERT_EQ(0, write_file(KNOB, "always"));
	ASSERT_LT(0, read_file(SCAN_SLEEP, self->scan_sleep,
			       sizeof(self->scan_sleep)));
	ASSERT_EQ(0, write_file(SCAN_SLEEP, "600000"));
}

FIXTURE_TEARDOWN(pte)
{
	write_file(KNOB, self->knob);
	write_file(SCAN_SLEEP, self->scan_sleep);
}

/* MADV_PAGEOUT takes each PTE-mapped THP whole, without splitting it. */
TEST_F_TIMEOUT(pte, pageout, TEST_TIMEOUT)
{
	const size_t bytes = scaled(64 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x9e7e0009ULL;
	struct snap a, b, d;
	double t0;
	char *mem;

	mem = pte_mapped_thps(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	snap(self->dev, &a);
	t0 = now_s();
	ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
	t0 = now_s() - t0;
	snap(self->dev, &b);
	delta(&d, &a, &b);
	log_out(_metadata, "MADV_PAGEOUT", &d, t0);
	EXPECT_EQ((long long)(bytes / KiB), smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(nthp, count_whole_in_swap(mem, bytes));
	EXPECT_EQ(nthp, d.thp_swpout);
	EXPECT_EQ(nthp, d.dev.thp_writes);
	EXPECT_EQ(0, d.dev.page_writes);
	EXPECT_EQ(0, d.thp_split_page);
	EXPECT_EQ(nthp, d.pte_mapped);
	EXPECT_EQ(0, d.split_reclaim);
	back_whole(_metadata, self->dev, mem, bytes, seed);
	thp_free(mem, bytes);
}

/*
 * Memcg reclaim (memory.reclaim of a cgroup this test moves into) swaps
 * PTE-mapped THPs out whole too, and splits the one THP that has a page
 * unmapped (its hole costs no I/O).  Reclaim may leave some THPs resident
 * (it ages the LRU first), but no whole one may be split or written 4 KiB.
 * The partly mapped THP is also on the deferred split queue; its shrinker
 * runs after the LRUs, and only at priority 0 for one THP, so reclaim
 * finds it first.
 */
TEST_F_TIMEOUT(pte, memcg_reclaim, TEST_TIMEOUT)
{
	const size_t bytes = scaled(32 * MiB);
	const long long nthp = bytes / THP_SIZE;
	const uint64_t seed = 0x9e7ec9ULL, pseed = 0x9e7ec9aaULL;
	const size_t hole = 300 * PAGE_SZ;
	const long long part_kb = (THP_SIZE - PAGE_SZ) / KiB;
	long long out, swapped, pswapped, kb;
	char *mem = NULL, *part = NULL;
	struct snap a, b, d;
	struct bad_word bw;
	char cg[128];
	int rounds, rc;
	double t0;

	rc = cg_enter(cg);
	if (rc > 0)
		SKIP(return, "no cgroup v2 memory controller at " CG_ROOT);
	ASSERT_EQ(0, rc);
	/* Charged to the cgroup: everything this test process maps from here. */
	mem = pte_mapped_thps(_metadata, bytes, seed);
	part = pte_mapped_thps(_metadata, THP_SIZE, pseed);
	EXPECT_NE(NULL, mem);
	EXPECT_NE(NULL, part);
	if (!mem || !part)
		goto out;
	EXPECT_EQ(0, madvise(part + hole, PAGE_SZ, MADV_DONTNEED));
	snap(self->dev, &a);
	t0 = now_s();
	rounds = cg_reclaim(cg, 2 * bytes, (char *[]){ mem, part },
			    (size_t[]){ bytes, THP_SIZE },
			    (long long[]){ bytes / KiB, part_kb }, 2);
	t0 = now_s() - t0;
	snap(self->dev, &b);
	delta(&d, &a, &b);
	swapped = smaps_range_kb(mem, bytes, "Swap");
	pswapped = smaps_range_kb(part, THP_SIZE, "Swap");
	out = count_whole_in_swap(mem, bytes);
	log_out(_metadata, "memory.reclaim", &d, t0);
	TH_LOG("%d writes of memory.reclaim, Swap %lld kB of %zu, %lld of %lld THPs whole in swap; partly mapped THP: Swap %lld kB of %lld",
	       rounds, swapped, bytes / KiB, out, nthp, pswapped, part_kb);
	/* The swap layout alone proves little: 4 KiB pages can land in order. */
	EXPECT_LT(0, out);
	EXPECT_EQ(out * (long long)(THP_SIZE / KiB), swapped);
	EXPECT_EQ(out, d.thp_swpout);
	EXPECT_EQ(out, d.dev.thp_writes);
	EXPECT_EQ(out, d.pte_mapped);
	EXPECT_EQ(0, d.fallback);
	/* The partly mapped THP: split by reclaim, its 511 pages written. */
	EXPECT_EQ(part_kb, pswapped);
	EXPECT_EQ(1, d.split_reclaim);
	EXPECT_EQ(1, d.thp_split_page);
	EXPECT_LE((long long)(NR_PTES - 1), d.dev.page_writes);

	/* The THPs that went out come back whole; the others stay PTE-mapped. */
	snap(self->dev, &a);
	EXPECT_EQ(0, verify(_metadata, "after reclaim", mem, bytes, seed, 0));
	snap(self->dev, &b);
	delta(&d, &a, &b);
	kb = smaps_range_kb(mem, bytes, "AnonHugePages");
	TH_LOG("read back: thp_swpin +%lld, device thp_reads +%lld page_reads +%lld, AnonHugePages %lld kB",
	       d.thp_swpin, d.dev.thp_reads, d.dev.page_reads, kb);
	EXPECT_EQ(out, d.thp_swpin);
	EXPECT_EQ(out, d.dev.thp_reads);
	EXPECT_EQ(0, d.dev.page_reads);
	EXPECT_EQ(out * (long long)(THP_SIZE / KiB), kb);
	EXPECT_EQ(0, verify(_metadata, "partly mapped, before the hole", part,
			    hole, pseed, 0));
	EXPECT_EQ(0, zero_verify(part + hole, PAGE_SZ, &bw));
	EXPECT_EQ(0, verify(_metadata, "partly mapped, after the hole",
			    part + hole + PAGE_SZ, THP_SIZE - hole - PAGE_SZ,
			    pseed, (hole + PAGE_SZ) / 8));
out:
	if (mem)
		thp_free(mem, bytes);
	if (part)
		thp_free(part, THP_SIZE);
	EXPECT_EQ(0, cg_leave(cg));
}

/*
 * A PTE-mapped THP with one page mlock()ed: 6.1 never mlocks a THP that
 * PTEs map, so reclaim finds it on the LRU, fails to unmap it whole at the
 * VM_LOCKED vma, and must split it then, not leave it to fail again.  The
 * locked page stays, the other 511 go to swap.
 */
TEST_F_TIMEOUT(pte, mlocked_page, TEST_TIMEOUT)
{
	const uint64_t seed = 0x9e7e10c4ULL;
	const long long want = (THP_SIZE - PAGE_SZ) / KiB;
	const size_t locked = 5 * PAGE_SZ;
	struct snap a, b, d;
	long long swapped;
	char *mem = NULL;
	char cg[128];
	int rounds, rc;

	rc = cg_enter(cg);
	if (rc > 0)
		SKIP(return, "no cgroup v2 memory controller at " CG_ROOT);
	ASSERT_EQ(0, rc);
	mem = pte_mapped_thps(_metadata, THP_SIZE, seed);
	EXPECT_NE(NULL, mem);
	if (!mem)
		goto out;
	EXPECT_EQ(0, mlock(mem + locked, PAGE_SZ));
	EXPECT_EQ(1, count_thps(mem, THP_SIZE));
	snap(self->dev, &a);
	rounds = cg_reclaim(cg, 4 * THP_SIZE, (char *[]){ mem },
			    (size_t[]){ THP_SIZE }, (long long[]){ want }, 1);
	snap(self->dev, &b);
	delta(&d, &a, &b);
	swapped = smaps_range_kb(mem, THP_SIZE, "Swap");
	log_out(_metadata, "memory.reclaim, one page mlocked", &d, 0);
	TH_LOG("%d writes of memory.reclaim, Swap %lld kB of %lld, Locked %lld kB",
	       rounds, swapped, want, smaps_range_kb(mem, THP_SIZE, "Locked"));
	EXPECT_EQ(want, swapped);
	EXPECT_EQ(1, d.split_reclaim);
	EXPECT_EQ(1, d.thp_split_page);
	EXPECT_EQ(0, d.pte_mapped);
	EXPECT_EQ(0, d.dev.thp_writes);
	EXPECT_EQ(0, verify(_metadata, "mlocked page", mem, THP_SIZE, seed, 0));
	thp_free(mem, THP_SIZE);
out:
	EXPECT_EQ(0, cg_leave(cg));
}

/*
 * A THP with one page unmapped (MADV_DONTNEED) is split, not swapped out
 * whole: the unmapped page costs no I/O.  So is a PTE-mapped THP that the
 * MADV_PAGEOUT range covers only half of.  No word may change.
 */
TEST_F_TIMEOUT(pte, partly_mapped_split, TEST_TIMEOUT)
{
	const size_t bytes = 2 * THP_SIZE;
	const uint64_t seed = 0x9e7e5917ULL;
	const size_t hole = 100 * PAGE_SZ;
	struct bad_word bw;
	struct snap a, b, d;
	char *mem;

	mem = pte_mapped_thps(_metadata, bytes, seed);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, madvise(mem + hole, PAGE_SZ, MADV_DONTNEED));
	snap(self->dev, &a);
	/* the first THP, partly mapped; the first half of the second one */
	ASSERT_EQ(0, madvise(mem, THP_SIZE + THP_SIZE / 2, MADV_PAGEOUT));
	snap(self->dev, &b);
	delta(&d, &a, &b);
	log_out(_metadata, "MADV_PAGEOUT, one page unmapped / half a THP",
		&d, 0);
	EXPECT_EQ(2, d.split_reclaim);
	EXPECT_EQ(2, d.thp_split_page);
	EXPECT_EQ(0, d.thp_swpout);
	EXPECT_EQ(0, d.pte_mapped);
	EXPECT_EQ(0, d.dev.thp_writes);
	EXPECT_EQ((long long)(NR_PTES - 1 + NR_PTES / 2), d.dev.page_writes);
	EXPECT_EQ((long long)((THP_SIZE - PAGE_SZ + THP_SIZE / 2) / KiB),
		  smaps_range_kb(mem, bytes, "Swap"));
	EXPECT_EQ(0, verify(_metadata, "before the hole", mem, hole, seed, 0));
	EXPECT_EQ(0, zero_verify(mem + hole, PAGE_SZ, &bw));
	EXPECT_EQ(0, verify(_metadata, "after the hole", mem + hole + PAGE_SZ,
			    bytes - hole - PAGE_SZ, seed,
			    (hole + PAGE_SZ) / 8));
	/* All of it is back, as 4 KiB pages: neither is a THP any more. */
	EXPECT_EQ(0, count_thps(mem, bytes));
	thp_free(mem, bytes);
}

TEST_HARNESS_MAIN
