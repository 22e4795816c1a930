// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap I/O: rw_page (the swap fast path, whole THPs included) and
 * submit_bio (everything else: mkswap, dd, the kernel's bio fallback).
 *
 * Both end in backing.c with byte ranges split at 2 MiB chunk boundaries,
 * so a THP at an aligned device offset is exactly one copy.  Nothing here
 * allocates, sleeps or takes a lock other than a cluster's spinlock for a
 * few instructions, or the badblocks seqlock of a memmap device.  Requests
 * are validated whole before any byte moves: a request partly outside the
 * device, or a read touching a bad sector, fails without touching anything.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/badblocks.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cacheflush.h>
#include <linux/highmem.h>
#include <linux/huge_mm.h>
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "device.h"
#include "faults.h"
#include "io.h"

#define THPSWAP_SLOT_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)

/*
 * Does not sleep.  True when [@sector, @sector + @len bytes) is a whole
 * number of 4 KiB slots inside the device.  Written not to overflow for any
 * @sector and @len.
 */
static bool thpswap_io_valid(const struct thpswap_dev *dev, sector_t sector,
			     u64 len)
{
	if (!IS_ALIGNED(sector, THPSWAP_SLOT_SECTORS) ||
	    !IS_ALIGNED(len, PAGE_SIZE))
		return false;
	return sector < dev->nr_sectors &&
	       (len >> SECTOR_SHIFT) <= dev->nr_sectors - sector;
}

/*
 * Does not sleep.  While the device is swapped on and the kernel reports
 * what it does with the clusters (swap_cluster_notify()), the states are the
 * kernel's and the I/O only tracks live slots; otherwise they are
 * inferred from the I/O.  swapon(2) marks the inode S_SWAPFILE.
 */
static bool thpswap_infer_states(struct thpswap_dev *dev)
{
	return !THPSWAP_KERNEL_CLUSTER_EVENTS ||
	       !IS_SWAPFILE(dev->disk->part0->bd_inode);
}

/*
 * Does not sleep.  True when [@sector, @sector + @len bytes) touches a
 * sector recorded bad (memmap devices only; RAM ones have no table).
 * Reading unlocked @bb->count first is what pmem does: a range being
 * recorded concurrently is as good as recorded just after the check.
 */
static bool thpswap_is_bad(const struct thpswap_dev *dev, sector_t sector,
			   u64 len)
{
	struct badblocks *bb = dev->disk->bb;
	sector_t first_bad;
	int nr_bad;

	return bb && bb->count &&
	       badblocks_check(bb, sector, len >> SECTOR_SHIFT, &first_bad,
			       &nr_bad);
}

/*
 * Does not sleep or allocate (the table is a page allocated at creation).
 * A copy that hit poison at device offset @bad: its 4 KiB slot (our
 * logical block) is bad from now on, so that later reads fail before they
 * touch the memory again, as they do on pmem once the poison is known.
 */
static void thpswap_note_bad(struct thpswap_dev *dev, u64 bad)
{
	struct badblocks *bb = dev->disk->bb;
	sector_t sector = round_down(bad, PAGE_SIZE) >> SECTOR_SHIFT;

	if (bb && badblocks_set(bb, sector, THPSWAP_SLOT_SECTORS, 1))
		pr_warn_ratelimited("%s: badblocks table full, sector %llu not recorded\n",
				    dev->disk->disk_name,
				    (unsigned long long)sector);
}

/*
 * Does not sleep or allocate.  Called once a write's data is in place and
 * visible: what it wrote is the caller's data now, whatever the memory
 * held before, so its sectors are good again (pmem clears its badblocks
 * the same way once it has cleared the poison).  If clearing the middle
 * of a range needs a table entry and the table is full, the range stays
 * bad: reads of it fail, which returns nothing stale.
 */
static void thpswap_clear_bad(struct thpswap_dev *dev, sector_t sector,
			      u64 len)
{
	if (thpswap_is_bad(dev, sector, len) &&
	    badblocks_clear(dev->disk->bb, sector, len >> SECTOR_SHIFT))
		pr_warn_ratelimited("%s: badblocks table full, sectors %llu+%llu stay bad\n",
				    dev->disk->disk_name,
				    (unsigned long long)sector,
				    len >> SECTOR_SHIFT);
}

/* Does not sleep.  Slots touched by a piece [@off, @off + @len), @len > 0. */
static unsigned int thpswap_piece_slots(u64 off, u32 len)
{
	return ((off + len - 1) >> PAGE_SHIFT) - (off >> PAGE_SHIFT) + 1;
}

/*
 * Does not sleep.  One piece of a write, inside one chunk.  A piece that
 * is a whole chunk is one copy of a whole, aligned 2 MiB buffer: that is
 * what makes a cluster HUGE.  @src NULL means write zeroes.
 */
static bool thpswap_write_piece(struct thpswap_dev *dev, u64 off,
				const void *src, u32 len)
{
	bool whole = src && len == THPSWAP_CHUNK_SIZE;

	if (src)
		thpswap_backing_write(&dev->backing, off, src, len);
	else
		thpswap_backing_zero(&dev->backing, off, len);
	thpswap_clusters_note_write(&dev->clusters, off >> PAGE_SHIFT,
				    thpswap_piece_slots(off, len), whole,
				    thpswap_infer_states(dev));
	return whole;
}

/* Does not sleep.  One piece of a read, inside one chunk. */
static int thpswap_read_piece(struct thpswap_dev *dev, u64 off, void *dst,
			      u32 len, bool *whole)
{
	u64 bad;
	int err;

	err = thpswap_backing_read(&dev->backing, off, dst, len, &bad);
	if (err) {
		thpswap_note_bad(dev, bad);
		return err;
	}
	*whole = len == THPSWAP_CHUNK_SIZE;
	thpswap_clusters_note_read(&dev->clusters, off >> PAGE_SHIFT,
				   thpswap_piece_slots(off, len),
				   thpswap_infer_states(dev));
	return 0;
}

/*
 * Does not sleep.  Moves [@off, @off + @len) between @buf and the device,
 * one piece per chunk, and counts whole-chunk pieces in *@nr_whole.
 * @op is REQ_OP_READ, REQ_OP_WRITE or REQ_OP_WRITE_ZEROES (@buf NULL).
 * Returns 0 or -EIO (poisoned memmap memory on read, now recorded bad).
 */
static int thpswap_do_range(struct thpswap_dev *dev, enum req_op op, u64 off,
			    void *buf, u64 len, unsigned int *nr_whole)
{
	bool whole;
	u32 n;
	int err;

	while (len) {
		n = min_t(u64, len, THPSWAP_CHUNK_SIZE - (off & THPSWAP_CHUNK_MASK));
		if (op == REQ_OP_READ) {
			err = thpswap_read_piece(dev, off, buf, n, &whole);
			if (err)
				return err;
		} else {
			whole = thpswap_write_piece(dev, off, buf, n);
		}
		*nr_whole += whole;
		off += n;
		len -= n;
		if (buf)
			buf += n;
	}
	return 0;
}

/*
 * Does not sleep.  Counts a request that moved @bytes, @nr_whole of them
 * as whole 2 MiB clusters and the rest as 4 KiB pages.
 */
static void thpswap_account(struct thpswap_dev *dev, bool write, u64 bytes,
			    unsigned int nr_whole)
{
	u64 small = (bytes - (u64)nr_whole * THPSWAP_CHUNK_SIZE) >> PAGE_SHIFT;

	if (write) {
		thpswap_stat_add(dev, THPSWAP_STAT_THP_WRITES, nr_whole);
		thpswap_stat_add(dev, THPSWAP_STAT_PAGE_WRITES, small);
		thpswap_stat_add(dev, THPSWAP_STAT_BYTES_WRITTEN, bytes);
	} else {
		thpswap_stat_add(dev, THPSWAP_STAT_THP_READS, nr_whole);
		thpswap_stat_add(dev, THPSWAP_STAT_PAGE_READS, small);
		thpswap_stat_add(dev, THPSWAP_STAT_BYTES_READ, bytes);
	}
}

/*
 * Does not sleep.  No-op on x86 and every other architecture without
 * aliasing data caches; keeps the copy correct where it is not.
 */
static void thpswap_flush_dcache_bvec(const struct bio_vec *bv)
{
	unsigned long i = bv->bv_offset >> PAGE_SHIFT;
	unsigned long last = (bv->bv_offset + bv->bv_len - 1) >> PAGE_SHIFT;

	for (; i <= last; i++)
		flush_dcache_page(nth_page(bv->bv_page, i));
}

/*
 * Does not sleep.  READ and WRITE bios.  Multi-page bvecs are used as they
 * come: a physically contiguous 2 MiB bvec (the kernel's bio fallback for a
 * THP) is still one copy.
 */
static blk_status_t thpswap_bio_rw(struct thpswap_dev *dev, struct bio *bio)
{
	enum req_op op = bio_op(bio);
	sector_t sector = bio->bi_iter.bi_sector;
	u64 bytes = bio->bi_iter.bi_size;
	unsigned int nr_whole = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	u64 off;
	int err;

	/* Our whole "cache" is the non-temporal stores of earlier writes. */
	if (bio->bi_opf & REQ_PREFLUSH)
		thpswap_backing_barrier();
	if (!bytes)
		return BLK_STS_OK;
	if (!thpswap_io_valid(dev, sector, bytes)) {
		thpswap_stat_inc(dev, THPSWAP_STAT_REJECTED);
		return BLK_STS_IOERR;
	}
	if (op == REQ_OP_READ && (thpswap_should_fail_read(bytes) ||
				  thpswap_is_bad(dev, sector, bytes)))
		return BLK_STS_IOERR;

	off = (u64)sector << SECTOR_SHIFT;
	bio_for_each_bvec(bv, bio, iter) {
		if (op == REQ_OP_WRITE)
			thpswap_flush_dcache_bvec(&bv);
		err = thpswap_do_range(dev, op, off, bvec_virt(&bv), bv.bv_len,
				       &nr_whole);
		if (err)
			return errno_to_blk_status(err);
		if (op == REQ_OP_READ)
			thpswap_flush_dcache_bvec(&bv);
		off += bv.bv_len;
	}
	if (op == REQ_OP_WRITE) {
		thpswap_backing_barrier();
		thpswap_clear_bad(dev, sector, bytes);
	}
	thpswap_account(dev, op == REQ_OP_WRITE, bytes, nr_whole);
	return BLK_STS_OK;
}

/*
 * Does not sleep.  The slots stop being live; their contents are left as
 * they are (we do not promise that discard zeroes, and the memory stays
 * ours).  Swap discards slots it no longer uses only with swapon --discard.
 */
static blk_status_t thpswap_bio_discard(struct thpswap_dev *dev,
					struct bio *bio)
{
	sector_t sector = bio->bi_iter.bi_sector;
	u64 bytes = bio->bi_iter.bi_size;

	if (!bytes)
		return BLK_STS_OK;
	if (!thpswap_io_valid(dev, sector, bytes)) {
		thpswap_stat_inc(dev, THPSWAP_STAT_REJECTED);
		return BLK_STS_IOERR;
	}
	thpswap_clusters_free_range(&dev->clusters,
				    sector / THPSWAP_SLOT_SECTORS,
				    bytes >> PAGE_SHIFT);
	thpswap_stat_inc(dev, THPSWAP_STAT_DISCARDS);
	return BLK_STS_OK;
}

/*
 * Does not sleep.  Zeroes are a write like any other: the slots are live
 * (never HUGE: no THP was written) and the pages count as page_writes.
 */
static blk_status_t thpswap_bio_write_zeroes(struct thpswap_dev *dev,
					     struct bio *bio)
{
	sector_t sector = bio->bi_iter.bi_sector;
	u64 bytes = bio->bi_iter.bi_size;
	unsigned int nr_whole = 0;

	if (!bytes)
		return BLK_STS_OK;
	if (!thpswap_io_valid(dev, sector, bytes)) {
		thpswap_stat_inc(dev, THPSWAP_STAT_REJECTED);
		return BLK_STS_IOERR;
	}
	thpswap_do_range(dev, REQ_OP_WRITE_ZEROES, (u64)sector << SECTOR_SHIFT,
			 NULL, bytes, &nr_whole);
	thpswap_backing_barrier();
	thpswap_clear_bad(dev, sector, bytes);
	thpswap_account(dev, true, bytes, nr_whole);
	return BLK_STS_OK;
}

/*
 * Does not sleep, which is why the queue has QUEUE_FLAG_NOWAIT: a
 * REQ_NOWAIT bio never has to wait here, so it is honoured as it is.
 */
void thpswap_submit_bio(struct bio *bio)
{
	struct thpswap_dev *dev = bio->bi_bdev->bd_disk->private_data;
	blk_status_t status;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));	/* for bvec_virt() */

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		status = thpswap_bio_rw(dev, bio);
		break;
	case REQ_OP_DISCARD:
		status = thpswap_bio_discard(dev, bio);
		break;
	case REQ_OP_WRITE_ZEROES:
		status = thpswap_bio_write_zeroes(dev, bio);
		break;
	case REQ_OP_FLUSH:
		thpswap_backing_barrier();
		status = BLK_STS_OK;
		break;
	default:
		status = BLK_STS_NOTSUPP;
		break;
	}
	bio->bi_status = status;
	bio_endio(bio);
}

