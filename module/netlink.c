// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap generic netlink family.  See uapi/linux/thpswap.h for the
 * commands and their attribute trees.
 *
 * Validation is strict (resv_start_op is 0): every command has its own
 * policy, which lists only what a request may carry, so unknown and
 * reply-only attributes are refused by the core with the attribute
 * pointed at; what a policy cannot express is checked here, again with an
 * extack message naming the attribute.  Replies are built from
 * thpswap_dev_snapshot(), the same snapshot the ioctls copy.
 *
 * The family is parallel_ops: handlers do not run under genl_mutex, so a
 * DEV_ADD allocating and zeroing gigabytes holds up no other generic
 * netlink family (nlctrl lookups, WireGuard, nbd...).  They take the
 * device table lock themselves, and creation does not hold even that
 * across the allocation (thpswap_dev_create()).
 *
 * Physical addresses (THPSWAP_A_DEV_BACKING_PHYS) go only to a socket
 * that is netlink_capable() of CAP_SYS_ADMIN, never into notifications.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/numa.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "device.h"
#include "events.h"
#include "netlink.h"

static struct netlink_range_validation thpswap_size_range = {
	.min = THPSWAP_MIN_SIZE,
	.max = THPSWAP_MAX_SIZE,
};

/* DEV_GET, DEV_DEL, STATS_GET, STATS_RESET: one device. */
static const struct nla_policy thpswap_dev_policy[THPSWAP_A_MAX + 1] = {
	[THPSWAP_A_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, THPSWAP_MAX_DEVICES - 1),
};

static const struct nla_policy thpswap_dev_add_policy[THPSWAP_A_MAX + 1] = {
	[THPSWAP_A_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, THPSWAP_MAX_DEVICES - 1),
	[THPSWAP_A_DEV_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U64,
						     &thpswap_size_range),
	[THPSWAP_A_DEV_BACKING] = NLA_POLICY_MAX(NLA_U32,
						 __THPSWAP_BACKING_MAX - 1),
	[THPSWAP_A_DEV_BACKING_PHYS] = { .type = NLA_U64 },
	/* -1 is "any node", as if absent; the node itself is checked later. */
	[THPSWAP_A_DEV_NODE] = NLA_POLICY_MIN(NLA_S32, NUMA_NO_NODE),
};

static const struct nla_policy thpswap_clusters_policy[THPSWAP_A_MAX + 1] = {
	[THPSWAP_A_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, THPSWAP_MAX_DEVICES - 1),
	[THPSWAP_A_CLUSTERS_FIRST] = { .type = NLA_U32 },
	[THPSWAP_A_CLUSTERS_COUNT] = { .type = NLA_U32 },
};

/* ---- message builders -------------------------------------------------- */

static int thpswap_nl_put_stats(struct sk_buff *skb, const u64 *values)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, THPSWAP_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < THPSWAP_NR_STATS; i++)
		if (nla_put_u64_64bit(skb, THPSWAP_A_STAT(i), values[i],
				      THPSWAP_A_STATS_PAD))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int thpswap_nl_put_dev(struct sk_buff *skb,
			      const struct thpswap_dev_snap *s, bool show_phys)
{
	char name[DISK_NAME_LEN];

	snprintf(name, sizeof(name), KBUILD_MODNAME "%d", s->index);
	if (nla_put_u32(skb, THPSWAP_A_DEV_INDEX, s->index) ||
	    nla_put_string(skb, THPSWAP_A_DEV_NAME, name) ||
	    nla_put_u64_64bit(skb, THPSWAP_A_DEV_SIZE, s->size,
			      THPSWAP_A_PAD) ||
	    nla_put_u32(skb, THPSWAP_A_DEV_BACKING, s->backing) ||
	    (s->backing == THPSWAP_BACKING_MEMMAP && show_phys &&
	     nla_put_u64_64bit(skb, THPSWAP_A_DEV_BACKING_PHYS,
			       s->backing_phys, THPSWAP_A_PAD)) ||
	    nla_put_u32(skb, THPSWAP_A_DEV_FLAGS, s->flags) ||
	    nla_put_u64_64bit(skb, THPSWAP_A_DEV_NR_CLUSTERS, s->nr_clusters,
			      THPSWAP_A_PAD) ||
	    nla_put_u32(skb, THPSWAP_A_DEV_GENERATION, s->generation) ||
	    thpswap_nl_put_stats(skb, s->stats) ||
	    nla_put_s32(skb, THPSWAP_A_DEV_NODE, s->node))
		return -EMSGSIZE;
	return 0;
}

