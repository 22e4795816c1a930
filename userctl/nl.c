// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink transport, on libnl-3 and libnl-genl-3.
 *
 * libnl 3.7 (bookworm) has no extended-ack helper, so the socket gets
 * NETLINK_EXT_ACK here and the error callbacks read NLMSGERR_ATTR_MSG
 * themselves, from NLMSG_ERROR and from the error of NLMSG_DONE.  Dumps
 * flagged NLM_F_DUMP_INTR (the cluster map or the device list changed
 * while it was read) are retried a few times.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/thpswap.h>

#include "thpswapctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define DUMP_RETRIES 5

static struct nl_sock *sk;	/* requests */
static struct nl_sock *ev_sk;	/* the events group */
static int family;

/* Per request: what the callbacks saw. */
struct req {
	struct nlmsghdr *sent;	/* the request, to name the attribute of an error */
	int err;		/* negative errno from the kernel */
	bool done;
	bool intr;		/* NLM_F_DUMP_INTR seen */
	int (*parse)(struct nlmsghdr *nlh, void *arg);
	void *arg;
	int parse_err;
};

static const char *const attr_name[] = {
	[THPSWAP_A_DEV_INDEX] = "THPSWAP_A_DEV_INDEX",
	[THPSWAP_A_DEV_NAME] = "THPSWAP_A_DEV_NAME",
	[THPSWAP_A_DEV_SIZE] = "THPSWAP_A_DEV_SIZE",
	[THPSWAP_A_DEV_BACKING] = "THPSWAP_A_DEV_BACKING",
	[THPSWAP_A_DEV_BACKING_PHYS] = "THPSWAP_A_DEV_BACKING_PHYS",
	[THPSWAP_A_DEV_FLAGS] = "THPSWAP_A_DEV_FLAGS",
	[THPSWAP_A_DEV_NR_CLUSTERS] = "THPSWAP_A_DEV_NR_CLUSTERS",
	[THPSWAP_A_DEV_GENERATION] = "THPSWAP_A_DEV_GENERATION",
	[THPSWAP_A_STATS] = "THPSWAP_A_STATS",
	[THPSWAP_A_CLUSTERS_FIRST] = "THPSWAP_A_CLUSTERS_FIRST",
	[THPSWAP_A_CLUSTERS_COUNT] = "THPSWAP_A_CLUSTERS_COUNT",
	[THPSWAP_A_RUN] = "THPSWAP_A_RUN",
	[THPSWAP_A_EVENTS_DROPPED] = "THPSWAP_A_EVENTS_DROPPED",
	[THPSWAP_A_EVENTS_COALESCED] = "THPSWAP_A_EVENTS_COALESCED",
	[THPSWAP_A_DEV_NODE] = "THPSWAP_A_DEV_NODE",
};

/*
 * NLMSGERR_ATTR_OFFS points into our request; name the attribute there,
 * since the kernel's generic policy messages ("integer out of range")
 * do not.
 */
static void name_offending_attr(const struct nlmsghdr *sent, uint32_t offs)
{
	const struct genlmsghdr *g;
	struct nlattr *a;
	int rem;
	size_t len;

	if (!sent)
		return;
	g = nlmsg_data(sent);
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		uint32_t start = (uint32_t)((const unsigned char *)a - (const unsigned char *)sent);
		int t = nla_type(a);
		const char *name;

		if (offs < start || offs >= start + (uint32_t)nla_total_size(nla_len(a)))
			continue;
		name = t < (int)(sizeof(attr_name) / sizeof(attr_name[0])) && attr_name[t]
			       ? attr_name[t] : "an unknown attribute";
		len = strlen(tsw_errmsg);
		if (len)
			snprintf(tsw_errmsg + len, sizeof(tsw_errmsg) - len, " (%s)", name);
		else
			tsw_set_errmsg("rejected %s", name);
		return;
	}
}

