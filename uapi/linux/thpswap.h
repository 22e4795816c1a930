/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * thpswap: the interface between the thpswap module and user space.
 *
 * This header is the only definition of what crosses the boundary; the
 * module and thpswapctl both include it.  Until the control device and the
 * generic netlink family exist, the interface is sysfs:
 *
 *   /sys/block/thpswapN/thpswap/stats     "name value" lines; the first is
 *                                         "version THPSWAP_STATS_VERSION";
 *                                         keys are only ever appended
 *   /sys/block/thpswapN/thpswap/clusters  total, then one count per state
 */
#ifndef _UAPI_LINUX_THPSWAP_H
#define _UAPI_LINUX_THPSWAP_H

#define THPSWAP_STATS_VERSION	1

/* State of one 2 MiB swap cluster (512 slots) of a device. */
enum thpswap_cluster_state {
	THPSWAP_CLUSTER_FREE,	/* no live slot */
	THPSWAP_CLUSTER_HUGE,	/* written as one whole THP, untouched since */
	THPSWAP_CLUSTER_SPLIT,	/* was HUGE, then partly freed or 4 KiB-accessed */
	THPSWAP_CLUSTER_SMALL,	/* used by single 4 KiB pages */

	__THPSWAP_CLUSTER_STATE_MAX
};

#endif /* _UAPI_LINUX_THPSWAP_H */
