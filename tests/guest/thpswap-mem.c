// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap-mem: swap a THP-backed working set out with MADV_PAGEOUT and back
 * in, verifying every word, and report what the kernel and the device did.
 *
 *   thpswap-mem --size MiB [--seed N] [--cycles N] [--dev NAME] [--quiet]
 *               [--make-it-fail] [--touch-pct P] [--fork]
 *
 * Per cycle: MADV_PAGEOUT the whole region (timed: "out"), then fault it
 * back by reading one byte of every 4 KiB page (timed: "in"), then check
 * every 8-byte word (timed separately: "verify").  The region is filled
 * once, before the first cycle.  With --touch-pct P below 100, "in" reads
 * P % of the pages instead, picked at random (from --seed) and read in a
 * random order, as a cache or a database would; verify then reads the
 * rest, after the counters of "in" were taken.
 *
 * --fork: after each page-out, fork a child that shares the swapped-out
 * region (every slot then has two references, as after a redis BGSAVE
 * fork), and time the read-back of both processes, side by side, from
 * the parent's go until both have read their pages; the counters of "in"
 * cover both.  Each process verifies every word of its own copy.
 *
 * Output: lines starting with "# " are for humans; every other line is a
 * machine-readable record of space-separated key=value pairs:
 *   setup    size_mib= seed= dev= dev_stats=yes|no fill_s= anonhuge_kb=
 *   cycle=N  out_s= out_mbps= swap_kb= pswpout= thp_swpout=
 *            thp_swpout_fallback= dev_thp_writes= dev_page_writes=
 *            dev_bytes_written= dev_rejected= clusters_huge= clusters_split=
 *            clusters_small= in_s= in_mbps= pswpin= dev_thp_reads=
 *            dev_page_reads= dev_bytes_read= anonhuge_kb_after= verify_s=
 *            bad_words= thp_swpin= thp_swpin_fallback= touch_pct=
 *            touched_pages= thp_swpin_declined= thp_swpin_promoted=
 *            thp_swpin_shared= procs=1|2 child_anonhuge_kb_after=
 *            child_bad_words= (-1 without --fork)
 *   result=ok|corrupt|noswap bad_words= cycles= unswapped_cycles=
 * A cycle is swapped when pswpout rose and, with DEV's stats, the device
 * wrote something: result=ok needs every word right AND every cycle
 * swapped, so "ok" never stands for a swap cycle that did not happen.
 * Device fields are -1 when DEV has no thpswap sysfs directory (so the tool
 * also runs against zram, brd or pmem swap for comparison).
 *
 * --make-it-fail sets /proc/self/make-it-fail while paging out and in
 * (not while filling, verifying or reading counters), so the fault
 * injection set up in debugfs with task-filter=Y hits exactly the swap
 * paths of this process.
 *
 * Exit: 0 all words correct and every cycle swapped, 1 any corrupt word,
 * 2 usage or setup error, 3 a cycle swapped nothing (result=noswap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"

/* Read back @ntouch pages: in @order if there is one, else every page. */
static void read_back(const char *mem, size_t bytes, const size_t *order,
		      size_t ntouch)
{
	const volatile char *p = mem;
	size_t i;

	if (!order) {
		touch_pages(mem, bytes);
		return;
	}
	for (i = 0; i < ntouch; i++)
		(void)p[order[i] * PAGE_SZ];
}

/* What the --fork child tells the parent: once it has read, then verified. */
struct child_report {
	long long anonhuge_kb;
	uint64_t bad;
};

/*
 * The --fork child: wait for the parent's go on @go, read back, report
 * AnonHugePages on @res, verify every word, report again.  Never returns.
 */
static void child_run(int go, int res, char *mem, size_t bytes, uint64_t seed,
		      const size_t *order, size_t ntouch)
{
	struct child_report r = { 0 };
	struct bad_word first;
	char b;

	if (read(go, &b, 1) != 1)
		_exit(2);
	read_back(mem, bytes, order, ntouch);
	r.anonhuge_kb = smaps_range_kb(mem, bytes, "AnonHugePages");
	if (write(res, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	r.bad = pattern_verify(mem, bytes, seed, 0, &first);
	if (r.bad)
		fprintf(stderr,
			"thpswap-mem: fork child: %" PRIu64 " bad words; first at byte offset %#" PRIx64
			": expected %#018" PRIx64 " got %#018" PRIx64 "\n",
			r.bad, first.index * 8, first.expected, first.seen);
	if (write(res, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(r.bad ? 1 : 0);
}

/* Read a child_report from @fd; false if the child died first. */
static bool child_report(int fd, struct child_report *r)
{
	return read(fd, r, sizeof(*r)) == sizeof(*r);
}

/* /proc/self/make-it-fail; an open fd, so toggling it allocates nothing. */
static int make_it_fail(bool on)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || pwrite(fd, on ? "1" : "0", 1, 0) != 1) {
		fprintf(stderr, "thpswap-mem: /proc/self/make-it-fail: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: thpswap-mem --size MiB [--seed N] [--cycles N] [--dev NAME] [--quiet]\n"
		"  --size MiB   working set, rounded up to 2 MiB (required)\n"
		"  --seed N     pattern seed (default 1)\n"
		"  --cycles N   page-out/page-in cycles (default 1)\n"
		"  --dev NAME   swap block device for stats (default $THPSWAP_DEV or thpswap0)\n"
		"  --quiet      machine-readable lines only\n"
		"  --make-it-fail  fault injection for this task while swapping\n"
		"  --touch-pct P   read back P %% of the pages at random (default 100: all, in order)\n"
		"  --fork       read back in a forked child too, side by side with the parent\n");
}

static double mbps(size_t bytes, double s)
{
	return s > 0 ? bytes / 1e6 / s : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "cycles", required_argument, NULL, 'c' },
		{ "dev", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "make-it-fail", no_argument, NULL, 'F' },
		{ "touch-pct", required_argument, NULL, 'p' },
		{ "fork", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long size_mib = 0, cycles = 1, touch_pct = 100;
	size_t *order = NULL, npages, ntouch;
	uint64_t seed = 1, total_bad = 0;
	unsigned long unswapped = 0;
	const char *dev = thpswap_dev_name();
	bool quiet = false, fail = false, has_dev, fork_pair = false;
	size_t bytes;
	double t0, t1;
	char *mem, *end;
	long long ahp;
	unsigned long c;
	int o;

	while ((o = getopt_long(argc, argv, "s:S:c:d:qFp:fh", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			size_mib = strtoul(optarg, &end, 0);
			if (*end || !size_mib)
				goto bad;
			break;
		case 'S':
			seed = strtoull(optarg, &end, 0);
			if (*end)
				goto bad;
			break;
		case 'c':
			cycles = strtoul(optarg, &end, 0);
			if (*end || !cycles)
				goto bad;
			break;
		case 'd':
			dev = optarg;
			if (!strncmp(dev, "/dev/", 5))
				dev += 5;
			break;
		case 'q':
			quiet = true;
			break;
		case 'F':
			fail = true;
			break;
		case 'p':
			touch_pct = strtoul(optarg, &end, 0);
			if (*end || !touch_pct || touch_pct > 100)
				goto bad;
			break;
		case 'f':
			fork_pair = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc || !size_mib)
		goto bad;
	if (!seed)	/* keep the pattern away from all-zero words */
		seed = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	bytes = (size_mib * MiB + THP_SIZE - 1) & ~(THP_SIZE - 1);
	has_dev = dev_has_stats(dev);
	npages = bytes / PAGE_SZ;
	ntouch = touch_pct == 100 ? npages : npages * touch_pct / 100;
	if (!ntouch)
		ntouch = 1;
	if (touch_pct < 100) {
		uint64_t r = seed * PATTERN_MUL | 1;
		size_t i, j, t;

		order = malloc(npages * sizeof(*order));
		if (!order) {
			fprintf(stderr, "thpswap-mem: out of memory\n");
			return 2;
		}
		for (i = 0; i < npages; i++)
			order[i] = i;
		/* The first ntouch of a Fisher-Yates shuffle: distinct pages */
		for (i = 0; i < ntouch; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			j = i + r % (npages - i);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	mem = thp_alloc(bytes);
	if (!mem) {
		fprintf(stderr, "thpswap-mem: cannot map %zu bytes: %s\n",
			bytes, strerror(errno));
		return 2;
	}
	t0 = now_s();
	pattern_fill(mem, bytes, seed, 0);
	t1 = now_s();
	ahp = smaps_range_kb(mem, bytes, "AnonHugePages");
	printf("setup size_mib=%zu seed=%" PRIu64 " dev=%s dev_stats=%s fill_s=%.3f anonhuge_kb=%lld\n",
	       bytes / MiB, seed, dev, has_dev ? "yes" : "no", t1 - t0, ahp);
	if (!quiet)
		printf("# filled %zu MiB in %.3f s (%.1f MB/s), AnonHugePages %lld kB (%.1f%% THP)\n",
		       bytes / MiB, t1 - t0, mbps(bytes, t1 - t0), ahp,
		       100.0 * ahp * KiB / bytes);

	for (c = 1; c <= cycles; c++) {
		struct vmstat_snap v0, v1, v2, dv_out, dv_in;
		struct dev_snap d0, d1, d2, dd_out, dd_in;
		struct bad_word first;
		struct child_report cr = { .anonhuge_kb = -1 };
		double out_s, in_s, ver_s;
		long long swap_kb, ahp_after, child_bad = -1;
		int go[2], res[2];
		pid_t pid = -1;
		uint64_t bad;

		vmstat_snap(&v0);
		dev_snap(dev, &d0);
		if (fail && make_it_fail(true))
			return 2;
		t0 = now_s();
		if (madvise(mem, bytes, MADV_PAGEOUT)) {
			fprintf(stderr, "thpswap-mem: MADV_PAGEOUT: %s\n",
				strerror(errno));
			return 2;
		}
		t1 = now_s();
		if (fail && make_it_fail(false))
			return 2;
		out_s = t1 - t0;
		vmstat_snap(&v1);
		dev_snap(dev, &d1);
		swap_kb = smaps_range_kb(mem, bytes, "Swap");

		if (fork_pair) {
			if (pipe(go) || pipe(res)) {
				fprintf(stderr, "thpswap-mem: pipe: %s\n",
					strerror(errno));
				return 2;
			}
			fflush(stdout);
			pid = fork();
			if (pid < 0) {
				fprintf(stderr, "thpswap-mem: fork: %s\n",
					strerror(errno));
				return 2;
			}
			if (!pid) {
				close(go[1]);
				close(res[0]);
				child_run(go[0], res[1], mem, bytes, seed,
					  order, ntouch);
			}
			close(go[0]);
			close(res[1]);
		}
		if (fail && make_it_fail(true))
			return 2;
		t0 = now_s();
		if (fork_pair && write(go[1], "g", 1) != 1) {
			fprintf(stderr, "thpswap-mem: cannot start the child: %s\n",
				strerror(errno));
			return 2;
		}
		read_back(mem, bytes, order, ntouch);
		if (fork_pair && !child_report(res[0], &cr)) {
			fprintf(stderr, "thpswap-mem: the fork child died before reading back\n");
			return 2;
		}
		t1 = now_s();
		if (fail && make_it_fail(false))
			return 2;
		in_s = t1 - t0;
		vmstat_snap(&v2);
		dev_snap(dev, &d2);
		ahp_after = smaps_range_kb(mem, bytes, "AnonHugePages");

		t0 = now_s();
		bad = pattern_verify(mem, bytes, seed, 0, &first);
		ver_s = now_s() - t0;
		total_bad += bad;
		if (fork_pair) {
			int st;

			if (!child_report(res[0], &cr)) {
				fprintf(stderr, "thpswap-mem: the fork child died before verifying\n");
				return 2;
			}
			child_bad = cr.bad;
			total_bad += cr.bad;
			close(res[0]);
			close(go[1]);
			if (waitpid(pid, &st, 0) != pid ||
			    !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
				fprintf(stderr, "thpswap-mem: the fork child failed (status %#x)\n", st);
				return 2;
			}
		}

		vmstat_delta(&dv_out, &v0, &v1);
		vmstat_delta(&dv_in, &v1, &v2);
		dev_delta(&dd_out, &d0, &d1);
		dev_delta(&dd_in, &d1, &d2);

		printf("cycle=%lu out_s=%.3f out_mbps=%.1f swap_kb=%lld pswpout=%lld thp_swpout=%lld thp_swpout_fallback=%lld"
		       " dev_thp_writes=%lld dev_page_writes=%lld dev_bytes_written=%lld dev_rejected=%lld"
		       " clusters_huge=%lld clusters_split=%lld clusters_small=%lld"
		       " in_s=%.3f in_mbps=%.1f pswpin=%lld dev_thp_reads=%lld dev_page_reads=%lld dev_bytes_read=%lld"
		       " anonhuge_kb_after=%lld verify_s=%.3f bad_words=%" PRIu64
		       " thp_swpin=%lld thp_swpin_fallback=%lld touch_pct=%lu touched_pages=%zu"
		       " thp_swpin_declined=%lld thp_swpin_promoted=%lld"
		       " thp_swpin_shared=%lld procs=%d child_anonhuge_kb_after=%lld child_bad_words=%lld\n",
		       c, out_s, mbps(bytes, out_s), swap_kb, dv_out.pswpout,
		       dv_out.thp_swpout, dv_out.thp_swpout_fallback,
		       dd_out.thp_writes, dd_out.page_writes,
		       dd_out.bytes_written, dd_out.rejected,
		       d1.c_huge, d1.c_split, d1.c_small,
		       in_s, mbps(bytes, in_s), dv_in.pswpin, dd_in.thp_reads,
		       dd_in.page_reads, dd_in.bytes_read, ahp_after, ver_s, bad,
		       dv_in.thp_swpin, dv_in.thp_swpin_fallback, touch_pct, ntouch,
		       dv_in.thp_swpin_declined, dv_in.thp_swpin_promoted,
		       dv_in.thp_swpin_shared, fork_pair ? 2 : 1, cr.anonhuge_kb,
		       child_bad);
		if (!quiet) {
			char dout[96] = "", din[96] = "";

			if (has_dev) {
				snprintf(dout, sizeof(dout), "; device thp_writes +%lld, page_writes +%lld",
					 dd_out.thp_writes, dd_out.page_writes);
				snprintf(din, sizeof(din), "; device thp_reads +%lld, page_reads +%lld",
					 dd_in.thp_reads, dd_in.page_reads);
			}
			printf("# cycle %lu: out %.3f s (%.1f MB/s): swapped %lld kB, pswpout +%lld, thp_swpout +%lld, fallback +%lld%s\n",
			       c, out_s, mbps(bytes, out_s), swap_kb,
			       dv_out.pswpout, dv_out.thp_swpout,
			       dv_out.thp_swpout_fallback, dout);
			printf("# cycle %lu: in  %.3f s (%.1f MB/s): pswpin +%lld%s; AnonHugePages after %lld kB (%.1f%%)\n",
			       c, in_s, mbps(bytes, in_s), dv_in.pswpin, din,
			       ahp_after, 100.0 * ahp_after * KiB / bytes);
			printf("# cycle %lu: verify %.3f s: %s\n", c, ver_s,
			       bad ? "CORRUPT" : "all words correct");
			if (fork_pair)
				printf("# cycle %lu: fork child: AnonHugePages after %lld kB (%.1f%%), %s\n",
				       c, cr.anonhuge_kb,
				       100.0 * cr.anonhuge_kb * KiB / bytes,
				       cr.bad ? "CORRUPT" : "all words correct");
		}
		if (dv_out.pswpout <= 0 ||
		    (has_dev && dd_out.bytes_written <= 0)) {
			unswapped++;
			fprintf(stderr,
				"thpswap-mem: cycle %lu: nothing swapped out (pswpout +%lld, device bytes_written +%lld)\n",
				c, dv_out.pswpout, dd_out.bytes_written);
		}
		if (bad)
			fprintf(stderr,
				"thpswap-mem: cycle %lu: %" PRIu64 " bad words; first at byte offset %#" PRIx64
				" (page %" PRIu64 " word %" PRIu64 "): expected %#018" PRIx64 " got %#018" PRIx64 "\n",
				c, bad, first.index * 8, first.index / 512,
				first.index % 512, first.expected, first.seen);
	}
	printf("result=%s bad_words=%" PRIu64 " cycles=%lu unswapped_cycles=%lu\n",
	       total_bad ? "corrupt" : unswapped ? "noswap" : "ok", total_bad,
	       cycles, unswapped);
	thp_free(mem, bytes);
	free(order);
	return total_bad ? 1 : unswapped ? 3 : 0;
bad:
	usage(stderr);
	return 2;
}
