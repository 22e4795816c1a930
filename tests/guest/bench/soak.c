// SPDX-License-Identifier: GPL-2.0
/*
 * soak: hours of mixed 4 KiB and THP swap traffic compressed into minutes,
 * for the swap-space fragmentation soak of `make bench` (bench/soak), run
 * as root in the test VM on a swapped-on thpswap device.  Self-contained,
 * like swapbench.c.
 *
 *   soak [--dev NAME] [--seconds S] [--thp-procs N] [--small-procs N]
 *	  [--mib MiB] [--low PCT] [--high PCT] [--sample-ms MS] [--seed S]
 *
 * N THP workers (MADV_HUGEPAGE) and N small workers (MADV_NOHUGEPAGE), each
 * its own process with --mib MiB of private memory, swap out with
 * MADV_PAGEOUT (whole 2 MiB blocks for THP workers, runs of 1-128 pages for
 * small ones), rewrite ranges (which swaps them back in and frees their
 * slots; a THP worker drops the block first, so it comes back as a fresh
 * THP), and free random parts (MADV_DONTNEED of 1-64 pages or of a whole
 * block, munmap and mmap again of a whole block; THP workers free part of
 * a block a quarter as often, which leaves a THP mapped by PTEs).  The
 * parent steers the mix to keep the device between --low and
 * --high percent full: it fills (mostly swap-outs) until --high, then
 * drains (mostly rewrites and frees) until --low, and over again.  Every
 * page's content is known (a per-page generation), checked before it is
 * overwritten or freed, and the whole of every region at the end.
 *
 * Records, single lines of key=value pairs:
 *   S t= used_pct= free_pct= mode=fill|drain free_clusters= thp_swpout=
 *     thp_swpout_fallback= dev_fallback_no_cluster=
 *	one per sample; the counts are deltas over the sample (-1: absent)
 *   B band=LO-HI samples= thp_swpout= thp_swpout_fallback= rate_pct=
 *	the samples grouped by the device's free share (percent, the lower of
 *	the sample's first and last reading: the device fills fast, and a
 *	fallback near its end must not count for a freer band), LO <= free < HI
 *   T cycles= ops= pageouts= rewrites= frees= unmaps= seconds=
 *   R result=ok|corrupt|error bad_words= checked_words=
 * After the last sample and before the final check (so with everything
 * still swapped out) it runs `thpswapctl map DEV` and `thpswapctl stats
 * DEV`, whose output is passed through prefixed with "# ".  Lines starting
 * with "# " are for humans; errors go to stderr.
 *
 * Exit: 0 ok, 1 a word read back was wrong, 2 usage, setup or worker error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

#define MiB		(1UL << 20)
#define THP_SIZE	(2UL << 20)
#define PAGE_SZ		4096UL
#define PAGES_PER_THP	(THP_SIZE / PAGE_SZ)
#define WORDS_PER_PAGE	(PAGE_SZ / 8)
#define MAX_WORKERS	32
#define NBANDS		6

static const int band_lo[NBANDS] = { 0, 10, 25, 40, 50, 75 };
static const int band_hi[NBANDS] = { 10, 25, 40, 50, 75, 101 };

/* Shared between the parent and the workers (MAP_SHARED). */
struct shared {
	volatile int mode;		/* 1 fill, 0 drain */
	volatile int stop;		/* 1: stop the traffic, 2: check all */
	volatile int parked[MAX_WORKERS];
	struct {
		uint64_t ops, pageouts, rewrites, frees, unmaps;
		uint64_t bad_words, checked_words;
		int error;
	} w[MAX_WORKERS];
};

static struct shared *sh;
static const char *dev = "thpswap0";

/* ---- counters ---------------------------------------------------------- */

static long long key_in_file(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static long long vmstat(const char *key)
{
	return key_in_file("/proc/vmstat", key);
}

static long long devstat(const char *file, const char *key)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/block/%s/thpswap/%s", dev, file);
	return key_in_file(path, key);
}

/* The device's size and use in KiB from /proc/swaps; 0 or -1. */
static int swap_usage(long long *size, long long *used)
{
	char line[512], name[256], want[300];
	FILE *f = fopen("/proc/swaps", "r");
	int ret = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "/dev/%s", dev);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %*s %lld %lld", name, size, used) == 3 &&
		    !strcmp(name, want)) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- a worker ---------------------------------------------------------- */

struct worker {
	int id;
	bool thp;
	char *base;
	size_t bytes, npages, nblocks;
	uint32_t *gen;		/* per page: 0 zero-filled, else the pattern's */
	uint64_t seed, rnd;
};

