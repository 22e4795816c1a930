// SPDX-License-Identifier: GPL-2.0
/*
 * swapbench: the workloads and counters of `make bench` (bench/run), run as
 * root in the test VM.  Self-contained (no tests/guest/lib.c), so the bench
 * measures the same code whatever the test helpers become.
 *
 *   swapbench exec [--dev NAME] -- PROGRAM [ARGS...]
 *	Run PROGRAM (e.g. thpswap-mem) with its output passed through, and
 *	print one "counters ..." record of what the system did meanwhile,
 *	plus the child's CPU times.  Exits with PROGRAM's status.
 *
 *   swapbench pressure --workers N [--threads T] --wset MiB --max MiB
 *		       [--access seq|rand] [--rand-pct P] [--seed S] [--dev NAME]
 *	Like vm-scalability's swap-w-seq / swap-w-rand: N worker processes
 *	with T threads each (default 1) in a cgroup v2 with memory.max = MiB;
 *	every thread maps its own wset MiB of MADV_HUGEPAGE memory, writes a
 *	pattern into it (phase "write"), then reads it back and checks every
 *	word (phase "read").  All threads start each phase together.  seq
 *	reads everything back in order; rand reads back P % of the 4 KiB pages
 *	(default 2), picked in a random order, which is where swapping 2 MiB
 *	in for one 4 KiB touch shows (touched_bytes against pswpin).  Both
 *	write in order: random writes only add the same amplification to the
 *	write phase, at a cost a TCG bench cannot afford.  Use N = 1 with
 *	T > 1 for the multi-threaded variant (one mm on every CPU: reclaim has
 *	to shoot down TLBs).
 *
 *   swapbench snap [--dev NAME]
 *	Print the counters once (for debugging).
 *
 * Records are single lines of space-separated key=value pairs:
 *   counters wall_s= child_sys_s= child_user_s= exit= COUNTERS
 *   phase=write|read|total wall_s= COUNTERS
 *   pressure workers= threads= wset_mib= max_mib= access= bytes=
 *	      touched_bytes= anonhuge_kb= rss_kb= oom_kill= max_events= bad_words=
 *	      result=ok|corrupt|error
 * where COUNTERS (deltas; -1 when a source does not exist here) are
 *   pswpin pswpout thp_swpout thp_swpout_fallback thp_swpin
 *   thp_swpin_fallback thp_split_pmd thp_fault_alloc thp_fault_fallback
 *   pgmajfault thp_swpin_declined thp_swpin_promoted
 *   thp_swpin_promote_fallback		/proc/vmstat
 *   tlb cal		/proc/interrupts "TLB:" and "CAL:", all CPUs
 *   dk_rd_ios dk_rd_sec dk_wr_ios dk_wr_sec   /proc/diskstats of --dev
 *   dev_thp_reads dev_page_reads dev_thp_writes dev_page_writes
 *			/sys/block/DEV/thpswap/stats (thpswap only)
 *   sys_s user_s	/proc/stat: kernel (system + irq + softirq) and user
 *			CPU seconds, all CPUs
 *   mthp_swpin_kb mthp_swpout_kb mthp_swpin_fallback mthp_swpin
 *			/sys/kernel/mm/transparent_hugepage/hugepages-*kB/
 *			stats (6.8+): kB swapped in and out as large folios of
 *			any size, folios that fell back on swap-in, large
 *			folios swapped in
 * anonhuge_kb and rss_kb: AnonHugePages and Rss of all working sets after
 * the read phase; touched_bytes: what the read phase read.
 * Lines starting with "# " are for humans; errors go to stderr.
 *
 * Exit: 0 ok, 1 a word read back was wrong, 2 usage, setup or worker error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#define MiB		(1UL << 20)
#define THP_SIZE	(2UL << 20)
#define PAGE_SZ		4096UL
#define CG_ROOT		"/sys/fs/cgroup"

static const char *prog = "swapbench";

/* ---- small helpers ------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read a whole (small, procfs or sysfs) file; returns length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
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

static int write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

/* "key<sep>value" at the start of a line of buf, or -1. */
static long long line_value(const char *buf, const char *key)
{
	size_t kl = strlen(key);
	const char *l = buf;

	while (l && *l) {
		if (!strncmp(l, key, kl) && (l[kl] == ' ' || l[kl] == ':' ||
					     l[kl] == '\t'))
			return strtoll(l + kl + 1, NULL, 10);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

/* Every write(2) of a record is one line, so records never interleave. */
static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err));
	exit(2);
}

