// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_fork_test: THPs that fork() shared come back whole (patches/0012).
 *
 * Precondition (done by swapin.sh): a kernel with the whole-THP swap-in
 * patches, thpswap loaded, /dev/$THPSWAP_DEV swapped on as the only swap
 * device.  THPSWAP_TEST_DIV=N divides the working sets by N.
 *
 *  - out_then_fork: a process swaps N THPs out whole (MADV_PAGEOUT while
 *    they are its own), forks a child, which forks a grandchild: each slot
 *    has swap count 3.  Each process in turn reads every word back: the
 *    THPs are read once (thp_swpin +N, pswpin +N * 512, the device's
 *    thp_reads +N, no 4 KiB read), every process counts in
 *    thp_swpin_shared (+3N) and has the whole range PMD-mapped
 *    (AnonHugePages).  Then each writes its own pattern (copy on write)
 *    and sees only its own, and after they all exit SwapFree is back
 *    where it was.  The same with swapin_enabled=never, for the time.
 *  - fork_then_reclaim: a process in a memcg forks, and memory.reclaim
 *    swaps the THPs they share out whole from both (MADV_PAGEOUT leaves
 *    a THP that another process maps alone); both read them back, whole,
 *    once.  SKIP without the memory controller (cgroup_disable=memory).
 *  - swapoff_race: a parent and its child fault on the THPs they share
 *    while another process swaps the device off; every word checked,
 *    swapoff finishes (a slot leaked or freed twice would keep it
 *    looping or make it fail), and no swap is left in use.
 *
 * Nothing sleeps to wait for another process: the processes pass a token
 * round through pipes, and report through shared memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define TEST_TIMEOUT	900
#define KNOB		"/sys/kernel/mm/transparent_hugepage/swapin_enabled"
#define CG_ROOT		"/sys/fs/cgroup"

enum { NPROC = 3 };	/* the test process, its child, its grandchild */

/* What each step does, in the process whose role it names. */
enum act {
	START,		/* nothing: the whole tree is forked by now */
	READ,		/* verify the first pattern, note AnonHugePages, time */
	CHECK_ORIG,	/* the first pattern is still there */
	WRITE,		/* write the role's own pattern, and verify it */
	CHECK_OWN,	/* the role's own pattern is still there */
	SNAP,		/* the test process takes its second counter snapshot */
};

struct step {
	int role;
	enum act act;
};

/* Shared by the processes of one tree (MAP_SHARED). */
struct report {
	uint64_t bad[NPROC];		/* bad words seen, all steps */
	long long ahp_kb[NPROC];	/* AnonHugePages after READ */
	long long swap_kb[NPROC];	/* Swap after READ */
	double t_first, t_last;		/* first READ began, last READ ended */
	int steps_done;
};

/* Counters only (SNAP_DELTA()) */
struct snap {
	long long thp_swpin, shared, fallback, pswpin, thp_reads, page_reads;
	long long swapin_whole, thp_swpout;
};

static void snap(const char *dev, struct snap *s)
{
	s->thp_swpin = vmstat_get("thp_swpin");
	s->shared = vmstat_get("thp_swpin_shared");
	s->fallback = vmstat_get("thp_swpin_fallback");
	s->pswpin = vmstat_get("pswpin");
	s->thp_reads = dev_stat(dev, "thp_reads");
	s->page_reads = dev_stat(dev, "page_reads");
	s->swapin_whole = dev_stat(dev, "swapin_whole");
	s->thp_swpout = vmstat_get("thp_swpout");
}

static const uint64_t seed0 = 0x5eed0f0a4c0ffeeULL;

static uint64_t role_seed(int role)
{
	return 0x0c0a11ed00000000ULL + role + 1;
}

/* The tree of processes and the token pipes between them. */
struct tree {
	int nproc;
	int tok[NPROC][2];	/* tok[r]: the token for role r */
	const struct step *steps;
	int nsteps;
	struct report *rep;
	char *mem;
	size_t bytes;
	const char *dev;
	struct snap *after;	/* filled by SNAP, in the test process */
};

static int take(struct tree *t, int role)
{
	char c;

	return read(t->tok[role][0], &c, 1) == 1 ? 0 : -1;
}

