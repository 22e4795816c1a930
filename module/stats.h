/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap statistics: per-cpu counters bumped by the I/O path, and the
 * one snapshot every reader (sysfs today, netlink later) reports from.
 */
#ifndef _THPSWAP_STATS_H
#define _THPSWAP_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "clusters.h"

struct thpswap_dev;

/*
 * Device counters.  The order is the order of the sysfs "stats" file
 * after its version line: only ever append, and keep
 * thpswap_stat_names[] in step.
 */
enum thpswap_stat {
	THPSWAP_STAT_THP_WRITES,	/* whole 2 MiB clusters written */
	THPSWAP_STAT_THP_READS,		/* whole 2 MiB clusters read */
	THPSWAP_STAT_PAGE_WRITES,	/* 4 KiB pages written otherwise */
	THPSWAP_STAT_PAGE_READS,	/* 4 KiB pages read otherwise */
	THPSWAP_STAT_BYTES_WRITTEN,
	THPSWAP_STAT_BYTES_READ,
	THPSWAP_STAT_DISCARDS,		/* discard requests */
	THPSWAP_STAT_SLOT_FREES,	/* swap_slot_free_notify() calls */
	THPSWAP_STAT_REJECTED,		/* out-of-range or misaligned I/O */
	THPSWAP_NR_STATS,
};

extern const char *const thpswap_stat_names[THPSWAP_NR_STATS];

/* Per-cpu; each CPU only ever adds to its own, with this_cpu_*(). */
struct thpswap_pcpu_stats {
	u64 c[THPSWAP_NR_STATS];
};

struct thpswap_stats_snap {
	u64 c[THPSWAP_NR_STATS];
	/* Global vm events (all swap devices), 0 without VM_EVENT_COUNTERS. */
	u64 thp_swpout;
	u64 thp_swpout_fallback;
	struct thpswap_cluster_counts clusters;
};

/* Does not sleep; any context. */
#define thpswap_stat_add(dev, item, n)	this_cpu_add((dev)->stats->c[item], (n))
#define thpswap_stat_inc(dev, item)	this_cpu_inc((dev)->stats->c[item])

/* May sleep. */
struct thpswap_pcpu_stats __percpu *thpswap_stats_alloc(void);
void thpswap_stats_free(struct thpswap_pcpu_stats __percpu *stats);

/* Does not sleep. */
void thpswap_stats_snapshot(struct thpswap_dev *dev,
			    struct thpswap_stats_snap *snap);
void thpswap_stats_reset(struct thpswap_dev *dev);

#endif /* _THPSWAP_STATS_H */
