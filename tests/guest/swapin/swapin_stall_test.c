// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_stall_test: a whole-THP swap-in of the workingset is a memory
 * stall, as a 4 KiB one is.
 *
 * Precondition (done by swapin.sh): a kernel with the whole-THP swap-in
 * patches, thpswap loaded, /dev/$THPSWAP_DEV swapped on as the only swap
 * device, CONFIG_PSI.
 *
 *  - refault_is_a_stall: a THP of a memory cgroup of the test's own is
 *    swapped out and read back at once (the refault activates it, with
 *    page cache beside it: see page_cache()), then evicted by
 *    memory.reclaim (which deactivates it first, and so marks it
 *    workingset) and read back again.  That refault restores it (the
 *    memcg's workingset_restore_anon rises) and must count as a memory
 *    stall: the memcg's memory.pressure "some" total rises.  swap_readpage() counts
 *    the stall only for a folio that workingset_refault() marked before the
 *    read; a whole swap-in that asked workingset_refault() after its read
 *    counted none.  SKIP without the memory controller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define KNOB		"/sys/kernel/mm/transparent_hugepage/swapin_enabled"
#define KH_SLEEP	"/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs"
#define CG_ROOT		"/sys/fs/cgroup"

/* The "some" total (microseconds) of a pressure file, or -1. */
static long long pressure_some_us(const char *path)
{
	char buf[512], *p;

	if (read_file(path, buf, sizeof(buf)) <= 0 ||
	    strncmp(buf, "some ", 5))
		return -1;
	p = strstr(buf, "total=");
	return p && p < strchr(buf, '\n') ? strtoll(p + 6, NULL, 10) : -1;
}

/*
 * Read @mib MiB of the swap device through the page cache: inactive file
 * pages charged to this memcg.  A refault activates a folio only if its
 * refault distance (its own pages included: 512 for a THP) is within the
 * workingset the eviction's lruvec holds, active and inactive file pages
 * among it, and the guest has no other page cache.  0 or -1.
 */
static int page_cache(const char *dev, int mib)
{
	static char buf[1 << 20];
	char path[64];
	int fd, i, ret = 0;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	for (i = 0; i < mib && !ret; i++)
		ret = read(fd, buf, sizeof(buf)) == sizeof(buf) ? 0 : -1;
	close(fd);
	return ret;
}

FIXTURE(stall) {
	char knob[32];
	char kh_sleep[32];
	char cg[96];
};

FIXTURE_SETUP(stall)
{
	char buf[256], path[160];

	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)))
		TH_LOG("%s missing: not a kernel with whole-THP swap-in", KNOB);
	swapin_mode(buf, self->knob);
	ASSERT_LE(0, vmstat_get("thp_swpin"));
	self->cg[0] = 0;
	self->kh_sleep[0] = 0;
	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) <= 0 ||
	    !strstr(buf, "memory"))
		return;
	ASSERT_EQ(0, write_file(CG_ROOT "/cgroup.subtree_control", "+memory"));
	snprintf(self->cg, sizeof(self->cg), CG_ROOT "/swapin-stall.%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->cg, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.procs", self->cg);
	ASSERT_EQ(0, write_file(path, "0"));
	ASSERT_EQ(0, write_file(KNOB, "always"));
	/*
	 * khugepaged swaps intact THPs back in whole too, and its read is a
	 * stall of its own cgroup, not of ours: park it for the test (after
	 * the one scan a new setting starts).
	 */
	ASSERT_LT(0, read_file(KH_SLEEP, self->kh_sleep, sizeof(self->kh_sleep)));
	self->kh_sleep[strcspn(self->kh_sleep, "\n")] = 0;
	ASSERT_EQ(0, write_file(KH_SLEEP, "3600000"));
}

FIXTURE_TEARDOWN(stall)
{
	write_file(KNOB, self->knob);
	if (self->kh_sleep[0])
		write_file(KH_SLEEP, self->kh_sleep);
	if (self->cg[0]) {
		write_file(CG_ROOT "/cgroup.procs", "0");
		rmdir(self->cg);
	}
}

