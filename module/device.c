// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap devices: create, remove, the gendisk and its queue limits.
 *
 * Lifetime: a device is built completely (backing store, cluster map,
 * counters) before its disk is added, and the disk is deleted before any of
 * it is freed.  del_gendisk() drains in-flight I/O (bios and rw_page both
 * enter the queue), removes the sysfs files and waits for their readers;
 * the debugfs files are removed first, which waits for theirs.  While the
 * disk is open (swapon holds it open) the device cannot be removed, and
 * the open pins this module through fops->owner.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/slab.h>

#include "debugfs.h"
#include "device.h"
#include "io.h"
#include "sysfs.h"

/*
 * Devices by index.  thpswap_devices_mutex protects thpswap_devices, the
 * generation, the serial and the RAM budget below.  A creation reserves
 * its index (a NULL entry) and its share of the budget under the mutex,
 * drops it to allocate and zero the store (seconds to minutes for a big
 * device: nobody else should wait for that), and takes it again to add
 * the disk.  A removal holds it throughout, so an index (and the disk
 * name) is reused only once the old disk is gone.
 * Lock order: thpswap_devices_mutex, then a disk's open_mutex.
 */
static DEFINE_IDR(thpswap_devices);
static DEFINE_MUTEX(thpswap_devices_mutex);
static int thpswap_major;	/* set at module init */
/* Set at module init, read-only after: see struct thpswap_dev_hooks. */
static const struct thpswap_dev_hooks *thpswap_hooks;
/* Changes on every add and remove; thpswap_devices_mutex. */
static u32 devices_generation = 1;
/* Last thpswap_dev.serial handed out; thpswap_devices_mutex. */
static u64 devices_serial;
/*
 * Bytes of RAM held or being allocated by RAM-backed devices, those being
 * created included, in all and per NUMA node for the devices bound to
 * one; thpswap_devices_mutex.
 */
static u64 devices_ram;
static u64 devices_ram_node[MAX_NUMNODES];

/*
 * May sleep; called with @bdev->bd_disk->open_mutex held, which is what
 * makes the check against thpswap_dev_remove() race-free.
 */
static int thpswap_open(struct block_device *bdev, fmode_t mode)
{
	struct thpswap_dev *dev = bdev->bd_disk->private_data;

	lockdep_assert_held(&bdev->bd_disk->open_mutex);
	if (dev->removing)
		return -ENXIO;
	return 0;
}

static const struct block_device_operations thpswap_fops = {
	.owner = THIS_MODULE,
	.open = thpswap_open,
	.submit_bio = thpswap_submit_bio,
	/* Having rw_page is what makes swap treat us as SWP_SYNCHRONOUS_IO. */
	.rw_page = thpswap_rw_page,
	.swap_slot_free_notify = thpswap_swap_slot_free_notify,
	THPSWAP_FOPS_SWAP_CLUSTER_NOTIFY(thpswap_swap_cluster_notify)
};

static int thpswap_check_config(const struct thpswap_dev_config *cfg)
{
	if (cfg->index < -1 || cfg->index >= THPSWAP_MAX_DEVICES)
		return -EINVAL;
	if (cfg->size < THPSWAP_MIN_SIZE || cfg->size > THPSWAP_MAX_SIZE ||
	    !IS_ALIGNED(cfg->size, THPSWAP_CHUNK_SIZE))
		return -EINVAL;
	if (cfg->backing != THPSWAP_BACKING_RAM &&
	    cfg->backing != THPSWAP_BACKING_MEMMAP)
		return -EINVAL;
	/* Before anything is allocated for a range that cannot exist. */
	if (cfg->backing == THPSWAP_BACKING_MEMMAP &&
	    (u64)cfg->backing_phys + cfg->size - 1 < cfg->backing_phys)
		return -EINVAL;
	if (cfg->node < NUMA_NO_NODE)
		return -EINVAL;
	if (cfg->backing != THPSWAP_BACKING_RAM && cfg->node != NUMA_NO_NODE)
		return -EINVAL;
	return 0;
}

/*
 * Does not sleep.  A node given for a RAM backing must exist and have
 * memory: -ENODEV with @cfg->errmsg otherwise.  A node that is online
 * stays so while we hold it (offlining needs its memory free first, and
 * our chunks are unmovable); nothing here races with that beyond a
 * failed allocation, which is reported as such.
 */
static int thpswap_check_node(struct thpswap_dev_config *cfg)
{
	int node = cfg->node;

	if (node == NUMA_NO_NODE)
		return 0;
	if (node >= MAX_NUMNODES || !node_online(node)) {
		pr_err("node=%d: no such NUMA node (%d online)\n", node,
		       num_online_nodes());
		cfg->errmsg = "THPSWAP_A_DEV_NODE: no such NUMA node";
		return -ENODEV;
	}
	if (!node_state(node, N_MEMORY)) {
		pr_err("node=%d: the NUMA node has no memory\n", node);
		cfg->errmsg = "THPSWAP_A_DEV_NODE: the NUMA node has no memory";
		return -ENODEV;
	}
	return 0;
}