static int give(struct tree *t, int role)
{
	return write(t->tok[role][1], "t", 1) == 1 ? 0 : -1;
}

static void do_step(struct tree *t, int role, enum act act)
{
	struct report *r = t->rep;
	uint64_t bad = 0;
	struct bad_word b;

	switch (act) {
	case START:
		break;
	case READ:
		if (!r->t_first)
			r->t_first = now_s();
		bad = pattern_verify(t->mem, t->bytes, seed0, 0, &b);
		r->t_last = now_s();
		r->ahp_kb[role] = smaps_range_kb(t->mem, t->bytes,
						 "AnonHugePages");
		r->swap_kb[role] = smaps_range_kb(t->mem, t->bytes, "Swap");
		break;
	case CHECK_ORIG:
		bad = pattern_verify(t->mem, t->bytes, seed0, 0, &b);
		break;
	case WRITE:
		pattern_fill(t->mem, t->bytes, role_seed(role), 0);
		/* fall through */
	case CHECK_OWN:
		bad = pattern_verify(t->mem, t->bytes, role_seed(role), 0, &b);
		break;
	case SNAP:
		snap(t->dev, t->after);
		break;
	}
	r->bad[role] += bad;
	r->steps_done++;
}

/*
 * Run @role's steps of @t in order: wait for the token before each one
 * (but the very first), pass it to the role of the next step after.
 * Returns 0, or -1 if a pipe broke (another process died).
 */
static int run_role(struct tree *t, int role)
{
	int i;

	for (i = 0; i < t->nsteps; i++) {
		if (t->steps[i].role != role)
			continue;
		if (i && t->steps[i - 1].role != role && take(t, role))
			return -1;
		do_step(t, role, t->steps[i].act);
		if (i + 1 < t->nsteps && t->steps[i + 1].role != role &&
		    give(t, t->steps[i + 1].role))
			return -1;
	}
	return 0;
}

/*
 * Fork the rest of the tree from role @role (the test process is role 0,
 * its child 1, the grandchild 2): each process forks the next, runs its
 * steps, waits for its own child and exits.  Returns, in the test process
 * only, 0 once everything ran and every other process exited with 0.
 */
static int run_tree(struct tree *t, int role)
{
	int status, ret;
	pid_t pid = 0;

	if (role + 1 < t->nproc) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid)
			_exit(run_tree(t, role + 1) ? 1 : 0);
	}
	ret = run_role(t, role);
	if (ret) {
		/* Wake whoever waits for a token that will not come. */
		for (int r = 0; r < t->nproc; r++)
			close(t->tok[r][1]);
	}
	if (pid) {
		if (waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = -1;
	}
	return ret;
}

static struct report *report_new(void)
{
	struct report *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
	return r;
}

static int tree_init(struct tree *t, int nproc, const struct step *steps,
		     int nsteps, char *mem, size_t bytes, const char *dev,
		     struct snap *after)
{
	int r;

	memset(t, 0, sizeof(*t));
	t->nproc = nproc;
	t->steps = steps;
	t->nsteps = nsteps;
	t->mem = mem;
	t->bytes = bytes;
	t->dev = dev;
	t->after = after;
	for (r = 0; r < nproc; r++)
		if (pipe(t->tok[r]))
			return -1;
	t->rep = report_new();
	return t->rep ? 0 : -1;
}

static void tree_free(struct tree *t)
{
	for (int r = 0; r < t->nproc; r++) {
		close(t->tok[r][0]);
		close(t->tok[r][1]);
	}
	munmap(t->rep, sizeof(*t->rep));
}

FIXTURE(fork_in) {
	const char *dev;
	char path[64];
	char knob[32];
};

