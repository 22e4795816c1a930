// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap cluster tracking.  See clusters.h for the states and lock rules.
 *
 * Transitions (slot = 4 KiB, cluster = 512 slots):
 *   whole-THP write           any   -> HUGE, all 512 slots live
 *   4 KiB write               FREE  -> SMALL, HUGE -> SPLIT, slot live
 *   4 KiB read                HUGE  -> SPLIT
 *   whole-THP read            no change
 *   slot free / discard       slot not live, HUGE -> SPLIT,
 *                             no live slot left -> FREE
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "clusters.h"

int thpswap_clusters_init(struct thpswap_clusters *c, unsigned long nr)
{
	unsigned long i;
	int s;

	c->nr = nr;
	c->on_change = NULL;	/* the owner sets it after this */
	c->cl = kvcalloc(nr, sizeof(*c->cl), GFP_KERNEL);
	if (!c->cl)
		return -ENOMEM;
	/*
	 * Here, not when a listener comes: recording must not allocate.
	 * kvcalloc: a 16 TiB device has 1 MiB bitmaps, too big to ask of
	 * kmalloc.
	 */
	c->changed = kvcalloc(BITS_TO_LONGS(nr), sizeof(long), GFP_KERNEL);
	c->sending = kvcalloc(BITS_TO_LONGS(nr), sizeof(long), GFP_KERNEL);
	if (!c->changed || !c->sending) {
		kvfree(c->changed);
		kvfree(c->sending);
		c->changed = NULL;
		c->sending = NULL;
		kvfree(c->cl);
		c->cl = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		spin_lock_init(&c->cl[i].lock);
		c->cl[i].state = THPSWAP_CLUSTER_FREE;
	}
	for (s = 0; s < THPSWAP_CLUSTER_NR_STATES; s++)
		atomic_long_set(&c->nr_state[s], 0);
	atomic_long_set(&c->nr_state[THPSWAP_CLUSTER_FREE], nr);
	atomic_long_set(&c->nr_live, 0);
	atomic_set(&c->generation, 1);
	atomic_long_set(&c->transitions, 0);
	return 0;
}

void thpswap_clusters_destroy(struct thpswap_clusters *c)
{
	kvfree(c->changed);
	kvfree(c->sending);
	c->changed = NULL;
	c->sending = NULL;
	kvfree(c->cl);
	c->cl = NULL;
	c->nr = 0;
}

/* Does not sleep.  Called with @cl->lock held. */
static void thpswap_cluster_set_state(struct thpswap_clusters *c,
				      struct thpswap_cluster *cl,
				      enum thpswap_cluster_state new)
{
	lockdep_assert_held(&cl->lock);
	if (cl->state == new)
		return;
	atomic_long_dec(&c->nr_state[cl->state]);
	atomic_long_inc(&c->nr_state[new]);
	/* Paired with the lockless READ_ONCE() in note_read(). */
	WRITE_ONCE(cl->state, new);
	atomic_inc(&c->generation);
	if (c->on_change)
		c->on_change(c, cl - c->cl);
}

/* Does not sleep.  Called with @cl->lock held; returns how many were set. */
static unsigned int thpswap_cluster_set_slots(struct thpswap_cluster *cl,
					      unsigned int first,
					      unsigned int nr)
{
	unsigned int i, set = 0;

	for (i = first; i < first + nr; i++)
		if (!__test_and_set_bit(i, cl->slots))
			set++;
	return set;
}

/* Does not sleep.  Called with @cl->lock held; returns how many were live. */
static unsigned int thpswap_cluster_clear_slots(struct thpswap_cluster *cl,
						unsigned int first,
						unsigned int nr)
{
	unsigned int i, cleared = 0;

	if (nr == THPSWAP_SLOTS_PER_CLUSTER) {
		cleared = cl->live;
		bitmap_zero(cl->slots, THPSWAP_SLOTS_PER_CLUSTER);
		return cleared;
	}
	for (i = first; i < first + nr; i++)
		if (__test_and_clear_bit(i, cl->slots))
			cleared++;
	return cleared;
}

static inline struct thpswap_cluster *
thpswap_slot_cluster(struct thpswap_clusters *c, unsigned long slot)
{
	return &c->cl[slot / THPSWAP_SLOTS_PER_CLUSTER];
}

/* Does not sleep. */
void thpswap_clusters_note_write(struct thpswap_clusters *c,
				 unsigned long slot, unsigned int nr,
				 bool whole_thp, bool infer)
{
	struct thpswap_cluster *cl = thpswap_slot_cluster(c, slot);
	unsigned int first = slot % THPSWAP_SLOTS_PER_CLUSTER;
	unsigned int set;

	spin_lock(&cl->lock);
	if (whole_thp && nr == THPSWAP_SLOTS_PER_CLUSTER) {
		bitmap_fill(cl->slots, THPSWAP_SLOTS_PER_CLUSTER);
		atomic_long_add(THPSWAP_SLOTS_PER_CLUSTER - cl->live,
				&c->nr_live);
		cl->live = THPSWAP_SLOTS_PER_CLUSTER;
		if (infer)
			thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_HUGE);
	} else {
		set = thpswap_cluster_set_slots(cl, first, nr);
		cl->live += set;
		atomic_long_add(set, &c->nr_live);
		if (infer && cl->state == THPSWAP_CLUSTER_FREE)
			thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_SMALL);
		else if (infer && cl->state == THPSWAP_CLUSTER_HUGE)
			thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_SPLIT);
	}
	spin_unlock(&cl->lock);
}

