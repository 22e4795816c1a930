// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_async_test: THP swap-out and swap-in on a swap device that
 * finishes its writes after the folio is unlocked (NVMe, virtio-blk, a swap
 * file), as most machines have.  There __swap_writepage() sets writeback,
 * unlocks the THP and submits the bio: until the write completes the THP is
 * in the swap cache, unlocked, uptodate and under writeback, and a fault on
 * it must neither free its slots (the next swap-out could be given the same
 * sectors and be overwritten by the stale write) nor map it exclusive on a
 * device that needs stable pages.
 *
 * Precondition (done by swapin-async.sh): swap on exactly one device, the
 * one named by THPSWAP_SWAP (a block device or a swap file), small enough
 * that clusters are freed and reused while older writes are in flight
 * (FILL below takes most of it); ideally with throttled writes.
 * THPSWAP_TEST_DIV=N divides the rounds by N.
 *
 *  - cycles: a region of THPs swapped out whole and read back, four times,
 *    every word checked each time.
 *  - touch_at_once: round after round, one THP is rewritten, swapped out
 *    with MADV_PAGEOUT and read again at once by the same thread, while its
 *    write is still in flight; the other THPs of the region are swapped out
 *    and reused around it.  At the end every THP is swapped out once more
 *    and read back from the device: a slot freed under writeback and given
 *    to another THP shows as bad words there.
 *  - touch_from_other_thread: the same, the THP read by another thread as
 *    soon as MADV_PAGEOUT returns.
 *  - swapoff_during: touch_at_once in a child process while the parent
 *    swaps the device off and on again until the child is done.
 *  - fork_shared_write: THPs that a parent and its child share are swapped
 *    out of both by memory.reclaim, and the parent writes each at once,
 *    while it is still in the swap cache (under writeback where the device
 *    takes whole THPs): a THP mapped exclusive and writable there, whatever
 *    the swap PTEs said, would carry the parent's writes to the child.  The
 *    child must read what was there before the fork.
 *
 * Nothing sleeps to wait for the kernel: the reader thread is handed each
 * round through an atomic counter, the swapoff loop runs until the child
 * exits, and the wait for the writes to finish polls /proc/meminfo.  What
 * is read "from the device" is: the writes done, the swap cache dropped
 * (memory.reclaim), pswpin shows it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define ASYNC_TIMEOUT	1200
#define REGION_THPS	8

/* The swap device or file under test, swapped on by the flow. */
static const char *swap_path(void)
{
	const char *p = getenv("THPSWAP_SWAP");

	return p && *p ? p : NULL;
}

/* Rounds of the touch tests, divided by THPSWAP_TEST_DIV, at least 16. */
static int rounds(int n)
{
	const char *d = getenv("THPSWAP_TEST_DIV");
	int div = d ? atoi(d) : 1;

	if (div < 1)
		div = 1;
	return n / div < 16 ? 16 : n / div;
}

/*
 * Fill the swap area with THPs that stay swapped out, all but @keep MiB of
 * it, so that the rounds' THPs go to the few clusters left and each is
 * reused soon after it was freed.  Returns the region (unmap with
 * thp_free(*bytes)), or NULL if there was no room to fill.
 */
static char *fill_swap(struct __test_metadata *_metadata, size_t keep,
		       size_t *bytes)
{
	long long free_kb = meminfo_kb("SwapFree");
	char *mem;

	*bytes = 0;
	if (free_kb < 0 || (size_t)free_kb * KiB <= keep + THP_SIZE)
		return NULL;
	*bytes = ((size_t)free_kb * KiB - keep) & ~(THP_SIZE - 1);
	mem = thp_alloc(*bytes);
	if (!mem)
		return NULL;
	pattern_fill(mem, *bytes, 0xf111, 0);
	madvise(mem, *bytes, MADV_PAGEOUT);
	TH_LOG("filled %zu MiB of swap, %lld kB free", *bytes / MiB,
	       meminfo_kb("SwapFree"));
	return mem;
}

/* Wait, bounded, until no page is under writeback; 0 if none is. */
static int writeback_drained(void)
{
	int i;

	for (i = 0; i < 6000; i++) {
		if (meminfo_kb("Writeback") == 0)
			return 0;
		usleep(10000);	/* a poll of the condition, bounded: 60 s */
	}
	return -1;
}

/*
 * Drop what the swap cache holds of this process's memory, once its writes
 * are done, so that what is touched next is read from the device: the
 * flow runs the test in a memory cgroup of its own, and memory.reclaim
 * takes the clean swap cache pages (nothing else of ours is left to
 * reclaim but the test program itself).  Returns 0, or -1 if it could not.
 */
