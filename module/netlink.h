/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap generic netlink family "thpswap": requests, dumps and the
 * message builders the events share.  The wire format is in
 * uapi/linux/thpswap.h.
 */
#ifndef _THPSWAP_NETLINK_H
#define _THPSWAP_NETLINK_H

#include <linux/types.h>
#include <net/genetlink.h>

#include "stats.h"

/* Index of the "events" group in thpswap_genl_family.mcgrps. */
enum thpswap_mcgrp {
	THPSWAP_MCGRP_EVENTS,
};

extern struct genl_family thpswap_genl_family;

/* May sleep. */
int thpswap_netlink_init(void);
void thpswap_netlink_exit(void);

/*
 * May sleep (GFP_KERNEL).  A whole message describing a device (the
 * DEV_GET reply attributes) with command @cmd, or NULL without memory.
 * The physical address of a memmap range is in it only if @show_phys.
 */
struct sk_buff *thpswap_nl_dev_msg(const struct thpswap_dev_snap *snap,
				   u8 cmd, u32 portid, u32 seq, int flags,
				   bool show_phys);
/* May sleep.  The DEV_DEL notification of device @index, or NULL. */
struct sk_buff *thpswap_nl_dev_del_msg(int index);
/* Does not sleep.  Appends one THPSWAP_A_RUN nest; 0 or -EMSGSIZE. */
int thpswap_nl_put_run(struct sk_buff *skb, u32 first, u32 count, u8 state);

#endif /* _THPSWAP_NETLINK_H */
