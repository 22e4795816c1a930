// SPDX-License-Identifier: GPL-2.0
/* Helpers for the thpswap guest test programs; see lib.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/swap.h>

#include "lib.h"

/* ---- test memory ------------------------------------------------------ */

void *thp_alloc(size_t bytes)
{
	size_t reserve = bytes + 3 * THP_SIZE;
	uintptr_t base, start, end;
	void *m;

	if (!bytes || bytes % THP_SIZE) {
		errno = EINVAL;
		return NULL;
	}
	m = mmap(NULL, reserve, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	base = (uintptr_t)m;
	/* [start - THP, start) and [start + bytes, +THP) stay PROT_NONE. */
	start = (base + 2 * THP_SIZE - 1) & ~(THP_SIZE - 1);
	end = start + bytes + THP_SIZE;
	if (start - THP_SIZE > base)
		munmap(m, start - THP_SIZE - base);
	if (base + reserve > end)
		munmap((void *)end, base + reserve - end);
	if (mprotect((void *)start, bytes, PROT_READ | PROT_WRITE) ||
	    madvise((void *)start, bytes, MADV_HUGEPAGE)) {
		int e = errno;

		munmap((void *)(start - THP_SIZE), bytes + 2 * THP_SIZE);
		errno = e;
		return NULL;
	}
	return (void *)start;
}

void thp_free(void *p, size_t bytes)
{
	if (p)
		munmap((char *)p - THP_SIZE, bytes + 2 * THP_SIZE);
}

void pattern_fill(void *p, size_t bytes, uint64_t seed, uint64_t first_word)
{
	uint64_t *w = p;
	size_t n = bytes / 8, i;
	uint64_t acc = (first_word + 1) * PATTERN_MUL;

	for (i = 0; i < n; i++) {
		w[i] = seed ^ acc;
		acc += PATTERN_MUL;
	}
}

uint64_t pattern_verify(const void *p, size_t bytes, uint64_t seed,
			uint64_t first_word, struct bad_word *first)
{
	const volatile uint64_t *w = p;
	size_t n = bytes / 8, i;
	uint64_t acc = (first_word + 1) * PATTERN_MUL, bad = 0;

	for (i = 0; i < n; i++, acc += PATTERN_MUL) {
		uint64_t v = w[i];

		if (v == (seed ^ acc))
			continue;
		if (!bad++ && first) {
			first->index = i;
			first->expected = seed ^ acc;
			first->seen = v;
		}
	}
	return bad;
}

uint64_t zero_verify(const void *p, size_t bytes, struct bad_word *first)
{
	const volatile uint64_t *w = p;
	size_t n = bytes / 8, i;
	uint64_t bad = 0;

	for (i = 0; i < n; i++) {
		uint64_t v = w[i];

		if (!v)
			continue;
		if (!bad++ && first) {
			first->index = i;
			first->expected = 0;
			first->seen = v;
		}
	}
	return bad;
}

uint64_t touch_pages(const void *p, size_t bytes)
{
	const volatile unsigned char *c = p;
	uint64_t sum = 0;
	size_t off;

	for (off = 0; off < bytes; off += PAGE_SZ)
		sum += c[off];
	return sum;
}

/* ---- files -------------------------------------------------------------- */

ssize_t read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !len)
		return -1;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = 0;
	return got;
}

int write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	e = n < 0 ? -errno : ((size_t)n == len ? 0 : -EIO);
	close(fd);
	return e;
}

/*
 * Find "key<sep>value" at the start of a line of @buf; @sep is the set of
 * separator characters allowed between key and value.
 */