struct sk_buff *thpswap_nl_dev_msg(const struct thpswap_dev_snap *snap,
				   u8 cmd, u32 portid, u32 seq, int flags,
				   bool show_phys)
{
	struct sk_buff *skb;
	void *hdr;

	/* GFP_KERNEL: process context (a request or a device being added). */
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, portid, seq, &thpswap_genl_family, flags, cmd);
	if (!hdr || thpswap_nl_put_dev(skb, snap, show_phys)) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

struct sk_buff *thpswap_nl_dev_del_msg(int index)
{
	char name[DISK_NAME_LEN];
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	snprintf(name, sizeof(name), KBUILD_MODNAME "%d", index);
	hdr = genlmsg_put(skb, 0, 0, &thpswap_genl_family, 0,
			  THPSWAP_CMD_DEV_DEL);
	if (!hdr || nla_put_u32(skb, THPSWAP_A_DEV_INDEX, index) ||
	    nla_put_string(skb, THPSWAP_A_DEV_NAME, name)) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

int thpswap_nl_put_run(struct sk_buff *skb, u32 first, u32 count, u8 state)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, THPSWAP_A_RUN);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, THPSWAP_A_RUN_FIRST, first) ||
	    nla_put_u32(skb, THPSWAP_A_RUN_COUNT, count) ||
	    nla_put_u8(skb, THPSWAP_A_RUN_STATE, state)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* ---- requests ------------------------------------------------------------ */

/*
 * Does not sleep.  GENL_REQ_ATTR_CHECK() points at the missing attribute
 * (NLMSGERR_ATTR_MISS_TYPE); the message says it in words as well.
 */
#define THPSWAP_NL_REQUIRE(info, attr) ({				\
	struct genl_info *__tinfo = (info);				\
	bool __missing = GENL_REQ_ATTR_CHECK(__tinfo, attr);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG(__tinfo->extack,				\
			       #attr ": missing, but required");	\
	__missing;							\
})

/* May sleep.  Creating and removing block devices is sysadmin business. */
static int thpswap_nl_check_sysadmin(struct sk_buff *skb,
				     struct genl_info *info)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack,
		       "CAP_SYS_ADMIN is needed to add, remove or reset devices");
	return -EPERM;
}

/*
 * May sleep.  Snapshot of the device named by the required
 * THPSWAP_A_DEV_INDEX; 0, or -EINVAL/-ENODEV with an extack message.
 */
static int thpswap_nl_snapshot(struct genl_info *info,
			       struct thpswap_dev_snap *snap)
{
	struct thpswap_dev *dev;
	int index;

	if (THPSWAP_NL_REQUIRE(info, THPSWAP_A_DEV_INDEX))
		return -EINVAL;
	index = nla_get_u32(info->attrs[THPSWAP_A_DEV_INDEX]);

	thpswap_devices_lock();
	dev = thpswap_dev_find(index);
	if (dev)
		thpswap_dev_snapshot(dev, snap);
	thpswap_devices_unlock();
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[THPSWAP_A_DEV_INDEX],
				    "THPSWAP_A_DEV_INDEX: no such device");
		return -ENODEV;
	}
	return 0;
}

static int thpswap_nl_reply_dev(struct sk_buff *req, struct genl_info *info,
				u8 cmd, const struct thpswap_dev_snap *snap)
{
	struct sk_buff *skb;

	skb = thpswap_nl_dev_msg(snap, cmd, info->snd_portid, info->snd_seq,
				 0, netlink_capable(req, CAP_SYS_ADMIN));
	if (!skb)
		return -ENOMEM;
	return genlmsg_reply(skb, info);
}

static int thpswap_nl_dev_get_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	struct thpswap_dev_snap snap;
	int err;

	err = thpswap_nl_snapshot(info, &snap);
	if (err)
		return err;
	return thpswap_nl_reply_dev(skb, info, THPSWAP_CMD_DEV_GET, &snap);
}

/*
 * cb->args[0]: the next device index to report.  cb->seq: the device
 * table generation, so that a dump racing with add/remove is flagged.
 */
