/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap statistics: per-cpu counters bumped by the I/O path, and the
 * one snapshot every reader (sysfs, the ioctls, netlink) reports from.
 */
#ifndef _THPSWAP_STATS_H
#define _THPSWAP_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/thpswap.h>

#include "clusters.h"

struct thpswap_dev;

/*
 * The counters are the uapi's enum thpswap_stat, only ever appended.  The
 * I/O path and the kernel's cluster notifications count per cpu; the
 * global vm events and the cluster gauges are filled in by the snapshot
 * (thpswap_stat_is_counter() tells which is which).  Keep
 * thpswap_stat_names[] in step: it is the sysfs "stats" file.
 */
#define THPSWAP_NR_STATS	__THPSWAP_STAT_CNT
#define THPSWAP_NR_PCPU_STATS	THPSWAP_NR_STATS

/* A new per-cpu counter must be listed here; the snapshot fills the rest. */
static inline bool thpswap_stat_is_counter(unsigned int i)
{
	return i <= THPSWAP_STAT_REJECTED ||
	       (i >= THPSWAP_STAT_FALLBACK_NO_CLUSTER &&
		i <= THPSWAP_STAT_KERNEL_EVENTS) ||
	       i == THPSWAP_STAT_SWAPIN_WHOLE;
}

extern const char *const thpswap_stat_names[THPSWAP_NR_STATS];

/* Per-cpu; each CPU only ever adds to its own, with this_cpu_*(). */
struct thpswap_pcpu_stats {
	u64 c[THPSWAP_NR_PCPU_STATS];
};

/*
 * Everything the control plane reports about a device, taken at once by
 * thpswap_dev_snapshot(): the ioctls and netlink copy from this and from
 * nothing else, so they cannot disagree.
 */
struct thpswap_dev_snap {
	int index;
	u64 size;			/* bytes */
	enum thpswap_backing_kind backing;
	u64 backing_phys;		/* MEMMAP only, else 0 */
	int node;			/* of the RAM backing, or NUMA_NO_NODE */
	u32 flags;			/* THPSWAP_INFO_F_* */
	u64 nr_clusters;
	u32 generation;			/* of the cluster map */
	u64 stats[THPSWAP_NR_STATS];	/* enum thpswap_stat */
};

/* Does not sleep; any context. */
#define thpswap_stat_add(dev, item, n)	this_cpu_add((dev)->stats->c[item], (n))
#define thpswap_stat_inc(dev, item)	this_cpu_inc((dev)->stats->c[item])

/* May sleep. */
struct thpswap_pcpu_stats __percpu *thpswap_stats_alloc(void);
void thpswap_stats_free(struct thpswap_pcpu_stats __percpu *stats);

/*
 * Does not sleep.  The counters, vm events and gauges in enum
 * thpswap_stat order; @dev must stay alive (the caller holds the device
 * table lock or the disk).
 */
void thpswap_stats_snapshot(struct thpswap_dev *dev,
			    u64 values[THPSWAP_NR_STATS]);
/* Does not sleep.  All of the above plus what the device is. */
void thpswap_dev_snapshot(struct thpswap_dev *dev,
			  struct thpswap_dev_snap *snap);
/* Does not sleep. */
void thpswap_stats_reset(struct thpswap_dev *dev);

#endif /* _THPSWAP_STATS_H */
