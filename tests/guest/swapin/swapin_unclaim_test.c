// SPDX-License-Identifier: GPL-2.0
/*
 * swapin_unclaim_test: a whole swap-in that fails gives its slots back
 * right, also those another thread unmapped while the read was in flight.
 *
 * Precondition (done by faults.sh on the debug kernel): a kernel with the
 * whole-THP swap-in patches and CONFIG_FAULT_INJECTION_DEBUG_FS, thpswap
 * loaded (its fail_read/delay_ms in debugfs), /dev/$THPSWAP_DEV swapped on
 * as the only swap device, no fault injection armed.
 *
 *  - zap_during_failed_read: a THP is swapped out whole; thpswap's fail_read
 *    fails the next two reads (the rw_page() of the THP, the kernel's bio
 *    retry of it), the first after a delay.  A thread touches the THP's
 *    last page: the fault claims the cluster and reads; while the read
 *    waits, the test thread unmaps the THP's second half (MADV_DONTNEED,
 *    under the mmap_lock held for read, as the reader holds it).  The read
 *    fails and the claim is given back: the 256 unmapped slots are freed,
 *    so the cluster is no longer an intact THP and must stop being huge
 *    (thpswap's cluster states: huge -1, split +1; a freed slot reads
 *    SWAP_HAS_CACHE until the slot cache takes it, which a check that
 *    spares such slots never broke).  The first half reads back right, the
 *    second half as zeros.
 *
 * Nothing sleeps to wait for the kernel: the test thread polls
 * fail_read/delaying, which counts the reads waiting in the delay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "swapin.h"

#define KNOB		"/sys/kernel/mm/transparent_hugepage/swapin_enabled"
#define FR		"/sys/kernel/debug/thpswap/fail_read/"

static int fr_set(const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FR "%s", attr);
	return write_file(path, val);
}

static void fr_off(void)
{
	fr_set("probability", "0");
	fr_set("delay_ms", "0");
}

FIXTURE(unclaim) {
	const char *dev;
	char knob[32];
};

FIXTURE_SETUP(unclaim)
{
	char buf[64];

	self->dev = thpswap_dev_name();
	ASSERT_TRUE(dev_has_stats(self->dev));
	ASSERT_LT(0, read_file(KNOB, buf, sizeof(buf)))
		TH_LOG("%s missing: not a kernel with whole-THP swap-in", KNOB);
	swapin_mode(buf, self->knob);
	ASSERT_LE(0, read_file(FR "delaying", buf, sizeof(buf)))
		TH_LOG(FR "delaying missing: a thpswap.ko without fail_read/delay_ms, or a kernel without fault injection");
	ASSERT_LE(0, dev_cluster(self->dev, "huge"));
	ASSERT_EQ(0, write_file(KNOB, "always"));
}

FIXTURE_TEARDOWN(unclaim)
{
	fr_off();
	write_file(KNOB, self->knob);
}

static void *touch_last_page(void *arg)
{
	volatile char *p = arg;

	(void)p[THP_SIZE - PAGE_SZ];
	return NULL;
}

TEST_F(unclaim, zap_during_failed_read)
{
	const size_t half = THP_SIZE / 2;
	long long huge0, split0, huge1, split1, io0, io1;
	size_t i, nonzero = 0;
	char buf[32], *mem;
	pthread_t th;
	int polls;

	mem = thp_out(_metadata, THP_SIZE, 0xc4c4);
	ASSERT_NE(NULL, mem);
	huge0 = dev_cluster(self->dev, "huge");
	split0 = dev_cluster(self->dev, "split");
	io0 = vmstat_get("thp_swpin_fallback_io");
	ASSERT_LE(1, huge0);

	ASSERT_EQ(0, fr_set("interval", "1"));
	ASSERT_EQ(0, fr_set("times", "2"));
	ASSERT_EQ(0, fr_set("space", "0"));
	ASSERT_EQ(0, fr_set("verbose", "0"));
	ASSERT_EQ(0, fr_set("task-filter", "N"));
	ASSERT_EQ(0, fr_set("delay_ms", "3000"));
	ASSERT_EQ(0, fr_set("probability", "100"));

	ASSERT_EQ(0, pthread_create(&th, NULL, touch_last_page, mem));
	/* A poll of the condition, bounded: 60 s. */
	for (polls = 0; polls < 60000; polls++) {
		if (read_file(FR "delaying", buf, sizeof(buf)) > 0 &&
		    atoi(buf) > 0)
			break;
		usleep(1000);
	}
	EXPECT_GT(60000, polls) TH_LOG("the THP's read never started");
	EXPECT_EQ(0, madvise(mem + half, half, MADV_DONTNEED));
	ASSERT_EQ(0, pthread_join(th, NULL));
	fr_off();

	huge1 = dev_cluster(self->dev, "huge");
	split1 = dev_cluster(self->dev, "split");
	io1 = vmstat_get("thp_swpin_fallback_io");
	TH_LOG("failed read with half unmapped meanwhile: clusters huge %+lld split %+lld, thp_swpin_fallback_io %+lld",
	       huge1 - huge0, split1 - split0, io1 - io0);
	EXPECT_EQ(1, io1 - io0) TH_LOG("the THP's read did not fail");
	EXPECT_EQ(huge0 - 1, huge1)
		TH_LOG("a cluster with 256 free slots is still huge");
	EXPECT_EQ(split0 + 1, split1);
	EXPECT_EQ((long long)(half / KiB), smaps_range_kb(mem, THP_SIZE, "Swap"));

	EXPECT_EQ(0, verify(_metadata, "the half left mapped", mem, half,
			    0xc4c4, 0));
	for (i = half; i < THP_SIZE; i++)
		nonzero += !!mem[i];
	EXPECT_EQ(0, nonzero) TH_LOG("the unmapped half is not all zeros");
	thp_free(mem, THP_SIZE);
}

TEST_HARNESS_MAIN