/* Read the extended ack TLVs after an error or DONE payload. */
static void read_extack(struct nlattr *attrs, int len, const struct nlmsghdr *sent)
{
	bool has_offs = false;
	struct nlattr *a;
	uint32_t offs = 0;
	int rem;

	if (len <= 0)
		return;
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) == NLMSGERR_ATTR_OFFS && nla_len(a) == 4) {
			offs = nla_get_u32(a);
			has_offs = true;
		}
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0) {
			const char *m = nla_data(a);
			int n = nla_len(a);

			if (m[n - 1] == 0)
				n--;
			if (n >= (int)sizeof(tsw_errmsg))
				n = (int)sizeof(tsw_errmsg) - 1;
			memcpy(tsw_errmsg, m, (size_t)n);
			tsw_errmsg[n] = 0;
			/* trailing newline or period: op_err adds its own punctuation */
			while (n && (tsw_errmsg[n - 1] == '\n'))
				tsw_errmsg[--n] = 0;
		}
	}
	if (has_offs)
		name_offending_attr(sent, offs);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((unsigned char *)e - NLMSG_HDRLEN);
	struct req *r = arg;
	int ack_len = NLMSG_HDRLEN + (int)sizeof(*e);

	(void)nla;
	r->err = e->error;
	r->done = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		ack_len += (int)e->msg.nlmsg_len - NLMSG_HDRLEN;
	read_extack((struct nlattr *)((unsigned char *)nlh + ack_len),
		    (int)nlh->nlmsg_len - ack_len, r->sent);
	return NL_STOP;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req *r = arg;

	r->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err = *(int *)nlmsg_data(nlh);

		if (err < 0) {
			r->err = err;
			if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
				read_extack((struct nlattr *)((unsigned char *)nlmsg_data(nlh) +
							     NLMSG_ALIGN(sizeof(int))),
					    (int)nlh->nlmsg_len - NLMSG_HDRLEN -
						    NLMSG_ALIGN(sizeof(int)), r->sent);
		}
	}
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	(void)msg;
	r->done = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	if (r->parse && !r->parse_err)
		r->parse_err = r->parse(nlmsg_hdr(msg), r->arg);
	return NL_OK;
}

static int on_intr(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	(void)msg;
	r->intr = true;
	return NL_OK;
}

static struct nl_msg *new_msg(uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd,
			 THPSWAP_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Send @msg (consumed) and feed each reply to @parse; 0 or -errno.
 * *intr tells a dump that was flagged inconsistent.
 */
static int transact(struct nl_msg *msg, int (*parse)(struct nlmsghdr *, void *), void *arg,
		    bool *intr)
{
	struct req r = { .parse = parse, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &r);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &r);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_intr, &r);
	tsw_errmsg[0] = 0;
	ret = nl_send_auto(sk, msg);
	r.sent = nlmsg_hdr(msg);
	if (ret < 0) {
		nlmsg_free(msg);
		nl_cb_put(cb);
		tsw_set_errmsg("sending: %s", nl_geterror(ret));
		return -EIO;
	}
	while (!r.done) {
		ret = nl_recvmsgs(sk, cb);
		if (ret == -NLE_DUMP_INTR) {
			r.intr = true;
			break;
		}
		if (ret < 0 && !r.err) {
			if (!tsw_errmsg[0])
				tsw_set_errmsg("receiving: %s", nl_geterror(ret));
			r.err = -EIO;
		}
		if (ret < 0 || r.err)
			break;
	}
	nl_cb_put(cb);
	nlmsg_free(msg);
	if (intr)
		*intr = r.intr;
	if (r.err)
		return r.err;
	return r.parse_err;
}

static int gn_open(void)
{
	int one = 1, err;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	err = genl_connect(sk);
	if (err < 0) {
		tsw_set_errmsg("connecting to generic netlink: %s", nl_geterror(err));
		return -EIO;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(sk, 1 << 20, 0);
	family = genl_ctrl_resolve(sk, THPSWAP_GENL_NAME);
	if (family < 0) {
		tsw_set_errmsg("no generic netlink family '%s': is the module loaded? (modprobe thpswap)",
			       THPSWAP_GENL_NAME);
		return -ENOENT;
	}
	return 0;
}

static void gn_close(void)
{
	if (ev_sk)
		nl_socket_free(ev_sk);
	if (sk)
		nl_socket_free(sk);
	ev_sk = sk = NULL;
}

/* ---- replies ------------------------------------------------------------ */

static struct nlattr *attrs_of(struct nlmsghdr *nlh, int *len)
{
	struct genlmsghdr *g = nlmsg_data(nlh);

	*len = genlmsg_attrlen(g, 0);
	return genlmsg_attrdata(g, 0);
}

/*
 * One u64 per stat, of type stat + 1.  A stat the module does not send (an
 * older module) is absent and stays 0; one this build does not know is
 * ignored.
 */
static void parse_stats(struct nlattr *nest, struct tsw_dev *d)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		int t = nla_type(a);

		if (t == THPSWAP_A_STATS_PAD || nla_len(a) != 8)
			continue;
		dev_set_stat(d, (unsigned int)(t - 1), nla_get_u64(a));
	}
}