FIXTURE_SETUP(fork_in)
{
	char buf[64];

	self->dev = thpswap_dev_name();
	snprintf(self->path, sizeof(self->path), "/dev/%s", self->dev);
	ASSERT_TRUE(swap_active(self->path))
		TH_LOG("%s is not swapped on", self->path);
	ASSERT_TRUE(dev_has_stats(self->dev));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)))
		TH_LOG("%s missing: not a kernel with whole-THP swap-in", KNOB);
	swapin_mode(buf, self->knob);
	/* -1 is a missing counter, which every comparison below would pass */
	ASSERT_LE(0, vmstat_get("thp_swpin"));
	ASSERT_LE(0, vmstat_get("thp_swpin_shared"))
		TH_LOG("no thp_swpin_shared in /proc/vmstat: a kernel without patches/0012");
	ASSERT_LE(0, dev_stat(self->dev, "thp_reads"));
	ASSERT_LE(0, dev_stat(self->dev, "swapin_whole"));
	ASSERT_EQ(0, write_file(KNOB, "always"));
}

FIXTURE_TEARDOWN(fork_in)
{
	write_file(KNOB, self->knob);
}

/*
 * Swapped out, then shared by fork three ways: read once, mapped whole
 * thrice.  The grandchild starts, so that no fork() is still copying swap
 * PTEs (and moving swap counts) when the first READ claims a cluster.
 */
static const struct step out_then_fork_steps[] = {
	{ 2, START }, { 0, READ }, { 1, READ }, { 2, READ }, { 0, SNAP },
	{ 0, WRITE }, { 1, CHECK_ORIG }, { 1, WRITE },
	{ 2, CHECK_ORIG }, { 2, WRITE },
	{ 0, CHECK_OWN }, { 1, CHECK_OWN }, { 2, CHECK_OWN },
};

/* One tree over @bytes of THPs swapped out whole; the deltas into @d. */
static void out_then_fork(struct __test_metadata *_metadata, const char *dev,
			  size_t bytes, struct snap *d, struct report *out,
			  bool whole)
{
	const int nsteps = sizeof(out_then_fork_steps) /
			   sizeof(out_then_fork_steps[0]);
	struct snap a, b;
	struct tree t;
	long long free0, free1;
	char *mem;
	int r;

	free0 = meminfo_kb("SwapFree");
	mem = thp_out(_metadata, bytes, seed0);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, tree_init(&t, NPROC, out_then_fork_steps, nsteps, mem,
			       bytes, dev, &b));
	snap(dev, &a);
	ASSERT_EQ(0, run_tree(&t, 0));
	SNAP_DELTA(d, &a, &b);
	*out = *t.rep;
	ASSERT_EQ(nsteps, t.rep->steps_done);
	for (r = 0; r < NPROC; r++) {
		EXPECT_EQ(0, t.rep->bad[r])
			TH_LOG("process %d saw bad words", r);
	}
	tree_free(&t);
	thp_free(mem, bytes);
	/*
	 * The last reference went: a whole cluster is freed at once, not
	 * through the CPUs' swap slot caches, which may keep some of the
	 * 4 KiB path's slots (swapin.sh checks those at the end).
	 */
	free1 = meminfo_kb("SwapFree");
	if (whole)
		EXPECT_EQ(free0, free1)
			TH_LOG("SwapFree %lld kB before, %lld kB after", free0,
			       free1);
}

