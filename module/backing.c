// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap backing store: preallocated 2 MiB RAM chunks or a memremap()ed
 * range reserved with memmap=SIZE!ADDR.  See backing.h.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/numa.h>
#include <linux/vmstat.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "backing.h"

/*
 * Data chunks:
 * GFP_KERNEL: creation runs in process context and may reclaim and sleep.
 * __GFP_ZERO: a reader of /dev/thpswapN (dd, blkid) may read slots nobody
 *	wrote; they must not show old contents of freed kernel memory.
 * __GFP_NOWARN: an order-9 allocation failing is an expected outcome on a
 *	fragmented machine, and we print our own message with the numbers.
 * __GFP_RETRY_MAYFAIL: do try hard (reclaim, compaction) to find 2 MiB
 *	contiguous, but fail rather than OOM-kill someone for a swap device.
 * __GFP_THISNODE, added when a node is given: the chunks must come from
 *	that node and no other.  A device meant to live on a far (CXL) node
 *	that quietly took its memory from node 0 would free nothing there
 *	by swapping; better to fail and say so.
 */
#define THPSWAP_CHUNK_GFP \
	(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

static void thpswap_free_ram_chunks(struct thpswap_backing *b)
{
	unsigned long i;

	for (i = 0; i < b->nr_chunks; i++) {
		if (!b->chunks[i])
			break;
		free_pages((unsigned long)b->chunks[i], THPSWAP_CHUNK_ORDER);
		b->chunks[i] = NULL;
	}
}

/* May sleep.  On failure the caller frees what was obtained. */
static int thpswap_alloc_ram_chunks(struct thpswap_backing *b)
{
	unsigned long i;
	struct page *page;

	gfp_t gfp = THPSWAP_CHUNK_GFP;

	/*
	 * Refuse up front what cannot possibly fit, rather than reclaiming
	 * the whole machine to find out.
	 */
	if (b->node != NUMA_NO_NODE) {
		gfp |= __GFP_THISNODE;
		if (b->size > thpswap_node_managed_bytes(b->node)) {
			pr_err("cannot allocate %llu MiB of RAM on node %d: it has %llu MiB\n",
			       b->size >> 20, b->node,
			       thpswap_node_managed_bytes(b->node) >> 20);
			return -ENOMEM;
		}
	} else if (b->size > (u64)totalram_pages() << PAGE_SHIFT) {
		pr_err("cannot allocate %llu MiB of RAM: the machine has %lu MiB\n",
		       b->size >> 20, totalram_pages() >> (20 - PAGE_SHIFT));
		return -ENOMEM;
	}

	for (i = 0; i < b->nr_chunks; i++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		/* NUMA_NO_NODE: the local node first, as alloc_pages(). */
		page = alloc_pages_node(b->node, gfp, THPSWAP_CHUNK_ORDER);
		if (!page) {
			pr_err("cannot allocate %llu MiB of RAM in 2 MiB chunks%s: got %lu of %lu chunks\n",
			       b->size >> 20,
			       b->node != NUMA_NO_NODE ? " on that node" : "",
			       i, b->nr_chunks);
			return -ENOMEM;
		}
		b->chunks[i] = page_address(page);
		cond_resched();
	}
	return 0;
}

static int thpswap_count_covered(struct resource *res, void *arg)
{
	u64 *covered = arg;

	*covered += resource_size(res);
	return 0;
}

/*
 * May sleep.  The range must be wholly inside "Persistent Memory (legacy)"
 * resources, which is what memmap=SIZE!ADDR creates: anything else could be
 * System RAM in use by the kernel, a device, or a hole.  Claiming it keeps
 * nd_pmem (and a second thpswap device) off it while we use it.
 */
static int thpswap_map_memmap(struct thpswap_backing *b)
{
	resource_size_t end = b->phys + b->size - 1;
	u64 covered = 0;
	unsigned long i;

	if (!b->phys || !IS_ALIGNED(b->phys, THPSWAP_CHUNK_SIZE)) {
		pr_err("backing_phys=%pa: must be a non-zero multiple of 2 MiB\n",
		       &b->phys);
		return -EINVAL;
	}
	if (end < b->phys) {
		pr_err("backing_phys=%pa: range of %llu MiB wraps around\n",
		       &b->phys, b->size >> 20);
		return -EINVAL;
	}

	walk_iomem_res_desc(IORES_DESC_PERSISTENT_MEMORY_LEGACY, IORESOURCE_MEM,
			    b->phys, end, &covered, thpswap_count_covered);
	if (covered != b->size) {
		pr_err("backing_phys=%pa: [%pa-%pa] is not wholly reserved memory (boot with memmap=%lluM!%pa; see /proc/iomem)\n",
		       &b->phys, &b->phys, &end, b->size >> 20, &b->phys);
		return -EINVAL;
	}

	b->res = request_mem_region(b->phys, b->size, KBUILD_MODNAME);
	if (!b->res) {
		pr_err("backing_phys=%pa: [%pa-%pa] is busy (claimed by nd_pmem or another device?)\n",
		       &b->phys, &b->phys, &end);
		return -EBUSY;
	}

	b->map = memremap(b->phys, b->size, MEMREMAP_WB);
	if (!b->map) {
		pr_err("backing_phys=%pa: memremap of %llu MiB failed\n",
		       &b->phys, b->size >> 20);
		release_mem_region(b->phys, b->size);
		b->res = NULL;
		return -ENOMEM;
	}

	for (i = 0; i < b->nr_chunks; i++)
		b->chunks[i] = b->map + i * THPSWAP_CHUNK_SIZE;
	return 0;
}

static void thpswap_unmap_memmap(struct thpswap_backing *b)
{
	if (b->map)
		memunmap(b->map);
	if (b->res)
		release_mem_region(b->phys, b->size);
	b->map = NULL;
	b->res = NULL;
}

static int thpswap_measure_copy_bw(struct thpswap_backing *b);
static int thpswap_zero_memmap(struct thpswap_backing *b);

u64 thpswap_node_managed_bytes(int node)
{
	pg_data_t *pgdat = NODE_DATA(node);
	unsigned long pages = 0;
	int i;

	for (i = 0; i < MAX_NR_ZONES; i++)
		pages += zone_managed_pages(&pgdat->node_zones[i]);
	return (u64)pages << PAGE_SHIFT;
}

u64 thpswap_node_free_bytes(int node)
{
	pg_data_t *pgdat = NODE_DATA(node);
	unsigned long pages = 0;
	int i;

	for (i = 0; i < MAX_NR_ZONES; i++)
		pages += zone_page_state(&pgdat->node_zones[i], NR_FREE_PAGES);
	return (u64)pages << PAGE_SHIFT;
}

int thpswap_backing_init(struct thpswap_backing *b,
			 enum thpswap_backing_kind kind, u64 size,
			 phys_addr_t phys, int node)
{
	int err;

	if (!size || !IS_ALIGNED(size, THPSWAP_CHUNK_SIZE))
		return -EINVAL;

	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->size = size;
	b->phys = phys;
	b->node = kind == THPSWAP_BACKING_RAM ? node : NUMA_NO_NODE;
	b->nr_chunks = size >> THPSWAP_CHUNK_SHIFT;
	b->chunks = kvcalloc(b->nr_chunks, sizeof(*b->chunks), GFP_KERNEL);
	if (!b->chunks)
		return -ENOMEM;

	if (kind == THPSWAP_BACKING_MEMMAP) {
		err = thpswap_map_memmap(b);
		/*
		 * The range keeps what a previous boot or device left there:
		 * a reader of a never-written slot must see zeroes, as with
		 * RAM chunks (__GFP_ZERO).
		 */
		if (!err)
			err = thpswap_zero_memmap(b);
	} else {
		err = thpswap_alloc_ram_chunks(b);
	}
	if (!err)
		err = thpswap_measure_copy_bw(b);
	if (err)
		goto err_free;
	return 0;

err_free:
	thpswap_backing_destroy(b);
	return err;
}

void thpswap_backing_destroy(struct thpswap_backing *b)
{
	if (b->chunks) {
		if (b->kind == THPSWAP_BACKING_MEMMAP)
			thpswap_unmap_memmap(b);
		else
			thpswap_free_ram_chunks(b);
		kvfree(b->chunks);
		b->chunks = NULL;
	}
}

/*
 * Where a slot's data lives: page p of a chunk's 512 is kept at page
 * (p + 1) % 512 of the chunk.
 *
 * This is for QEMU TCG, where the tests and the bench run; on hardware it
 * costs one more memcpy_flushcache() call per 2 MiB written and nothing
 * else.  TCG's software TLB is direct-mapped, indexed by virtual page
 * number.  A THP and a chunk are both 2 MiB-aligned, so page p of one and
 * page p of the other take the same slot of that TLB, and a copy between
 * them (a THP's swap-out, a whole-THP swap-in) evicted one side's
 * translation with every load and store: 512 MiB swapped in whole at
 * 127-313 MB/s where brd, whose pages lie anywhere, did 478-1694 MB/s in
 * the same VM, and the same copy through a small bounce buffer did
 * 650-1150 MB/s.  Shifted by a page, no page of a chunk meets the page of
 * the THP it is copied to or from.
 */
#define THPSWAP_SHIFT_BYTES	PAGE_SIZE

/*
 * Does not sleep.  The address of byte @off, and in *@run how many of the
 * @len bytes from there are contiguous in the backing: up to where the
 * shift wraps around the chunk.  @off..@off+@len lies inside one chunk.
 */
static inline void *thpswap_backing_run(const struct thpswap_backing *b,
					u64 off, size_t len, size_t *run)
{
	u64 at = ((off & THPSWAP_CHUNK_MASK) + THPSWAP_SHIFT_BYTES) &
		 THPSWAP_CHUNK_MASK;

	*run = min_t(u64, len, THPSWAP_CHUNK_SIZE - at);
	return b->chunks[off >> THPSWAP_CHUNK_SHIFT] + at;
}

/*
 * Does not sleep.  Non-temporal stores: swapped-out data is cold, so it
 * should not evict the working set from the caches, and for a memmap range
 * that is real persistent memory this is also the durable write.  The
 * stores are weakly ordered; thpswap_backing_barrier() orders them before
 * the request completes.
 */
void thpswap_backing_write(const struct thpswap_backing *b, u64 off,
			   const void *src, size_t len)
{
	void *addr;
	size_t n;

	while (len) {
		addr = thpswap_backing_run(b, off, len, &n);
		memcpy_flushcache(addr, src, n);
		src += n;
		off += n;
		len -= n;
	}
}

/*
 * Does not sleep.  A memmap range may be real memory with poisoned lines:
 * read it with the machine-check-safe copy and fail the read instead of
 * taking the machine down.  RAM chunks are ordinary kernel memory.
 *
 * The copy goes in 4 KiB pieces, page by page of the shifted layout (see
 * thpswap_backing_run()).  On hardware that costs the same as one call (a
 * few cycles of setup per 4 KiB); under QEMU TCG one 2 MiB memcpy() took
 * 7x as long as 512 of 4 KiB (the same TLB conflict, before the shift).
 * Returns 0 or -EIO (see backing.h).
 */
int thpswap_backing_read(const struct thpswap_backing *b, u64 off,
			 void *dst, size_t len, u64 *bad)
{
	bool mc = b->kind == THPSWAP_BACKING_MEMMAP;
	unsigned long left;
	const void *addr;
	size_t n;

	while (len) {
		n = min_t(size_t, len, PAGE_SIZE - offset_in_page(off));
		addr = thpswap_backing_run(b, off, n, &n);
		if (mc) {
			left = copy_mc_to_kernel(dst, addr, n);
			if (left) {
				if (bad)
					*bad = off + n - left;
				return -EIO;
			}
		} else {
			memcpy(dst, addr, n);
		}
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Does not sleep.  Zeroes with the same non-temporal stores as a write. */
void thpswap_backing_zero(const struct thpswap_backing *b, u64 off,
			  size_t len)
{
	const void *zero = page_address(ZERO_PAGE(0));
	void *addr;
	size_t n;

	while (len) {
		n = min_t(size_t, len, PAGE_SIZE - offset_in_page(off));
		addr = thpswap_backing_run(b, off, n, &n);
		memcpy_flushcache(addr, zero, n);
		off += n;
		len -= n;
	}
}

/*
 * Does not sleep.  Makes the non-temporal stores of a request globally
 * visible (sfence on x86) before the request is completed, so that a read
 * of the same slot on another CPU afterwards sees them.  This is the whole
 * of our "cache": FLUSH needs nothing more.
 */
void thpswap_backing_barrier(void)
{
	/* Orders the NT stores before the completion that publishes them. */
	wmb();
}

/* May sleep.  Zeroes the whole memmap range; -EINTR on a fatal signal. */
static int thpswap_zero_memmap(struct thpswap_backing *b)
{
	unsigned long i;

	for (i = 0; i < b->nr_chunks; i++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		thpswap_backing_zero(b, (u64)i << THPSWAP_CHUNK_SHIFT,
				     THPSWAP_CHUNK_SIZE);
		cond_resched();
	}
	thpswap_backing_barrier();
	return 0;
}

#define THPSWAP_BW_BUSY_NS	(50 * NSEC_PER_MSEC)

/*
 * May sleep; runs for about 50 ms, once, at creation (before the disk
 * exists), so that reading the figure costs nobody anything.  Measures
 * what one swap-out of a THP costs: a 2 MiB memcpy_flushcache plus the
 * barrier, from a zeroed 2 MiB RAM buffer into data chunk 0, which is
 * zeroed and unused at this point and stays zeroed.  Only the time spent
 * copying counts, not the cond_resched() in between.
 */
static int thpswap_measure_copy_bw(struct thpswap_backing *b)
{
	u64 bytes = 0, busy = 0;
	struct page *src_page;
	ktime_t t0;

	/*
	 * GFP_KERNEL: creation runs in process context; __GFP_ZERO so that
	 * chunk 0 stays zeroed; freed again below.
	 */
	src_page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
			       __GFP_RETRY_MAYFAIL, THPSWAP_CHUNK_ORDER);
	if (!src_page) {
		pr_err("cannot allocate 2 MiB to measure the copy bandwidth\n");
		return -ENOMEM;
	}
	while (busy < THPSWAP_BW_BUSY_NS) {
		t0 = ktime_get();
		thpswap_backing_write(b, 0, page_address(src_page),
				      THPSWAP_CHUNK_SIZE);
		thpswap_backing_barrier();
		busy += ktime_to_ns(ktime_sub(ktime_get(), t0));
		bytes += THPSWAP_CHUNK_SIZE;
		cond_resched();
	}
	__free_pages(src_page, THPSWAP_CHUNK_ORDER);

	/* bytes per ns is GB/s; times 1000 is MB/s. */
	b->copy_bw_mbps = div64_u64(bytes * 1000, busy);
	return 0;
}

/*
 * May sleep; runs for about 50 ms.  Measures what one whole-THP swap-in
 * costs us: thpswap_backing_read() of 2 MiB, i.e. the 4 KiB pieces of the
 * real read path (copy_mc_to_kernel for a memmap range), from data chunk
 * 0 into a 2 MiB buffer allocated here (a control path, not the I/O
 * path).  Reading a chunk in use is harmless: the copy is thrown away.
 * Only the time spent copying counts.  Result in MB/s (10^6 bytes/s).
 */
int thpswap_backing_read_bw(const struct thpswap_backing *b, u64 *mbps)
{
	u64 bytes = 0, busy = 0;
	struct page *dst_page;
	ktime_t t0;
	int err = 0;

	dst_page = alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL,
			       THPSWAP_CHUNK_ORDER);
	if (!dst_page)
		return -ENOMEM;
	while (busy < THPSWAP_BW_BUSY_NS) {
		t0 = ktime_get();
		err = thpswap_backing_read(b, 0, page_address(dst_page),
					   THPSWAP_CHUNK_SIZE, NULL);
		busy += ktime_to_ns(ktime_sub(ktime_get(), t0));
		if (err)
			break;
		bytes += THPSWAP_CHUNK_SIZE;
		cond_resched();
	}
	__free_pages(dst_page, THPSWAP_CHUNK_ORDER);
	if (!err)
		*mbps = div64_u64(bytes * 1000, busy);
	return err;
}
