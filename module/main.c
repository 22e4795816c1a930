// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap: a block device for swap on fast memory (RAM, or a physical
 * range reserved with memmap=SIZE!ADDR) that stores a swapped-out THP as
 * one 2 MiB copy, and shows what the swap layer does with its clusters.
 *
 * Module init and exit, and the load-time parameters.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/ctype.h>
#include <linux/numa.h>
#include <linux/string.h>

#include "control.h"
#include "debugfs.h"
#include "device.h"
#include "events.h"
#include "netlink.h"

/*
 * Loading allocates device memory only when an administrator asked for a
 * device: any of num_devices, size, backing_phys or node given (on the command
 * line of modprobe or insmod, or in modprobe.d).  A plain load, such as
 * the autoload on a netlink lookup of the family or an open of the control
 * device, which any user can cause, creates no device.
 */
static bool thpswap_params_given;

static int thpswap_param_set_uint(const char *val,
				  const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	if (!err)
		thpswap_params_given = true;
	return err;
}

static int thpswap_param_set_charp(const char *val,
				   const struct kernel_param *kp)
{
	int err = param_set_charp(val, kp);

	if (!err)
		thpswap_params_given = true;
	return err;
}

static int thpswap_param_set_int(const char *val,
				 const struct kernel_param *kp)
{
	int err = param_set_int(val, kp);

	if (!err)
		thpswap_params_given = true;
	return err;
}

static const struct kernel_param_ops thpswap_param_int_ops = {
	.set = thpswap_param_set_int,
	.get = param_get_int,
};

static const struct kernel_param_ops thpswap_param_uint_ops = {
	.set = thpswap_param_set_uint,
	.get = param_get_uint,
};

static const struct kernel_param_ops thpswap_param_charp_ops = {
	.set = thpswap_param_set_charp,
	.get = param_get_charp,
	.free = param_free_charp,
};

static unsigned int num_devices = 1;
module_param_cb(num_devices, &thpswap_param_uint_ops, &num_devices, 0444);
MODULE_PARM_DESC(num_devices, "Devices to create at load, 0-64 (default 1 if size or backing_phys is given, else 0)");

static char *size = "1G";
module_param_cb(size, &thpswap_param_charp_ops, &size, 0444);
MODULE_PARM_DESC(size, "Size of each device created at load, K/M/G suffix, rounded down to 2M, at least 4M (default 1G); giving it creates num_devices devices. RAM backing frees no memory by swapping (it is taken from the same RAM): use it to try thpswap out; deploy on a far node (node=), memmap= or pmem");

/* 0400: a physical address is for the administrator only, as in /proc/iomem. */
static char *backing_phys;
module_param_cb(backing_phys, &thpswap_param_charp_ops, &backing_phys, 0400);
MODULE_PARM_DESC(backing_phys, "Back thpswap0 by [backing_phys, +size) reserved with memmap=SIZE!ADDR, 2M aligned (default: RAM); memory the kernel does not otherwise use, so swapping there frees RAM");

/*
 * -1: anywhere.  A node is checked when the devices are created, which
 * says what is wrong with it (thpswap_dev_create()).
 */
static int node = NUMA_NO_NODE;
module_param_cb(node, &thpswap_param_int_ops, &node, 0444);
MODULE_PARM_DESC(node, "Take the RAM of the devices created at load from this NUMA node only, e.g. a CPU-less CXL memory node, so that swapping frees memory on the others (default -1: any node; not with backing_phys)");

/*
 * Accepts a whole string, optionally with one trailing newline: a number
 * in C notation with an optional K/M/G/T/P/E suffix.  Unlike memparse(),
 * refuses what does not fit in 64 bits instead of wrapping.
 */