/*
 * The RAM budget: all RAM-backed devices together may hold at most
 * THPSWAP_RAM_SHARE of the machine's RAM, and a new one may take at most
 * what is available now less the rest, so that the system keeps a margin
 * of its memory however many devices an administrator asks for.  A swap
 * device that takes the memory it was meant to relieve helps nobody.
 * A device bound to a node must in addition fit the same rule on that
 * node alone, counted with the node's managed and free memory (free, not
 * "available": page cache on a far node is no promise that a 2 MiB chunk
 * can be had there, and no other node may stand in).
 */
#define THPSWAP_RAM_SHARE_NUM	3
#define THPSWAP_RAM_SHARE_DEN	4

/* The extack message of a node the device does not fit on. */
static const char *const thpswap_node_nomem_msg[] = {
	"THPSWAP_A_DEV_NODE: not enough free memory on the NUMA node (devices there may take 3/4 of it, leaving 1/4 free)",
};

/* Called with thpswap_devices_mutex held; -ENOMEM with @cfg->errmsg. */
static int thpswap_ram_reserve(struct thpswap_dev_config *cfg)
{
	u64 total = (u64)totalram_pages() << PAGE_SHIFT;
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;
	u64 margin = total - div_u64(total * THPSWAP_RAM_SHARE_NUM,
				     THPSWAP_RAM_SHARE_DEN);

	lockdep_assert_held(&thpswap_devices_mutex);
	if (cfg->backing != THPSWAP_BACKING_RAM)
		return 0;
	if (cfg->node != NUMA_NO_NODE) {
		u64 ntotal = thpswap_node_managed_bytes(cfg->node);
		u64 nfree = thpswap_node_free_bytes(cfg->node);
		u64 nmargin = ntotal - div_u64(ntotal * THPSWAP_RAM_SHARE_NUM,
					       THPSWAP_RAM_SHARE_DEN);

		if (devices_ram_node[cfg->node] + cfg->size > ntotal - nmargin ||
		    cfg->size + nmargin > nfree) {
			pr_err("node=%d: %llu MiB do not fit: the node has %llu MiB, %llu MiB free, %llu MiB held by devices; at most 3/4 of it, keeping 1/4 free\n",
			       cfg->node, cfg->size >> 20, ntotal >> 20,
			       nfree >> 20, devices_ram_node[cfg->node] >> 20);
			cfg->errmsg = thpswap_node_nomem_msg[0];
			return -ENOMEM;
		}
	}
	if (devices_ram + cfg->size > total - margin) {
		cfg->errmsg =
			"THPSWAP_A_DEV_SIZE: not enough memory: RAM devices would pass 3/4 of RAM";
		return -ENOMEM;
	}
	if (cfg->size + margin > avail) {
		cfg->errmsg =
			"THPSWAP_A_DEV_SIZE: not enough memory: over what is free less 1/4 of RAM";
		return -ENOMEM;
	}
	devices_ram += cfg->size;
	if (cfg->node != NUMA_NO_NODE)
		devices_ram_node[cfg->node] += cfg->size;
	return 0;
}

/* Called with thpswap_devices_mutex held. */
static void thpswap_ram_unreserve(enum thpswap_backing_kind kind, u64 size,
				  int node)
{
	lockdep_assert_held(&thpswap_devices_mutex);
	if (kind != THPSWAP_BACKING_RAM)
		return;
	devices_ram -= size;
	if (node != NUMA_NO_NODE)
		devices_ram_node[node] -= size;
}

static void thpswap_set_limits(struct request_queue *q)
{
	/* A slot is a page: never let the block layer hand us less. */
	blk_queue_logical_block_size(q, PAGE_SIZE);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_io_min(q, PAGE_SIZE);
	/*
	 * We never split bios, and a 2 MiB THP must fit one: no limit but
	 * the bio's own, as pmem.
	 */
	blk_queue_max_hw_sectors(q, UINT_MAX);
	blk_queue_max_segment_size(q, UINT_MAX);
	q->limits.discard_granularity = PAGE_SIZE;
	blk_queue_max_discard_sectors(q, UINT_MAX);
	blk_queue_max_write_zeroes_sectors(q, UINT_MAX);
	/* Without NONROT, swap allocates no clusters, so no huge ones. */
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	/* submit_bio never sleeps: see thpswap_submit_bio(). */
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	/*
	 * No volatile write cache: every write ends with a store barrier
	 * before it completes, so the default (write-through) is the truth.
	 */
}