static int thpswap_nl_dev_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	bool show_phys = netlink_capable(cb->skb, CAP_SYS_ADMIN);
	struct thpswap_dev_snap snap;
	struct thpswap_dev *dev;
	int index = cb->args[0];
	void *hdr;

	for (;;) {
		thpswap_devices_lock();
		cb->seq = thpswap_devices_generation();
		dev = thpswap_dev_next(&index);
		if (dev)
			thpswap_dev_snapshot(dev, &snap);
		thpswap_devices_unlock();
		if (!dev)
			break;

		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &thpswap_genl_family,
				  NLM_F_MULTI, THPSWAP_CMD_DEV_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (thpswap_nl_put_dev(skb, &snap, show_phys)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		index++;
	}
	cb->args[0] = index;
	return skb->len;
}

static int thpswap_nl_dev_add_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct thpswap_dev_config cfg = {
		.index = -1,
		.backing = THPSWAP_BACKING_RAM,
		.node = NUMA_NO_NODE,
	};
	struct thpswap_dev_snap snap;
	struct thpswap_dev *dev;
	struct nlattr *bad;
	int err, index;
	u64 phys;

	err = thpswap_nl_check_sysadmin(skb, info);
	if (err)
		return err;
	if (THPSWAP_NL_REQUIRE(info, THPSWAP_A_DEV_SIZE))
		return -EINVAL;
	cfg.size = nla_get_u64(attrs[THPSWAP_A_DEV_SIZE]);
	if (!IS_ALIGNED(cfg.size, THPSWAP_CHUNK_SIZE)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[THPSWAP_A_DEV_SIZE],
				    "THPSWAP_A_DEV_SIZE: not a multiple of 2 MiB");
		return -EINVAL;
	}
	if (attrs[THPSWAP_A_DEV_INDEX])
		cfg.index = nla_get_u32(attrs[THPSWAP_A_DEV_INDEX]);
	if (attrs[THPSWAP_A_DEV_BACKING])
		cfg.backing = nla_get_u32(attrs[THPSWAP_A_DEV_BACKING]);
	if (cfg.backing == THPSWAP_BACKING_MEMMAP) {
		if (THPSWAP_NL_REQUIRE(info, THPSWAP_A_DEV_BACKING_PHYS))
			return -EINVAL;
		/* Checked as a u64: phys_addr_t may be narrower. */
		phys = nla_get_u64(attrs[THPSWAP_A_DEV_BACKING_PHYS]);
		if (!phys || !IS_ALIGNED(phys, THPSWAP_CHUNK_SIZE) ||
		    phys > (u64)(phys_addr_t)~0) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    attrs[THPSWAP_A_DEV_BACKING_PHYS],
					    "THPSWAP_A_DEV_BACKING_PHYS: must be a non-zero, 2 MiB aligned physical address");
			return -EINVAL;
		}
		/* cfg.size <= THPSWAP_MAX_SIZE (the policy): no overflow. */
		if (phys + cfg.size - 1 < phys) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    attrs[THPSWAP_A_DEV_BACKING_PHYS],
					    "THPSWAP_A_DEV_BACKING_PHYS: the range wraps past the end of the address space");
			return -EINVAL;
		}
		cfg.backing_phys = phys;
	} else if (attrs[THPSWAP_A_DEV_BACKING_PHYS]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    attrs[THPSWAP_A_DEV_BACKING_PHYS],
				    "THPSWAP_A_DEV_BACKING_PHYS: only valid with memmap backing");
		return -EINVAL;
	}
	if (attrs[THPSWAP_A_DEV_NODE]) {
		cfg.node = nla_get_s32(attrs[THPSWAP_A_DEV_NODE]);
		if (cfg.backing != THPSWAP_BACKING_RAM &&
		    cfg.node != NUMA_NO_NODE) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    attrs[THPSWAP_A_DEV_NODE],
					    "THPSWAP_A_DEV_NODE: only valid with RAM backing (a memmap range is where it is)");
			return -EINVAL;
		}
	}

	err = thpswap_dev_create(&cfg, &index);
	if (err) {
		switch (err) {
		case -EEXIST:
			NL_SET_ERR_MSG_ATTR(info->extack,
					    attrs[THPSWAP_A_DEV_INDEX],
					    "THPSWAP_A_DEV_INDEX: device exists");
			break;
		case -ENOSPC:
			NL_SET_ERR_MSG(info->extack, "no free device index");
			break;
		case -ENODEV:
			/* Only the node can be missing: the reason is static. */
			NL_SET_ERR_MSG_ATTR(info->extack,
					    attrs[THPSWAP_A_DEV_NODE],
					    "THPSWAP_A_DEV_NODE: no such NUMA node");
			if (cfg.errmsg && info->extack)
				info->extack->_msg = cfg.errmsg;
			break;
		case -ENOMEM:
			bad = cfg.node != NUMA_NO_NODE && cfg.errmsg ?
			      attrs[THPSWAP_A_DEV_NODE] : attrs[THPSWAP_A_DEV_SIZE];
			NL_SET_ERR_MSG_ATTR(info->extack, bad,
					    "THPSWAP_A_DEV_SIZE: not enough memory for a device this size");
			/* The budget's reason, a static string, when it refused. */
			if (cfg.errmsg && info->extack)
				info->extack->_msg = cfg.errmsg;
			break;
		case -EINTR:
			NL_SET_ERR_MSG(info->extack,
				       "interrupted while allocating the device");
			break;
		default:
			bad = attrs[THPSWAP_A_DEV_BACKING_PHYS];
			NL_SET_ERR_MSG_ATTR(info->extack, bad ?: attrs[THPSWAP_A_DEV_SIZE],
					    "cannot create the device (memmap range not reserved or in use?)");
			break;
		}
		return err;
	}

	/* It may be gone again already: report what is there. */
	thpswap_devices_lock();
	dev = thpswap_dev_find(index);
	if (dev)
		thpswap_dev_snapshot(dev, &snap);
	thpswap_devices_unlock();
	if (!dev)
		return -ENODEV;
	return thpswap_nl_reply_dev(skb, info, THPSWAP_CMD_DEV_ADD, &snap);
}

