// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap sysfs: /sys/block/thpswapN/thpswap/.  Read-only but for
 * reset_stats; configuration belongs to the control plane.
 *
 * stats         "name value" lines: "version 1", then every stat in
 *               enum thpswap_stat order (uapi).  New keys are only ever
 *               appended.
 * clusters      "total N", then "free N", "huge N", "split N", "small N".
 * reset_stats   write "1" to zero the counters (not the cluster states).
 * copy_bw_mbps  memcpy_flushcache bandwidth into the store, integer MB/s
 *               (1 MB = 10^6 bytes), measured once when the device was
 *               created: reading costs nothing.
 * backing       "ram", or "memmap 0x<physical address>" to a reader with
 *               CAP_SYS_ADMIN and "memmap" to anyone else (as /proc/iomem
 *               hides addresses).
 * copy_read_bw_mbps  reading measures the swap-in copy, 2 MiB read in the
 *               4 KiB pieces of the read path (~50 ms), integer MB/s;
 *               root only (0400), as each read costs 50 ms of CPU.
 *
 * Every file but copy_read_bw_mbps (root only) is read without allocating
 * or taking a lock beyond what the snapshot functions take.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "device.h"
#include "sysfs.h"

static struct thpswap_dev *thpswap_dev_of(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

static ssize_t stats_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	u64 v[THPSWAP_NR_STATS];
	int len, i;

	thpswap_stats_snapshot(thpswap_dev_of(d), v);
	len = sysfs_emit(buf, "version %d\n", THPSWAP_STATS_VERSION);
	for (i = 0; i < THPSWAP_NR_STATS; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n",
				     thpswap_stat_names[i], v[i]);
	return len;
}
static DEVICE_ATTR_RO(stats);

static ssize_t clusters_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct thpswap_cluster_counts cc;

	thpswap_clusters_summary(&thpswap_dev_of(d)->clusters, &cc);
	return sysfs_emit(buf, "total %lu\nfree %lu\nhuge %lu\nsplit %lu\nsmall %lu\n",
			  cc.total,
			  cc.nr_state[THPSWAP_CLUSTER_FREE],
			  cc.nr_state[THPSWAP_CLUSTER_HUGE],
			  cc.nr_state[THPSWAP_CLUSTER_SPLIT],
			  cc.nr_state[THPSWAP_CLUSTER_SMALL]);
}
static DEVICE_ATTR_RO(clusters);

static ssize_t reset_stats_store(struct device *d,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	/*
	 * The mode (0200) admits uid 0, which a process may have without
	 * privilege (root of a user namespace set up by root): ask for the
	 * capability, as the ioctl and netlink resets do.
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	thpswap_stats_reset(thpswap_dev_of(d));
	return count;
}
static DEVICE_ATTR_WO(reset_stats);

static ssize_t copy_bw_mbps_show(struct device *d,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  thpswap_dev_of(d)->backing.copy_bw_mbps);
}
static DEVICE_ATTR_RO(copy_bw_mbps);

static ssize_t copy_read_bw_mbps_show(struct device *d,
				      struct device_attribute *attr, char *buf)
{
	u64 mbps;
	int err;

	err = thpswap_backing_read_bw(&thpswap_dev_of(d)->backing, &mbps);
	if (err)
		return err;
	return sysfs_emit(buf, "%llu\n", mbps);
}
static DEVICE_ATTR_ADMIN_RO(copy_read_bw_mbps);

static ssize_t backing_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	const struct thpswap_backing *b = &thpswap_dev_of(d)->backing;

	if (b->kind != THPSWAP_BACKING_MEMMAP)
		return sysfs_emit(buf, "ram\n");
	/* Checked against the reader, as /proc/iomem and %pK do. */
	if (!capable(CAP_SYS_ADMIN))
		return sysfs_emit(buf, "memmap\n");
	return sysfs_emit(buf, "memmap 0x%llx\n", (u64)b->phys);
}
static DEVICE_ATTR_RO(backing);

static struct attribute *thpswap_attrs[] = {
	&dev_attr_stats.attr,
	&dev_attr_clusters.attr,
	&dev_attr_reset_stats.attr,
	&dev_attr_copy_bw_mbps.attr,
	&dev_attr_backing.attr,
	&dev_attr_copy_read_bw_mbps.attr,
	NULL,
};

static const struct attribute_group thpswap_attr_group = {
	.name = "thpswap",
	.attrs = thpswap_attrs,
};

const struct attribute_group *thpswap_disk_groups[] = {
	&thpswap_attr_group,
	NULL,
};
