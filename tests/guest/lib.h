/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the thpswap guest test programs: THP-backed test
 * memory with a verifiable pattern, /proc and sysfs counters, swapon/off.
 *
 * All programs are linked statically and run as root inside the test VM.
 */
#ifndef THPSWAP_GUEST_LIB_H
#define THPSWAP_GUEST_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/mman.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

#define KiB		(1UL << 10)
#define MiB		(1UL << 20)
#define THP_SIZE	(2UL << 20)
#define PAGE_SZ		4096UL

/* ---- test memory ------------------------------------------------------ */

/*
 * Map @bytes (a multiple of THP_SIZE) of private anonymous memory at a
 * 2 MiB-aligned address, with MADV_HUGEPAGE.  The region is flanked by one
 * PROT_NONE guard of THP_SIZE on either side so it is always a VMA of its
 * own (never merged with a neighbour), which keeps /proc/self/smaps figures
 * for it exact.  Returns NULL (errno set) on failure.
 */
void *thp_alloc(size_t bytes);
/* Unmap a region from thp_alloc(), guards included. */
void thp_free(void *p, size_t bytes);

/*
 * The pattern: word number i of a region (counting 8-byte words from the
 * region start, so i = page index * 512 + word index in page) holds
 * pattern_word(seed, i).  Every word differs from its neighbours, from the
 * same word of other pages and of other seeds (a multiply by an odd
 * constant is a bijection), and only one index in 2^64 maps to 0, so
 * zero-filled, stale or misplaced pages are caught.
 */
#define PATTERN_MUL	0x9E3779B97F4A7C15ULL
static inline uint64_t pattern_word(uint64_t seed, uint64_t i)
{
	return seed ^ ((i + 1) * PATTERN_MUL);
}

/*
 * Fill @bytes at @p with the pattern, @first_word being the pattern index
 * of p's first word (0 for a whole region; offset/8 for a sub-range).
 */
void pattern_fill(void *p, size_t bytes, uint64_t seed, uint64_t first_word);

struct bad_word {
	uint64_t index;		/* word index within the checked range */
	uint64_t expected;
	uint64_t seen;
};
/*
 * Check every word of @bytes at @p; returns the number of wrong words and,
 * if any and @first is not NULL, describes the first one there.
 */
uint64_t pattern_verify(const void *p, size_t bytes, uint64_t seed,
			uint64_t first_word, struct bad_word *first);
/* Count words that are not zero in @bytes at @p (first reported as above). */
uint64_t zero_verify(const void *p, size_t bytes, struct bad_word *first);

/* Read one byte of every 4 KiB page (faults everything in); returns a sum. */
uint64_t touch_pages(const void *p, size_t bytes);

/* ---- counters --------------------------------------------------------- */

/* A /proc/vmstat field, or -1 if absent. */
long long vmstat_get(const char *key);

struct vmstat_snap {
	long long pswpin, pswpout, thp_swpout, thp_swpout_fallback;
	long long thp_split_pmd, thp_fault_alloc, thp_collapse_alloc;
	long long thp_swpin, thp_swpin_fallback;	/* -1: not this kernel */
	long long thp_swpin_declined, thp_swpin_promoted;	/* ditto */
	long long thp_swpin_shared;				/* ditto */
};
int vmstat_snap(struct vmstat_snap *s);
void vmstat_delta(struct vmstat_snap *d, const struct vmstat_snap *a,
		  const struct vmstat_snap *b);	/* d = b - a */

/* A /proc/meminfo field in kB, or -1. */
long long meminfo_kb(const char *key);

/*
 * Sum of an smaps field (in kB, e.g. "AnonHugePages", "Swap", "Rss") over
 * the VMAs of this process that lie entirely inside [p, p + bytes).
 * Returns -1 if smaps cannot be read.
 */
long long smaps_range_kb(const void *p, size_t bytes, const char *field);

/*
 * Where the 4 KiB page at @p is swapped out, from /proc/self/pagemap (the
 * swap offset needs CAP_SYS_ADMIN: the guest runs as root).  Returns 1 with
 * *@type and *@offset set if the page is a swap entry, 0 if it is not (in
 * memory or never touched), -1 if pagemap cannot be read.
 */
int pagemap_swap(const void *p, unsigned int *type, uint64_t *offset);

/*
 * The thpswap device's sysfs files: /sys/block/DEV/thpswap/{stats,clusters}.
 * dev_stat() returns the value for @key, or -1 if the file or key is absent.
 */
long long dev_stat(const char *dev, const char *key);
long long dev_cluster(const char *dev, const char *key);
bool dev_has_stats(const char *dev);
int dev_reset_stats(const char *dev);

struct dev_snap {
	long long thp_writes, thp_reads, page_writes, page_reads;
	long long bytes_written, bytes_read, discards, slot_frees, rejected;
	long long thp_swpout, thp_swpout_fallback;
	long long c_total, c_free, c_huge, c_split, c_small;
};
/* Fills all fields (-1 where absent); returns 0 if the stats file was read. */
int dev_snap(const char *dev, struct dev_snap *s);
void dev_delta(struct dev_snap *d, const struct dev_snap *a,
	       const struct dev_snap *b);

/* "key value" lookup in a file of such lines; -1 if absent. */
long long file_key_value(const char *path, const char *key);
/* Read a small file into buf (NUL-terminated); returns length or -1. */
ssize_t read_file(const char *path, char *buf, size_t len);
/* Write a string to a file; returns 0 or -errno. */
int write_file(const char *path, const char *s);

/* ---- swap -------------------------------------------------------------- */

/* Is this block device path listed in /proc/swaps? */
bool swap_active(const char *path);
int do_swapon(const char *path, int flags);	/* 0 or -errno */
int do_swapoff(const char *path);		/* 0 or -errno */

/* ---- misc -------------------------------------------------------------- */

double now_s(void);		/* CLOCK_MONOTONIC in seconds */
/* Pin the calling thread to the CPU it runs on now; returns that CPU or -1. */
int pin_to_current_cpu(void);
/* Environment THPSWAP_DEV or "thpswap0". */
const char *thpswap_dev_name(void);

#endif
