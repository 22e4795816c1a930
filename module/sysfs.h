/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap sysfs: /sys/block/thpswapN/thpswap/, added with the disk.
 */
#ifndef _THPSWAP_SYSFS_H
#define _THPSWAP_SYSFS_H

#include <linux/sysfs.h>

extern const struct attribute_group *thpswap_disk_groups[];

#endif /* _THPSWAP_SYSFS_H */
