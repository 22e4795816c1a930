// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap fault injection (built only with CONFIG_FAULT_INJECTION_DEBUG_FS).
 *
 * fail_read: the standard fault-injection attributes
 * (Documentation/fault-injection/), shared by all devices, in
 * /sys/kernel/debug/thpswap/fail_read/.  A read chosen by it fails with
 * -EIO before any byte moves, as poisoned memory would: the swap-in error
 * paths can then be tested.  Its own file, not debugfs.c, so that the I/O
 * path calls nothing above it.
 *
 * fail_read/delay_ms (0 by default): a read chosen by fail_read through
 * rw_page() first waits this long, as a device that times out, so that a
 * test can act while the read is in flight; fail_read/delaying says how
 * many reads wait there now (what such a test waits for).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>

#include "faults.h"

static DECLARE_FAULT_ATTR(thpswap_fail_read);
static u32 thpswap_fail_read_delay_ms;
static atomic_t thpswap_fail_read_delaying = ATOMIC_INIT(0);

/* With verbose=2, should_fail() prints a stack; it still does not sleep. */
bool thpswap_should_fail_read(u64 bytes)
{
	return should_fail(&thpswap_fail_read, bytes);
}

void thpswap_fail_read_delay(void)
{
	u32 ms = READ_ONCE(thpswap_fail_read_delay_ms);

	if (!ms)
		return;
	atomic_inc(&thpswap_fail_read_delaying);
	msleep(ms);
	atomic_dec(&thpswap_fail_read_delaying);
}

void thpswap_faults_debugfs_init(struct dentry *dir)
{
	struct dentry *fr;

	/* Failures ignored, as for every debugfs file: nothing depends on it. */
	fr = fault_create_debugfs_attr("fail_read", dir, &thpswap_fail_read);
	if (IS_ERR(fr))
		return;
	debugfs_create_u32("delay_ms", 0600, fr, &thpswap_fail_read_delay_ms);
	debugfs_create_atomic_t("delaying", 0400, fr,
				&thpswap_fail_read_delaying);
}