/*
 * Does not sleep (but in a read that fail_read fails while its delay_ms is
 * set: faults.c, debug kernels only).  The swap fast path: @page is a
 * 4 KiB page or the head of a THP, and thp_size() bytes move in one call.
 * The contract (see drivers/nvdimm/pmem.c): on success call page_endio()
 * and return 0; on error return it without page_endio(), and the caller
 * retries with a bio or completes the page itself.
 */
int thpswap_rw_page(struct block_device *bdev, sector_t sector,
		    struct page *page, enum req_op op)
{
	struct thpswap_dev *dev = bdev->bd_disk->private_data;
	struct folio *folio = page_folio(page);
	u64 len = thp_size(page);
	unsigned int nr_whole = 0;
	int err;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));	/* for page_address() */

	if (op != REQ_OP_READ && op != REQ_OP_WRITE)
		return -EOPNOTSUPP;
	if (!thpswap_io_valid(dev, sector, len)) {
		thpswap_stat_inc(dev, THPSWAP_STAT_REJECTED);
		return -EIO;
	}
	if (op == REQ_OP_READ && thpswap_should_fail_read(len)) {
		thpswap_fail_read_delay();
		return -EIO;
	}
	if (op == REQ_OP_READ && thpswap_is_bad(dev, sector, len))
		return -EIO;

	if (op == REQ_OP_WRITE)
		flush_dcache_folio(folio);
	err = thpswap_do_range(dev, op, (u64)sector << SECTOR_SHIFT,
			       page_address(page), len, &nr_whole);
	if (err)
		return err;
	if (op == REQ_OP_WRITE) {
		thpswap_backing_barrier();
		thpswap_clear_bad(dev, sector, len);
	} else {
		flush_dcache_folio(folio);
	}
	thpswap_account(dev, op == REQ_OP_WRITE, len, nr_whole);

	page_endio(page, op_is_write(op), 0);
	return 0;
}