/*
 * Keep this CPU busy in this memcg for @ms of CPU time.  memory.pressure
 * weighs each CPU's stall time by that CPU's non-idle time since the last
 * read, in whole jiffies (collect_percpu_times()): a stall of a few
 * milliseconds on a CPU that then idles counts 0 us.  Not a wait for the
 * kernel: the stall is over when the fault returns.
 */
static void busy_cpu_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* This task's major faults so far. */
static long major_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_majflt;
}

/* A memory.stat field of @cg, or -1. */
static long long memcg_stat(const char *cg, const char *key)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	return file_key_value(path, key);
}

TEST_F(stall, refault_is_a_stall)
{
	const size_t bytes = THP_SIZE;
	char pressure[160];
	long long swap_kb = 0, act0, act1, restore0, restore1, some0, some1, in0;
	long maj0, maj1;
	int pass;
	char *mem;

	if (!self->cg[0])
		SKIP(return, "no memory controller (cgroup_disable=memory): the stall is counted per memcg here");
	snprintf(pressure, sizeof(pressure), "%s/memory.pressure", self->cg);
	ASSERT_LE(0, pressure_some_us(pressure))
		TH_LOG("%s unreadable: a kernel without CONFIG_PSI", pressure);
	ASSERT_LE(0, memcg_stat(self->cg, "workingset_restore_anon"));
	/* The stall and the busy time after it on one CPU: see busy_cpu_ms(). */
	ASSERT_LE(0, pin_to_current_cpu());

	/*
	 * Out and straight back: nothing was evicted in between, so the
	 * refault activates the THP (workingset_activate_anon).
	 */
	mem = thp_out(_metadata, bytes, 0x57a1);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, page_cache(thpswap_dev_name(), 8));
	act0 = memcg_stat(self->cg, "workingset_activate_anon");
	ASSERT_EQ(0, verify(_metadata, "first read back", mem, bytes, 0x57a1, 0));
	act1 = memcg_stat(self->cg, "workingset_activate_anon");
	TH_LOG("first refault: workingset_activate_anon +%lld", act1 - act0);
	ASSERT_LE(512, act1 - act0)
		TH_LOG("the refault did not activate the THP");

	/*
	 * memcg reclaim takes it off the active list, which marks it
	 * workingset, then evicts it.
	 */
	swap_kb = reclaim_range_out(self->cg, mem, bytes, &pass);
	TH_LOG("memory.reclaim: %d passes, Swap %lld kB of %zu", pass,
	       swap_kb, bytes / KiB);
	ASSERT_EQ((long long)(bytes / KiB), swap_kb);
	/* More than reclaim evicted after the THP: its distance fits. */
	ASSERT_EQ(0, page_cache(thpswap_dev_name(), 64));

	restore0 = memcg_stat(self->cg, "workingset_restore_anon");
	some0 = pressure_some_us(pressure);
	in0 = vmstat_get("thp_swpin");
	maj0 = major_faults();
	EXPECT_EQ(0, verify(_metadata, "second read back", mem, bytes, 0x57a1, 0));
	maj1 = major_faults();
	busy_cpu_ms(50);
	restore1 = memcg_stat(self->cg, "workingset_restore_anon");
	some1 = pressure_some_us(pressure);
	TH_LOG("second refault: thp_swpin +%lld, workingset_restore_anon +%lld, memory.pressure some +%lld us, major faults +%ld",
	       vmstat_get("thp_swpin") - in0, restore1 - restore0,
	       some1 - some0, maj1 - maj0);
	if (maj1 == maj0) {
		thp_free(mem, bytes);
		SKIP(return, "the THP was back before this task touched it: its stall was not ours to see");
	}
	EXPECT_EQ(1, vmstat_get("thp_swpin") - in0);
	/* Else the THP was not workingset, and nothing here is shown. */
	ASSERT_LE(512, restore1 - restore0)
		TH_LOG("the THP did not refault as workingset");
	EXPECT_LT(0, some1 - some0)
		TH_LOG("a workingset refault of 2 MiB was no memory stall");
	thp_free(mem, bytes);
}

TEST_HARNESS_MAIN