static long long find_key(const char *buf, const char *key, const char *sep)
{
	size_t kl = strlen(key);
	const char *l = buf;

	while (l && *l) {
		if (!strncmp(l, key, kl) && l[kl] && strchr(sep, l[kl]))
			return strtoll(l + kl + 1, NULL, 10);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

/* /proc/vmstat is ~5 KiB on 6.1; stats files are small. */
static char bigbuf[64 * 1024];

long long file_key_value(const char *path, const char *key)
{
	if (read_file(path, bigbuf, sizeof(bigbuf)) < 0)
		return -1;
	return find_key(bigbuf, key, " \t:");
}

/* ---- counters --------------------------------------------------------- */

long long vmstat_get(const char *key)
{
	return file_key_value("/proc/vmstat", key);
}

int vmstat_snap(struct vmstat_snap *s)
{
	if (read_file("/proc/vmstat", bigbuf, sizeof(bigbuf)) < 0)
		return -1;
	s->pswpin = find_key(bigbuf, "pswpin", " ");
	s->pswpout = find_key(bigbuf, "pswpout", " ");
	s->thp_swpout = find_key(bigbuf, "thp_swpout", " ");
	s->thp_swpout_fallback = find_key(bigbuf, "thp_swpout_fallback", " ");
	s->thp_split_pmd = find_key(bigbuf, "thp_split_pmd", " ");
	s->thp_fault_alloc = find_key(bigbuf, "thp_fault_alloc", " ");
	s->thp_collapse_alloc = find_key(bigbuf, "thp_collapse_alloc", " ");
	s->thp_swpin = find_key(bigbuf, "thp_swpin", " ");
	s->thp_swpin_fallback = find_key(bigbuf, "thp_swpin_fallback", " ");
	s->thp_swpin_declined = find_key(bigbuf, "thp_swpin_declined", " ");
	s->thp_swpin_promoted = find_key(bigbuf, "thp_swpin_promoted", " ");
	s->thp_swpin_shared = find_key(bigbuf, "thp_swpin_shared", " ");
	return 0;
}

#define DELTA(f) d->f = (a->f < 0 || b->f < 0) ? -1 : b->f - a->f
void vmstat_delta(struct vmstat_snap *d, const struct vmstat_snap *a,
		  const struct vmstat_snap *b)
{
	DELTA(pswpin);
	DELTA(pswpout);
	DELTA(thp_swpout);
	DELTA(thp_swpout_fallback);
	DELTA(thp_split_pmd);
	DELTA(thp_fault_alloc);
	DELTA(thp_collapse_alloc);
	DELTA(thp_swpin);
	DELTA(thp_swpin_fallback);
	DELTA(thp_swpin_declined);
	DELTA(thp_swpin_promoted);
	DELTA(thp_swpin_shared);
}

long long meminfo_kb(const char *key)
{
	if (read_file("/proc/meminfo", bigbuf, sizeof(bigbuf)) < 0)
		return -1;
	return find_key(bigbuf, key, ":");
}

int pagemap_swap(const void *p, unsigned int *type, uint64_t *offset)
{
	static int fd = -1;
	uint64_t e;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, &e, sizeof(e), (uintptr_t)p / PAGE_SZ * sizeof(e)) !=
	    sizeof(e))
		return -1;
	/* bit 62: swapped; bits 0-4: swap type; bits 5-54: swap offset */
	if (!(e & (1ULL << 62)))
		return 0;
	*type = e & 0x1f;
	*offset = (e & ((1ULL << 55) - 1)) >> 5;
	return 1;
}

long long smaps_range_kb(const void *p, size_t bytes, const char *field)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
	size_t fl = strlen(field);
	bool inside = false;
	long long sum = 0;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		/* VMA header: "start-end perms ..."; field lines: "Key:  N kB" */
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    line[strspn(line, "0123456789abcdef")] == '-') {
			inside = s >= lo && e <= hi;
			continue;
		}
		if (inside && !strncmp(line, field, fl) && line[fl] == ':')
			sum += strtoll(line + fl + 1, NULL, 10);
	}
	fclose(f);
	return sum;
}

static void dev_path(char *buf, size_t len, const char *dev, const char *file)
{
	snprintf(buf, len, "/sys/block/%s/thpswap/%s", dev, file);
}