TEST_F_TIMEOUT(fork_in, out_then_fork, TEST_TIMEOUT)
{
	const size_t bytes = scaled(32 * THP_SIZE);
	const long long n = bytes / THP_SIZE;
	struct report rep, rep_never;
	struct snap d, dn;
	int r;

	out_then_fork(_metadata, self->dev, bytes, &d, &rep, true);
	TH_LOG("%lld THPs, 3 processes: read back in %.3f s; thp_swpin +%lld thp_swpin_shared +%lld fallback +%lld pswpin +%lld, device thp_reads +%lld page_reads +%lld swapin_whole +%lld; AnonHugePages %lld/%lld/%lld kB",
	       n, rep.t_last - rep.t_first, d.thp_swpin, d.shared, d.fallback,
	       d.pswpin, d.thp_reads, d.page_reads, d.swapin_whole,
	       rep.ahp_kb[0], rep.ahp_kb[1], rep.ahp_kb[2]);
	/* One read per THP, whatever the number of processes mapping it. */
	EXPECT_EQ(n, d.thp_swpin);
	EXPECT_EQ(n * 512, d.pswpin);
	EXPECT_EQ(n, d.thp_reads);
	EXPECT_EQ(0, d.page_reads);
	EXPECT_EQ(0, d.fallback);
	/* Each of the three mapped each THP whole from the swap cache or as it read it. */
	EXPECT_EQ(3 * n, d.shared);
	/* The last one freed the cluster: the device saw it come back whole. */
	EXPECT_EQ(n, d.swapin_whole);
	for (r = 0; r < NPROC; r++) {
		EXPECT_EQ((long long)(bytes / KiB), rep.ahp_kb[r])
			TH_LOG("process %d: AnonHugePages %lld kB", r,
			       rep.ahp_kb[r]);
		EXPECT_EQ(0, rep.swap_kb[r]);
	}

	/* The same with the 4 KiB path, for the time it takes. */
	ASSERT_EQ(0, write_file(KNOB, "never"));
	out_then_fork(_metadata, self->dev, bytes, &dn, &rep_never, false);
	TH_LOG("swapin_enabled=never: read back in %.3f s (whole: %.3f s); thp_swpin +%lld pswpin +%lld device page_reads +%lld",
	       rep_never.t_last - rep_never.t_first, rep.t_last - rep.t_first,
	       dn.thp_swpin, dn.pswpin, dn.page_reads);
	EXPECT_EQ(0, dn.thp_swpin);
	EXPECT_EQ(n * 512, dn.page_reads);
}

/* Shared first, then reclaimed from both: read once, mapped whole twice. */
static const struct step fork_then_reclaim_steps[] = {
	{ 0, READ }, { 1, READ }, { 0, SNAP },
	{ 0, WRITE }, { 1, CHECK_ORIG }, { 1, WRITE },
	{ 0, CHECK_OWN }, { 1, CHECK_OWN },
};