static uint64_t rnd(struct worker *w)
{
	/* xorshift64* */
	w->rnd ^= w->rnd >> 12;
	w->rnd ^= w->rnd << 25;
	w->rnd ^= w->rnd >> 27;
	return w->rnd * 0x2545F4914F6CDD1DULL;
}

static uint64_t pattern_word(uint64_t seed, uint64_t i)
{
	return seed ^ ((i + 1) * 0x9E3779B97F4A7C15ULL);
}

static uint64_t page_seed(struct worker *w, uint32_t gen)
{
	return w->seed ^ ((uint64_t)gen << 40) ^ ((uint64_t)gen * 0x100000001B3ULL);
}

/* Check pages [first, first + n): every word is what was last written. */
static void check_pages(struct worker *w, size_t first, size_t n)
{
	for (size_t p = first; p < first + n; p++) {
		const uint64_t *q = (const uint64_t *)(w->base + p * PAGE_SZ);
		uint64_t seed = page_seed(w, w->gen[p]), bad = 0;

		for (size_t i = 0; i < WORDS_PER_PAGE; i++) {
			uint64_t want = w->gen[p] ?
				pattern_word(seed, p * WORDS_PER_PAGE + i) : 0;

			if (q[i] != want) {
				if (!sh->w[w->id].bad_words && !bad)
					fprintf(stderr, "soak: worker %d page %zu word %zu: %#" PRIx64
						" want %#" PRIx64 " (gen %u)\n", w->id, p, i,
						q[i], want, w->gen[p]);
				bad++;
			}
		}
		sh->w[w->id].bad_words += bad;
		sh->w[w->id].checked_words += WORDS_PER_PAGE;
	}
}

/*
 * Write a new generation into pages [first, first + n), unchecked: where
 * they are known to be empty.  Reading them first would map the huge zero
 * page, and 6.1 answers a write to that with 4 KiB pages, not a THP.
 */
static void write_pages(struct worker *w, size_t first, size_t n)
{
	for (size_t p = first; p < first + n; p++) {
		uint64_t *q = (uint64_t *)(w->base + p * PAGE_SZ);
		uint64_t seed;

		w->gen[p] = w->gen[p] + 1 ? w->gen[p] + 1 : 1;
		seed = page_seed(w, w->gen[p]);
		for (size_t i = 0; i < WORDS_PER_PAGE; i++)
			q[i] = pattern_word(seed, p * WORDS_PER_PAGE + i);
	}
}

/* Check, then write a new generation into pages [first, first + n). */
static void rewrite_pages(struct worker *w, size_t first, size_t n)
{
	check_pages(w, first, n);
	write_pages(w, first, n);
}