/* May sleep.  Maps a remove or reset failure to an extack message. */
static int thpswap_nl_dev_error(struct genl_info *info, int err)
{
	struct nlattr *attr = info->attrs[THPSWAP_A_DEV_INDEX];

	if (err == -ENODEV)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "THPSWAP_A_DEV_INDEX: no such device");
	else if (err == -EBUSY)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "THPSWAP_A_DEV_INDEX: device is open or in use as swap");
	return err;
}

static int thpswap_nl_dev_del_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	int err;

	err = thpswap_nl_check_sysadmin(skb, info);
	if (err)
		return err;
	if (THPSWAP_NL_REQUIRE(info, THPSWAP_A_DEV_INDEX))
		return -EINVAL;
	err = thpswap_dev_remove(nla_get_u32(info->attrs[THPSWAP_A_DEV_INDEX]));
	return thpswap_nl_dev_error(info, err);
}

static int thpswap_nl_stats_get_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct thpswap_dev_snap snap;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = thpswap_nl_snapshot(info, &snap);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &thpswap_genl_family, 0,
				THPSWAP_CMD_STATS_GET);
	if (!hdr || nla_put_u32(msg, THPSWAP_A_DEV_INDEX, snap.index) ||
	    thpswap_nl_put_stats(msg, snap.stats)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int thpswap_nl_stats_reset_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	struct thpswap_dev *dev;
	int err;

	err = thpswap_nl_check_sysadmin(skb, info);
	if (err)
		return err;
	if (THPSWAP_NL_REQUIRE(info, THPSWAP_A_DEV_INDEX))
		return -EINVAL;
	thpswap_devices_lock();
	dev = thpswap_dev_find(nla_get_u32(info->attrs[THPSWAP_A_DEV_INDEX]));
	if (dev)
		thpswap_stats_reset(dev);
	thpswap_devices_unlock();
	return thpswap_nl_dev_error(info, dev ? 0 : -ENODEV);
}

/*
 * CLUSTERS_GET dump state: the device, the next cluster to report and the
 * end of the requested range.  Each part re-finds the device by index and
 * checks its serial: if it was removed the dump ends with -ENODEV; if
 * another device took its index, the part says so with NLM_F_DUMP_INTR
 * and the dump ends there, so two devices' clusters never come back as
 * one map.
 */
