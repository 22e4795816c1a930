/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the swap-in kselftests (swapin_test.c, swapin_race_test.c,
 * swapin_auto_test.c, swapin_fork_test.c, swapout_pte_test.c);
 * include after kselftest_harness.h and ../lib.h.
 */
#ifndef THPSWAP_SWAPIN_H
#define THPSWAP_SWAPIN_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @bytes divided by THPSWAP_TEST_DIV, in whole THPs, at least 8 of them. */
static inline size_t scaled(size_t bytes)
{
	const char *d = getenv("THPSWAP_TEST_DIV");
	size_t div = d ? strtoul(d, NULL, 10) : 1;

	if (!div)
		div = 1;
	bytes /= div;
	return bytes < 8 * THP_SIZE ? 8 * THP_SIZE : bytes & ~(THP_SIZE - 1);
}

/* A fresh region of @bytes, filled and all of it PMD-mapped THPs. */
static inline char *thp_filled(struct __test_metadata *_metadata,
			       size_t bytes, uint64_t seed)
{
	char *mem = thp_alloc(bytes);
	long long kb;

	if (!mem)
		return NULL;
	pattern_fill(mem, bytes, seed, 0);
	kb = smaps_range_kb(mem, bytes, "AnonHugePages");
	if (kb != (long long)(bytes / KiB)) {
		TH_LOG("AnonHugePages %lld kB of %zu: no THPs", kb, bytes / KiB);
		thp_free(mem, bytes);
		return NULL;
	}
	return mem;
}

/* A fresh region of @bytes, filled and PMD-mapped, then swapped out whole. */
static inline char *thp_out(struct __test_metadata *_metadata, size_t bytes,
			    uint64_t seed)
{
	char *mem = thp_filled(_metadata, bytes, seed);

	if (!mem)
		return NULL;
	if (madvise(mem, bytes, MADV_PAGEOUT) ||
	    smaps_range_kb(mem, bytes, "Swap") != (long long)(bytes / KiB)) {
		TH_LOG("MADV_PAGEOUT did not swap all of %zu kB out",
		       bytes / KiB);
		thp_free(mem, bytes);
		return NULL;
	}
	return mem;
}

/*
 * Write memory.reclaim of the cgroup directory @cg, asking for twice @bytes
 * each time, until all of [@mem, @mem + @bytes) is swapped out, 64 times at
 * most: the first passes may only age it.  Returns the range's Swap in kB
 * at the end, with the number of writes in *@passes.
 */
static inline long long reclaim_range_out(const char *cg, const void *mem,
					  size_t bytes, int *passes)
{
	char path[320], amount[32];
	long long swap_kb = -1;
	int n;

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	snprintf(amount, sizeof(amount), "%zu", 2 * bytes);
	for (n = 1; n <= 64; n++) {
		write_file(path, amount);
		swap_kb = smaps_range_kb(mem, bytes, "Swap");
		if (swap_kb == (long long)(bytes / KiB))
			break;
	}
	*passes = n > 64 ? 64 : n;
	return swap_kb;
}

/* Check every word; log the first bad one.  Returns the number bad. */
static inline uint64_t verify(struct __test_metadata *_metadata,
			      const char *what, const void *p, size_t bytes,
			      uint64_t seed, uint64_t first_word)
{
	struct bad_word b;
	uint64_t bad = pattern_verify(p, bytes, seed, first_word, &b);

	if (bad)
		TH_LOG("%s: %" PRIu64 " bad words, first at word %" PRIu64
		       ": %016" PRIx64 " want %016" PRIx64, what, bad,
		       b.index, b.seen, b.expected);
	return bad;
}

/*
 * @d = @b - @a, counter by counter, for snapshots of counters: structs made
 * of long long and nothing else (swapin_test's in_snap, swapin_auto_test's
 * auto_snap, swapin_fork_test's snap).
 */
#define SNAP_DELTA(d, a, b)						\
	counters_delta((long long *)(d), (const long long *)(a),	\
		       (const long long *)(b), sizeof(*(d)) / sizeof(long long))

static inline void counters_delta(long long *d, const long long *a,
				  const long long *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = b[i] - a[i];
}

/* The value of swapin_enabled that @knob (its contents) selects, into @mode. */
static inline void swapin_mode(const char *knob, char mode[32])
{
	static const char *const modes[] = { "always", "madvise", "auto" };
	char want[16];
	size_t i;

	strcpy(mode, "never");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(want, sizeof(want), "[%s]", modes[i]);
		if (strstr(knob, want))
			strcpy(mode, modes[i]);
	}
}

#endif
