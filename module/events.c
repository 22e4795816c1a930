// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap events.  See events.h.
 *
 * Coalescing: a cluster that changes state several times between two runs
 * of the work is reported once, with its state at send time; the
 * transitions folded that way are counted in events_coalesced.  Changes
 * whose message could not be allocated or delivered (a listener's socket
 * full: -ENOBUFS) are counted in events_dropped.  Both counts travel in
 * every CLUSTER_CHANGE message, so a listener knows what it missed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/rcupdate.h>
#include <net/genetlink.h>

#include "device.h"
#include "events.h"
#include "netlink.h"

/*
 * True between thpswap_events_enable() and thpswap_events_disable().
 * Read locklessly by the cluster hooks (which run with preemption
 * disabled, so synchronize_rcu() waits for them) and by the senders.
 */
static bool thpswap_events_on;

/* Does not sleep. */
static bool thpswap_events_listening(void)
{
	return READ_ONCE(thpswap_events_on) &&
	       genl_has_listeners(&thpswap_genl_family, &init_net,
				  THPSWAP_MCGRP_EVENTS) > 0;
}

void thpswap_events_cluster_changed(struct thpswap_clusters *c,
				    unsigned long idx)
{
	struct thpswap_dev *dev;

	if (!thpswap_events_listening())
		return;
	atomic_long_inc(&c->transitions);
	if (test_and_set_bit(idx, c->changed))
		return;
	dev = container_of(c, struct thpswap_dev, clusters);
	/* No allocation: a no-op if pending, else arms a timer. */
	queue_delayed_work(system_wq, &dev->events_work, THPSWAP_EVENTS_DELAY);
}

/* One CLUSTER_CHANGE message under construction. */
struct thpswap_events_msg {
	struct sk_buff *skb;
	void *hdr;
	unsigned long clusters;	/* changed clusters it reports */
};

/* May sleep.  Sends and forgets @m's message, if any. */
static void thpswap_events_flush(struct thpswap_dev *dev,
				 struct thpswap_events_msg *m)
{
	int err;

	if (!m->skb)
		return;
	genlmsg_end(m->skb, m->hdr);
	err = genlmsg_multicast(&thpswap_genl_family, m->skb, 0,
				THPSWAP_MCGRP_EVENTS, GFP_KERNEL);
	/* -ESRCH: the last listener left; nobody missed anything. */
	if (err && err != -ESRCH)
		dev->events_dropped += m->clusters;
	m->skb = NULL;
	m->clusters = 0;
}

/* May sleep.  Starts a message; false if out of memory. */
static bool thpswap_events_start(struct thpswap_dev *dev,
				 struct thpswap_events_msg *m, u32 gen)
{
	/* GFP_KERNEL: process context, and nothing here is on the I/O path. */
	m->skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!m->skb)
		return false;
	m->hdr = genlmsg_put(m->skb, 0, 0, &thpswap_genl_family, 0,
			     THPSWAP_CMD_CLUSTER_CHANGE);
	if (!m->hdr ||
	    nla_put_u32(m->skb, THPSWAP_A_DEV_INDEX, dev->index) ||
	    nla_put_u32(m->skb, THPSWAP_A_DEV_GENERATION, gen) ||
	    nla_put_u64_64bit(m->skb, THPSWAP_A_EVENTS_DROPPED,
			      dev->events_dropped, THPSWAP_A_PAD) ||
	    nla_put_u64_64bit(m->skb, THPSWAP_A_EVENTS_COALESCED,
			      dev->events_coalesced, THPSWAP_A_PAD)) {
		nlmsg_free(m->skb);
		m->skb = NULL;
		return false;
	}
	m->clusters = 0;
	return true;
}

