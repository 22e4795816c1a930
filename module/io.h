/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap I/O: the block_device_operations entry points that move data.
 * None of them sleeps or allocates.
 */
#ifndef _THPSWAP_IO_H
#define _THPSWAP_IO_H

#include <linux/blkdev.h>

void thpswap_submit_bio(struct bio *bio);
int thpswap_rw_page(struct block_device *bdev, sector_t sector,
		    struct page *page, enum req_op op);
void thpswap_swap_slot_free_notify(struct block_device *bdev,
				   unsigned long offset);
void thpswap_swap_cluster_notify(struct block_device *bdev,
				 unsigned long cluster,
				 enum swap_cluster_event event);

#endif /* _THPSWAP_IO_H */