/* Does not sleep. */
void thpswap_clusters_note_read(struct thpswap_clusters *c,
				unsigned long slot, unsigned int nr, bool infer)
{
	struct thpswap_cluster *cl = thpswap_slot_cluster(c, slot);

	if (!infer || nr == THPSWAP_SLOTS_PER_CLUSTER)
		return;
	/*
	 * Only a HUGE cluster changes on a 4 KiB read, and swap-in reads a
	 * lot of 4 KiB pages: skip the lock in the common case.  A race
	 * with a concurrent transition is re-checked under the lock.
	 */
	if (READ_ONCE(cl->state) != THPSWAP_CLUSTER_HUGE)
		return;
	spin_lock(&cl->lock);
	if (cl->state == THPSWAP_CLUSTER_HUGE)
		thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_SPLIT);
	spin_unlock(&cl->lock);
}

/*
 * Does not sleep: called from swap_slot_free_notify() under the swap
 * device's spinlock, and for discards.
 */
void thpswap_clusters_free_range(struct thpswap_clusters *c,
				 unsigned long slot, unsigned long nr)
{
	struct thpswap_cluster *cl;
	unsigned int first, n, cleared;

	while (nr) {
		cl = thpswap_slot_cluster(c, slot);
		first = slot % THPSWAP_SLOTS_PER_CLUSTER;
		n = min_t(unsigned long, nr, THPSWAP_SLOTS_PER_CLUSTER - first);

		spin_lock(&cl->lock);
		cleared = thpswap_cluster_clear_slots(cl, first, n);
		cl->live -= cleared;
		atomic_long_sub(cleared, &c->nr_live);
		if (!cl->live)
			thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_FREE);
		else if (cl->state == THPSWAP_CLUSTER_HUGE)
			thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_SPLIT);
		spin_unlock(&cl->lock);

		slot += n;
		nr -= n;
	}
}

/*
 * Does not sleep: the swap layer calls this under its device or cluster
 * spinlock.  HUGE_DONE changes nothing: the THP has left the swap cache,
 * but its slots still hold it whole, and slot frees split or free the
 * cluster as they come.
 */
void thpswap_clusters_kernel_event(struct thpswap_clusters *c,
				   unsigned long idx,
				   enum swap_cluster_event event)
{
	struct thpswap_cluster *cl = &c->cl[idx];

	spin_lock(&cl->lock);
	switch (event) {
	case SWAP_CLUSTER_ALLOC:
		thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_SMALL);
		break;
	case SWAP_CLUSTER_ALLOC_HUGE:
		thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_HUGE);
		break;
	case SWAP_CLUSTER_HUGE_SPLIT:
		thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_SPLIT);
		break;
	case SWAP_CLUSTER_FREE:
		thpswap_cluster_set_state(c, cl, THPSWAP_CLUSTER_FREE);
		break;
	default:
		break;
	}
	spin_unlock(&cl->lock);
}

void thpswap_clusters_summary(struct thpswap_clusters *c,
			      struct thpswap_cluster_counts *out)
{
	int s;

	out->total = c->nr;
	for (s = 0; s < THPSWAP_CLUSTER_NR_STATES; s++)
		out->nr_state[s] = atomic_long_read(&c->nr_state[s]);
	out->live_slots = atomic_long_read(&c->nr_live);
	out->generation = atomic_read(&c->generation);
}

unsigned long thpswap_clusters_get(struct thpswap_clusters *c,
				   unsigned long first, unsigned long count,
				   u8 *states, u16 *live)
{
	struct thpswap_cluster *cl;
	unsigned long i;

	if (first >= c->nr)
		return 0;
	count = min(count, c->nr - first);
	for (i = 0; i < count; i++) {
		cl = &c->cl[first + i];
		spin_lock(&cl->lock);
		if (states)
			states[i] = cl->state;
		if (live)
			live[i] = cl->live;
		spin_unlock(&cl->lock);
	}
	return count;
}

char thpswap_cluster_state_char(u8 state)
{
	static const char chars[THPSWAP_CLUSTER_NR_STATES] = {
		[THPSWAP_CLUSTER_FREE] = '.',
		[THPSWAP_CLUSTER_HUGE] = 'H',
		[THPSWAP_CLUSTER_SPLIT] = 'S',
		[THPSWAP_CLUSTER_SMALL] = 's',
	};

	return state < THPSWAP_CLUSTER_NR_STATES ? chars[state] : '?';
}
