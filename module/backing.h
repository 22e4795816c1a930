/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap backing store: where the bytes live.
 *
 * The store is an array of 2 MiB chunks, each physically and virtually
 * contiguous, so that one swap cluster is one chunk and a whole THP is
 * one copy.  Either the chunks are preallocated RAM pages, or they are
 * consecutive 2 MiB windows of one memremap()ed physical range reserved
 * at boot with memmap=SIZE!ADDR.  Everything is set up at creation: the
 * copy functions below never allocate and never sleep.
 */
#ifndef _THPSWAP_BACKING_H
#define _THPSWAP_BACKING_H

#include <linux/pgtable.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/thpswap.h>

/* One chunk = one swap cluster = one PMD-mapped THP. */
#define THPSWAP_CHUNK_SHIFT	PMD_SHIFT
#define THPSWAP_CHUNK_SIZE	PMD_SIZE
#define THPSWAP_CHUNK_ORDER	(THPSWAP_CHUNK_SHIFT - PAGE_SHIFT)
#define THPSWAP_CHUNK_MASK	(THPSWAP_CHUNK_SIZE - 1)

/* enum thpswap_backing_kind (RAM, MEMMAP) is the uapi's. */

/*
 * All members are set at creation and read-only until destruction, so
 * the I/O path reads them without locks.
 */
struct thpswap_backing {
	enum thpswap_backing_kind kind;
	/*
	 * RAM only: the NUMA node every chunk was taken from (the chunks of
	 * a CXL expander's CPU-less node, say), or NUMA_NO_NODE for
	 * anywhere.  NUMA_NO_NODE for MEMMAP.
	 */
	int node;
	/* Device size in bytes, a multiple of THPSWAP_CHUNK_SIZE. */
	u64 size;
	unsigned long nr_chunks;
	/* Kernel address of each chunk: direct map (RAM) or the memremap. */
	void **chunks;
	/* MEMMAP only: the reserved range, its mapping and our claim on it. */
	phys_addr_t phys;
	void *map;
	struct resource *res;
	/*
	 * MB/s (10^6 bytes/s) of a 2 MiB memcpy_flushcache into this
	 * store, measured once at creation.
	 */
	u64 copy_bw_mbps;
};

/*
 * May sleep: allocates or zeroes the whole store, then measures its copy
 * bandwidth (~50 ms); returns -EINTR early if the caller gets a fatal
 * signal.  @node (RAM only) is a node with memory, checked by the caller,
 * or NUMA_NO_NODE.  Returns 0 or a negative errno (message already
 * printed).
 */
int thpswap_backing_init(struct thpswap_backing *b,
			 enum thpswap_backing_kind kind, u64 size,
			 phys_addr_t phys, int node);
/*
 * Do not sleep.  Memory the page allocator manages on @node (which must
 * be online), and how much of it is free now.
 */
u64 thpswap_node_managed_bytes(int node);
u64 thpswap_node_free_bytes(int node);
/* May sleep. */
void thpswap_backing_destroy(struct thpswap_backing *b);

/*
 * The copy functions take a byte range that lies inside one chunk
 * (the caller splits requests at chunk boundaries) and inside the device.
 * They do not sleep and do not allocate.
 */
void thpswap_backing_write(const struct thpswap_backing *b, u64 off,
			   const void *src, size_t len);
/*
 * Returns 0, or -EIO when the machine-check-safe copy of a memmap range hit
 * poisoned memory; then *@bad (if not NULL) is the device offset of the
 * first byte not copied.
 */
int thpswap_backing_read(const struct thpswap_backing *b, u64 off,
			 void *dst, size_t len, u64 *bad);
/* May sleep; ~50 ms of thpswap_backing_read() of 2 MiB.  MB/s or -errno. */
int thpswap_backing_read_bw(const struct thpswap_backing *b, u64 *mbps);
void thpswap_backing_zero(const struct thpswap_backing *b, u64 off,
			  size_t len);
void thpswap_backing_barrier(void);

#endif /* _THPSWAP_BACKING_H */