static void parse_dev_attrs(struct nlmsghdr *nlh, struct tsw_dev *d)
{
	struct nlattr *a, *attrs;
	int len, rem;
	uint32_t flags;

	memset(d, 0, sizeof(*d));
	d->index = UINT32_MAX;	/* "no index in the message" */
	d->node = -1;		/* an older module does not say */
	attrs = attrs_of(nlh, &len);
	nla_for_each_attr(a, attrs, len, rem) {
		switch (nla_type(a)) {
		case THPSWAP_A_DEV_INDEX:
			d->index = nla_get_u32(a);
			break;
		case THPSWAP_A_DEV_NAME:
			snprintf(d->name, sizeof(d->name), "%s", nla_get_string(a));
			break;
		case THPSWAP_A_DEV_SIZE:
			d->size = nla_get_u64(a);
			break;
		case THPSWAP_A_DEV_BACKING:
			d->memmap = nla_get_u32(a) == THPSWAP_BACKING_MEMMAP;
			break;
		case THPSWAP_A_DEV_BACKING_PHYS:
			d->memmap_addr = nla_get_u64(a);
			break;
		case THPSWAP_A_DEV_FLAGS:
			flags = nla_get_u32(a);
			d->open = flags & THPSWAP_INFO_F_OPEN;
			d->swapon = flags & THPSWAP_INFO_F_SWAPON;
			d->authoritative = flags & THPSWAP_INFO_F_AUTHORITATIVE;
			break;
		case THPSWAP_A_DEV_NR_CLUSTERS:
			d->nr_clusters = nla_get_u64(a);
			break;
		case THPSWAP_A_DEV_NODE:
			d->node = nla_get_s32(a);
			break;
		case THPSWAP_A_DEV_GENERATION:
			d->generation = nla_get_u32(a);
			break;
		case THPSWAP_A_STATS:
			parse_stats(a, d);
			break;
		}
	}
	if (!d->name[0])
		dev_name(d->index, d->name, sizeof(d->name));
}

struct dev_list {
	struct tsw_dev *v;
	size_t n, cap;
};

static int parse_dev_one(struct nlmsghdr *nlh, void *arg)
{
	parse_dev_attrs(nlh, arg);
	return 0;
}