/* May sleep; called with thpswap_devices_mutex held. */
static int thpswap_add_disk(struct thpswap_dev *dev)
{
	struct gendisk *disk;
	int err;

	disk = blk_alloc_disk(NUMA_NO_NODE);
	if (!disk)
		return -ENOMEM;
	disk->major = thpswap_major;
	disk->first_minor = dev->index;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &thpswap_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, KBUILD_MODNAME "%d",
		 dev->index);
	set_capacity(disk, dev->nr_sectors);
	thpswap_set_limits(disk->queue);
	if (dev->backing.kind == THPSWAP_BACKING_MEMMAP)
		disk->bb = &dev->badblocks;

	/* Set before the disk is visible: sysfs and debugfs read it. */
	dev->disk = disk;
	err = device_add_disk(NULL, disk, thpswap_disk_groups);
	if (err) {
		dev->disk = NULL;
		put_disk(disk);
		return err;
	}
	return 0;
}

/* May sleep.  Frees what thpswap_dev_create() built, in reverse. */
static void thpswap_dev_free(struct thpswap_dev *dev)
{
	if (dev->stats)
		thpswap_stats_free(dev->stats);
	badblocks_exit(&dev->badblocks);
	thpswap_clusters_destroy(&dev->clusters);
	thpswap_backing_destroy(&dev->backing);
	kfree(dev);
}

/*
 * May sleep; called with thpswap_devices_mutex held, after the device was
 * found unopened and marked removing (or at module exit, when nobody can
 * hold it open).
 */
static void thpswap_dev_destroy(struct thpswap_dev *dev)
{
	lockdep_assert_held(&thpswap_devices_mutex);
	pr_info("%s: removing\n", dev->disk->disk_name);
	thpswap_debugfs_remove_dev(dev);
	del_gendisk(dev->disk);
	/* No I/O from here on, so nothing queues the events work again. */
	cancel_delayed_work_sync(&dev->events_work);
	put_disk(dev->disk);
	idr_remove(&thpswap_devices, dev->index);
	thpswap_ram_unreserve(dev->backing.kind, dev->backing.size,
			      dev->backing.node);
	devices_generation++;
	thpswap_hooks->dev_removed(dev->index);
	thpswap_dev_free(dev);
}

int thpswap_dev_create(struct thpswap_dev_config *cfg, int *index)
{
	struct thpswap_dev *dev;
	int start, end, err;

	err = thpswap_check_config(cfg);
	if (err)
		return err;
	err = thpswap_check_node(cfg);
	if (err)
		return err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->nr_sectors = cfg->size >> SECTOR_SHIFT;
	dev->nr_slots = cfg->size >> PAGE_SHIFT;
	INIT_DELAYED_WORK(&dev->events_work, thpswap_hooks->events_work);

	err = mutex_lock_killable(&thpswap_devices_mutex);
	if (err)
		goto err_free;
	start = cfg->index < 0 ? 0 : cfg->index;
	end = cfg->index < 0 ? THPSWAP_MAX_DEVICES : cfg->index + 1;
	/* NULL until complete: nobody may find a half-built device. */
	err = idr_alloc(&thpswap_devices, NULL, start, end, GFP_KERNEL);
	if (err < 0) {
		if (err == -ENOSPC && cfg->index >= 0)
			err = -EEXIST;
		goto err_unlock;
	}
	dev->index = err;
	err = thpswap_ram_reserve(cfg);
	if (err) {
		idr_remove(&thpswap_devices, dev->index);
		goto err_unlock;
	}
	dev->serial = ++devices_serial;
	mutex_unlock(&thpswap_devices_mutex);

	/* The long part, unlocked; the index and the budget are ours. */
	err = thpswap_backing_init(&dev->backing, cfg->backing, cfg->size,
				   cfg->backing_phys, cfg->node);
	if (err)
		goto err_unreserve;
	err = thpswap_clusters_init(&dev->clusters,
				    cfg->size >> THPSWAP_CHUNK_SHIFT);
	if (err)
		goto err_unreserve;
	/* Before the disk is added: no I/O can see the hook change. */
	dev->clusters.on_change = thpswap_hooks->cluster_changed;
	dev->stats = thpswap_stats_alloc();
	if (!dev->stats) {
		err = -ENOMEM;
		goto err_unreserve;
	}
	/* A page for the table, here: the I/O path never allocates. */
	if (cfg->backing == THPSWAP_BACKING_MEMMAP) {
		err = badblocks_init(&dev->badblocks, 1);
		if (err)
			goto err_unreserve;
	}

	/* Not killable: what is built is ours to add or to undo. */
	mutex_lock(&thpswap_devices_mutex);
	err = thpswap_add_disk(dev);
	if (err)
		goto err_idr;
	thpswap_debugfs_add_dev(dev);
	idr_replace(&thpswap_devices, dev, dev->index);
	thpswap_hooks->dev_added(dev);
	devices_generation++;
	if (index)
		*index = dev->index;
	mutex_unlock(&thpswap_devices_mutex);

	/* The address goes to the log, which only root may read (dmesg_restrict). */
	if (cfg->backing == THPSWAP_BACKING_MEMMAP)
		pr_info("%s: %llu MiB on memmap range at %pa, copy %llu MB/s\n",
			dev->disk->disk_name, cfg->size >> 20,
			&cfg->backing_phys, dev->backing.copy_bw_mbps);
	else if (cfg->node != NUMA_NO_NODE)
		pr_info("%s: %llu MiB of RAM on node %d in 2 MiB chunks, copy %llu MB/s\n",
			dev->disk->disk_name, cfg->size >> 20, cfg->node,
			dev->backing.copy_bw_mbps);
	else
		pr_info("%s: %llu MiB of RAM in 2 MiB chunks, copy %llu MB/s\n",
			dev->disk->disk_name, cfg->size >> 20,
			dev->backing.copy_bw_mbps);
	return 0;

err_unreserve:
	mutex_lock(&thpswap_devices_mutex);
err_idr:
	idr_remove(&thpswap_devices, dev->index);
	thpswap_ram_unreserve(cfg->backing, cfg->size, cfg->node);
err_unlock:
	mutex_unlock(&thpswap_devices_mutex);
err_free:
	thpswap_dev_free(dev);
	return err;
}