/* May sleep.  Adds one run to the message, sending full ones. */
static void thpswap_events_add_run(struct thpswap_dev *dev,
				   struct thpswap_events_msg *m, u32 gen,
				   u32 first, u32 count, u8 state)
{
	int tries;

	for (tries = 0; tries < 2; tries++) {
		if (!m->skb && !thpswap_events_start(dev, m, gen))
			break;
		if (!thpswap_nl_put_run(m->skb, first, count, state)) {
			m->clusters += count;
			return;
		}
		/* Full: send it and put the run in a fresh one. */
		thpswap_events_flush(dev, m);
	}
	dev->events_dropped += count;
}

void thpswap_events_work(struct work_struct *work)
{
	struct thpswap_dev *dev = container_of(to_delayed_work(work),
					       struct thpswap_dev,
					       events_work);
	struct thpswap_clusters *c = &dev->clusters;
	unsigned long nwords = BITS_TO_LONGS(c->nr);
	struct thpswap_events_msg m = { };
	unsigned long w, bits, changed = 0, idx, transitions;
	u32 run_first = 0, run_count = 0, gen;
	u8 run_state = 0, state;
	unsigned int b;
	bool send;

	send = thpswap_events_listening();
	transitions = atomic_long_xchg(&c->transitions, 0);
	/* Take the changed bits; hooks may set them again meanwhile. */
	for (w = 0; w < nwords; w++) {
		if (!READ_ONCE(c->changed[w]))
			continue;
		bits = xchg(&c->changed[w], 0);
		c->sending[w] = bits;
		changed += hweight_long(bits);
	}
	if (!send || !changed) {
		bitmap_zero(c->sending, c->nr);
		return;
	}
	if (transitions > changed)
		dev->events_coalesced += transitions - changed;
	gen = thpswap_clusters_generation(c);

	for (w = 0; w < nwords; w++) {
		bits = c->sending[w];
		if (!bits)
			continue;
		c->sending[w] = 0;
		for_each_set_bit(b, &bits, BITS_PER_LONG) {
			idx = w * BITS_PER_LONG + b;
			thpswap_clusters_get(c, idx, 1, &state, NULL);
			if (run_count && run_first + run_count == idx &&
			    run_state == state) {
				run_count++;
				continue;
			}
			if (run_count)
				thpswap_events_add_run(dev, &m, gen, run_first,
						       run_count, run_state);
			run_first = idx;
			run_count = 1;
			run_state = state;
		}
		cond_resched();
	}
	if (run_count)
		thpswap_events_add_run(dev, &m, gen, run_first, run_count,
				       run_state);
	thpswap_events_flush(dev, &m);
}

/* May sleep.  Multicasts a finished message, if anyone listens. */
static void thpswap_events_send(struct sk_buff *skb)
{
	genlmsg_multicast(&thpswap_genl_family, skb, 0, THPSWAP_MCGRP_EVENTS,
			  GFP_KERNEL);
}

void thpswap_events_dev_new(struct thpswap_dev *dev)
{
	struct thpswap_dev_snap snap;
	struct sk_buff *skb;

	if (!thpswap_events_listening())
		return;
	thpswap_dev_snapshot(dev, &snap);
	/* Anyone may listen: no physical address in it. */
	skb = thpswap_nl_dev_msg(&snap, THPSWAP_CMD_DEV_NEW, 0, 0, 0, false);
	if (skb)
		thpswap_events_send(skb);
}

void thpswap_events_dev_del(int index)
{
	struct sk_buff *skb;

	if (!thpswap_events_listening())
		return;
	skb = thpswap_nl_dev_del_msg(index);
	if (skb)
		thpswap_events_send(skb);
}

void thpswap_events_enable(void)
{
	WRITE_ONCE(thpswap_events_on, true);
}

void thpswap_events_disable(void)
{
	WRITE_ONCE(thpswap_events_on, false);
	/*
	 * The hooks run with preemption disabled: once this returns, any
	 * hook that saw the flag set has queued its work, which the caller
	 * then cancels (thpswap_devices_cancel_events(): the works belong to
	 * the devices, and this layer calls nothing in device.c).
	 */
	synchronize_rcu();
}