/* This process's memory cgroup directory, from /proc/self/cgroup. */
static int own_cgroup(char *dir, size_t len)
{
	char cg[256];

	if (read_file("/proc/self/cgroup", cg, sizeof(cg)) < 4 ||
	    strncmp(cg, "0::/", 4) || cg[4] == '\n')
		return -1;
	cg[strcspn(cg, "\n")] = 0;
	snprintf(dir, len, "/sys/fs/cgroup%s", cg + 3);
	return 0;
}

static int drop_swap_cache(struct __test_metadata *_metadata)
{
	char dir[300], path[340];
	int err;

	if (writeback_drained()) {
		TH_LOG("writeback did not drain in 60 s");
		return -1;
	}
	if (own_cgroup(dir, sizeof(dir))) {
		TH_LOG("not in a memory cgroup of its own");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
	/* EAGAIN: it reclaimed less than asked for, which is all there was. */
	err = write_file(path, "1G");
	if (err && err != -EAGAIN) {
		TH_LOG("%s: %s", path, strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * How much of [@p, @p + @bytes) is swapped out, from pagemap: smaps cannot
 * say once the region's VMA has merged with the filler's next to it.
 */
static long long swapped_kb(const char *p, size_t bytes)
{
	unsigned int type;
	uint64_t offset;
	long long kb = 0;
	size_t off;

	for (off = 0; off < bytes; off += PAGE_SZ)
		if (pagemap_swap(p + off, &type, &offset) == 1)
			kb += PAGE_SZ / KiB;
	return kb;
}

/*
 * Swap the whole region out and read it back from the device: a slot freed
 * under writeback and reused shows there as bad words.  Returns the number
 * of bad words.
 */
static uint64_t reread_all(struct __test_metadata *_metadata, char *mem,
			   const uint64_t *seed, bool swap_stays)
{
	long long in0 = vmstat_get("pswpin"), out_kb;
	uint64_t bad = 0;
	int i;

	madvise(mem, REGION_THPS * THP_SIZE, MADV_PAGEOUT);
	out_kb = swapped_kb(mem, REGION_THPS * THP_SIZE);
	if (drop_swap_cache(_metadata))
		return 1;
	for (i = 0; i < REGION_THPS; i++)
		bad += verify(_metadata, "read back from the device",
			      mem + i * THP_SIZE, THP_SIZE, seed[i],
			      i * (THP_SIZE / 8));
	/* Unless swapoff may have taken it all back meanwhile. */
	if (swap_stays &&
	    vmstat_get("pswpin") - in0 < (long long)(REGION_THPS * THP_SIZE / PAGE_SZ)) {
		TH_LOG("pswpin +%lld: not all of it was read from the device (after MADV_PAGEOUT: Swap %lld kB of %lu, SwapFree %lld kB, SwapCached %lld kB)",
		       vmstat_get("pswpin") - in0, out_kb,
		       REGION_THPS * THP_SIZE / KiB, meminfo_kb("SwapFree"),
		       meminfo_kb("SwapCached"));
		bad++;
	}
	return bad;
}

/* A reader thread, handed one THP per round. */
struct reader {
	char *mem;
	uint64_t *seed;
	int want;		/* the round to read; -1: stop */
	int done;		/* the last round read */
	uint64_t bad;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	struct bad_word b;
	int round = 0, want, i;

	for (;;) {
		want = __atomic_load_n(&r->want, __ATOMIC_ACQUIRE);
		if (want == -1)
			break;
		if (want < round) {	/* not handed the next round yet */
			sched_yield();
			continue;
		}
		i = want % REGION_THPS;
		r->bad += pattern_verify(r->mem + i * THP_SIZE, THP_SIZE,
					 r->seed[i], i * (THP_SIZE / 8), &b);
		round = want + 1;
		__atomic_store_n(&r->done, want, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * @n rounds: rewrite THP r % REGION_THPS with a new seed, swap it out and
 * read it back at once, here or (@other) in the reader thread.  Returns the
 * number of bad words, that read back from the device at the end included.
 */
static uint64_t touch_rounds(struct __test_metadata *_metadata, int n,
			     bool other, bool swap_stays)
{
	uint64_t seed[REGION_THPS], bad = 0;
	struct reader rd = { .want = -2, .done = -1 };
	size_t fill_bytes;
	char *mem, *fill;
	pthread_t th;
	int r, i;

	/*
	 * Room for the region and 2 THPs more: swapped out 4 KiB at a time
	 * (a swap file), the region cannot have the slots that the other
	 * CPUs' swap slot caches hold.
	 */
	fill = fill_swap(_metadata, (REGION_THPS + 2) * THP_SIZE, &fill_bytes);
	mem = thp_filled(_metadata, REGION_THPS * THP_SIZE, 1);
	if (!mem) {
		TH_LOG("no THPs for the region");
		return 1;
	}
	for (i = 0; i < REGION_THPS; i++)
		seed[i] = 1;
	rd.mem = mem;
	rd.seed = seed;
	if (other && pthread_create(&th, NULL, reader_fn, &rd)) {
		TH_LOG("pthread_create failed");
		return 1;
	}
	for (r = 0; r < n; r++) {
		char *thp;

		i = r % REGION_THPS;
		thp = mem + i * THP_SIZE;
		seed[i] = 0x5eed0000ULL + r;
		pattern_fill(thp, THP_SIZE, seed[i], i * (THP_SIZE / 8));
		madvise(thp, THP_SIZE, MADV_PAGEOUT);
		if (!other) {
			bad += verify(_metadata, "read at once", thp, THP_SIZE,
				      seed[i], i * (THP_SIZE / 8));
			continue;
		}
		__atomic_store_n(&rd.want, r, __ATOMIC_RELEASE);
		while (__atomic_load_n(&rd.done, __ATOMIC_ACQUIRE) != r)
			sched_yield();
	}
	if (other) {
		__atomic_store_n(&rd.want, -1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		if (rd.bad)
			TH_LOG("the reader thread saw %" PRIu64 " bad words",
			       rd.bad);
		bad += rd.bad;
	}
	bad += reread_all(_metadata, mem, seed, swap_stays);
	if (fill) {
		bad += verify(_metadata, "the filler", fill, fill_bytes, 0xf111, 0);
		thp_free(fill, fill_bytes);
	}
	thp_free(mem, REGION_THPS * THP_SIZE);
	return bad;
}

/* No state: the fixture only gives the cases their timeout. */
FIXTURE(async) {
	int unused;
};
FIXTURE_SETUP(async)
{
	self->unused = 0;
}
FIXTURE_TEARDOWN(async)
{
}

struct snap {
	long long thp_swpout, thp_swpout_fallback, thp_swpin, pswpin;
};

static void snap(struct snap *s)
{
	s->thp_swpout = vmstat_get("thp_swpout");
	s->thp_swpout_fallback = vmstat_get("thp_swpout_fallback");
	s->thp_swpin = vmstat_get("thp_swpin");
	s->pswpin = vmstat_get("pswpin");
}

static void log_delta(struct __test_metadata *_metadata, const char *what,
		      const struct snap *a)
{
	struct snap b, d;

	snap(&b);
	SNAP_DELTA(&d, a, &b);
	TH_LOG("%s: thp_swpout +%lld, thp_swpout_fallback +%lld, "
	       "thp_swpin +%lld, pswpin +%lld", what, d.thp_swpout,
	       d.thp_swpout_fallback, a->thp_swpin < 0 ? -1 : d.thp_swpin,
	       d.pswpin);
}

/*
 * THPSWAP_ONLY=CASE runs that case alone (the harness of 6.1 has no -t):
 * the others are SKIPs that say so.
 */
#define ONLY_CASE()							\
	do {								\
		const char *o = getenv("THPSWAP_ONLY");		\
									\
		if (o && *o && strcmp(o, _metadata->name))		\
			SKIP(return, "THPSWAP_ONLY=%s", o);		\
	} while (0)

TEST_F_TIMEOUT(async, cycles, ASYNC_TIMEOUT)
{
	const size_t bytes = scaled(32 * MiB);
	const size_t nthp = bytes / THP_SIZE;
	struct snap a, b;
	uint64_t bad = 0;
	char *mem;
	int c;

	ONLY_CASE();
	snap(&a);
	mem = thp_filled(_metadata, bytes, 0x100);
	ASSERT_NE(NULL, mem);
	for (c = 0; c < 4; c++) {
		long long in0;

		if (c)
			pattern_fill(mem, bytes, 0x100 + c, 0);
		ASSERT_EQ(0, madvise(mem, bytes, MADV_PAGEOUT));
		if (!c) {
			/*
			 * Every THP went out, whole where the device takes
			 * whole THPs.  (Later cycles swap out whatever the
			 * swap-in left: THPs, or 4 KiB pages.)
			 */
			snap(&b);
			EXPECT_EQ((long long)nthp,
				  (b.thp_swpout - a.thp_swpout) +
				  (b.thp_swpout_fallback - a.thp_swpout_fallback));
			if (getenv("THPSWAP_EXPECT_THP_SWPOUT"))
				EXPECT_EQ((long long)nthp,
					  b.thp_swpout - a.thp_swpout);
		}
		EXPECT_EQ((long long)(bytes / KiB),
			  smaps_range_kb(mem, bytes, "Swap"));
		ASSERT_EQ(0, drop_swap_cache(_metadata));
		in0 = vmstat_get("pswpin");
		snap(&b);
		bad += verify(_metadata, "swapped back in", mem, bytes,
			      0x100 + c, 0);
		/* From the device, not from the swap cache. */
		EXPECT_LE((long long)(bytes / PAGE_SZ), vmstat_get("pswpin") - in0);
		/* swapin_enabled=always: every THP came back whole. */
		if (getenv("THPSWAP_EXPECT_THP_SWPIN")) {
			EXPECT_EQ((long long)nthp, vmstat_get("thp_swpin") - b.thp_swpin);
			EXPECT_EQ((long long)(bytes / KiB),
				  smaps_range_kb(mem, bytes, "AnonHugePages"));
		}
	}
	log_delta(_metadata, "4 cycles", &a);
	EXPECT_EQ(0, bad);
	thp_free(mem, bytes);
}

TEST_F_TIMEOUT(async, touch_at_once, ASYNC_TIMEOUT)
{
	struct snap a;

	ONLY_CASE();
	snap(&a);
	EXPECT_EQ(0, touch_rounds(_metadata, rounds(48), false, true));
	log_delta(_metadata, "touch at once", &a);
}

TEST_F_TIMEOUT(async, touch_from_other_thread, ASYNC_TIMEOUT)
{
	struct snap a;

	ONLY_CASE();
	snap(&a);
	EXPECT_EQ(0, touch_rounds(_metadata, rounds(48), true, true));
	log_delta(_metadata, "touch from another thread", &a);
}

TEST_F_TIMEOUT(async, swapoff_during, ASYNC_TIMEOUT)
{
	const char *path = swap_path();
	int status = 0, offs = 0, err;
	pid_t pid, reaped;

	ONLY_CASE();
	if (!path)
		SKIP(return, "THPSWAP_SWAP does not name the swap under test");
	ASSERT_TRUE(swap_active(path));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(touch_rounds(_metadata, rounds(32), false, false) ? 1 : 0);
	/* Off and on until the child is done: it faults on whatever is left. */
	while ((reaped = waitpid(pid, &status, WNOHANG)) == 0) {
		err = do_swapoff(path);
		if (err && err != -ENOMEM) {
			TH_LOG("swapoff: %s", strerror(-err));
			break;
		}
		offs += !err;
		err = do_swapon(path, 0);
		if (err) {
			TH_LOG("swapon: %s", strerror(-err));
			break;
		}
	}
	if (reaped != pid)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	TH_LOG("%d swapoffs while the child ran", offs);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_LT(0, offs);
	if (!swap_active(path))
		EXPECT_EQ(0, do_swapon(path, 0));
}

/* In the swap cache: mincore() of a swapped-out page asks the swap cache. */
static bool in_swap_cache(char *p)
{
	unsigned char vec;

	return !mincore(p, PAGE_SZ, &vec) && (vec & 1);
}

TEST_F_TIMEOUT(async, fork_shared_write, ASYNC_TIMEOUT)
{
	const size_t bytes = REGION_THPS * THP_SIZE;
	char cg[300], c;
	int go[2], status, tries, cached = 0, i;
	long long swap_kb = 0;
	uint64_t bad;
	struct snap a;
	char *mem;
	pid_t pid;

	ONLY_CASE();
	ASSERT_EQ(0, own_cgroup(cg, sizeof(cg)))
		TH_LOG("not in a memory cgroup of its own");
	mem = thp_filled(_metadata, bytes, 0xf0f0);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		/* Whatever the parent wrote, this copy is the fork's. */
		_exit(verify(_metadata, "the child's copy", mem, bytes,
			     0xf0f0, 0) ? 1 : 0);
	}
	close(go[0]);
	snap(&a);
	/*
	 * MADV_PAGEOUT leaves a THP that two processes map; memcg reclaim
	 * unmaps it from both.  The first passes may only age it.
	 */
	swap_kb = reclaim_range_out(cg, mem, bytes, &tries);
	/* At once, THP after THP: the last writes are still in flight. */
	for (i = 0; i < REGION_THPS; i++) {
		cached += in_swap_cache(mem + i * THP_SIZE);
		pattern_fill(mem + i * THP_SIZE, THP_SIZE, 0xabab,
			     i * (THP_SIZE / 8));
	}
	TH_LOG("memory.reclaim: %d passes, Swap %lld kB of %zu; %d of %d THPs still in the swap cache when written",
	       tries, swap_kb, bytes / KiB, cached, REGION_THPS);
	log_delta(_metadata, "fork, reclaim, write", &a);
	ASSERT_EQ((long long)(bytes / KiB), swap_kb);
	/* Else the case was not exercised: the writes were too fast. */
	if (getenv("THPSWAP_EXPECT_THP_SWPOUT"))
		EXPECT_LT(0, cached);
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child saw the parent's writes (status %#x)", status);
	bad = verify(_metadata, "the parent's copy", mem, bytes, 0xabab, 0);
	EXPECT_EQ(0, bad);
	thp_free(mem, bytes);
}

TEST_HARNESS_MAIN