static bool __init thpswap_parse_u64(const char *s, u64 *out)
{
	static const char suffixes[] = "KMGTPE";
	unsigned long long base;
	const char *suffix;
	char buf[32];
	size_t len;
	int shift = 0;

	len = strlen(s);
	if (len && s[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* In hex, E is a digit ("0x1E" is 30): only K-P are suffixes there. */
	suffix = strchr(suffixes, toupper(buf[len - 1]));
	if (suffix && len > 1 &&
	    !(isxdigit(buf[len - 1]) && !strncasecmp(buf, "0x", 2))) {
		shift = 10 * (suffix - suffixes + 1);
		buf[--len] = '\0';
	}
	if (kstrtoull(buf, 0, &base))
		return false;
	if (shift && base > (U64_MAX >> shift))
		return false;
	*out = base << shift;
	return true;
}

static int __init thpswap_parse_params(u64 *dev_size, phys_addr_t *phys)
{
	u64 v;

	if (num_devices > THPSWAP_MAX_DEVICES) {
		pr_err("num_devices=%u: at most %d\n", num_devices,
		       THPSWAP_MAX_DEVICES);
		return -EINVAL;
	}

	if (!size || !thpswap_parse_u64(size, &v)) {
		pr_err("size=%s: not a size (e.g. 512M, 1G)\n",
		       size ? size : "");
		return -EINVAL;
	}
	v = round_down(v, THPSWAP_CHUNK_SIZE);
	if (v < THPSWAP_MIN_SIZE) {
		pr_err("size=%s: must be at least %luM after rounding down to a multiple of 2M\n",
		       size, THPSWAP_MIN_SIZE >> 20);
		return -EINVAL;
	}
	*dev_size = v;

	*phys = 0;
	if (backing_phys && *backing_phys) {
		if (!thpswap_parse_u64(backing_phys, &v) ||
		    v > (u64)(phys_addr_t)~0) {
			pr_err("backing_phys=%s: not a physical address (e.g. 0x100000000 or 4G)\n",
			       backing_phys);
			return -EINVAL;
		}
		/* thpswap_backing_init() checks alignment and the reservation. */
		*phys = v;
		if (!*phys) {
			pr_err("backing_phys=%s: must not be 0\n", backing_phys);
			return -EINVAL;
		}
	}

	if (node < NUMA_NO_NODE) {
		pr_err("node=%d: not a NUMA node (-1 for any)\n", node);
		return -EINVAL;
	}
	if (node != NUMA_NO_NODE && *phys) {
		pr_err("node=%d: not with backing_phys (the range is where it is)\n",
		       node);
		return -EINVAL;
	}
	return 0;
}

/* device.c tells the events layer through these; see device.h. */
static const struct thpswap_dev_hooks thpswap_dev_hooks = {
	.cluster_changed = thpswap_events_cluster_changed,
	.events_work = thpswap_events_work,
	.dev_added = thpswap_events_dev_new,
	.dev_removed = thpswap_events_dev_del,
};

static int __init thpswap_init(void)
{
	struct thpswap_dev_config cfg = { };
	phys_addr_t phys;
	u64 dev_size;
	unsigned int i;
	int err;

	err = thpswap_parse_params(&dev_size, &phys);
	if (err)
		return err;

	if (!thpswap_params_given)
		num_devices = 0;

	thpswap_debugfs_init();
	err = thpswap_devices_init(&thpswap_dev_hooks);
	if (err)
		goto err_debugfs;

	for (i = 0; i < num_devices; i++) {
		cfg.index = i;
		cfg.size = dev_size;
		cfg.backing = THPSWAP_BACKING_RAM;
		cfg.backing_phys = 0;
		cfg.node = node;
		if (i == 0 && phys) {
			cfg.backing = THPSWAP_BACKING_MEMMAP;
			cfg.backing_phys = phys;
		}
		err = thpswap_dev_create(&cfg, NULL);
		if (err) {
			pr_err("cannot create thpswap%u: %d\n", i, err);
			goto err_devices;
		}
	}

	/* Devices first: the control plane may be used as soon as it exists. */
	err = thpswap_netlink_init();
	if (err)
		goto err_devices;
	thpswap_events_enable();
	err = thpswap_control_init();
	if (err)
		goto err_netlink;
	return 0;

err_netlink:
	thpswap_events_disable();
	thpswap_devices_cancel_events();
	thpswap_netlink_exit();
err_devices:
	thpswap_devices_exit();
err_debugfs:
	thpswap_debugfs_exit();
	return err;
}

/*
 * The control plane goes first: an open control device or a running
 * netlink dump pins the module, and genl_unregister_family() waits for
 * requests in progress, so no device is added behind our back.
 */
static void __exit thpswap_exit(void)
{
	thpswap_control_exit();
	thpswap_events_disable();
	thpswap_devices_cancel_events();
	thpswap_netlink_exit();
	thpswap_devices_exit();
	thpswap_debugfs_exit();
}

module_init(thpswap_init);
module_exit(thpswap_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Block device for swap on fast memory, one copy per THP");
MODULE_AUTHOR("thpswap developers");