/*
 * Must not sleep: called from swap_range_free() under the swap device's
 * spinlock, sometimes with a page table lock held too, once per slot (512
 * times for a freed huge cluster).  @offset is the swap offset, i.e. the
 * 4 KiB slot on this device.
 */
void thpswap_swap_slot_free_notify(struct block_device *bdev,
				   unsigned long offset)
{
	struct thpswap_dev *dev = bdev->bd_disk->private_data;

	if (unlikely(offset >= dev->nr_slots)) {
		thpswap_stat_inc(dev, THPSWAP_STAT_REJECTED);
		return;
	}
	thpswap_clusters_free_range(&dev->clusters, offset, 1);
	thpswap_stat_inc(dev, THPSWAP_STAT_SLOT_FREES);
}

/*
 * Must not sleep: the swap layer calls this under its device's or the
 * cluster's spinlock (kernels with swap_cluster_notify()).  The fallbacks
 * name no cluster of ours worth changing: they are counted, and the
 * cluster given back, if any, comes as its own FREE event.
 */
void thpswap_swap_cluster_notify(struct block_device *bdev,
				 unsigned long cluster,
				 enum swap_cluster_event event)
{
	struct thpswap_dev *dev = bdev->bd_disk->private_data;

	thpswap_stat_inc(dev, THPSWAP_STAT_KERNEL_EVENTS);
	switch (event) {
	case SWAP_CLUSTER_FALLBACK_NO_CLUSTER:
		thpswap_stat_inc(dev, THPSWAP_STAT_FALLBACK_NO_CLUSTER);
		return;
	case SWAP_CLUSTER_FALLBACK_MEMCG:
		thpswap_stat_inc(dev, THPSWAP_STAT_FALLBACK_MEMCG);
		return;
	case SWAP_CLUSTER_FALLBACK_NOMEM:
		thpswap_stat_inc(dev, THPSWAP_STAT_FALLBACK_NOMEM);
		return;
	default:
		break;
	}
	if ((int)event == THPSWAP_EVENT_HUGE_SWAPIN)
		thpswap_stat_inc(dev, THPSWAP_STAT_SWAPIN_WHOLE);
	if (unlikely(cluster >= dev->clusters.nr)) {
		thpswap_stat_inc(dev, THPSWAP_STAT_REJECTED);
		return;
	}
	thpswap_clusters_kernel_event(&dev->clusters, cluster, event);
}