/* ---- counters ---------------------------------------------------------- */

static const char *const vm_keys[] = {
	"pswpin", "pswpout", "thp_swpout", "thp_swpout_fallback",
	"thp_swpin", "thp_swpin_fallback", "thp_split_pmd",
	"thp_fault_alloc", "thp_fault_fallback", "pgmajfault",
	"thp_swpin_declined", "thp_swpin_promoted", "thp_swpin_promote_fallback",
};
#define NVM	(sizeof(vm_keys) / sizeof(vm_keys[0]))

static const char *const dev_keys[] = {
	"thp_reads", "page_reads", "thp_writes", "page_writes",
};
#define NDEV	(sizeof(dev_keys) / sizeof(dev_keys[0]))

struct snap {
	double t;
	long long vm[NVM];
	long long tlb, cal;
	long long dk[4];	/* reads, sectors read, writes, sectors written */
	long long dev[NDEV];
	long long sys_ticks, user_ticks;
	long long mthp[4];	/* kB in, kB out, swap-in fallbacks, folios in */
};

/*
 * Large folios of every size (mTHP, 6.8+), from each
 * hugepages-<size>kB/stats/ directory: swpin and swpout count folios, so
 * they are weighted by the size; swpin_fallback counts folios that came
 * back in smaller pieces.  -1 for a stat no size has (6.1 has none, 6.12
 * no swpin).
 */
#define MTHP_DIR	"/sys/kernel/mm/transparent_hugepage"
static const char *const mthp_keys[] = { "swpin", "swpout", "swpin_fallback" };

static void take_mthp(long long v[4])
{
	char path[512], buf[64];
	unsigned int kb, i;
	int found[3] = { 0, 0, 0 };

	v[0] = v[1] = v[2] = v[3] = 0;
	for (kb = 8; kb <= 2048; kb *= 2) {
		for (i = 0; i < 3; i++) {
			long long n;

			snprintf(path, sizeof(path), MTHP_DIR "/hugepages-%ukB/stats/%s",
				 kb, mthp_keys[i]);
			if (slurp(path, buf, sizeof(buf)) <= 0)
				continue;
			found[i] = 1;
			n = strtoll(buf, NULL, 10);
			v[i] += i < 2 ? n * kb : n;
			if (i == 0)
				v[3] += n;
		}
	}
	/* 6.12 has swpout but no swpin stats (they came in 6.13). */
	for (i = 0; i < 3; i++)
		if (!found[i])
			v[i] = -1;
	if (!found[0])
		v[3] = -1;
}

static char big[256 * 1024];	/* /proc/interrupts grows with CPUs */

