/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap cluster tracking: what the swap layer did with each 2 MiB
 * cluster of the device (slot = 4 KiB page = swap offset, cluster = slot /
 * 512 = one backing chunk).  Purely informational: the data path never
 * depends on it, but it shows whether THPs stay whole on their way through
 * swap.
 */
#ifndef _THPSWAP_CLUSTERS_H
#define _THPSWAP_CLUSTERS_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/blkdev.h>	/* enum swap_cluster_event */
#include <linux/spinlock.h>
#include <linux/types.h>

#include <linux/thpswap.h>

#include "backing.h"

#define THPSWAP_SLOTS_PER_CLUSTER	(THPSWAP_CHUNK_SIZE / PAGE_SIZE)

/* The states are the uapi's enum thpswap_cluster_state. */
#define THPSWAP_CLUSTER_NR_STATES	__THPSWAP_CLUSTER_STATE_MAX

/*
 * Lock rules: @lock protects @state, @live and @slots of its own cluster
 * only.  It is taken from the I/O path and from swap_slot_free_notify(),
 * which runs under the swap device's spinlock (and sometimes a page table
 * lock), so it is a spinlock, it is innermost (nothing else is taken
 * under it) and it is never held across a copy.  Never taken from
 * interrupt context.
 */
struct thpswap_cluster {
	spinlock_t lock;	/* this cluster's members below */
	u8 state;		/* enum thpswap_cluster_state; @lock */
	u16 live;		/* number of set bits in @slots; @lock */
	DECLARE_BITMAP(slots, THPSWAP_SLOTS_PER_CLUSTER);	/* live; @lock */
};

struct thpswap_clusters {
	unsigned long nr;		/* set at init, read-only after */
	struct thpswap_cluster *cl;	/* array of @nr, allocated at init */
	/*
	 * Number of clusters in each state, changed under the lock of the
	 * cluster that transitions, read locklessly: each count is exact,
	 * but a reader racing with transitions may see a sum off by the few
	 * clusters in flight.
	 */
	atomic_long_t nr_state[THPSWAP_CLUSTER_NR_STATES];
	/* Sum of every cluster's @live, changed as they are; read locklessly. */
	atomic_long_t nr_live;
	/*
	 * Bumped on every state transition (under the transitioning
	 * cluster's lock), read locklessly: equal before and after a read of
	 * the map means no cluster changed state in between.  Starts at 1 so
	 * that it is never 0 in the first 2^32 transitions, which netlink
	 * dump consistency checks treat as "no sequence".
	 */
	atomic_t generation;
	/*
	 * Change tracking for the netlink events, written only while
	 * someone listens.  @changed: one bit per cluster that changed state
	 * since the last notification, set with atomic bitops under the
	 * cluster's lock and taken with xchg() per word by the events work.
	 * @transitions: transitions recorded since then, to count how many
	 * were coalesced.  @sending: the bits being sent, only touched by the
	 * events work.  Allocated at init: recording never allocates.
	 */
	unsigned long *changed;
	unsigned long *sending;
	atomic_long_t transitions;
	/*
	 * Told of every state transition, with the cluster's lock held and
	 * the cluster's index: must not sleep or allocate.  A hook, not a
	 * call, so that this layer, which the I/O path runs, knows nothing
	 * of the transports above it (device.c sets it to the netlink
	 * events).  Set after thpswap_clusters_init(), before the disk is
	 * added; read-only after that.  NULL tells nobody.
	 */
	void (*on_change)(struct thpswap_clusters *c, unsigned long idx);
};

struct thpswap_cluster_counts {
	unsigned long total;
	unsigned long nr_state[THPSWAP_CLUSTER_NR_STATES];
	unsigned long live_slots;
	u32 generation;
};

/* May sleep. */
int thpswap_clusters_init(struct thpswap_clusters *c, unsigned long nr);
void thpswap_clusters_destroy(struct thpswap_clusters *c);

/*
 * Hooks from the I/O path.  @slot..@slot+@nr lies inside one cluster.
 * @whole_thp: the write was one copy of a whole, aligned 2 MiB THP.
 * @infer: derive the cluster's state from this I/O; false while the
 * kernel reports the states itself (thpswap_clusters_kernel_event()),
 * when only the live slots are tracked here.  None of them sleeps.
 */
void thpswap_clusters_note_write(struct thpswap_clusters *c,
				 unsigned long slot, unsigned int nr,
				 bool whole_thp, bool infer);
void thpswap_clusters_note_read(struct thpswap_clusters *c,
				unsigned long slot, unsigned int nr, bool infer);
/*
 * What the swap layer did with cluster @idx (< @c->nr), on kernels with
 * the swap_cluster_notify() hook.  Does not sleep.
 */
void thpswap_clusters_kernel_event(struct thpswap_clusters *c,
				   unsigned long idx,
				   enum swap_cluster_event event);
/* Any range inside the device; does not sleep. */
void thpswap_clusters_free_range(struct thpswap_clusters *c,
				 unsigned long slot, unsigned long nr);

/* Does not sleep.  Current value of @c->generation. */
static inline u32 thpswap_clusters_generation(struct thpswap_clusters *c)
{
	return atomic_read(&c->generation);
}

/* O(1), does not sleep. */
void thpswap_clusters_summary(struct thpswap_clusters *c,
			      struct thpswap_cluster_counts *out);

/*
 * Copies the state and live count of clusters @first.. into @states and
 * @live (either may be NULL), at most @count of them; each cluster is read
 * under its lock, the set as a whole is not a snapshot.  Returns how many
 * were copied, 0 past the end.  Does not sleep.
 */
unsigned long thpswap_clusters_get(struct thpswap_clusters *c,
				   unsigned long first, unsigned long count,
				   u8 *states, u16 *live);

/* '.' free, 'H' huge, 'S' split, 's' small, '?' otherwise. */
char thpswap_cluster_state_char(u8 state);

#endif /* _THPSWAP_CLUSTERS_H */
