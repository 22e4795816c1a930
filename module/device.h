/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap devices: creation, removal and lifetime.
 *
 * thpswap_dev_create() and thpswap_dev_remove() are the only way devices
 * come and go; module parameters use them at load time and a control plane
 * (ioctl, netlink) may call them later.
 */
#ifndef _THPSWAP_DEVICE_H
#define _THPSWAP_DEVICE_H

#include <linux/blkdev.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "backing.h"
#include "clusters.h"
#include "stats.h"

#define THPSWAP_MAX_DEVICES	64
/* Cluster 0 holds the swap header and is never huge: two clusters minimum. */
#define THPSWAP_MIN_SIZE	(2 * THPSWAP_CHUNK_SIZE)

struct thpswap_dev_config {
	/* Device number N of /dev/thpswapN, or -1 for the lowest free one. */
	int index;
	/* Bytes; a multiple of 2 MiB and at least THPSWAP_MIN_SIZE. */
	u64 size;
	enum thpswap_backing_kind backing;
	/* THPSWAP_BACKING_MEMMAP: start of the memmap=SIZE!ADDR range. */
	phys_addr_t backing_phys;
};

/*
 * One device.  Everything but @removing is set up before the disk is
 * added and torn down after it is deleted, so the I/O path, sysfs and
 * debugfs use it without locks.
 */
struct thpswap_dev {
	int index;
	sector_t nr_sectors;		/* capacity in 512-byte sectors */
	unsigned long nr_slots;		/* capacity in 4 KiB swap slots */
	struct gendisk *disk;
	struct thpswap_backing backing;
	struct thpswap_clusters clusters;
	struct thpswap_pcpu_stats __percpu *stats;
	struct dentry *debugfs;
	/* Set once remove has begun; opens then fail.  @disk->open_mutex. */
	bool removing;
};

/*
 * May sleep.  Creates and adds a device; on success stores it in *@out if
 * @out is not NULL.  The pointer stays valid until the device is removed.
 * Returns 0, -EINVAL (bad config), -EEXIST (index in use), -ENOSPC (no
 * free index), -ENOMEM, -EBUSY (memmap range claimed) or another errno.
 */
int thpswap_dev_create(const struct thpswap_dev_config *cfg,
		       struct thpswap_dev **out);
/* May sleep.  Returns 0, -ENODEV, or -EBUSY while the device is open. */
int thpswap_dev_remove(int index);

/* Module init/exit: the block major, and removing every device at exit. */
int thpswap_devices_init(void);
void thpswap_devices_exit(void);

#endif /* _THPSWAP_DEVICE_H */
