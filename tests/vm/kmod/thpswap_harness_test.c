// SPDX-License-Identifier: GPL-2.0
/*
 * A module for testing the VM harness itself: loading it with warn=1
 * makes the kernel print a WARN, which tests/vm/run must turn into a
 * failed run even when the guest script exits 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/bug.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "WARN once when loaded");

static int __init harness_test_init(void)
{
	WARN(warn, "thpswap harness test: deliberate warning\n");
	pr_info("loaded (warn=%d)\n", warn);
	return 0;
}

static void __exit harness_test_exit(void)
{
}

module_init(harness_test_init);
module_exit(harness_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("thpswap VM harness self-test module");