TEST_F_TIMEOUT(fork_in, fork_then_reclaim, TEST_TIMEOUT)
{
	const size_t bytes = scaled(16 * THP_SIZE);
	const long long n = bytes / THP_SIZE;
	const int nsteps = sizeof(fork_then_reclaim_steps) /
			   sizeof(fork_then_reclaim_steps[0]);
	char cg[96], path[160], buf[256];
	int go[2], status, tries, r;
	struct snap a, b, d, o0, o1;
	long long swap_kb = 0;
	struct tree t;
	pid_t pid;
	char *mem;

	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) <= 0 ||
	    !strstr(buf, "memory"))
		SKIP(return, "no memory controller (cgroup_disable=memory): memory.reclaim is how a THP that two processes map is swapped out");
	ASSERT_EQ(0, write_file(CG_ROOT "/cgroup.subtree_control", "+memory"));
	snprintf(cg, sizeof(cg), CG_ROOT "/swapin-fork.%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	ASSERT_EQ(0, write_file(path, "0"));

	mem = thp_filled(_metadata, bytes, seed0);
	ASSERT_NE(NULL, mem);
	/*
	 * The child only holds the THPs until the reclaim is done: a token
	 * on @go.  Then both run the steps of the tree, the child as role 1.
	 */
	ASSERT_EQ(0, tree_init(&t, 2, fork_then_reclaim_steps, nsteps, mem,
			       bytes, self->dev, &b));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(run_role(&t, 1) ? 1 : 0);
	}
	close(go[0]);

	/*
	 * MADV_PAGEOUT leaves a THP that two processes map (madvise's
	 * page_mapcount() != 1); memcg reclaim unmaps it from both.  Each
	 * write asks for all of it; the first passes may only age it.
	 */
	snap(self->dev, &o0);
	swap_kb = reclaim_range_out(cg, mem, bytes, &tries);
	snap(self->dev, &o1);
	TH_LOG("memory.reclaim: %d passes, Swap %lld kB of %zu, thp_swpout +%lld",
	       tries, swap_kb, bytes / KiB, o1.thp_swpout - o0.thp_swpout);
	ASSERT_EQ((long long)(bytes / KiB), swap_kb);
	/* Whole, from both processes at once: one write per THP. */
	EXPECT_EQ(n, o1.thp_swpout - o0.thp_swpout);

	snap(self->dev, &a);
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	EXPECT_EQ(0, run_role(&t, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status %#x", status);
	SNAP_DELTA(&d, &a, &b);
	TH_LOG("%lld THPs, 2 processes: thp_swpin +%lld thp_swpin_shared +%lld fallback +%lld pswpin +%lld, device thp_reads +%lld page_reads +%lld; AnonHugePages %lld/%lld kB",
	       n, d.thp_swpin, d.shared, d.fallback, d.pswpin, d.thp_reads,
	       d.page_reads, t.rep->ahp_kb[0], t.rep->ahp_kb[1]);
	EXPECT_EQ(nsteps, t.rep->steps_done);
	for (r = 0; r < 2; r++) {
		EXPECT_EQ(0, t.rep->bad[r]) TH_LOG("process %d saw bad words", r);
		EXPECT_EQ((long long)(bytes / KiB), t.rep->ahp_kb[r])
			TH_LOG("process %d: AnonHugePages %lld kB", r,
			       t.rep->ahp_kb[r]);
	}
	EXPECT_EQ(n, d.thp_swpin);
	EXPECT_EQ(n, d.thp_reads);
	/*
	 * The memcg's reclaim also took some of the test's own 4 KiB pages
	 * (stack, libc data), which come back 4 KiB at a time: whatever
	 * pswpin counts beyond the THPs' is those, one read each.  The
	 * range itself is PMD-mapped in both (above).
	 */
	EXPECT_EQ(n * 512 + d.page_reads, d.pswpin);
	EXPECT_EQ(0, d.fallback);
	EXPECT_EQ(2 * n, d.shared);

	tree_free(&t);
	thp_free(mem, bytes);
	/* Out of the memcg, so that it can go. */
	write_file(CG_ROOT "/cgroup.procs", "0");
	EXPECT_EQ(0, rmdir(cg));
}

/* swapoff while a parent and its child fault on the THPs they share */
TEST_F_TIMEOUT(fork_in, swapoff_race, TEST_TIMEOUT)
{
	const size_t bytes = scaled(32 * THP_SIZE);
	const int rounds = 4;
	long long whole = 0, shared = 0;
	int round, go[2], status, err;
	pid_t child, off;
	struct snap a, b;
	char *mem, c;

	for (round = 0; round < rounds; round++) {
		mem = thp_out(_metadata, bytes, seed0 + round);
		ASSERT_NE(NULL, mem);
		ASSERT_EQ(0, pipe(go));
		snap(self->dev, &a);
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			struct bad_word bw;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(2);
			_exit(pattern_verify(mem, bytes, seed0 + round, 0,
					     &bw) ? 1 : 0);
		}
		off = fork();
		ASSERT_LE(0, off);
		if (!off) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(2);
			_exit(-do_swapoff(self->path));
		}
		close(go[0]);
		/* Both start at once; the parent reads the THPs itself too. */
		ASSERT_EQ(2, write(go[1], "gg", 2));
		close(go[1]);
		EXPECT_EQ(0, verify(_metadata, "parent", mem, bytes,
				    seed0 + round, 0));
		ASSERT_EQ(child, waitpid(child, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("round %d: child status %#x", round, status);
		ASSERT_EQ(off, waitpid(off, &status, 0));
		err = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		EXPECT_EQ(0, err) TH_LOG("round %d: swapoff: %s", round,
					 err > 0 ? strerror(err) : "killed");
		snap(self->dev, &b);
		/* Everything is back in memory: nothing is left in swap. */
		EXPECT_EQ(0, smaps_range_kb(mem, bytes, "Swap"));
		whole += b.thp_swpin - a.thp_swpin;
		shared += b.shared - a.shared;
		EXPECT_EQ(0, do_swapon(self->path, 0));
		EXPECT_EQ(meminfo_kb("SwapTotal"), meminfo_kb("SwapFree"));
		thp_free(mem, bytes);
	}
	TH_LOG("%d rounds of %zu MiB: thp_swpin +%lld, thp_swpin_shared +%lld while swapoff ran",
	       rounds, bytes / MiB, whole, shared);
	/* The faults raced swapoff, and won at least once. */
	EXPECT_LT(0, whole + shared);
	EXPECT_TRUE(swap_active(self->path));
}

TEST_HARNESS_MAIN