long long dev_stat(const char *dev, const char *key)
{
	char path[256];

	dev_path(path, sizeof(path), dev, "stats");
	return file_key_value(path, key);
}

long long dev_cluster(const char *dev, const char *key)
{
	char path[256];

	dev_path(path, sizeof(path), dev, "clusters");
	return file_key_value(path, key);
}

bool dev_has_stats(const char *dev)
{
	char path[256];

	dev_path(path, sizeof(path), dev, "stats");
	return access(path, R_OK) == 0;
}

int dev_reset_stats(const char *dev)
{
	char path[256];

	dev_path(path, sizeof(path), dev, "reset_stats");
	return write_file(path, "1");
}

int dev_snap(const char *dev, struct dev_snap *s)
{
	char path[256];
	int ret = 0;

	dev_path(path, sizeof(path), dev, "stats");
	if (read_file(path, bigbuf, sizeof(bigbuf)) < 0) {
		bigbuf[0] = 0;
		ret = -1;
	}
	s->thp_writes = find_key(bigbuf, "thp_writes", " ");
	s->thp_reads = find_key(bigbuf, "thp_reads", " ");
	s->page_writes = find_key(bigbuf, "page_writes", " ");
	s->page_reads = find_key(bigbuf, "page_reads", " ");
	s->bytes_written = find_key(bigbuf, "bytes_written", " ");
	s->bytes_read = find_key(bigbuf, "bytes_read", " ");
	s->discards = find_key(bigbuf, "discards", " ");
	s->slot_frees = find_key(bigbuf, "slot_frees", " ");
	s->rejected = find_key(bigbuf, "rejected", " ");
	s->thp_swpout = find_key(bigbuf, "thp_swpout", " ");
	s->thp_swpout_fallback = find_key(bigbuf, "thp_swpout_fallback", " ");

	dev_path(path, sizeof(path), dev, "clusters");
	if (read_file(path, bigbuf, sizeof(bigbuf)) < 0)
		bigbuf[0] = 0;
	s->c_total = find_key(bigbuf, "total", " ");
	s->c_free = find_key(bigbuf, "free", " ");
	s->c_huge = find_key(bigbuf, "huge", " ");
	s->c_split = find_key(bigbuf, "split", " ");
	s->c_small = find_key(bigbuf, "small", " ");
	return ret;
}

void dev_delta(struct dev_snap *d, const struct dev_snap *a,
	       const struct dev_snap *b)
{
	DELTA(thp_writes);
	DELTA(thp_reads);
	DELTA(page_writes);
	DELTA(page_reads);
	DELTA(bytes_written);
	DELTA(bytes_read);
	DELTA(discards);
	DELTA(slot_frees);
	DELTA(rejected);
	DELTA(thp_swpout);
	DELTA(thp_swpout_fallback);
	DELTA(c_total);
	DELTA(c_free);
	DELTA(c_huge);
	DELTA(c_split);
	DELTA(c_small);
}
#undef DELTA

/* ---- swap -------------------------------------------------------------- */

bool swap_active(const char *path)
{
	size_t pl = strlen(path);
	const char *l = bigbuf;

	if (read_file("/proc/swaps", bigbuf, sizeof(bigbuf)) < 0)
		return false;
	while (l && *l) {
		if (!strncmp(l, path, pl) && (l[pl] == ' ' || l[pl] == '\t'))
			return true;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return false;
}

int do_swapon(const char *path, int flags)
{
	return swapon(path, flags) ? -errno : 0;
}

int do_swapoff(const char *path)
{
	return swapoff(path) ? -errno : 0;
}

/* ---- misc -------------------------------------------------------------- */

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int pin_to_current_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return cpu;
}

const char *thpswap_dev_name(void)
{
	const char *d = getenv("THPSWAP_DEV");

	return d && *d ? d : "thpswap0";
}
