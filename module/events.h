/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap events: the notifications of the netlink multicast group
 * "events" (device added or removed, clusters changed state).
 *
 * Cluster transitions happen in the I/O path, in atomic context under the
 * cluster's spinlock.  There we only set a bit and bump counters, and
 * only while someone listens; a delayed work per device, at most every
 * THPSWAP_EVENTS_DELAY, turns the bits into CLUSTER_CHANGE messages.
 */
#ifndef _THPSWAP_EVENTS_H
#define _THPSWAP_EVENTS_H

#include <linux/types.h>
#include <linux/workqueue.h>

struct thpswap_clusters;
struct thpswap_dev;

#define THPSWAP_EVENTS_DELAY	msecs_to_jiffies(100)

/*
 * The clusters' on_change hook (struct thpswap_clusters), set by
 * device.c.  Does not sleep, does not allocate; called under the
 * cluster's lock with the cluster's index.
 */
void thpswap_events_cluster_changed(struct thpswap_clusters *c,
				    unsigned long idx);

/* The work function of thpswap_dev.events_work.  May sleep. */
void thpswap_events_work(struct work_struct *work);

/* May sleep; called with the device table lock held. */
void thpswap_events_dev_new(struct thpswap_dev *dev);
void thpswap_events_dev_del(int index);

/*
 * May sleep.  Events are sent between enable (after the netlink family
 * is registered) and disable (before it is unregistered).  Disable waits
 * for the cluster hooks in flight; the caller then waits for the works
 * they queued with thpswap_devices_cancel_events(), and only after both
 * may the family go.
 */
void thpswap_events_enable(void);
void thpswap_events_disable(void);

#endif /* _THPSWAP_EVENTS_H */
