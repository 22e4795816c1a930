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

#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/thpswap.h>

#include "backing.h"
#include "clusters.h"
#include "stats.h"

/* THPSWAP_MAX_DEVICES is the uapi's. */
/* Cluster 0 holds the swap header and is never huge: two clusters minimum. */
#define THPSWAP_MIN_SIZE	(2 * THPSWAP_CHUNK_SIZE)
/*
 * Upper bound on any device, so that the per-cluster arrays stay well
 * below kvmalloc()'s INT_MAX limit and cluster numbers fit the u32s of
 * the netlink attributes.  RAM-backed devices are further limited to the
 * RAM there is: asking for more fails at once instead of after reclaiming
 * everything (-ENOMEM).
 */
#define THPSWAP_MAX_SIZE	(16ULL << 40)

struct thpswap_dev_config {
	/* Device number N of /dev/thpswapN, or -1 for the lowest free one. */
	int index;
	/* Bytes; a multiple of 2 MiB and at least THPSWAP_MIN_SIZE. */
	u64 size;
	enum thpswap_backing_kind backing;
	/* THPSWAP_BACKING_MEMMAP: start of the memmap=SIZE!ADDR range. */
	phys_addr_t backing_phys;
	/*
	 * THPSWAP_BACKING_RAM: the NUMA node to take every chunk from, or
	 * NUMA_NO_NODE (-1) for anywhere.  Must be NUMA_NO_NODE for MEMMAP.
	 * Callers set it explicitly: 0 is a node.
	 */
	int node;
	/*
	 * Out: on -ENOMEM from the memory budget, or -ENODEV for a node
	 * that is not there or has no memory, why (a static string for an
	 * extack message); else left alone.
	 */
	const char *errmsg;
};

/*
 * One device.  Everything but @removing is set up before the disk is
 * added and torn down after it is deleted, so the I/O path, sysfs and
 * debugfs use it without locks.
 */
struct thpswap_dev {
	int index;
	/*
	 * Unique among all devices since the module was loaded (an index is
	 * reused): what a dump that spans several requests holds on to.
	 */
	u64 serial;
	sector_t nr_sectors;		/* capacity in 512-byte sectors */
	unsigned long nr_slots;		/* capacity in 4 KiB swap slots */
	struct gendisk *disk;
	struct thpswap_backing backing;
	struct thpswap_clusters clusters;
	struct thpswap_pcpu_stats __percpu *stats;
	/*
	 * Memmap devices only (@disk->bb points here, which is what shows it
	 * in /sys/block/thpswapN/badblocks and what the I/O path tests): the
	 * sectors known bad, as pmem keeps them.  A read that touches one
	 * fails; a read whose copy hits poison adds its slot; a write clears
	 * what it wrote.  Its table page is allocated at creation; it has its
	 * own seqlock, taken without sleeping.
	 */
	struct badblocks badblocks;
	struct dentry *debugfs;
	/*
	 * Sends the CLUSTER_CHANGE notifications of @clusters.changed;
	 * queued from the cluster hooks, cancelled before the device is
	 * freed.  @events_dropped and @events_coalesced are only touched by
	 * this work (which never runs concurrently with itself).
	 */
	struct delayed_work events_work;
	u64 events_dropped;
	u64 events_coalesced;
	/* Set once remove has begun; opens then fail.  @disk->open_mutex. */
	bool removing;
};

/*
 * May sleep, for long: allocates and zeroes the whole device, without
 * holding the device table lock (the index stays reserved meanwhile), and
 * gives up with -EINTR when the caller gets a fatal signal.  Creates and
 * adds a device; on success stores its index in *@index if @index is not
 * NULL (the device may be removed again as soon as this returns: look it
 * up under the lock to use it).  Returns 0, -EINVAL (bad config), -EEXIST
 * (index in use or being created), -ENOSPC (no free index), -ENODEV (with
 * @cfg->errmsg: no such node, or no memory on it), -ENOMEM (with
 * @cfg->errmsg set when the memory budget refused it), -EBUSY (memmap
 * range claimed), -EINTR or another errno.
 */
int thpswap_dev_create(struct thpswap_dev_config *cfg, int *index);
/* May sleep.  Returns 0, -ENODEV, or -EBUSY while the device is open. */
int thpswap_dev_remove(int index);

/*
 * The device table lock, for the control plane: while it is held, a
 * device found with thpswap_dev_find() or thpswap_dev_next() cannot be
 * removed.  Held only briefly, never across the allocation of a device.
 * Lock order: this, then a disk's open_mutex.  May sleep.
 */
void thpswap_devices_lock(void);
void thpswap_devices_unlock(void);
/* NULL if there is no device @index.  Lock held. */
struct thpswap_dev *thpswap_dev_find(int index);
/* The device with the lowest index >= *@index, or NULL.  Lock held. */
struct thpswap_dev *thpswap_dev_next(int *index);
/* Changes whenever a device is added or removed.  Lock held. */
u32 thpswap_devices_generation(void);
/*
 * May sleep.  Waits for every device's events work, after
 * thpswap_events_disable(): the works are the devices', so device.c, not
 * events.c, walks the table.
 */
void thpswap_devices_cancel_events(void);

/*
 * What the layers above want to hear of a device's life: set once by
 * main.c, so that device.c calls nothing above it (the netlink events call
 * down into the device table, and a call back up would close a circle).
 * Every member is required.
 */
struct thpswap_dev_hooks {
	/* The clusters' on_change hook; under a cluster lock, does not sleep. */
	void (*cluster_changed)(struct thpswap_clusters *c, unsigned long idx);
	/* The function of each device's @events_work; may sleep. */
	work_func_t events_work;
	/* After a device was added; table lock held, may sleep. */
	void (*dev_added)(struct thpswap_dev *dev);
	/* After device @index was deleted; table lock held, may sleep. */
	void (*dev_removed)(int index);
};

/*
 * Module init/exit: the block major and the hooks (@hooks must outlive
 * every device), and removing every device at exit.  May sleep.
 */
int thpswap_devices_init(const struct thpswap_dev_hooks *hooks);
void thpswap_devices_exit(void);

#endif /* _THPSWAP_DEVICE_H */