int thpswap_dev_remove(int index)
{
	struct thpswap_dev *dev;
	int err = 0;

	mutex_lock(&thpswap_devices_mutex);
	dev = idr_find(&thpswap_devices, index);
	if (!dev) {
		err = -ENODEV;
		goto out_unlock;
	}

	/*
	 * Under open_mutex, so that no open slips in between the check and
	 * the flag; thpswap_open() refuses from here on, and del_gendisk()
	 * makes that final.
	 */
	mutex_lock(&dev->disk->open_mutex);
	if (disk_openers(dev->disk)) {
		mutex_unlock(&dev->disk->open_mutex);
		err = -EBUSY;
		goto out_unlock;
	}
	dev->removing = true;
	mutex_unlock(&dev->disk->open_mutex);

	thpswap_dev_destroy(dev);
out_unlock:
	mutex_unlock(&thpswap_devices_mutex);
	return err;
}

void thpswap_devices_lock(void)
{
	mutex_lock(&thpswap_devices_mutex);
}

void thpswap_devices_unlock(void)
{
	mutex_unlock(&thpswap_devices_mutex);
}

struct thpswap_dev *thpswap_dev_find(int index)
{
	lockdep_assert_held(&thpswap_devices_mutex);
	if (index < 0 || index >= THPSWAP_MAX_DEVICES)
		return NULL;
	/* NULL while a device is being built: not found until complete. */
	return idr_find(&thpswap_devices, index);
}

struct thpswap_dev *thpswap_dev_next(int *index)
{
	struct thpswap_dev *dev;

	lockdep_assert_held(&thpswap_devices_mutex);
	if (*index < 0)
		return NULL;
	/* idr_get_next() skips the NULL placeholders of half-built ones. */
	dev = idr_get_next(&thpswap_devices, index);
	return dev;
}

u32 thpswap_devices_generation(void)
{
	lockdep_assert_held(&thpswap_devices_mutex);
	return devices_generation;
}

void thpswap_devices_cancel_events(void)
{
	struct thpswap_dev *dev;
	int index;

	mutex_lock(&thpswap_devices_mutex);
	idr_for_each_entry(&thpswap_devices, dev, index)
		cancel_delayed_work_sync(&dev->events_work);
	mutex_unlock(&thpswap_devices_mutex);
}

int thpswap_devices_init(const struct thpswap_dev_hooks *hooks)
{
	/* Slots are pages and our logical block is a slot: 4 KiB. */
	BUILD_BUG_ON(PAGE_SIZE != SZ_4K);
	BUILD_BUG_ON(THPSWAP_SLOTS_PER_CLUSTER != 512);

	thpswap_hooks = hooks;
	thpswap_major = register_blkdev(0, KBUILD_MODNAME);
	if (thpswap_major < 0)
		return thpswap_major;
	return 0;
}

void thpswap_devices_exit(void)
{
	struct thpswap_dev *dev;
	int index;

	mutex_lock(&thpswap_devices_mutex);
	idr_for_each_entry(&thpswap_devices, dev, index)
		thpswap_dev_destroy(dev);
	mutex_unlock(&thpswap_devices_mutex);
	idr_destroy(&thpswap_devices);
	unregister_blkdev(thpswap_major, KBUILD_MODNAME);
}
