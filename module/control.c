// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap control device: /dev/thpswap-control, the ioctl transport of
 * the control plane (the other is netlink.c).  The argument structs and
 * their growth rules are in uapi/linux/thpswap.h.
 *
 * Like loop-control, the device has a fixed minor and a devname alias, so
 * that kmod's static nodes create /dev/thpswap-control at boot and the
 * first open loads the module.  The minor is one of those reserved "for
 * local use" (243-254) in Documentation/admin-guide/devices.txt, since an
 * out-of-tree module has no registered one; if another local driver took
 * it first we fall back to a dynamic minor and lose only the autoload.
 *
 * The node is 0644: anyone may read INFO, STATS and CLUSTERS (as sysfs
 * and netlink allow), mutations need CAP_SYS_ADMIN whoever opened it.
 * INFO shows the physical address of a memmap range only to a caller
 * with CAP_SYS_ADMIN that also opened the node with it (as netlink_capable()
 * checks the socket's opener), so a descriptor handed to a setuid program
 * does not leak it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "control.h"
#include "device.h"

#define THPSWAP_CONTROL_MINOR	247

/*
 * Commands are told apart by magic, number and direction; the size bits
 * are ignored because the struct's own size field is what counts.
 */
#define THPSWAP_IOC_KEY(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/*
 * May sleep.  Reads the request at @uarg into @k (@ksize bytes), whose
 * first u32 is the caller's size: at least @ver0, with any bytes beyond
 * @ksize zero.  Returns the caller's size, or -EFAULT, -EINVAL, -E2BIG.
 */
static long thpswap_ctl_copy_in(void *k, size_t ksize, size_t ver0,
				void __user *uarg)
{
	u32 usize;
	int err;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < ver0 || usize > PAGE_SIZE)
		return -EINVAL;
	err = copy_struct_from_user(k, ksize, uarg, usize);
	if (err)
		return err;
	return usize;
}

/* May sleep.  Writes back min(caller's size, @ksize) bytes of @k. */
static int thpswap_ctl_copy_out(void __user *uarg, const void *k,
				size_t ksize, u32 usize)
{
	if (copy_to_user(uarg, k, min_t(size_t, usize, ksize)))
		return -EFAULT;
	return 0;
}

