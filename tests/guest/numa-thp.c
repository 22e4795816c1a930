// SPDX-License-Identifier: GPL-2.0
/*
 * numa-thp: where a THP-backed working set lives, NUMA node by node, while
 * it is swapped out and back in.  For the far-node suite and bench.
 *
 *   numa-thp --size MiB [--pageout] [--half-zero] [--seed N]
 *
 * Phases, each reported as one record line:
 *   fill     map SIZE MiB (MADV_HUGEPAGE, 2 MiB aligned) and write it; under
 *            a cgroup memory.max smaller than SIZE this is where it swaps
 *   pageout  (--pageout only) MADV_PAGEOUT the whole region
 *   touch    read one byte of every 4 KiB page (faults everything back in)
 * then every word is checked ("verify").
 *
 * Every phase record: "phase=NAME t_s= node0_used_kb= node1_used_kb=
 * node0_anonhuge_kb= node1_anonhuge_kb= rss_kb= anonhuge_kb= swap_kb=
 * pages_node0= pages_node1= pages_other= pages_absent= pswpout= pswpin=
 * thp_swpout= thp_swpout_fallback= thp_swpin=" (vm events cumulative since
 * start; thp_swpin -1 where the kernel lacks it; node1_* -1 without a node
 * 1).  pages_nodeN counts the region's 4 KiB pages resident on node N
 * (move_pages(2) query), pages_absent those not in memory (swapped out).
 * Last line: "result=ok|corrupt bad_words= verify_s=".
 *
 * --half-zero: the second half of every 4 KiB page is zero (about 2:1
 * compressible, so that zram is not judged on random data only).
 *
 * Exit: 0 every word right, 1 a wrong word, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A "Node N FIELD: V kB" line of /sys/devices/system/node/nodeN/meminfo. */
static long long node_kb(int node, const char *field)
{
	char path[96], line[256], key[64];
	long long v = -1, x;
	FILE *f;
	int nd;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %d %63[^:]: %lld", &nd, key, &x) == 3 &&
		    !strcmp(key, field)) {
			v = x;
			break;
		}
	fclose(f);
	return v;
}

#define BATCH 4096

/* Counts the region's pages by node; absent: not resident. */
static int pages_by_node(char *p, size_t bytes, long long *n0, long long *n1,
			 long long *other, long long *absent)
{
	static void *pages[BATCH];
	static int status[BATCH];
	size_t npages = bytes / PAGE_SZ, i, j, k;

	*n0 = *n1 = *other = *absent = 0;
	for (i = 0; i < npages; i += BATCH) {
		k = npages - i < BATCH ? npages - i : BATCH;
		for (j = 0; j < k; j++)
			pages[j] = p + (i + j) * PAGE_SZ;
		if (syscall(SYS_move_pages, 0, k, pages, NULL, status, 0)) {
			fprintf(stderr, "numa-thp: move_pages: %s\n", strerror(errno));
			return -1;
		}
		for (j = 0; j < k; j++) {
			if (status[j] == 0)
				(*n0)++;
			else if (status[j] == 1)
				(*n1)++;
			else if (status[j] == -ENOENT)
				(*absent)++;
			else
				(*other)++;
		}
	}
	return 0;
}

static struct vmstat_snap vs0;

static int report(const char *phase, double t, char *p, size_t bytes)
{
	long long n0, n1, other, absent;
	struct vmstat_snap vs, d;

	if (pages_by_node(p, bytes, &n0, &n1, &other, &absent))
		return -1;
	vmstat_snap(&vs);
	vmstat_delta(&d, &vs0, &vs);
	printf("phase=%s t_s=%.3f node0_used_kb=%lld node1_used_kb=%lld "
	       "node0_anonhuge_kb=%lld node1_anonhuge_kb=%lld rss_kb=%lld anonhuge_kb=%lld swap_kb=%lld "
	       "pages_node0=%lld pages_node1=%lld pages_other=%lld pages_absent=%lld "
	       "pswpout=%lld pswpin=%lld thp_swpout=%lld thp_swpout_fallback=%lld thp_swpin=%lld\n",
	       phase, t, node_kb(0, "MemUsed"), node_kb(1, "MemUsed"),
	       node_kb(0, "AnonHugePages"), node_kb(1, "AnonHugePages"),
	       smaps_range_kb(p, bytes, "Rss"), smaps_range_kb(p, bytes, "AnonHugePages"),
	       smaps_range_kb(p, bytes, "Swap"), n0, n1, other, absent,
	       d.pswpout, d.pswpin, d.thp_swpout, d.thp_swpout_fallback,
	       vs.thp_swpin < 0 ? -1 : d.thp_swpin);
	fflush(stdout);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: numa-thp --size MiB [--pageout] [--half-zero] [--seed N]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "pageout", no_argument, NULL, 'p' },
		{ "half-zero", no_argument, NULL, 'z' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool pageout = false, half = false;
	unsigned long mib = 0;
	uint64_t seed = 17, bad = 0;
	struct bad_word first;
	size_t bytes, i;
	double t0;
	char *p;
	int o;

	while ((o = getopt_long(argc, argv, "s:pzS:h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			mib = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			pageout = true;
			break;
		case 'z':
			half = true;
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!mib || mib % 2 || optind != argc) {
		usage(stderr);
		return 2;
	}
	bytes = mib * MiB;
	vmstat_snap(&vs0);

	t0 = now();
	p = thp_alloc(bytes);
	if (!p) {
		fprintf(stderr, "numa-thp: mmap %lu MiB: %s\n", mib, strerror(errno));
		return 2;
	}
	/*
	 * One pass: under memory.max the region swaps out while it is
	 * written, and a second pass would fault it all back in.  The zero
	 * halves are never written (anonymous memory starts zeroed).
	 */
	if (half)
		for (i = 0; i < bytes; i += PAGE_SZ)
			pattern_fill(p + i, PAGE_SZ / 2, seed, i / 8);
	else
		pattern_fill(p, bytes, seed, 0);
	if (report("fill", now() - t0, p, bytes))
		return 2;

	if (pageout) {
		t0 = now();
		if (madvise(p, bytes, MADV_PAGEOUT)) {
			fprintf(stderr, "numa-thp: MADV_PAGEOUT: %s\n", strerror(errno));
			return 2;
		}
		if (report("pageout", now() - t0, p, bytes))
			return 2;
	}

	t0 = now();
	touch_pages(p, bytes);
	if (report("touch", now() - t0, p, bytes))
		return 2;

	t0 = now();
	for (i = 0; i < bytes; i += PAGE_SZ) {
		size_t n = half ? PAGE_SZ / 2 : PAGE_SZ;

		bad += pattern_verify(p + i, n, seed, i / 8, &first);
		if (half)
			bad += zero_verify(p + i + n, PAGE_SZ - n, &first);
	}
	printf("result=%s bad_words=%" PRIu64 " verify_s=%.3f\n", bad ? "corrupt" : "ok", bad,
	       now() - t0);
	thp_free(p, bytes);
	return bad ? 1 : 0;
}