struct thpswap_nl_clusters_ctx {
	u64 serial;
	int index;
	u32 next;
	u32 end;
	bool started;
};

static struct thpswap_nl_clusters_ctx *
thpswap_nl_clusters_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct thpswap_nl_clusters_ctx) > sizeof(cb->ctx));
	return (struct thpswap_nl_clusters_ctx *)cb->ctx;
}

/*
 * Checks the request and sets up @ctx, on the first part of the dump,
 * with the device table lock held across this and the first part:
 * only there does the 6.1 core hand us an extack (cb->extack is NULL in
 * .start), and an error here reaches the caller in NLMSG_DONE with it.
 * Called with the device table lock held.
 */
static int thpswap_nl_clusters_begin(struct netlink_callback *cb,
				     struct thpswap_nl_clusters_ctx *ctx)
{
	struct nlattr **attrs = genl_dumpit_info(cb)->attrs;
	struct thpswap_dev *dev;
	u32 nr, first = 0, count = U32_MAX;

	if (NL_REQ_ATTR_CHECK(cb->extack, NULL, attrs, THPSWAP_A_DEV_INDEX)) {
		NL_SET_ERR_MSG(cb->extack,
			       "THPSWAP_A_DEV_INDEX: missing, but required");
		return -EINVAL;
	}
	ctx->index = nla_get_u32(attrs[THPSWAP_A_DEV_INDEX]);
	if (attrs[THPSWAP_A_CLUSTERS_FIRST])
		first = nla_get_u32(attrs[THPSWAP_A_CLUSTERS_FIRST]);
	if (attrs[THPSWAP_A_CLUSTERS_COUNT])
		count = nla_get_u32(attrs[THPSWAP_A_CLUSTERS_COUNT]);

	dev = thpswap_dev_find(ctx->index);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attrs[THPSWAP_A_DEV_INDEX],
				    "THPSWAP_A_DEV_INDEX: no such device");
		return -ENODEV;
	}
	ctx->serial = dev->serial;
	nr = dev->clusters.nr;
	if (first > nr) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attrs[THPSWAP_A_CLUSTERS_FIRST],
				    "THPSWAP_A_CLUSTERS_FIRST: beyond the last cluster of the device");
		return -EINVAL;
	}
	ctx->next = first;
	ctx->end = first + min(count, nr - first);
	ctx->started = true;
	return 0;
}

/* Clusters read per lock round trip in the dump; small, on the stack. */
#define THPSWAP_NL_CLUSTER_BATCH	64

/*
 * Fills one message with runs from ctx->next on.  Returns 0 when the
 * range is done, 1 when the message is full, or a negative errno.
 */
static int thpswap_nl_clusters_fill(struct sk_buff *skb,
				    struct thpswap_dev *dev,
				    struct thpswap_nl_clusters_ctx *ctx)
{
	u8 states[THPSWAP_NL_CLUSTER_BATCH];
	u32 run_first = ctx->next, run_count = 0, i, n;
	u8 run_state = 0;

	while (ctx->next + run_count < ctx->end) {
		n = thpswap_clusters_get(&dev->clusters, ctx->next + run_count,
					 min_t(u32, THPSWAP_NL_CLUSTER_BATCH,
					       ctx->end - ctx->next - run_count),
					 states, NULL);
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			if (run_count && states[i] == run_state) {
				run_count++;
				continue;
			}
			if (run_count) {
				if (thpswap_nl_put_run(skb, run_first,
						       run_count, run_state))
					return 1;
				ctx->next = run_first + run_count;
			}
			run_first = ctx->next;
			run_count = 1;
			run_state = states[i];
		}
	}
	if (run_count) {
		if (thpswap_nl_put_run(skb, run_first, run_count, run_state))
			return 1;
		ctx->next = run_first + run_count;
	}
	ctx->next = ctx->end;
	return 0;
}