static long thpswap_ctl_add(void __user *uarg)
{
	struct thpswap_ioc_add req;
	struct thpswap_dev_config cfg = { };
	long usize;
	int err, index;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	usize = thpswap_ctl_copy_in(&req, sizeof(req), THPSWAP_ADD_SIZE_VER0,
				    uarg);
	if (usize < 0)
		return usize;
	if (req.flags & ~THPSWAP_ADD_F_ALL || req.pad ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	/* Without the flag, @node was reserved: it must still be zero. */
	if (!(req.flags & THPSWAP_ADD_F_NODE) && req.node)
		return -EINVAL;
	if (req.flags & THPSWAP_ADD_F_NODE &&
	    (req.node < NUMA_NO_NODE ||
	     (req.node != NUMA_NO_NODE && req.backing != THPSWAP_BACKING_RAM)))
		return -EINVAL;
	if (req.index < -1 || req.index >= THPSWAP_MAX_DEVICES)
		return -EINVAL;
	if (req.backing >= __THPSWAP_BACKING_MAX)
		return -EINVAL;
	if (req.backing == THPSWAP_BACKING_RAM && req.backing_phys)
		return -EINVAL;
	if (req.backing == THPSWAP_BACKING_MEMMAP &&
	    (!req.backing_phys ||
	     !IS_ALIGNED(req.backing_phys, THPSWAP_CHUNK_SIZE) ||
	     req.backing_phys != (phys_addr_t)req.backing_phys))
		return -EINVAL;

	cfg.index = req.index;
	cfg.size = req.bytes;
	cfg.backing = req.backing;
	cfg.backing_phys = req.backing_phys;
	cfg.node = req.flags & THPSWAP_ADD_F_NODE ? req.node : NUMA_NO_NODE;
	/* -ENODEV (no such node, no memory there), -ENOMEM: as netlink's. */
	err = thpswap_dev_create(&cfg, &index);
	if (err)
		return err;
	/* Like loop-control: the device stays if the reply cannot be written. */
	req.index = index;
	return thpswap_ctl_copy_out(uarg, &req, sizeof(req), usize);
}

/* REMOVE and RESET_STATS. */
static long thpswap_ctl_dev(void __user *uarg, bool remove)
{
	struct thpswap_ioc_dev req;
	struct thpswap_dev *dev;
	long usize;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	usize = thpswap_ctl_copy_in(&req, sizeof(req), THPSWAP_DEV_SIZE_VER0,
				    uarg);
	if (usize < 0)
		return usize;
	if (req.flags & ~THPSWAP_DEV_F_ALL || req.pad ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	if (req.index >= THPSWAP_MAX_DEVICES)
		return -ENODEV;
	if (remove)
		return thpswap_dev_remove(req.index);

	thpswap_devices_lock();
	dev = thpswap_dev_find(req.index);
	if (dev)
		thpswap_stats_reset(dev);
	thpswap_devices_unlock();
	return dev ? 0 : -ENODEV;
}

/* May sleep.  Snapshot of device @index, or -ENODEV. */
static int thpswap_ctl_snapshot(u32 index, struct thpswap_dev_snap *snap)
{
	struct thpswap_dev *dev;

	if (index >= THPSWAP_MAX_DEVICES)
		return -ENODEV;
	thpswap_devices_lock();
	dev = thpswap_dev_find(index);
	if (dev)
		thpswap_dev_snapshot(dev, snap);
	thpswap_devices_unlock();
	return dev ? 0 : -ENODEV;
}

/* May sleep.  Whether @file's opener and the caller may see addresses. */
static bool thpswap_ctl_may_see_phys(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN) &&
	       capable(CAP_SYS_ADMIN);
}

static long thpswap_ctl_info(struct file *file, void __user *uarg)
{
	struct thpswap_ioc_info req;
	struct thpswap_dev_snap snap;
	long usize;
	u32 index;
	int err;

	usize = thpswap_ctl_copy_in(&req, sizeof(req), THPSWAP_INFO_SIZE_VER0,
				    uarg);
	if (usize < 0)
		return usize;
	/* Everything but size and index is output: ignore what came in. */
	index = req.index;
	err = thpswap_ctl_snapshot(index, &snap);
	if (err)
		return err;

	memset(&req, 0, sizeof(req));
	req.size = usize;
	req.index = index;
	req.bytes = snap.size;
	req.backing = snap.backing;
	req.flags = snap.flags;
	if (thpswap_ctl_may_see_phys(file))
		req.backing_phys = snap.backing_phys;
	req.nr_clusters = snap.nr_clusters;
	req.generation = snap.generation;
	req.node = snap.node;
	return thpswap_ctl_copy_out(uarg, &req, sizeof(req), usize);
}

static long thpswap_ctl_stats(void __user *uarg)
{
	struct thpswap_ioc_stats req;
	struct thpswap_dev_snap snap;
	long usize;
	u32 n;
	int err;

	usize = thpswap_ctl_copy_in(&req, sizeof(req), THPSWAP_STATS_SIZE_VER0,
				    uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	err = thpswap_ctl_snapshot(req.index, &snap);
	if (err)
		return err;

	n = min_t(u32, req.count, THPSWAP_NR_STATS);
	if (copy_to_user(u64_to_user_ptr(req.values), snap.stats,
			 n * sizeof(u64)))
		return -EFAULT;
	req.count = n;
	req.nr_stats = THPSWAP_NR_STATS;
	return thpswap_ctl_copy_out(uarg, &req, sizeof(req), usize);
}

static long thpswap_ctl_clusters(void __user *uarg)
{
	struct thpswap_ioc_clusters req;
	struct thpswap_cluster_entry *entries;
	struct thpswap_dev *dev;
	u16 *live;
	u8 *states;
	u32 n, i;
	long usize;
	int err = 0;

	usize = thpswap_ctl_copy_in(&req, sizeof(req),
				    THPSWAP_CLUSTERS_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (req.entry_size != sizeof(*entries) ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	if (req.index >= THPSWAP_MAX_DEVICES)
		return -ENODEV;

	n = min_t(u32, req.count, THPSWAP_CLUSTERS_MAX_CHUNK);
	/*
	 * GFP_KERNEL: process context, and at most
	 * THPSWAP_CLUSTERS_MAX_CHUNK * 7 bytes.  The copy to user space
	 * happens after the lock is dropped, from this buffer.
	 */
	entries = kcalloc(max_t(u32, n, 1),
			  sizeof(*entries) + sizeof(*live) + sizeof(*states),
			  GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	live = (u16 *)(entries + max_t(u32, n, 1));
	states = (u8 *)(live + max_t(u32, n, 1));

	thpswap_devices_lock();
	dev = thpswap_dev_find(req.index);
	if (!dev) {
		err = -ENODEV;
	} else if (req.first > dev->clusters.nr) {
		err = -EINVAL;
	} else {
		req.generation = thpswap_clusters_generation(&dev->clusters);
		req.nr_clusters = dev->clusters.nr;
		n = thpswap_clusters_get(&dev->clusters, req.first, n, states,
					 live);
	}
	thpswap_devices_unlock();
	if (err)
		goto out;

	for (i = 0; i < n; i++) {
		entries[i].state = states[i];
		entries[i].live = live[i];
	}
	if (copy_to_user(u64_to_user_ptr(req.entries), entries,
			 n * sizeof(*entries))) {
		err = -EFAULT;
		goto out;
	}
	req.count = n;
	err = thpswap_ctl_copy_out(uarg, &req, sizeof(req), usize);
out:
	kfree(entries);
	return err;
}

/* May sleep. */
static long thpswap_ctl_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (THPSWAP_IOC_KEY(cmd)) {
	case THPSWAP_IOC_KEY(THPSWAP_IOC_ADD):
		return thpswap_ctl_add(uarg);
	case THPSWAP_IOC_KEY(THPSWAP_IOC_REMOVE):
		return thpswap_ctl_dev(uarg, true);
	case THPSWAP_IOC_KEY(THPSWAP_IOC_INFO):
		return thpswap_ctl_info(file, uarg);
	case THPSWAP_IOC_KEY(THPSWAP_IOC_STATS):
		return thpswap_ctl_stats(uarg);
	case THPSWAP_IOC_KEY(THPSWAP_IOC_CLUSTERS):
		return thpswap_ctl_clusters(uarg);
	case THPSWAP_IOC_KEY(THPSWAP_IOC_RESET_STATS):
		return thpswap_ctl_dev(uarg, false);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations thpswap_ctl_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = thpswap_ctl_ioctl,
	/* Fixed-width structs with explicit padding: same layout in compat. */
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice thpswap_ctl_misc = {
	.minor = THPSWAP_CONTROL_MINOR,
	.name = THPSWAP_CONTROL_NAME,
	.nodename = THPSWAP_CONTROL_NAME,
	.fops = &thpswap_ctl_fops,
	.mode = 0644,
};

int thpswap_control_init(void)
{
	int err;

	err = misc_register(&thpswap_ctl_misc);
	if (err != -EBUSY)
		return err;
	pr_warn("misc minor %d taken; /dev/%s gets a dynamic minor and will not load the module on open\n",
		THPSWAP_CONTROL_MINOR, THPSWAP_CONTROL_NAME);
	thpswap_ctl_misc.minor = MISC_DYNAMIC_MINOR;
	return misc_register(&thpswap_ctl_misc);
}

void thpswap_control_exit(void)
{
	misc_deregister(&thpswap_ctl_misc);
}

MODULE_ALIAS_MISCDEV(THPSWAP_CONTROL_MINOR);
MODULE_ALIAS("devname:" THPSWAP_CONTROL_NAME);