static int advise(struct worker *w, char *p, size_t len)
{
	return madvise(p, len, w->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

static void worker_op(struct worker *w)
{
	size_t blk = rnd(w) % w->nblocks, first = blk * PAGES_PER_THP, n;
	unsigned int dice = rnd(w) % 100;
	bool fill = sh->mode;
	/* fill: 85 % swap-out, 10 % rewrite, 5 % free; drain: 10/50/40 */
	unsigned int p_out = fill ? 85 : 10, p_rw = fill ? 10 : 50;

	sh->w[w->id].ops++;
	if (dice < p_out) {
		if (w->thp) {
			n = PAGES_PER_THP;
		} else {
			n = 1 + rnd(w) % 128;
			first += rnd(w) % (PAGES_PER_THP - n + 1);
		}
		madvise(w->base + first * PAGE_SZ, n * PAGE_SZ, MADV_PAGEOUT);
		sh->w[w->id].pageouts++;
	} else if (dice < p_out + p_rw) {
		/*
		 * A THP worker rewrites whole blocks, as an allocator that
		 * frees and reuses its memory: the block is dropped and comes
		 * back as a fresh THP.
		 */
		if (w->thp) {
			n = PAGES_PER_THP;
			check_pages(w, first, n);
			madvise(w->base + first * PAGE_SZ, THP_SIZE, MADV_DONTNEED);
			memset(w->gen + first, 0, n * sizeof(*w->gen));
			write_pages(w, first, n);
		} else {
			if (rnd(w) % 4 == 0) {
				n = PAGES_PER_THP;
			} else {
				n = 1 + rnd(w) % 64;
				first += rnd(w) % (PAGES_PER_THP - n + 1);
			}
			rewrite_pages(w, first, n);
		}
		sh->w[w->id].rewrites++;
	} else {
		unsigned int how = rnd(w) % 4;
		char *p;

		/* THP workers break a THP up with a partial free less often. */
		if (w->thp && how >= 2 && rnd(w) % 4)
			how = 1;
		if (how == 0) {
			/* munmap and map again: a fresh VMA, fresh THPs */
			n = PAGES_PER_THP;
			check_pages(w, first, n);
			p = w->base + first * PAGE_SZ;
			if (munmap(p, THP_SIZE) ||
			    mmap(p, THP_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p ||
			    advise(w, p, THP_SIZE)) {
				perror("soak: munmap/mmap");
				sh->w[w->id].error = 1;
			}
			sh->w[w->id].unmaps++;
		} else {
			n = how == 1 ? PAGES_PER_THP : 1 + rnd(w) % 64;
			first += rnd(w) % (PAGES_PER_THP - n + 1);
			check_pages(w, first, n);
			madvise(w->base + first * PAGE_SZ, n * PAGE_SZ, MADV_DONTNEED);
			sh->w[w->id].frees++;
		}
		memset(w->gen + first, 0, n * sizeof(*w->gen));
	}
}

static int worker_main(int id, bool thp, size_t bytes, uint64_t seed)
{
	struct worker w = { .id = id, .thp = thp, .bytes = bytes };
	size_t map = bytes + THP_SIZE;
	char *raw;

	w.npages = bytes / PAGE_SZ;
	w.nblocks = bytes / THP_SIZE;
	w.seed = seed * 0x9E3779B97F4A7C15ULL + id;
	w.rnd = w.seed | 1;
	w.gen = calloc(w.npages, sizeof(*w.gen));
	raw = mmap(NULL, map, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!w.gen || raw == MAP_FAILED) {
		perror("soak: worker memory");
		sh->w[id].error = 1;
		return 2;
	}
	w.base = (char *)(((uintptr_t)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (advise(&w, w.base, bytes)) {
		perror("soak: madvise");
		sh->w[id].error = 1;
		return 2;
	}
	write_pages(&w, 0, w.npages);

	while (!sh->stop)
		worker_op(&w);
	sh->parked[id] = 1;
	while (sh->stop < 2)
		usleep(10000);
	check_pages(&w, 0, w.npages);
	return sh->w[id].bad_words ? 1 : 0;
}

/* ---- the parent -------------------------------------------------------- */

static void run_tool(const char *what)
{
	char cmd[256], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "thpswapctl %s %s 2>&1", what, dev);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# %s", line);
	pclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: soak [--dev NAME] [--seconds S] [--thp-procs N] "
		"[--small-procs N] [--mib MiB] [--low PCT] [--high PCT] "
		"[--sample-ms MS] [--seed S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 's' },
		{ "thp-procs", required_argument, NULL, 't' },
		{ "small-procs", required_argument, NULL, 'n' },
		{ "mib", required_argument, NULL, 'm' },
		{ "low", required_argument, NULL, 'l' },
		{ "high", required_argument, NULL, 'h' },
		{ "sample-ms", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 60, low = 50, high = 90, t0, t;
	int thp_procs = 2, small_procs = 2, sample_ms = 250, c, nw, status;
	unsigned long mib = 48;
	uint64_t seed = 1, bad = 0, checked = 0;
	long long size, used, prev_used, out0, fb0, nc0, out1, fb1, nc1;
	long long b_samples[NBANDS] = { 0 }, b_out[NBANDS] = { 0 }, b_fb[NBANDS] = { 0 };
	long long tot_out = 0, tot_fb = 0;
	pid_t pids[MAX_WORKERS];
	int cycles = 0, error = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 's': seconds = atof(optarg); break;
		case 't': thp_procs = atoi(optarg); break;
		case 'n': small_procs = atoi(optarg); break;
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'l': low = atof(optarg); break;
		case 'h': high = atof(optarg); break;
		case 'i': sample_ms = atoi(optarg); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	nw = thp_procs + small_procs;
	if (nw < 1 || nw > MAX_WORKERS || thp_procs < 0 || small_procs < 0 ||
	    mib < 2 || mib % 2 || low >= high || sample_ms < 10)
		usage();
	if (swap_usage(&size, &used)) {
		fprintf(stderr, "soak: /dev/%s is not swapped on\n", dev);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("soak: shared memory");
		return 2;
	}
	sh->mode = 1;
	printf("# soak: %d THP + %d small workers x %lu MiB, /dev/%s %lld MiB, "
	       "kept %.0f-%.0f %% full, %.0f s\n", thp_procs, small_procs, mib,
	       dev, size / 1024, low, high, seconds);
	fflush(stdout);
	for (int i = 0; i < nw; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("soak: fork");
			sh->stop = 2;
			return 2;
		}
		if (pids[i] == 0)
			_exit(worker_main(i, i < thp_procs, mib * MiB, seed));
	}

	t0 = now_s();
	prev_used = used;
	out0 = vmstat("thp_swpout");
	fb0 = vmstat("thp_swpout_fallback");
	nc0 = devstat("stats", "fallback_no_cluster");
	for (;;) {
		double f0, f1, fmin;
		int b;

		usleep(sample_ms * 1000);
		t = now_s() - t0;
		if (swap_usage(&size, &used)) {
			fprintf(stderr, "soak: /dev/%s went away\n", dev);
			error = 1;
			break;
		}
		out1 = vmstat("thp_swpout");
		fb1 = vmstat("thp_swpout_fallback");
		nc1 = devstat("stats", "fallback_no_cluster");
		f0 = 100.0 * (size - prev_used) / size;
		f1 = 100.0 * (size - used) / size;
		fmin = f0 < f1 ? f0 : f1;
		printf("S t=%.1f used_pct=%.1f free_pct=%.1f mode=%s free_clusters=%lld "
		       "thp_swpout=%lld thp_swpout_fallback=%lld dev_fallback_no_cluster=%lld\n",
		       t, 100.0 - f1, f1, sh->mode ? "fill" : "drain",
		       devstat("clusters", "free"), out1 - out0, fb1 - fb0,
		       nc0 >= 0 && nc1 >= 0 ? nc1 - nc0 : -1);
		for (b = 0; b < NBANDS; b++)
			if (fmin >= band_lo[b] && fmin < band_hi[b])
				break;
		if (b < NBANDS) {
			b_samples[b]++;
			b_out[b] += out1 - out0;
			b_fb[b] += fb1 - fb0;
		}
		tot_out += out1 - out0;
		tot_fb += fb1 - fb0;
		out0 = out1;
		fb0 = fb1;
		nc0 = nc1;
		prev_used = used;
		if (sh->mode && 100.0 * used / size >= high) {
			sh->mode = 0;
		} else if (!sh->mode && 100.0 * used / size <= low) {
			sh->mode = 1;
			cycles++;
		}
		for (int i = 0; i < nw; i++)
			if (sh->w[i].error)
				error = 1;
		if (t >= seconds || error)
			break;
	}

	/* Park the workers, then look at the device as the traffic left it. */
	sh->stop = 1;
	for (int i = 0; i < nw; i++)
		while (!sh->parked[i] && !sh->w[i].error)
			usleep(10000);
	for (int b = 0; b < NBANDS; b++) {
		long long all = b_out[b] + b_fb[b];

		printf("B band=%d-%d samples=%lld thp_swpout=%lld thp_swpout_fallback=%lld "
		       "rate_pct=%.2f\n", band_lo[b], band_hi[b] > 100 ? 100 : band_hi[b],
		       b_samples[b], b_out[b], b_fb[b], all ? 100.0 * b_fb[b] / all : 0.0);
	}
	printf("B band=all samples=- thp_swpout=%lld thp_swpout_fallback=%lld rate_pct=%.2f\n",
	       tot_out, tot_fb,
	       tot_out + tot_fb ? 100.0 * tot_fb / (tot_out + tot_fb) : 0.0);
	swap_usage(&size, &used);
	printf("# at the end: %.1f %% of /dev/%s used\n", 100.0 * used / size, dev);
	run_tool("map");
	run_tool("stats");
	fflush(stdout);

	sh->stop = 2;
	for (int i = 0; i < nw; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) > 1)
			error = 1;
	}
	uint64_t ops = 0, po = 0, rw = 0, fr = 0, um = 0;

	for (int i = 0; i < nw; i++) {
		bad += sh->w[i].bad_words;
		checked += sh->w[i].checked_words;
		ops += sh->w[i].ops;
		po += sh->w[i].pageouts;
		rw += sh->w[i].rewrites;
		fr += sh->w[i].frees;
		um += sh->w[i].unmaps;
		error |= sh->w[i].error;
	}
	printf("T cycles=%d ops=%" PRIu64 " pageouts=%" PRIu64 " rewrites=%" PRIu64
	       " frees=%" PRIu64 " unmaps=%" PRIu64 " seconds=%.1f\n",
	       cycles, ops, po, rw, fr, um, now_s() - t0);
	printf("R result=%s bad_words=%" PRIu64 " checked_words=%" PRIu64 "\n",
	       bad ? "corrupt" : error ? "error" : "ok", bad, checked);
	return bad ? 1 : error ? 2 : 0;
}