static int parse_dev_many(struct nlmsghdr *nlh, void *arg)
{
	struct dev_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct tsw_dev *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	parse_dev_attrs(nlh, &l->v[l->n++]);
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	const struct tsw_dev *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* ---- requests ----------------------------------------------------------- */

static int gn_list(struct tsw_dev **devs, size_t *n)
{
	struct dev_list l = { 0 };
	bool intr = false;
	int tries, err = 0;

	for (tries = 0; tries < DUMP_RETRIES; tries++) {
		struct nl_msg *msg = new_msg(THPSWAP_CMD_DEV_GET, NLM_F_DUMP);

		if (!msg)
			return -ENOMEM;
		l.n = 0;
		err = transact(msg, parse_dev_many, &l, &intr);
		if (err || !intr)
			break;
	}
	if (err) {
		free(l.v);
		return err;
	}
	if (intr)
		fprintf(stderr, "%s: warning: devices kept changing while listed\n", prog);
	if (!l.v)
		l.v = calloc(1, sizeof(*l.v));
	if (!l.v)
		return -ENOMEM;
	qsort(l.v, l.n, sizeof(*l.v), cmp_index);
	*devs = l.v;
	*n = l.n;
	return 0;
}

static int gn_get(uint32_t index, struct tsw_dev *dev)
{
	struct nl_msg *msg = new_msg(THPSWAP_CMD_DEV_GET, 0);

	if (!msg || nla_put_u32(msg, THPSWAP_A_DEV_INDEX, index) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(msg, parse_dev_one, dev, NULL);
}

static int gn_add(const struct tsw_add_req *req, uint32_t *index)
{
	struct nl_msg *msg = new_msg(THPSWAP_CMD_DEV_ADD, 0);
	struct tsw_dev dev;
	int err;

	if (!msg)
		return -ENOMEM;
	if (nla_put_u64(msg, THPSWAP_A_DEV_SIZE, req->size) < 0 ||
	    (req->want_index && nla_put_u32(msg, THPSWAP_A_DEV_INDEX, req->index) < 0) ||
	    (req->want_node && nla_put_s32(msg, THPSWAP_A_DEV_NODE, req->node) < 0) ||
	    (req->memmap && (nla_put_u32(msg, THPSWAP_A_DEV_BACKING, THPSWAP_BACKING_MEMMAP) < 0 ||
			     nla_put_u64(msg, THPSWAP_A_DEV_BACKING_PHYS, req->memmap_addr) < 0))) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	memset(&dev, 0, sizeof(dev));
	dev.index = UINT32_MAX;
	err = transact(msg, parse_dev_one, &dev, NULL);
	if (err)
		return err;
	if (dev.index == UINT32_MAX) {
		tsw_set_errmsg("the kernel's reply named no device");
		return -EPROTO;
	}
	*index = dev.index;
	return 0;
}

static int simple(uint8_t cmd, uint32_t index)
{
	struct nl_msg *msg = new_msg(cmd, 0);

	if (!msg || nla_put_u32(msg, THPSWAP_A_DEV_INDEX, index) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(msg, NULL, NULL, NULL);
}

static int gn_remove(uint32_t index)
{
	return simple(THPSWAP_CMD_DEV_DEL, index);
}

static int gn_reset(uint32_t index)
{
	return simple(THPSWAP_CMD_STATS_RESET, index);
}

/* Append the THPSWAP_A_RUN nests of one message; runs cut at message ends merge. */
static int parse_runs(struct nlmsghdr *nlh, struct tsw_runs *r)
{
	struct nlattr *a, *b, *attrs;
	int len, rem, rem2;

	attrs = attrs_of(nlh, &len);
	nla_for_each_attr(a, attrs, len, rem) {
		uint64_t first = 0, count = 0;
		int state = -1;

		if (nla_type(a) != THPSWAP_A_RUN)
			continue;
		nla_for_each_nested(b, a, rem2) {
			switch (nla_type(b)) {
			case THPSWAP_A_RUN_FIRST:
				first = nla_get_u32(b);
				break;
			case THPSWAP_A_RUN_COUNT:
				count = nla_get_u32(b);
				break;
			case THPSWAP_A_RUN_STATE:
				state = nla_get_u8(b);
				break;
			}
		}
		if (state < 0)
			continue;
		if (state >= TSW_NR_STATES)
			state = TSW_NR_STATES;	/* shown as unknown */
		if (runs_push(r, first, count, (uint8_t)state))
			return -ENOMEM;
	}
	return 0;
}

static int parse_runs_msg(struct nlmsghdr *nlh, void *arg)
{
	return parse_runs(nlh, arg);
}

static int gn_clusters(uint32_t index, uint64_t first, uint64_t last, struct tsw_runs *runs)
{
	bool intr = false;
	int tries, err = 0;

	if (last > UINT32_MAX || first > last)
		return -ERANGE;
	for (tries = 0; tries < DUMP_RETRIES; tries++) {
		struct nl_msg *msg = new_msg(THPSWAP_CMD_CLUSTERS_GET, NLM_F_DUMP);

		if (!msg)
			return -ENOMEM;
		if (nla_put_u32(msg, THPSWAP_A_DEV_INDEX, index) < 0 ||
		    nla_put_u32(msg, THPSWAP_A_CLUSTERS_FIRST, (uint32_t)first) < 0 ||
		    nla_put_u32(msg, THPSWAP_A_CLUSTERS_COUNT, (uint32_t)(last - first)) < 0) {
			nlmsg_free(msg);
			return -ENOMEM;
		}
		runs->n = 0;
		err = transact(msg, parse_runs_msg, runs, &intr);
		if (err || !intr)
			break;
	}
	if (!err && intr)
		fprintf(stderr, "%s: warning: clusters kept changing state while read; "
			"the picture mixes moments\n", prog);
	return err;
}

/* ---- events ------------------------------------------------------------- */

struct ev_ctx {
	tsw_event_fn fn;
	void *arg;
};

/* Cumulative drop counts per device, to report only what is new. */
static uint64_t dropped_seen[THPSWAP_MAX_DEVICES];

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct ev_ctx *c = arg;
	struct tsw_event ev = { .from = -1, .to = -1 };
	struct tsw_runs runs = { 0 };
	struct nlattr *a, *attrs;
	uint64_t dropped = 0;
	bool has_dropped = false;
	int len, rem;
	size_t i;

	if (nlh->nlmsg_type != family)
		return NL_SKIP;
	/*
	 * Any process may unicast to our socket: only the kernel (port id 0)
	 * speaks for thpswap, and only well-formed attributes are read.
	 */
	if (nlmsg_get_src(msg)->nl_pid != 0 ||
	    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return NL_SKIP;
	attrs = attrs_of(nlh, &len);
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) == THPSWAP_A_DEV_INDEX) {
			if (nla_len(a) != sizeof(uint32_t))
				return NL_SKIP;
			ev.index = nla_get_u32(a);
		} else if (nla_type(a) == THPSWAP_A_EVENTS_DROPPED) {
			if (nla_len(a) != sizeof(uint64_t))
				return NL_SKIP;
			dropped = nla_get_u64(a);
			has_dropped = true;
		}
	}
	switch (g->cmd) {
	case THPSWAP_CMD_DEV_NEW:
		ev.type = TSW_EV_DEV_ADD;
		c->fn(&ev, c->arg);
		break;
	case THPSWAP_CMD_DEV_DEL:
		ev.type = TSW_EV_DEV_DEL;
		if (ev.index < THPSWAP_MAX_DEVICES)
			dropped_seen[ev.index] = 0;
		c->fn(&ev, c->arg);
		break;
	case THPSWAP_CMD_CLUSTER_CHANGE:
		if (has_dropped && ev.index < THPSWAP_MAX_DEVICES &&
		    dropped > dropped_seen[ev.index]) {
			struct tsw_event d = ev;

			d.type = TSW_EV_DROPPED;
			d.count = dropped - dropped_seen[ev.index];
			dropped_seen[ev.index] = dropped;
			c->fn(&d, c->arg);
		}
		if (parse_runs(nlh, &runs))
			break;
		ev.type = TSW_EV_CLUSTER;
		for (i = 0; i < runs.n; i++) {
			ev.first = runs.v[i].start;
			ev.count = runs.v[i].count;
			ev.to = runs.v[i].state;
			c->fn(&ev, c->arg);
		}
		runs_free(&runs);
		break;
	default:
		ev.type = TSW_EV_OTHER;
		c->fn(&ev, c->arg);
	}
	return NL_OK;
}

