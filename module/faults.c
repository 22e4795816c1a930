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
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fault-inject.h>

#include "faults.h"

static DECLARE_FAULT_ATTR(thpswap_fail_read);

/* With verbose=2, should_fail() prints a stack; it still does not sleep. */
bool thpswap_should_fail_read(u64 bytes)
{
	return should_fail(&thpswap_fail_read, bytes);
}

void thpswap_faults_debugfs_init(struct dentry *dir)
{
	/* Failures ignored, as for every debugfs file: nothing depends on it. */
	fault_create_debugfs_attr("fail_read", dir, &thpswap_fail_read);
}
