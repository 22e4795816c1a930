// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap debugfs.
 *
 * cluster_map: one character per cluster ('.' free, 'H' huge, 'S' split,
 * 's' small), 64 clusters per line, each line starting with the index of
 * its first cluster:
 *        0 s.HHHH...
 *       64 ................................................................
 *
 * inject_badblocks (memmap devices, write-only, root): "SECTOR COUNT" marks
 * COUNT 512-byte sectors from SECTOR bad, as poison found in the range
 * would: reads touching them fail with -EIO until a write covers them.
 * The sectors must lie inside the device.  /sys/block/thpswapN/badblocks
 * lists them.
 *
 * fail_read (kernels with CONFIG_FAULT_INJECTION_DEBUG_FS): published here,
 * kept in faults.c beside the I/O path that consults it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/badblocks.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "debugfs.h"
#include "device.h"
#include "faults.h"

#define THPSWAP_MAP_PER_LINE	64

static struct dentry *thpswap_debugfs_root;

/* The seq_file position is the line number. */
static void *thpswap_cluster_map_start(struct seq_file *m, loff_t *pos)
{
	struct thpswap_dev *dev = m->private;
	loff_t lines = DIV_ROUND_UP(dev->clusters.nr, THPSWAP_MAP_PER_LINE);

	if (*pos < 0 || *pos >= lines)
		return NULL;
	return pos;
}

static void *thpswap_cluster_map_next(struct seq_file *m, void *v,
				      loff_t *pos)
{
	++*pos;
	return thpswap_cluster_map_start(m, pos);
}

static void thpswap_cluster_map_stop(struct seq_file *m, void *v)
{
}

static int thpswap_cluster_map_show(struct seq_file *m, void *v)
{
	struct thpswap_dev *dev = m->private;
	unsigned long first = *(loff_t *)v * THPSWAP_MAP_PER_LINE;
	u8 states[THPSWAP_MAP_PER_LINE];
	unsigned long i, n;

	n = thpswap_clusters_get(&dev->clusters, first, THPSWAP_MAP_PER_LINE,
				 states, NULL);
	seq_printf(m, "%8lu ", first);
	for (i = 0; i < n; i++)
		seq_putc(m, thpswap_cluster_state_char(states[i]));
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations thpswap_cluster_map_sops = {
	.start = thpswap_cluster_map_start,
	.next = thpswap_cluster_map_next,
	.stop = thpswap_cluster_map_stop,
	.show = thpswap_cluster_map_show,
};

DEFINE_SEQ_ATTRIBUTE(thpswap_cluster_map);

/* May sleep. */
static ssize_t thpswap_inject_badblocks_write(struct file *file,
					      const char __user *ubuf,
					      size_t count, loff_t *ppos)
{
	struct thpswap_dev *dev = file->private_data;
	unsigned long long sector;
	unsigned int nr;
	char buf[48];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%llu %u", &sector, &nr) != 2 || !nr ||
	    nr > INT_MAX || sector >= dev->nr_sectors ||
	    nr > dev->nr_sectors - sector)
		return -EINVAL;
	if (badblocks_set(dev->disk->bb, sector, nr, 1))
		return -ENOSPC;
	return count;
}

static const struct file_operations thpswap_inject_badblocks_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = thpswap_inject_badblocks_write,
	.llseek = no_llseek,
};

void thpswap_debugfs_init(void)
{
	thpswap_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	thpswap_faults_debugfs_init(thpswap_debugfs_root);
}

void thpswap_debugfs_exit(void)
{
	debugfs_remove_recursive(thpswap_debugfs_root);
	thpswap_debugfs_root = NULL;
}

void thpswap_debugfs_add_dev(struct thpswap_dev *dev)
{
	dev->debugfs = debugfs_create_dir(dev->disk->disk_name,
					  thpswap_debugfs_root);
	debugfs_create_file("cluster_map", 0444, dev->debugfs, dev,
			    &thpswap_cluster_map_fops);
	if (dev->disk->bb)
		debugfs_create_file("inject_badblocks", 0200, dev->debugfs, dev,
				    &thpswap_inject_badblocks_fops);
}

void thpswap_debugfs_remove_dev(struct thpswap_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}