static int gn_events_subscribe(void)
{
	int grp, err;

	grp = genl_ctrl_resolve_grp(sk, THPSWAP_GENL_NAME, THPSWAP_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		tsw_set_errmsg("no multicast group '%s' in family '%s'",
			       THPSWAP_GENL_MCGRP_EVENTS, THPSWAP_GENL_NAME);
		return -ENOENT;
	}
	ev_sk = nl_socket_alloc();
	if (!ev_sk)
		return -ENOMEM;
	err = genl_connect(ev_sk);
	if (!err)
		err = nl_socket_add_membership(ev_sk, grp);
	if (err < 0) {
		tsw_set_errmsg("joining '%s': %s", THPSWAP_GENL_MCGRP_EVENTS, nl_geterror(err));
		return -EIO;
	}
	nl_socket_set_buffer_size(ev_sk, 4 << 20, 0);
	nl_socket_set_nonblocking(ev_sk);
	return nl_socket_get_fd(ev_sk);
}

/* Notifications carry no sequence number worth checking. */
static int no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static int gn_events_read(tsw_event_fn fn, void *arg)
{
	struct ev_ctx c = { fn, arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, &c);
	ret = nl_recvmsgs(ev_sk, cb);
	nl_cb_put(cb);
	if (ret == -NLE_AGAIN)
		return -EAGAIN;
	if (ret == -NLE_NOMEM)
		return -ENOBUFS;	/* the socket overran: events were lost */
	if (ret < 0) {
		tsw_set_errmsg("%s", nl_geterror(ret));
		return -EIO;
	}
	return 0;
}

const struct tsw_transport nl_transport = {
	.name = "netlink",
	.open = gn_open,
	.close = gn_close,
	.list = gn_list,
	.get = gn_get,
	.add = gn_add,
	.remove = gn_remove,
	.reset = gn_reset,
	.clusters = gn_clusters,
	.events_subscribe = gn_events_subscribe,
	.events_read = gn_events_read,
};
