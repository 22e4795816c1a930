// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap statistics.  See stats.h.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include "device.h"
#include "stats.h"

const char *const thpswap_stat_names[THPSWAP_NR_STATS] = {
	[THPSWAP_STAT_THP_WRITES] = "thp_writes",
	[THPSWAP_STAT_THP_READS] = "thp_reads",
	[THPSWAP_STAT_PAGE_WRITES] = "page_writes",
	[THPSWAP_STAT_PAGE_READS] = "page_reads",
	[THPSWAP_STAT_BYTES_WRITTEN] = "bytes_written",
	[THPSWAP_STAT_BYTES_READ] = "bytes_read",
	[THPSWAP_STAT_DISCARDS] = "discards",
	[THPSWAP_STAT_SLOT_FREES] = "slot_frees",
	[THPSWAP_STAT_REJECTED] = "rejected",
	[THPSWAP_STAT_THP_SWPOUT] = "thp_swpout",
	[THPSWAP_STAT_THP_SWPOUT_FALLBACK] = "thp_swpout_fallback",
	[THPSWAP_STAT_CLUSTERS_FREE] = "clusters_free",
	[THPSWAP_STAT_CLUSTERS_HUGE] = "clusters_huge",
	[THPSWAP_STAT_CLUSTERS_SPLIT] = "clusters_split",
	[THPSWAP_STAT_CLUSTERS_SMALL] = "clusters_small",
	[THPSWAP_STAT_LIVE_SLOTS] = "live_slots",
	[THPSWAP_STAT_FALLBACK_NO_CLUSTER] = "fallback_no_cluster",
	[THPSWAP_STAT_FALLBACK_MEMCG] = "fallback_memcg",
	[THPSWAP_STAT_FALLBACK_NOMEM] = "fallback_nomem",
	[THPSWAP_STAT_KERNEL_EVENTS] = "kernel_events",
	[THPSWAP_STAT_THP_SWPIN] = "thp_swpin",
	[THPSWAP_STAT_THP_SWPIN_FALLBACK] = "thp_swpin_fallback",
	[THPSWAP_STAT_SWAPIN_WHOLE] = "swapin_whole",
	[THPSWAP_STAT_THP_SWPIN_DECLINED] = "thp_swpin_declined",
	[THPSWAP_STAT_THP_SWPIN_PROMOTED] = "thp_swpin_promoted",
	[THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK] = "thp_swpin_promote_fallback",
	[THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED] = "thp_swpout_pte_mapped",
	[THPSWAP_STAT_THP_SPLIT_RECLAIM] = "thp_split_reclaim",
	[THPSWAP_STAT_THP_SWPIN_SHARED] = "thp_swpin_shared",
	[THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ] = "thp_swpin_collapse_read",
	[THPSWAP_STAT_THP_SWPIN_HANDOFF] = "thp_swpin_handoff",
};

struct thpswap_pcpu_stats __percpu *thpswap_stats_alloc(void)
{
	return alloc_percpu(struct thpswap_pcpu_stats);
}

void thpswap_stats_free(struct thpswap_pcpu_stats __percpu *stats)
{
	free_percpu(stats);
}

/*
 * Sums one vm event over all CPUs without all_vm_events(), whose
 * NR_VM_EVENT_ITEMS-sized result array would not fit our stack budget and
 * which takes the CPU hotplug lock.  An offline CPU's events are folded
 * into a live CPU's and zeroed, so summing every possible CPU counts each
 * event once, give or take one that is being folded right now.
 */
#if defined(CONFIG_VM_EVENT_COUNTERS) && defined(CONFIG_TRANSPARENT_HUGEPAGE)
static u64 thpswap_sum_vm_event(enum vm_event_item item)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[item];
	return sum;
}