static int thpswap_nl_clusters_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct thpswap_nl_clusters_ctx *ctx = thpswap_nl_clusters_ctx(cb);
	struct thpswap_dev *dev;
	void *hdr;
	u32 gen;
	int err;

	thpswap_devices_lock();
	if (!ctx->started) {
		err = thpswap_nl_clusters_begin(cb, ctx);
		if (err)
			goto out_unlock;
	}
	err = 0;
	if (ctx->next >= ctx->end)
		goto out_unlock;
	err = -ENODEV;
	dev = thpswap_dev_find(ctx->index);
	if (!dev)
		goto out_unlock;
	ctx->end = min_t(u32, ctx->end, dev->clusters.nr);

	err = -EMSGSIZE;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &thpswap_genl_family, NLM_F_MULTI,
			  THPSWAP_CMD_CLUSTERS_GET);
	if (!hdr)
		goto out_unlock;
	if (dev->serial != ctx->serial) {
		/*
		 * Another device under the same index: its generation says
		 * nothing about the first one's.  Flag this part, with no
		 * runs, and the NLMSG_DONE after it, and stop.
		 */
		thpswap_devices_unlock();
		genlmsg_nlhdr(hdr)->nlmsg_flags |= NLM_F_DUMP_INTR;
		cb->prev_seq = 1;
		cb->seq = 2;
		genlmsg_end(skb, hdr);
		ctx->next = ctx->end;
		return skb->len;
	}
	/* Changes since the previous part flag this one... */
	gen = thpswap_clusters_generation(&dev->clusters);
	cb->seq = gen;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, THPSWAP_A_DEV_INDEX, ctx->index) ||
	    nla_put_u32(skb, THPSWAP_A_DEV_GENERATION, gen)) {
		genlmsg_cancel(skb, hdr);
		goto out_unlock;
	}
	/* Done or full: either way this part ends here. */
	thpswap_nl_clusters_fill(skb, dev, ctx);
	/* ...and so do changes while it was being filled. */
	cb->seq = thpswap_clusters_generation(&dev->clusters);
	genl_dump_check_consistent(cb, hdr);
	thpswap_devices_unlock();

	genlmsg_end(skb, hdr);
	return skb->len;

out_unlock:
	thpswap_devices_unlock();
	return err;
}

static const struct genl_ops thpswap_genl_ops[] = {
	{
		.cmd = THPSWAP_CMD_DEV_GET,
		.doit = thpswap_nl_dev_get_doit,
		.dumpit = thpswap_nl_dev_get_dumpit,
		.policy = thpswap_dev_policy,
		.maxattr = THPSWAP_A_MAX,
	},
	{
		.cmd = THPSWAP_CMD_DEV_ADD,
		.doit = thpswap_nl_dev_add_doit,
		.policy = thpswap_dev_add_policy,
		.maxattr = THPSWAP_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = THPSWAP_CMD_DEV_DEL,
		.doit = thpswap_nl_dev_del_doit,
		.policy = thpswap_dev_policy,
		.maxattr = THPSWAP_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = THPSWAP_CMD_STATS_GET,
		.doit = thpswap_nl_stats_get_doit,
		.policy = thpswap_dev_policy,
		.maxattr = THPSWAP_A_MAX,
	},
	{
		.cmd = THPSWAP_CMD_STATS_RESET,
		.doit = thpswap_nl_stats_reset_doit,
		.policy = thpswap_dev_policy,
		.maxattr = THPSWAP_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = THPSWAP_CMD_CLUSTERS_GET,
		.dumpit = thpswap_nl_clusters_dumpit,
		.policy = thpswap_clusters_policy,
		.maxattr = THPSWAP_A_MAX,
	},
};

static const struct genl_multicast_group thpswap_genl_mcgrps[] = {
	[THPSWAP_MCGRP_EVENTS] = { .name = THPSWAP_GENL_MCGRP_EVENTS },
};

struct genl_family thpswap_genl_family __ro_after_init = {
	.name = THPSWAP_GENL_NAME,
	.version = THPSWAP_GENL_VERSION,
	.maxattr = THPSWAP_A_MAX,
	.module = THIS_MODULE,
	.ops = thpswap_genl_ops,
	.n_ops = ARRAY_SIZE(thpswap_genl_ops),
	.mcgrps = thpswap_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(thpswap_genl_mcgrps),
	/* Not under genl_mutex: see the top of this file. */
	.parallel_ops = true,
	/* resv_start_op 0: every command is validated strictly. */
};

int thpswap_netlink_init(void)
{
	return genl_register_family(&thpswap_genl_family);
}

void thpswap_netlink_exit(void)
{
	genl_unregister_family(&thpswap_genl_family);
}

MODULE_ALIAS_GENL_FAMILY(THPSWAP_GENL_NAME);