/* Sum the per-CPU numbers of the /proc/interrupts line "NAME:". */
static long long irq_sum(const char *buf, const char *name)
{
	size_t nl = strlen(name);
	const char *l = buf;

	while (l && *l) {
		const char *p = l + strspn(l, " ");

		if (!strncmp(p, name, nl) && p[nl] == ':') {
			long long sum = 0;
			char *end;

			p += nl + 1;
			for (;;) {
				long long v = strtoll(p, &end, 10);

				if (end == p)
					break;
				sum += v;
				p = end;
			}
			return sum;
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

static void take_snap(struct snap *s, const char *dev)
{
	char path[256];
	unsigned int i;
	const char *l;

	s->t = now_s();
	if (slurp("/proc/vmstat", big, sizeof(big)) < 0)
		big[0] = 0;
	for (i = 0; i < NVM; i++)
		s->vm[i] = line_value(big, vm_keys[i]);

	if (slurp("/proc/interrupts", big, sizeof(big)) < 0)
		big[0] = 0;
	s->tlb = irq_sum(big, "TLB");
	s->cal = irq_sum(big, "CAL");

	for (i = 0; i < 4; i++)
		s->dk[i] = -1;
	if (dev && slurp("/proc/diskstats", big, sizeof(big)) > 0) {
		for (l = big; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
			unsigned long long f[7];
			char name[64];

			/* major minor name rd rd_merged rd_sec rd_ms wr wr_merged wr_sec */
			if (sscanf(l, "%*u %*u %63s %llu %llu %llu %llu %llu %llu %llu",
				   name, &f[0], &f[1], &f[2], &f[3], &f[4],
				   &f[5], &f[6]) == 8 && !strcmp(name, dev)) {
				s->dk[0] = f[0];
				s->dk[1] = f[2];
				s->dk[2] = f[4];
				s->dk[3] = f[6];
				break;
			}
		}
	}

	big[0] = 0;
	if (dev) {
		snprintf(path, sizeof(path), "/sys/block/%s/thpswap/stats", dev);
		if (slurp(path, big, sizeof(big)) < 0)
			big[0] = 0;
	}
	for (i = 0; i < NDEV; i++)
		s->dev[i] = line_value(big, dev_keys[i]);

	take_mthp(s->mthp);

	s->sys_ticks = s->user_ticks = -1;
	if (slurp("/proc/stat", big, sizeof(big)) > 0) {
		unsigned long long u, n, sy, idle, iow, irq, sirq;

		if (sscanf(big, "cpu %llu %llu %llu %llu %llu %llu %llu",
			   &u, &n, &sy, &idle, &iow, &irq, &sirq) == 7) {
			s->sys_ticks = sy + irq + sirq;
			s->user_ticks = u + n;
		}
	}
}

static long long dlt(long long a, long long b)
{
	return a < 0 || b < 0 ? -1 : b - a;
}

/* Append the COUNTERS of b - a to buf. */
static void fmt_delta(char *buf, size_t len, const struct snap *a,
		      const struct snap *b)
{
	static const char *const dk_names[] = {
		"dk_rd_ios", "dk_rd_sec", "dk_wr_ios", "dk_wr_sec",
	};
	double hz = sysconf(_SC_CLK_TCK);
	size_t o = strlen(buf);
	unsigned int i;

#define ADD(...) (o += snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__))
	ADD(" wall_s=%.3f", b->t - a->t);
	for (i = 0; i < NVM; i++)
		ADD(" %s=%lld", vm_keys[i], dlt(a->vm[i], b->vm[i]));
	ADD(" tlb=%lld cal=%lld", dlt(a->tlb, b->tlb), dlt(a->cal, b->cal));
	for (i = 0; i < 4; i++)
		ADD(" %s=%lld", dk_names[i], dlt(a->dk[i], b->dk[i]));
	for (i = 0; i < NDEV; i++)
		ADD(" dev_%s=%lld", dev_keys[i], dlt(a->dev[i], b->dev[i]));
	ADD(" mthp_swpin_kb=%lld mthp_swpout_kb=%lld mthp_swpin_fallback=%lld mthp_swpin=%lld",
	    dlt(a->mthp[0], b->mthp[0]), dlt(a->mthp[1], b->mthp[1]),
	    dlt(a->mthp[2], b->mthp[2]), dlt(a->mthp[3], b->mthp[3]));
	if (a->sys_ticks < 0 || b->sys_ticks < 0)
		ADD(" sys_s=-1 user_s=-1");
	else
		ADD(" sys_s=%.2f user_s=%.2f",
		    (b->sys_ticks - a->sys_ticks) / hz,
		    (b->user_ticks - a->user_ticks) / hz);
#undef ADD
}

static void put_line(const char *s)
{
	size_t len = strlen(s);
	char *l = malloc(len + 2);

	if (!l)
		die("malloc", ENOMEM);
	memcpy(l, s, len);
	l[len] = '\n';
	if (write(STDOUT_FILENO, l, len + 1) != (ssize_t)len + 1)
		die("write stdout", errno);
	free(l);
}

static void print_delta(const char *head, const struct snap *a,
			const struct snap *b)
{
	char line[2048];

	snprintf(line, sizeof(line), "%s", head);
	fmt_delta(line, sizeof(line), a, b);
	put_line(line);
}

/* ---- exec ---------------------------------------------------------------- */

static int cmd_exec(const char *dev, char **argv)
{
	struct snap a, b;
	struct rusage ru;
	char line[2048];
	int status, rc;
	pid_t pid;

	take_snap(&a, dev);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "%s: exec %s: %s\n", prog, argv[0], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4", errno);
	take_snap(&b, dev);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	snprintf(line, sizeof(line),
		 "counters exit=%d child_sys_s=%.3f child_user_s=%.3f", rc,
		 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		 ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
	fmt_delta(line, sizeof(line), &a, &b);
	put_line(line);
	return rc;
}

/* ---- pressure ------------------------------------------------------------ */

/*
 * The pattern: word i of a thread's region holds seed ^ ((i + 1) * MUL), a
 * bijection of i, so stale, zeroed or misplaced pages are caught.
 */
#define PATTERN_MUL	0x9E3779B97F4A7C15ULL

static void fill_words(uint64_t *w, size_t n, uint64_t seed, uint64_t first)
{
	uint64_t acc = (first + 1) * PATTERN_MUL;
	size_t i;

	for (i = 0; i < n; i++, acc += PATTERN_MUL)
		w[i] = seed ^ acc;
}

static uint64_t check_words(const volatile uint64_t *w, size_t n,
			    uint64_t seed, uint64_t first)
{
	uint64_t acc = (first + 1) * PATTERN_MUL, bad = 0;
	size_t i;

	for (i = 0; i < n; i++, acc += PATTERN_MUL)
		bad += w[i] != (seed ^ acc);
	return bad;
}

/* xorshift64*: reproducible from the seed, good enough for an order. */
static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static void shuffle(uint32_t *a, size_t n, uint64_t *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = i;
	for (i = n; i > 1; i--) {
		size_t j = rnd_next(s) % i;
		uint32_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/*
 * A 2 MiB-aligned MADV_HUGEPAGE region between two PROT_NONE guards, so it
 * is a VMA of its own and its smaps figures are exact.
 */
static void *thp_map(size_t bytes)
{
	size_t reserve = bytes + 3 * THP_SIZE;
	uintptr_t base, start, end;
	void *m;

	m = mmap(NULL, reserve, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	base = (uintptr_t)m;
	start = (base + 2 * THP_SIZE - 1) & ~(THP_SIZE - 1);
	end = start + bytes + THP_SIZE;
	if (start - THP_SIZE > base)
		munmap(m, start - THP_SIZE - base);
	if (base + reserve > end)
		munmap((void *)end, base + reserve - end);
	if (mprotect((void *)start, bytes, PROT_READ | PROT_WRITE) ||
	    madvise((void *)start, bytes, MADV_HUGEPAGE))
		return NULL;
	return (void *)start;
}

/*
 * Sum an smaps field (kB) over the VMAs of this process inside
 * [p, p + bytes); @field includes its colon, e.g. "Rss:".
 */
static long long smaps_kb(const void *p, size_t bytes, const char *field)
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

		if (line[strspn(line, "0123456789abcdef")] == '-' &&
		    sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			inside = s >= lo && e <= hi;
			continue;
		}
		if (inside && !strncmp(line, field, fl))
			sum += strtoll(line + fl, NULL, 10);
	}
	fclose(f);
	return sum;
}

struct pr_opts {
	unsigned int workers, threads, rand_pct;
	size_t wset;
	size_t max;
	bool rand;
	uint64_t seed;
};

/* One thread's results, in memory shared with the parent. */
struct tres {
	uint64_t bad;
	uint64_t touched;	/* bytes read back */
	long long ahp_kb;	/* AnonHugePages after the read phase */
	long long rss_kb;	/* and Rss */
	int err;		/* errno of a failed setup step */
};

struct worker {
	const struct pr_opts *o;
	struct tres *res;
	pthread_barrier_t *bar;
	uint64_t seed;
};

/*
 * A worker thread: map; [barrier] write; [barrier] [barrier] read;
 * [barrier] [barrier] smaps; [barrier].  The worker's main thread talks
 * to the parent between the barriers.
 */
static void *thread_main(void *arg)
{
	struct worker *w = arg;
	const struct pr_opts *o = w->o;
	size_t pages = o->wset / PAGE_SZ, i, n;
	uint64_t rs = w->seed | 1;
	uint32_t *order = NULL;
	char *mem;

	mem = thp_map(o->wset);
	if (!mem)
		w->res->err = errno;
	if (o->rand) {
		order = malloc(pages * sizeof(*order));
		if (!order)
			w->res->err = ENOMEM;
	}
	pthread_barrier_wait(w->bar);			/* start */
	if (w->res->err)
		goto skip;
	fill_words((uint64_t *)mem, o->wset / 8, w->seed, 0);
skip:
	pthread_barrier_wait(w->bar);			/* written */
	pthread_barrier_wait(w->bar);			/* read: go */
	if (!w->res->err) {
		if (!o->rand) {
			w->res->bad = check_words((uint64_t *)mem, o->wset / 8,
						  w->seed, 0);
			w->res->touched = o->wset;
		} else {
			shuffle(order, pages, &rs);
			n = (pages * o->rand_pct + 99) / 100;
			for (i = 0; i < n; i++)
				w->res->bad += check_words(
					(uint64_t *)(mem + order[i] * PAGE_SZ),
					PAGE_SZ / 8, w->seed,
					order[i] * (PAGE_SZ / 8));
			w->res->touched = n * PAGE_SZ;
		}
	}
	pthread_barrier_wait(w->bar);			/* read: done */
	pthread_barrier_wait(w->bar);			/* smaps: go */
	if (!w->res->err) {
		w->res->ahp_kb = smaps_kb(mem, o->wset, "AnonHugePages:");
		w->res->rss_kb = smaps_kb(mem, o->wset, "Rss:");
	}
	pthread_barrier_wait(w->bar);			/* smaps: done */
	free(order);
	return NULL;
}

/* Pipes between the parent and the worker processes. */
struct chan {
	int up[2];		/* workers -> parent: one byte per event */
	int go[3][2];		/* parent -> workers: one pipe per barrier */
};

static int wait_byte(int fd)
{
	char c;
	ssize_t n;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static void send_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		_exit(3);
}

static int worker_process(const struct pr_opts *o, struct tres *res,
			  const char *cg, struct chan *ch, unsigned int idx)
{
	unsigned int t, n = o->threads;
	struct worker *w = calloc(n, sizeof(*w));
	pthread_t *tid = calloc(n, sizeof(*tid));
	pthread_barrier_t bar;
	char path[300], buf[32];
	int g;

	close(ch->up[0]);
	for (g = 0; g < 3; g++)
		close(ch->go[g][1]);
	if (!w || !tid)
		return 12;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(buf, sizeof(buf), "%d", getpid());
	if (write_str(path, buf))
		return 10;
	pthread_barrier_init(&bar, NULL, n + 1);
	for (t = 0; t < n; t++) {
		w[t].o = o;
		w[t].res = &res[idx * n + t];
		w[t].bar = &bar;
		w[t].seed = o->seed + (((uint64_t)idx * n + t) << 32);
		if (pthread_create(&tid[t], NULL, thread_main, &w[t]))
			return 13;
	}
	send_byte(ch->up[1]);				/* joined */
	if (wait_byte(ch->go[0][0]))
		return 11;
	pthread_barrier_wait(&bar);			/* start */
	pthread_barrier_wait(&bar);			/* written */
	send_byte(ch->up[1]);
	if (wait_byte(ch->go[1][0]))
		return 11;
	pthread_barrier_wait(&bar);			/* read: go */
	pthread_barrier_wait(&bar);			/* read: done */
	send_byte(ch->up[1]);
	if (wait_byte(ch->go[2][0]))
		return 11;
	pthread_barrier_wait(&bar);			/* smaps: go */
	pthread_barrier_wait(&bar);			/* smaps: done */
	for (t = 0; t < n; t++)
		pthread_join(tid[t], NULL);
	return 0;
}

static int cmd_pressure(const struct pr_opts *o, const char *dev)
{
	unsigned int nthr = o->workers * o->threads, i, g;
	struct snap s0, s1, s2;
	char cg[128], path[300], buf[4096], line[1024];
	uint64_t bad = 0, touched = 0;
	long long ahp = 0, rss = 0;
	pid_t *pids;
	struct tres *res;
	struct chan ch;
	int failed = 0, status, err;

	if (slurp(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "memory")) {
		fprintf(stderr, "%s: no cgroup v2 memory controller at %s\n",
			prog, CG_ROOT);
		return 2;
	}
	err = write_str(CG_ROOT "/cgroup.subtree_control", "+memory");
	if (err)
		die("enable +memory in " CG_ROOT "/cgroup.subtree_control", -err);
	snprintf(cg, sizeof(cg), CG_ROOT "/swapbench.%d", getpid());
	if (mkdir(cg, 0755))
		die(cg, errno);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	snprintf(buf, sizeof(buf), "%zu", o->max);
	err = write_str(path, buf);
	if (err)
		die("memory.max", -err);

	res = mmap(NULL, nthr * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(o->workers, sizeof(*pids));
	if (res == MAP_FAILED || !pids)
		die("results memory", ENOMEM);
	if (pipe(ch.up))
		die("pipe", errno);
	for (g = 0; g < 3; g++)
		if (pipe(ch.go[g]))
			die("pipe", errno);

	fflush(NULL);
	for (i = 0; i < o->workers; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork", errno);
		if (!pids[i])
			_exit(worker_process(o, res, cg, &ch, i));
	}
	close(ch.up[1]);
	for (g = 0; g < 3; g++)
		close(ch.go[g][0]);

	/* Each barrier: all workers report, the parent snaps, all go. */
	for (g = 0; g < 3; g++) {
		for (i = 0; i < o->workers; i++)
			if (wait_byte(ch.up[0])) {
				fprintf(stderr, "%s: a worker died before barrier %u\n",
					prog, g);
				failed = 1;
				goto reap;
			}
		if (g == 0)
			take_snap(&s0, dev);
		else if (g == 1)
			take_snap(&s1, dev);
		else
			take_snap(&s2, dev);
		for (i = 0; i < o->workers; i++)
			if (write(ch.go[g][1], "g", 1) != 1)
				die("pipe write", errno);
	}
reap:
	for (g = 0; g < 3; g++)
		close(ch.go[g][1]);
	for (i = 0; i < o->workers; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i])
			die("waitpid", errno);
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "%s: worker %u killed by signal %d%s\n",
				prog, i, WTERMSIG(status),
				WTERMSIG(status) == SIGKILL ? " (OOM kill?)" : "");
			failed = 1;
		} else if (WEXITSTATUS(status)) {
			fprintf(stderr, "%s: worker %u exited %d (10 join cgroup, 11 sync, 12 memory, 13 thread)\n",
				prog, i, WEXITSTATUS(status));
			failed = 1;
		}
	}
	for (i = 0; i < nthr; i++) {
		if (res[i].err) {
			fprintf(stderr, "%s: thread %u: setup: %s\n", prog, i,
				strerror(res[i].err));
			failed = 1;
		}
		if (res[i].bad)
			fprintf(stderr, "%s: thread %u: %" PRIu64 " bad words\n",
				prog, i, res[i].bad);
		bad += res[i].bad;
		touched += res[i].touched;
		ahp += res[i].ahp_kb > 0 ? res[i].ahp_kb : 0;
		rss += res[i].rss_kb > 0 ? res[i].rss_kb : 0;
	}
	if (!failed) {
		print_delta("phase=write", &s0, &s1);
		print_delta("phase=read", &s1, &s2);
		print_delta("phase=total", &s0, &s2);
	}
	snprintf(path, sizeof(path), "%s/memory.events", cg);
	if (slurp(path, buf, sizeof(buf)) < 0)
		buf[0] = 0;
	snprintf(line, sizeof(line),
		 "pressure workers=%u threads=%u wset_mib=%zu max_mib=%zu access=%s bytes=%zu touched_bytes=%" PRIu64
		 " anonhuge_kb=%lld rss_kb=%lld oom_kill=%lld max_events=%lld bad_words=%" PRIu64 " result=%s",
		 o->workers, o->threads, o->wset / MiB, o->max / MiB,
		 o->rand ? "rand" : "seq", (size_t)nthr * o->wset, touched, ahp, rss,
		 line_value(buf, "oom_kill"), line_value(buf, "max"), bad,
		 failed ? "error" : bad ? "corrupt" : "ok");
	put_line(line);
	if (rmdir(cg))
		fprintf(stderr, "%s: rmdir %s: %s\n", prog, cg, strerror(errno));
	return failed ? 2 : bad ? 1 : 0;
}

/* ---- main ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: swapbench exec [--dev NAME] -- PROGRAM [ARGS...]\n"
		"       swapbench pressure --workers N [--threads T] --wset MiB --max MiB\n"
		"                          [--access seq|rand] [--rand-pct P] [--seed S] [--dev NAME]\n"
		"       swapbench snap [--dev NAME]\n"
		"  --dev NAME    swap block device (diskstats; thpswap stats if it has them)\n"
		"  --workers N   processes; --threads T threads in each (default 1)\n"
		"  --wset MiB    memory per thread, rounded up to 2 MiB\n"
		"  --max MiB     the cgroup's memory.max\n"
		"  --access      seq (default) or rand; --rand-pct P: rand reads P%% of the pages (default 2)\n");
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || !v) {
		fprintf(stderr, "%s: '%s' is not a positive number\n", prog, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "workers", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 't' },
		{ "wset", required_argument, NULL, 's' },
		{ "max", required_argument, NULL, 'm' },
		{ "access", required_argument, NULL, 'a' },
		{ "rand-pct", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct pr_opts o = { .threads = 1, .rand_pct = 2, .seed = 1 };
	const char *mode, *dev = NULL;
	int c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	mode = argv[1];
	argv++;
	argc--;
	/* "+": stop at the first non-option, so exec's PROGRAM keeps its own. */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			if (!strncmp(dev, "/dev/", 5))
				dev += 5;
			break;
		case 'w':
			o.workers = num(optarg);
			break;
		case 't':
			o.threads = num(optarg);
			break;
		case 's':
			o.wset = (num(optarg) * MiB + THP_SIZE - 1) & ~(THP_SIZE - 1);
			break;
		case 'm':
			o.max = num(optarg) * MiB;
			break;
		case 'a':
			if (strcmp(optarg, "seq") && strcmp(optarg, "rand"))
				goto bad;
			o.rand = !strcmp(optarg, "rand");
			break;
		case 'r':
			o.rand_pct = num(optarg);
			if (o.rand_pct > 100)
				goto bad;
			break;
		case 'S':
			o.seed = num(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "exec")) {
		if (optind >= argc)
			goto bad;
		return cmd_exec(dev, argv + optind);
	}
	if (optind != argc)
		goto bad;
	if (!strcmp(mode, "snap")) {
		struct snap z, s;

		memset(&z, 0, sizeof(z));
		take_snap(&s, dev);
		z.t = s.t;
		print_delta("snap", &z, &s);
		return 0;
	}
	if (!strcmp(mode, "pressure")) {
		if (!o.workers || !o.wset || !o.max)
			goto bad;
		return cmd_pressure(&o, dev);
	}
bad:
	usage(stderr);
	return 2;
}