static void thpswap_snap_vm_events(u64 *v)
{
	v[THPSWAP_STAT_THP_SWPOUT] = thpswap_sum_vm_event(THP_SWPOUT);
	v[THPSWAP_STAT_THP_SWPOUT_FALLBACK] =
		thpswap_sum_vm_event(THP_SWPOUT_FALLBACK);
#ifdef THPSWAP_HAVE_VM_THP_SWPIN
	v[THPSWAP_STAT_THP_SWPIN] = thpswap_sum_vm_event(THP_SWPIN);
	v[THPSWAP_STAT_THP_SWPIN_FALLBACK] =
		thpswap_sum_vm_event(THP_SWPIN_FALLBACK);
#endif
#ifdef THPSWAP_HAVE_VM_THP_SWPIN_AUTO
	v[THPSWAP_STAT_THP_SWPIN_DECLINED] =
		thpswap_sum_vm_event(THP_SWPIN_DECLINED);
	v[THPSWAP_STAT_THP_SWPIN_PROMOTED] =
		thpswap_sum_vm_event(THP_SWPIN_PROMOTED);
	v[THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK] =
		thpswap_sum_vm_event(THP_SWPIN_PROMOTE_FALLBACK);
#endif
#ifdef THPSWAP_HAVE_VM_THP_SWPOUT_PTE_MAPPED
	v[THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED] =
		thpswap_sum_vm_event(THP_SWPOUT_PTE_MAPPED);
	v[THPSWAP_STAT_THP_SPLIT_RECLAIM] =
		thpswap_sum_vm_event(THP_SPLIT_RECLAIM);
#endif
#ifdef THPSWAP_HAVE_VM_THP_SWPIN_SHARED
	v[THPSWAP_STAT_THP_SWPIN_SHARED] =
		thpswap_sum_vm_event(THP_SWPIN_SHARED);
#endif
#ifdef THPSWAP_HAVE_VM_THP_SWPIN_COLLAPSE_READ
	v[THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ] =
		thpswap_sum_vm_event(THP_SWPIN_COLLAPSE_READ);
#endif
#ifdef THPSWAP_HAVE_VM_THP_SWPIN_HANDOFF
	v[THPSWAP_STAT_THP_SWPIN_HANDOFF] =
		thpswap_sum_vm_event(THP_SWPIN_HANDOFF);
#endif
}
#else
/* Without these counters the snapshot reports 0, which it memset already. */
static void thpswap_snap_vm_events(u64 *v)
{
}
#endif

/*
 * Does not sleep.  Each counter is read once per CPU; counters keep moving
 * while we sum, so the snapshot is a consistent set only when the device is
 * idle.
 */
void thpswap_stats_snapshot(struct thpswap_dev *dev,
			    u64 values[THPSWAP_NR_STATS])
{
	const struct thpswap_pcpu_stats *p;
	struct thpswap_cluster_counts cc;
	int cpu, i;

	memset(values, 0, sizeof(u64) * THPSWAP_NR_STATS);
	for_each_possible_cpu(cpu) {
		p = per_cpu_ptr(dev->stats, cpu);
		for (i = 0; i < THPSWAP_NR_PCPU_STATS; i++)
			if (thpswap_stat_is_counter(i))
				values[i] += READ_ONCE(p->c[i]);
	}
	thpswap_snap_vm_events(values);
	thpswap_clusters_summary(&dev->clusters, &cc);
	values[THPSWAP_STAT_CLUSTERS_FREE] = cc.nr_state[THPSWAP_CLUSTER_FREE];
	values[THPSWAP_STAT_CLUSTERS_HUGE] = cc.nr_state[THPSWAP_CLUSTER_HUGE];
	values[THPSWAP_STAT_CLUSTERS_SPLIT] =
		cc.nr_state[THPSWAP_CLUSTER_SPLIT];
	values[THPSWAP_STAT_CLUSTERS_SMALL] =
		cc.nr_state[THPSWAP_CLUSTER_SMALL];
	values[THPSWAP_STAT_LIVE_SLOTS] = cc.live_slots;
}

/*
 * Does not sleep.  The open and swap flags are read without the disk's
 * open_mutex: they describe a moment, and a remove re-checks under it.
 */
void thpswap_dev_snapshot(struct thpswap_dev *dev,
			  struct thpswap_dev_snap *snap)
{
	struct block_device *part0 = dev->disk->part0;

	memset(snap, 0, sizeof(*snap));
	snap->index = dev->index;
	snap->size = dev->backing.size;
	snap->backing = dev->backing.kind;
	if (dev->backing.kind == THPSWAP_BACKING_MEMMAP)
		snap->backing_phys = dev->backing.phys;
	snap->node = dev->backing.node;
	snap->flags |= THPSWAP_INFO_F_NODE_VALID;
	if (disk_openers(dev->disk))
		snap->flags |= THPSWAP_INFO_F_OPEN;
	if (THPSWAP_KERNEL_CLUSTER_EVENTS)
		snap->flags |= THPSWAP_INFO_F_AUTHORITATIVE;
	/* swapon(2) marks the block device's inode as a swap file. */
	if (IS_SWAPFILE(part0->bd_inode))
		snap->flags |= THPSWAP_INFO_F_SWAPON;
	snap->nr_clusters = dev->clusters.nr;
	/* Read before the stats: a later change shows as a newer generation. */
	snap->generation = thpswap_clusters_generation(&dev->clusters);
	thpswap_stats_snapshot(dev, snap->stats);
}

/*
 * Does not sleep.  Zeroes every CPU's counters from this CPU.  This races
 * with this_cpu_add() on other CPUs: an increment landing in the middle
 * may be lost or survive the reset.  That is benign for statistics, and
 * cheaper than making every I/O pay for a lock.  Cluster states are not
 * statistics and are not reset.
 */
void thpswap_stats_reset(struct thpswap_dev *dev)
{
	struct thpswap_pcpu_stats *p;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		p = per_cpu_ptr(dev->stats, cpu);
		for (i = 0; i < THPSWAP_NR_PCPU_STATS; i++)
			WRITE_ONCE(p->c[i], 0);
	}
}
