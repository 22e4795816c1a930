/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap debugfs: /sys/kernel/debug/thpswap/thpswapN/.  Failures are
 * ignored, as debugfs wants: nothing depends on these files.
 */
#ifndef _THPSWAP_DEBUGFS_H
#define _THPSWAP_DEBUGFS_H

#include <linux/types.h>

struct thpswap_dev;

void thpswap_debugfs_init(void);
void thpswap_debugfs_exit(void);
void thpswap_debugfs_add_dev(struct thpswap_dev *dev);
/* May sleep: waits for readers of the device's files to finish. */
void thpswap_debugfs_remove_dev(struct thpswap_dev *dev);

#endif /* _THPSWAP_DEBUGFS_H */
