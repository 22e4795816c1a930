// SPDX-License-Identifier: GPL-2.0
/*
 * faultlat: what one thread's swap-in costs the process's other threads.
 *
 *   faultlat [-s SWAPIN_MIB] [-f FRESH_MIB] [-p] [-m]
 *
 * Thread A fills SWAPIN_MIB (default 1024) of THPs, swaps them out with
 * MADV_PAGEOUT, then reads them back (swap-in), one word per 4 KiB.  While
 * it does, thread B of the same process faults fresh 4 KiB pages of
 * another region (FRESH_MIB, MADV_NOHUGEPAGE, mapped again whenever it has
 * been used up) and times each fault.  Whole-THP swap-in takes the mmap
 * lock for write to switch each PMD; B's faults take it for read.  With -p,
 * B is a child process instead: what is left is what A costs the other
 * CPUs (IPIs, shared locks), not what it costs its own mm.  With -m, B
 * times mmap() and munmap() of a 4 KiB page instead of faults: a thread
 * that wants the mmap lock for write, as A's swap-in does.
 *
 * Prints one line of key=value pairs:
 *   swapin_mib= swapin_s= faults= p50_us= p99_us= p999_us= max_us=
 *   over100_us= thp_swpin= pswpin= pswpout= bad_words=
 * (faults: how many B timed, with -m mmap/munmap pairs; over100_us: how
 * many of them took over 100 us)
 * and exits 0 if every word A read back was right and the region had been
 * swapped out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#define MiB		(1UL << 20)
#define THP		(2UL << 20)
#define PG		4096UL
#define MAX_SAMPLES	(1 << 22)

/* Shared with B, which may be another process (-p). */
static struct {
	atomic_int phase;	/* 0 setup, 1 A swapping in, 2 A done */
	size_t nsamples;
	double samples[MAX_SAMPLES];
} *sh;
static size_t fresh_bytes = 64 * MiB;
static int writer;	/* -m */

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static long long vmstat(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ') {
			v = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* -m: B maps and unmaps a page, each time under the mmap lock for write. */
static void *mapper(void)
{
	double t0;
	char *p;

	while (atomic_load(&sh->phase) == 1 && sh->nsamples < MAX_SAMPLES) {
		t0 = now_us();
		p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		munmap(p, PG);
		sh->samples[sh->nsamples++] = now_us() - t0;
	}
	return NULL;
}

static void *fresh_faulter(void *arg)
{
	char *mem = NULL;
	size_t off = fresh_bytes;
	double t0;

	(void)arg;
	while (atomic_load(&sh->phase) == 0)
		;
	if (writer)
		return mapper();
	while (atomic_load(&sh->phase) == 1 && sh->nsamples < MAX_SAMPLES) {
		if (off == fresh_bytes) {
			if (mem)
				munmap(mem, fresh_bytes);
			mem = mmap(NULL, fresh_bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (mem == MAP_FAILED)
				return NULL;
			madvise(mem, fresh_bytes, MADV_NOHUGEPAGE);
			off = 0;
		}
		t0 = now_us();
		mem[off] = 1;
		sh->samples[sh->nsamples++] = now_us() - t0;
		off += PG;
	}
	if (mem)
		munmap(mem, fresh_bytes);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double p)
{
	size_t i;

	if (!sh->nsamples)
		return -1;
	i = (size_t)(p / 100 * (sh->nsamples - 1) + 0.5);
	return sh->samples[i];
}

int main(int argc, char **argv)
{
	size_t bytes = 1024 * MiB, i, n;
	long long in0, in1, ps0, ps1, so0, so1;
	uint64_t bad = 0, *w;
	size_t over100 = 0;
	int opt, child = 0;
	pid_t pid = -1;
	pthread_t tb;
	double t0, t1;
	char *raw, *mem;

	while ((opt = getopt(argc, argv, "s:f:pm")) != -1) {
		switch (opt) {
		case 's':
			bytes = strtoul(optarg, NULL, 10) * MiB;
			break;
		case 'f':
			fresh_bytes = strtoul(optarg, NULL, 10) * MiB;
			break;
		case 'p':
			child = 1;
			break;
		case 'm':
			writer = 1;
			break;
		default:
			fprintf(stderr, "usage: faultlat [-s MiB] [-f MiB] [-p] [-m]\n");
			return 2;
		}
	}
	bytes &= ~(THP - 1);
	fresh_bytes &= ~(PG - 1);
	if (!bytes || !fresh_bytes)
		return 2;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("faultlat: memory");
		return 2;
	}
	/* Before A's region exists: a child sharing its swap entries would
	 * raise their swap counts and so rule out swapping THPs in whole.
	 */
	if (child) {
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			/* Gone with the parent, should it fail. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(2);
			fresh_faulter(NULL);
			_exit(0);
		}
	}
	raw = mmap(NULL, bytes + THP, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		perror("faultlat: memory");
		return 2;
	}
	mem = (char *)(((uintptr_t)raw + THP - 1) & ~(THP - 1));
	madvise(mem, bytes, MADV_HUGEPAGE);
	n = bytes / sizeof(uint64_t);
	w = (uint64_t *)mem;
	for (i = 0; i < n; i++)
		w[i] = i * 0x9E3779B97F4A7C15ULL;
	so0 = vmstat("pswpout");
	if (madvise(mem, bytes, MADV_PAGEOUT)) {
		perror("faultlat: MADV_PAGEOUT");
		return 2;
	}
	so1 = vmstat("pswpout");
	if (!child && pthread_create(&tb, NULL, fresh_faulter, NULL))
		return 2;
	in0 = vmstat("thp_swpin");
	ps0 = vmstat("pswpin");
	t0 = now_us();
	atomic_store(&sh->phase, 1);
	for (i = 0; i < n; i += PG / sizeof(uint64_t))
		bad += w[i] != i * 0x9E3779B97F4A7C15ULL;
	t1 = now_us();
	atomic_store(&sh->phase, 2);
	if (child)
		waitpid(pid, NULL, 0);
	else
		pthread_join(tb, NULL);
	in1 = vmstat("thp_swpin");
	ps1 = vmstat("pswpin");
	for (i = 0; i < n; i++)
		bad += w[i] != i * 0x9E3779B97F4A7C15ULL;
	qsort(sh->samples, sh->nsamples, sizeof(*sh->samples), cmp);
	for (i = 0; i < sh->nsamples; i++)
		over100 += sh->samples[i] > 100;
	printf("swapin_mib=%zu swapin_s=%.3f faults=%zu p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f over100_us=%zu thp_swpin=%lld pswpin=%lld pswpout=%lld bad_words=%" PRIu64 "\n",
	       bytes / MiB, (t1 - t0) / 1e6, sh->nsamples, pct(50), pct(99),
	       pct(99.9), sh->nsamples ? sh->samples[sh->nsamples - 1] : -1.0,
	       over100, in0 < 0 ? -1 : in1 - in0, ps1 - ps0, so1 - so0, bad);
	/* Swapped out for real, and every word came back. */
	return !bad && so1 - so0 >= (long long)(bytes / PG) ? 0 : 1;
}
