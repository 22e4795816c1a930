// SPDX-License-Identifier: GPL-2.0
/*
 * nl_test: the thpswap generic netlink family, with raw netlink sockets.
 *
 * Precondition (tests/guest/control/control.sh): modprobe thpswap
 * size=256M; mkswap /dev/thpswap0; thpswap0 not swapped on; no other swap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "ctl.h"

#define DEV0_PATH	"/dev/thpswap0"
#define DEV0_BYTES	(256ULL << 20)
#define NR_CLUSTERS	(DEV0_BYTES >> 21)

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* ---- a tiny netlink library -------------------------------------------- */

struct nl {
	int fd;
	uint32_t seq;
	char ext_msg[256];	/* extack message of the last error */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, or -1 */
	int intr;		/* a dump part had NLM_F_DUMP_INTR */
};

static uint16_t family_id;

/*
 * tests/check runs this on the patched and debug kernels with
 * THPSWAP_EXPECT_PATCHED=1: there a module that does not report the
 * kernel's cluster states (built without patches/0001's hooks) is a
 * failure, not a skip.
 */
static bool expect_patched(void)
{
	const char *e = getenv("THPSWAP_EXPECT_PATCHED");

	return e && !strcmp(e, "1");
}
static uint32_t events_grp;

struct req {
	union {
		struct nlmsghdr nh;
		char buf[8192];
	};
};

static void req_init(struct req *r, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = NLMSG_DATA(&r->nh);
	g->cmd = cmd;
	g->version = 1;
}

static struct nlattr *put_attr(struct req *r, uint16_t type, const void *d,
			       uint16_t len)
{
	struct nlattr *a = (void *)(r->buf + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, d, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

static void put_u32(struct req *r, uint16_t type, uint32_t v)
{
	put_attr(r, type, &v, 4);
}

static void put_u64(struct req *r, uint16_t type, uint64_t v)
{
	put_attr(r, type, &v, 8);
}

static int nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 10 };
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (bind(nl->fd, (void *)&sa, sizeof(sa)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

#define for_each_attr(a, start, len)					\
	for (a = (struct nlattr *)(start);				\
	     (char *)a + NLA_HDRLEN <= (char *)(start) + (len) &&	\
	     a->nla_len >= NLA_HDRLEN &&					\
	     (char *)a + a->nla_len <= (char *)(start) + (len);		\
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))

#define ATTR_TYPE(a)	((a)->nla_type & NLA_TYPE_MASK)
#define ATTR_DATA(a)	((void *)((char *)(a) + NLA_HDRLEN))
#define ATTR_LEN(a)	((a)->nla_len - NLA_HDRLEN)
#define ATTR_U32(a)	(*(uint32_t *)ATTR_DATA(a))
#define ATTR_U64(a)	(*(uint64_t *)ATTR_DATA(a))

typedef void (*msg_cb)(struct nlmsghdr *nh, void *arg);

/* The TLVs of an NLMSG_ERROR, or of an NLMSG_DONE that ends a dump. */
static void parse_extack(struct nl *nl, struct nlmsghdr *nh)
{
	struct nlmsgerr *e = NLMSG_DATA(nh);
	struct nlattr *a;
	size_t off = sizeof(*e);

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nh->nlmsg_type == NLMSG_DONE)
		off = sizeof(int);
	else if (!(nh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	for_each_attr(a, (char *)e + off, nh->nlmsg_len - NLMSG_HDRLEN - off) {
		if (ATTR_TYPE(a) == NLMSGERR_ATTR_MSG)
			snprintf(nl->ext_msg, sizeof(nl->ext_msg), "%.*s",
				 (int)ATTR_LEN(a), (char *)ATTR_DATA(a));
		else if (ATTR_TYPE(a) == NLMSGERR_ATTR_MISS_TYPE)
			nl->miss_type = ATTR_U32(a);
	}
}

/* Sends @r and reads until its ack or dump end: 0 or -errno. */
static int nl_talk(struct nl *nl, struct req *r, msg_cb cb, void *arg)
{
	static char buf[65536];
	struct nlmsghdr *nh;
	ssize_t n;
	int len;

	r->nh.nlmsg_seq = ++nl->seq;
	nl->ext_msg[0] = 0;
	nl->miss_type = -1;
	nl->intr = 0;
	if (send(nl->fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(nl->fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		len = n;
		for (nh = (void *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != nl->seq)
				continue;
			if (nh->nlmsg_flags & NLM_F_DUMP_INTR)
				nl->intr = 1;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				parse_extack(nl, nh);
				return e->error;
			}
			if (nh->nlmsg_type == NLMSG_DONE) {
				int *err = NLMSG_DATA(nh);

				if (nh->nlmsg_len >= NLMSG_LENGTH(4) && *err) {
					parse_extack(nl, nh);
					return *err;
				}
				/* the ack follows only for non-dumps */
				return 0;
			}
			if (cb)
				cb(nh, arg);
		}
	}
}

#define GENL_ATTRS(nh)	((char *)NLMSG_DATA(nh) + GENL_HDRLEN)
#define GENL_ATTRLEN(nh) ((int)(nh)->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN))

static void family_cb(struct nlmsghdr *nh, void *arg)
{
	struct nlattr *a, *g, *f;

	(void)arg;
	for_each_attr(a, GENL_ATTRS(nh), GENL_ATTRLEN(nh)) {
		if (ATTR_TYPE(a) == CTRL_ATTR_FAMILY_ID)
			family_id = *(uint16_t *)ATTR_DATA(a);
		if (ATTR_TYPE(a) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		for_each_attr(g, ATTR_DATA(a), ATTR_LEN(a)) {
			uint32_t id = 0;
			int events = 0;

			for_each_attr(f, ATTR_DATA(g), ATTR_LEN(g)) {
				if (ATTR_TYPE(f) == CTRL_ATTR_MCAST_GRP_ID)
					id = ATTR_U32(f);
				if (ATTR_TYPE(f) == CTRL_ATTR_MCAST_GRP_NAME &&
				    !strcmp(ATTR_DATA(f), THPSWAP_GENL_MCGRP_EVENTS))
					events = 1;
			}
			if (events)
				events_grp = id;
		}
	}
}

static int resolve(struct nl *nl)
{
	struct req r;

	if (family_id)
		return 0;
	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, THPSWAP_GENL_NAME,
		 sizeof(THPSWAP_GENL_NAME));
	return nl_talk(nl, &r, family_cb, NULL);
}

/* One device of a DEV_GET reply. */
struct devinfo {
	int index;
	char name[32];
	uint64_t size, nr_clusters, stats[__THPSWAP_STAT_CNT];
	uint32_t backing, flags, generation;
	int nstats;
};

struct devlist {
	struct devinfo d[THPSWAP_MAX_DEVICES];
	int n;
};

static void parse_dev(struct nlmsghdr *nh, struct devinfo *d)
{
	struct nlattr *a, *s;

	memset(d, 0, sizeof(*d));
	d->index = -1;
	for_each_attr(a, GENL_ATTRS(nh), GENL_ATTRLEN(nh)) {
		switch (ATTR_TYPE(a)) {
		case THPSWAP_A_DEV_INDEX: d->index = ATTR_U32(a); break;
		case THPSWAP_A_DEV_NAME:
			snprintf(d->name, sizeof(d->name), "%s", (char *)ATTR_DATA(a));
			break;
		case THPSWAP_A_DEV_SIZE: d->size = ATTR_U64(a); break;
		case THPSWAP_A_DEV_NR_CLUSTERS: d->nr_clusters = ATTR_U64(a); break;
		case THPSWAP_A_DEV_BACKING: d->backing = ATTR_U32(a); break;
		case THPSWAP_A_DEV_FLAGS: d->flags = ATTR_U32(a); break;
		case THPSWAP_A_DEV_GENERATION: d->generation = ATTR_U32(a); break;
		case THPSWAP_A_STATS:
			for_each_attr(s, ATTR_DATA(a), ATTR_LEN(a)) {
				if (ATTR_TYPE(s) >= 1 &&
				    ATTR_TYPE(s) <= __THPSWAP_STAT_CNT) {
					d->stats[ATTR_TYPE(s) - 1] = ATTR_U64(s);
					d->nstats++;
				}
			}
			break;
		}
	}
}

static void devlist_cb(struct nlmsghdr *nh, void *arg)
{
	struct devlist *l = arg;

	if (l->n < THPSWAP_MAX_DEVICES)
		parse_dev(nh, &l->d[l->n++]);
}

/* Cluster states from CLUSTERS_GET runs. */
struct runs {
	uint8_t state[65536];
	long covered, nruns, bad;
	uint32_t next;
};

/* A THPSWAP_A_RUN nest; @state is -1 if it has none. */
static void parse_run(struct nlattr *run, uint32_t *first, uint32_t *count,
		      int *state)
{
	struct nlattr *f;

	*first = *count = 0;
	*state = -1;
	for_each_attr(f, ATTR_DATA(run), ATTR_LEN(run)) {
		if (ATTR_TYPE(f) == THPSWAP_A_RUN_FIRST)
			*first = ATTR_U32(f);
		if (ATTR_TYPE(f) == THPSWAP_A_RUN_COUNT)
			*count = ATTR_U32(f);
		if (ATTR_TYPE(f) == THPSWAP_A_RUN_STATE)
			*state = *(uint8_t *)ATTR_DATA(f);
	}
}

static void runs_cb(struct nlmsghdr *nh, void *arg)
{
	struct runs *r = arg;
	struct nlattr *a;

	for_each_attr(a, GENL_ATTRS(nh), GENL_ATTRLEN(nh)) {
		uint32_t first, count;
		int state;

		if (ATTR_TYPE(a) != THPSWAP_A_RUN)
			continue;
		parse_run(a, &first, &count, &state);
		/* runs come in order, without gaps */
		if (first != r->next || !count || state < 0 ||
		    first + count > sizeof(r->state))
			r->bad++;
		else
			memset(r->state + first, state, count);
		r->next = first + count;
		r->covered += count;
		r->nruns++;
	}
}

static int clusters_dump(struct nl *nl, int index, int first, int count,
			 struct runs *r)
{
	struct req q;

	memset(r, 0xff, sizeof(r->state));
	r->covered = r->nruns = r->bad = 0;
	r->next = first < 0 ? 0 : first;
	req_init(&q, family_id, THPSWAP_CMD_CLUSTERS_GET, NLM_F_DUMP);
	put_u32(&q, THPSWAP_A_DEV_INDEX, index);
	if (first >= 0)
		put_u32(&q, THPSWAP_A_CLUSTERS_FIRST, first);
	if (count >= 0)
		put_u32(&q, THPSWAP_A_CLUSTERS_COUNT, count);
	return nl_talk(nl, &q, runs_cb, r);
}

static int stats_get(struct nl *nl, int index, struct devinfo *d)
{
	struct devlist *l = calloc(1, sizeof(*l));
	struct req q;
	int err;

	req_init(&q, family_id, THPSWAP_CMD_STATS_GET, 0);
	put_u32(&q, THPSWAP_A_DEV_INDEX, index);
	err = nl_talk(nl, &q, devlist_cb, l);
	if (!err && l->n != 1)
		err = -EPROTO;
	if (!err)
		*d = l->d[0];
	free(l);
	return err;
}

/* ---- tests --------------------------------------------------------------- */

FIXTURE(nl) {
	struct nl nl;
	int ctl;
};

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, nl_open(&self->nl));
	ASSERT_EQ(0, resolve(&self->nl)) TH_LOG("family %s not found", THPSWAP_GENL_NAME);
	ASSERT_NE(0, family_id);
	ASSERT_NE(0, events_grp);
	self->ctl = ctl_open();
	ASSERT_LE(0, self->ctl);
}

FIXTURE_TEARDOWN(nl)
{
	close(self->nl.fd);
	close(self->ctl);
	if (swap_active(DEV0_PATH))
		do_swapoff(DEV0_PATH);
}

TEST_F(nl, dev_get)
{
	struct devlist *l = calloc(1, sizeof(*l));
	struct thpswap_ioc_info info;
	struct req q;
	int k, idx[3];

	ASSERT_NE(NULL, l);
	for (k = 0; k < 3; k++)
		ASSERT_LE(1, idx[k] = ctl_add(self->ctl, -1, 4 << 20));
	req_init(&q, family_id, THPSWAP_CMD_DEV_GET, NLM_F_DUMP);
	ASSERT_EQ(0, nl_talk(&self->nl, &q, devlist_cb, l));
	EXPECT_EQ(4, l->n);
	for (k = 0; k < l->n; k++) {
		struct devinfo *d = &l->d[k];
		char name[32];

		ASSERT_EQ(0, ctl_info(self->ctl, d->index, &info));
		snprintf(name, sizeof(name), "thpswap%d", d->index);
		EXPECT_STREQ(name, d->name);
		EXPECT_EQ(info.bytes, d->size);
		EXPECT_EQ(info.nr_clusters, d->nr_clusters);
		EXPECT_EQ(info.backing, d->backing);
		EXPECT_EQ(info.flags, d->flags);
		EXPECT_EQ(info.generation, d->generation);
		EXPECT_EQ(__THPSWAP_STAT_CNT, d->nstats);
	}
	/* doit */
	l->n = 0;
	req_init(&q, family_id, THPSWAP_CMD_DEV_GET, 0);
	put_u32(&q, THPSWAP_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_talk(&self->nl, &q, devlist_cb, l));
	ASSERT_EQ(1, l->n);
	EXPECT_EQ(0, l->d[0].index);
	EXPECT_EQ(DEV0_BYTES, l->d[0].size);
	/* DEV_DEL */
	for (k = 0; k < 3; k++) {
		req_init(&q, family_id, THPSWAP_CMD_DEV_DEL, 0);
		put_u32(&q, THPSWAP_A_DEV_INDEX, idx[k]);
		EXPECT_EQ(0, nl_talk(&self->nl, &q, NULL, NULL));
		EXPECT_EQ(-ENODEV, ctl_info(self->ctl, idx[k], &info));
	}
	/* DEV_ADD, reply is the new device */
	l->n = 0;
	req_init(&q, family_id, THPSWAP_CMD_DEV_ADD, 0);
	put_u64(&q, THPSWAP_A_DEV_SIZE, 6 << 20);
	put_u32(&q, THPSWAP_A_DEV_INDEX, 33);
	ASSERT_EQ(0, nl_talk(&self->nl, &q, devlist_cb, l));
	ASSERT_EQ(1, l->n);
	EXPECT_EQ(33, l->d[0].index);
	EXPECT_EQ(3, l->d[0].nr_clusters);
	EXPECT_EQ(-EEXIST, nl_talk(&self->nl, &q, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "exists")) TH_LOG("extack: '%s'", self->nl.ext_msg);
	EXPECT_EQ(0, ctl_dev(self->ctl, THPSWAP_IOC_REMOVE, 33));
	free(l);
}

static void compare_all(struct __test_metadata *_metadata, struct nl *nl, int ctl)
{
	static struct thpswap_cluster_entry e[NR_CLUSTERS];
	static struct runs r;
	uint64_t v[__THPSWAP_STAT_CNT], g0 = 0, g1 = 0;
	struct devinfo d;
	int tries, k;

	for (tries = 0; tries < 5; tries++) {
		ASSERT_EQ(0, ctl_stats(ctl, 0, v));
		ASSERT_EQ(0, stats_get(nl, 0, &d));
		if (!memcmp(v, d.stats, sizeof(v)))
			break;
	}
	for (k = 0; k < __THPSWAP_STAT_CNT; k++)
		EXPECT_EQ(v[k], d.stats[k]) TH_LOG("stat %d", k);
	EXPECT_EQ(__THPSWAP_STAT_CNT, d.nstats);

	for (tries = 0; tries < 5; tries++) {
		ASSERT_EQ((long)NR_CLUSTERS, ctl_clusters_all(ctl, 0, e, NR_CLUSTERS, &g0, &g1));
		ASSERT_EQ(0, clusters_dump(nl, 0, -1, -1, &r));
		if (!nl->intr && g0 == g1)
			break;
	}
	EXPECT_EQ(0, nl->intr);
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ((long)NR_CLUSTERS, r.covered);
	for (k = 0; k < (int)NR_CLUSTERS; k++)
		EXPECT_EQ(e[k].state, r.state[k]) TH_LOG("cluster %d", k);
	TH_LOG("%ld runs; huge %llu split %llu small %llu free %llu", r.nruns,
	       (unsigned long long)v[THPSWAP_STAT_CLUSTERS_HUGE],
	       (unsigned long long)v[THPSWAP_STAT_CLUSTERS_SPLIT],
	       (unsigned long long)v[THPSWAP_STAT_CLUSTERS_SMALL],
	       (unsigned long long)v[THPSWAP_STAT_CLUSTERS_FREE]);
	/* a sub-range; an interrupted dump is retried, never left unchecked */
	for (tries = 0; tries < 5; tries++) {
		ASSERT_EQ(0, clusters_dump(nl, 0, 3, 20, &r));
		if (!nl->intr)
			break;
	}
	EXPECT_EQ(0, nl->intr);
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ(20, r.covered);
	for (k = 3; k < 23; k++)
		EXPECT_EQ(e[k].state, r.state[k]) TH_LOG("cluster %d", k);
}

TEST_F_TIMEOUT(nl, swap_cycle_agrees, 600)
{
	const size_t bytes = 48 * THP_SIZE;
	struct req q;
	char *p;
	int err;

	req_init(&q, family_id, THPSWAP_CMD_STATS_RESET, 0);
	put_u32(&q, THPSWAP_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_talk(&self->nl, &q, NULL, NULL));
	err = do_swapon(DEV0_PATH, 0);
	ASSERT_EQ(0, err) TH_LOG("swapon: %s", strerror(-err));
	compare_all(_metadata, &self->nl, self->ctl);

	p = thp_alloc(bytes);
	ASSERT_NE(NULL, p);
	pattern_fill(p, bytes, 3, 0);
	ASSERT_EQ(0, madvise(p, bytes, MADV_PAGEOUT));
	compare_all(_metadata, &self->nl, self->ctl);
	/* swap a few 4 KiB pages back in: HUGE clusters become SPLIT */
	for (size_t off = 0; off < bytes / 2; off += THP_SIZE)
		EXPECT_EQ(pattern_word(3, off / 8), *(uint64_t *)(p + off));
	compare_all(_metadata, &self->nl, self->ctl);
	EXPECT_EQ(0, pattern_verify(p, bytes, 3, 0, NULL));
	thp_free(p, bytes);
	EXPECT_EQ(0, do_swapoff(DEV0_PATH));
	compare_all(_metadata, &self->nl, self->ctl);
}

struct bad_case {
	const char *what;
	uint8_t cmd;
	int dump;
	int nattrs;
	struct { uint16_t type; uint16_t len; uint64_t val; } attrs[4];
	int err;
	const char *msg;	/* substring of the extack message */
};

TEST_F(nl, malformed)
{
	static const struct bad_case cases[] = {
		{ "STATS_GET without index", THPSWAP_CMD_STATS_GET, 0, 0, { }, -EINVAL, "THPSWAP_A_DEV_INDEX: missing" },
		{ "DEV_GET index as u8", THPSWAP_CMD_DEV_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 1, 0 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_GET index as u64", THPSWAP_CMD_DEV_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 8, 0 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_GET index 64", THPSWAP_CMD_DEV_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 64 } }, -ERANGE, "out of range" },
		{ "DEV_GET absent index", THPSWAP_CMD_DEV_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 63 } }, -ENODEV, "THPSWAP_A_DEV_INDEX: no such device" },
		{ "unknown attribute 99", THPSWAP_CMD_DEV_GET, 0, 1, { { 99, 4, 0 } }, -EINVAL, "Unknown attribute type" },
		{ "reply-only attribute in request", THPSWAP_CMD_STATS_GET, 0, 2, { { THPSWAP_A_DEV_INDEX, 4, 0 }, { THPSWAP_A_DEV_FLAGS, 4, 0 } }, -EINVAL, "Unsupported attribute" },
		{ "DEV_ADD without size", THPSWAP_CMD_DEV_ADD, 0, 0, { }, -EINVAL, "THPSWAP_A_DEV_SIZE: missing" },
		{ "DEV_ADD size not 2M-aligned", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 8, (4 << 20) + 4096 } }, -EINVAL, "THPSWAP_A_DEV_SIZE: not a multiple of 2 MiB" },
		{ "DEV_ADD size too small", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 8, 2 << 20 } }, -ERANGE, "out of range" },
		{ "DEV_ADD size > RAM", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 8, 1ULL << 40 } }, -ENOMEM, "THPSWAP_A_DEV_SIZE: not enough memory" },
		{ "DEV_ADD backing 9", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 9 } }, -ERANGE, "out of range" },
		{ "DEV_ADD memmap without phys", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 1 } }, -EINVAL, "THPSWAP_A_DEV_BACKING_PHYS: missing" },
		{ "DEV_ADD ram with phys", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 1ULL << 32 } }, -EINVAL, "only valid with memmap" },
		{ "DEV_ADD memmap unaligned phys", THPSWAP_CMD_DEV_ADD, 0, 3, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 4097 } }, -EINVAL, "2 MiB aligned" },
		{ "DEV_ADD node -2", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_NODE, 4, 0xfffffffeU } }, -ERANGE, "out of range" },
		{ "DEV_ADD node as u64", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_NODE, 8, 0 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_ADD node 1000 (absent)", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_NODE, 4, 1000 } }, -ENODEV, "THPSWAP_A_DEV_NODE: no such NUMA node" },
		{ "DEV_ADD memmap with a node", THPSWAP_CMD_DEV_ADD, 0, 4, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 1ULL << 32 }, { THPSWAP_A_DEV_NODE, 4, 0 } }, -EINVAL, "THPSWAP_A_DEV_NODE: only valid with RAM backing" },
		{ "DEV_DEL without index", THPSWAP_CMD_DEV_DEL, 0, 0, { }, -EINVAL, "THPSWAP_A_DEV_INDEX: missing" },
		{ "DEV_DEL absent", THPSWAP_CMD_DEV_DEL, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 62 } }, -ENODEV, "no such device" },
		{ "STATS_RESET absent", THPSWAP_CMD_STATS_RESET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 62 } }, -ENODEV, "no such device" },
		{ "CLUSTERS_GET without index", THPSWAP_CMD_CLUSTERS_GET, 1, 0, { }, -EINVAL, "THPSWAP_A_DEV_INDEX: missing" },
		{ "CLUSTERS_GET first beyond", THPSWAP_CMD_CLUSTERS_GET, 1, 2, { { THPSWAP_A_DEV_INDEX, 4, 0 }, { THPSWAP_A_CLUSTERS_FIRST, 4, 1000 } }, -EINVAL, "THPSWAP_A_CLUSTERS_FIRST: beyond" },
		{ "CLUSTERS_GET absent device", THPSWAP_CMD_CLUSTERS_GET, 1, 1, { { THPSWAP_A_DEV_INDEX, 4, 61 } }, -ENODEV, "no such device" },
		{ "CLUSTERS_GET as doit", THPSWAP_CMD_CLUSTERS_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 0 } }, -EOPNOTSUPP, "" },
		{ "notification command as request", THPSWAP_CMD_CLUSTER_CHANGE, 0, 0, { }, -EOPNOTSUPP, "" },
		{ "unknown command", 99, 0, 0, { }, -EOPNOTSUPP, "" },
		/* issue 15: indices past the table, on every command that takes one */
		{ "DEV_GET index 4294967295", THPSWAP_CMD_DEV_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 0xffffffffULL } }, -ERANGE, "out of range" },
		{ "DEV_ADD index 4294967295", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_INDEX, 4, 0xffffffffULL } }, -ERANGE, "out of range" },
		{ "DEV_ADD index 64", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_INDEX, 4, 64 } }, -ERANGE, "out of range" },
		{ "DEV_DEL index 64", THPSWAP_CMD_DEV_DEL, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 64 } }, -ERANGE, "out of range" },
		{ "DEV_DEL index 4294967295", THPSWAP_CMD_DEV_DEL, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 0xffffffffULL } }, -ERANGE, "out of range" },
		{ "STATS_GET index 64", THPSWAP_CMD_STATS_GET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 64 } }, -ERANGE, "out of range" },
		{ "STATS_RESET index 4294967295", THPSWAP_CMD_STATS_RESET, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 0xffffffffULL } }, -ERANGE, "out of range" },
		{ "CLUSTERS_GET index 64", THPSWAP_CMD_CLUSTERS_GET, 1, 1, { { THPSWAP_A_DEV_INDEX, 4, 64 } }, -ERANGE, "out of range" },
		{ "CLUSTERS_GET index 4294967295", THPSWAP_CMD_CLUSTERS_GET, 1, 1, { { THPSWAP_A_DEV_INDEX, 4, 0xffffffffULL } }, -ERANGE, "out of range" },
		/* DEV_ADD without a size, even with everything else */
		{ "DEV_ADD index only", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_INDEX, 4, 5 } }, -EINVAL, "THPSWAP_A_DEV_SIZE: missing" },
		{ "DEV_ADD memmap without size", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 1ULL << 32 } }, -EINVAL, "THPSWAP_A_DEV_SIZE: missing" },
		/* sizes and addresses that overflow */
		{ "DEV_ADD size 2^64 - 2M", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 8, 0xffffffffffe00000ULL } }, -ERANGE, "out of range" },
		{ "DEV_ADD size 2^64 - 1", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 8, ~0ULL } }, -ERANGE, "out of range" },
		{ "DEV_ADD size 16 TiB + 2M", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 8, (16ULL << 40) + (2 << 20) } }, -ERANGE, "out of range" },
		{ "DEV_ADD memmap range wraps", THPSWAP_CMD_DEV_ADD, 0, 3, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 0xffffffffffe00000ULL } }, -EINVAL, "THPSWAP_A_DEV_BACKING_PHYS: the range wraps" },
		{ "DEV_ADD memmap range ends at 2^64", THPSWAP_CMD_DEV_ADD, 0, 3, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 0xffffffffffc00000ULL } }, -EINVAL, "not reserved" },
		{ "DEV_ADD memmap 16 TiB past 2^63", THPSWAP_CMD_DEV_ADD, 0, 3, { { THPSWAP_A_DEV_SIZE, 8, 16ULL << 40 }, { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 8, 0xfffff80000000000ULL } }, -EINVAL, "THPSWAP_A_DEV_BACKING_PHYS: the range wraps" },
		/* attributes of the wrong length */
		{ "DEV_ADD size as u32", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 4, 4 << 20 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_ADD size as 16 bytes", THPSWAP_CMD_DEV_ADD, 0, 1, { { THPSWAP_A_DEV_SIZE, 16, 4 << 20 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_ADD backing as u64", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 8, 1 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_ADD phys as u32", THPSWAP_CMD_DEV_ADD, 0, 3, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_BACKING, 4, 1 }, { THPSWAP_A_DEV_BACKING_PHYS, 4, 0x200000 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_ADD index empty", THPSWAP_CMD_DEV_ADD, 0, 2, { { THPSWAP_A_DEV_SIZE, 8, 4 << 20 }, { THPSWAP_A_DEV_INDEX, 0, 0 } }, -EINVAL, "invalid attribute length" },
		{ "DEV_DEL index as u16", THPSWAP_CMD_DEV_DEL, 0, 1, { { THPSWAP_A_DEV_INDEX, 2, 1 } }, -EINVAL, "invalid attribute length" },
		{ "CLUSTERS_GET first as u64", THPSWAP_CMD_CLUSTERS_GET, 1, 2, { { THPSWAP_A_DEV_INDEX, 4, 0 }, { THPSWAP_A_CLUSTERS_FIRST, 8, 0 } }, -EINVAL, "invalid attribute length" },
		{ "CLUSTERS_GET count as u8", THPSWAP_CMD_CLUSTERS_GET, 1, 2, { { THPSWAP_A_DEV_INDEX, 4, 0 }, { THPSWAP_A_CLUSTERS_COUNT, 1, 1 } }, -EINVAL, "invalid attribute length" },
	};
	unsigned int c;
	int k, err;
	struct req q;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct bad_case *t = &cases[c];

		req_init(&q, family_id, t->cmd, t->dump ? NLM_F_DUMP : 0);
		for (k = 0; k < t->nattrs; k++)
			put_attr(&q, t->attrs[k].type, &t->attrs[k].val, t->attrs[k].len);
		err = nl_talk(&self->nl, &q, NULL, NULL);
		EXPECT_EQ(t->err, err) TH_LOG("%s: got %d (%s), extack '%s'", t->what,
					      err, strerror(-err), self->nl.ext_msg);
		if (t->msg[0]) {
			EXPECT_NE(NULL, strstr(self->nl.ext_msg, t->msg))
				TH_LOG("%s: extack '%s', wanted '%s'", t->what,
				       self->nl.ext_msg, t->msg);
		} else if (t->err == -EINVAL || t->err == -ERANGE) {
			EXPECT_NE(0, self->nl.ext_msg[0]) TH_LOG("%s: no extack message", t->what);
		}
		TH_LOG("%-32s -> %d '%s'", t->what, err, self->nl.ext_msg);
	}
}

static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1U << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &h, d);
}

TEST_F(nl, eperm)
{
	int status, fail = 0;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct req q;
		struct devinfo d;

		/* CAP_NET_ADMIN but not CAP_SYS_ADMIN: our own check */
		if (drop_cap_sys_admin())
			_exit(10);
		req_init(&q, family_id, THPSWAP_CMD_DEV_ADD, 0);
		put_u64(&q, THPSWAP_A_DEV_SIZE, 4 << 20);
		if (nl_talk(&self->nl, &q, NULL, NULL) != -EPERM ||
		    !strstr(self->nl.ext_msg, "CAP_SYS_ADMIN"))
			_exit(11);
		req_init(&q, family_id, THPSWAP_CMD_STATS_RESET, 0);
		put_u32(&q, THPSWAP_A_DEV_INDEX, 0);
		if (nl_talk(&self->nl, &q, NULL, NULL) != -EPERM)
			_exit(12);
		/* nobody: the genl core's CAP_NET_ADMIN check */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(13);
		req_init(&q, family_id, THPSWAP_CMD_DEV_DEL, 0);
		put_u32(&q, THPSWAP_A_DEV_INDEX, 0);
		if (nl_talk(&self->nl, &q, NULL, NULL) != -EPERM)
			_exit(14);
		/* reads are for everyone */
		if (stats_get(&self->nl, 0, &d))
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	fail = WIFEXITED(status) ? WEXITSTATUS(status) : 100;
	EXPECT_EQ(0, fail) TH_LOG("child step %d failed", fail);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Reads whatever answers arrive until an ack or DONE; never blocks long. */
static void drain(struct nl *nl)
{
	static char buf[65536];
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	struct nlmsghdr *nh;
	int len;

	while (poll(&pfd, 1, 200) == 1) {
		len = recv(nl->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len <= 0)
			return;
		for (nh = (void *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len))
			if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_DONE)
				return;
	}
}

/*
 * 10,000 random messages: commands, flags, attribute types, lengths, data,
 * with values at the edges (indices past the table, sizes and addresses
 * that overflow) among them.
 */
TEST_F_TIMEOUT(nl, fuzz, 900)
{
	static const uint64_t edges[] = {
		0xffffffffULL, 64, 0x80000000ULL, ~0ULL, 0xffffffffffe00000ULL,
		(16ULL << 40) + (2 << 20), 0xfffff80000000000ULL,
	};
	struct thpswap_ioc_info info;
	struct req q;
	long k, errs = 0, oks = 0;
	int idx, err;

	err = do_swapon(DEV0_PATH, 0);	/* so DEV_DEL of thpswap0 is EBUSY */
	ASSERT_EQ(0, err);
	for (k = 0; k < 10000; k++) {
		int nattrs = rnd() % 6, a;

		req_init(&q, family_id, rnd() % 4 ? 1 + rnd() % THPSWAP_CMD_MAX : rnd() % 256,
			 rnd() % 3 ? 0 : NLM_F_DUMP);
		((struct genlmsghdr *)NLMSG_DATA(&q.nh))->version = rnd() % 4;
		if (rnd() % 8 == 0)
			((struct genlmsghdr *)NLMSG_DATA(&q.nh))->reserved = rnd();
		for (a = 0; a < nattrs; a++) {
			uint64_t val[4] = { rnd(), rnd(), rnd(), rnd() };
			uint16_t type = rnd() % 3 ? rnd() % (THPSWAP_A_MAX + 2) : rnd();
			uint16_t len = rnd() % 3 ? (uint16_t[]){ 0, 1, 2, 4, 8, 16 }[rnd() % 6] : rnd() % 32;

			if (rnd() % 2)
				val[0] %= 70;	/* plausible index/count */
			else if (rnd() % 4 == 0)	/* issue 15's edges */
				val[0] = edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
			if (type == THPSWAP_A_DEV_SIZE && rnd() % 2)
				val[0] = (rnd() % 5) << 21;
			if (type == THPSWAP_A_DEV_INDEX && !val[0])
				val[0] = 1;	/* keep thpswap0 */
			put_attr(&q, type, val, len);
		}
		if (rnd() % 16 == 0)	/* truncate mid-attribute */
			q.nh.nlmsg_len -= rnd() % 8;
		q.nh.nlmsg_seq = ++self->nl.seq;
		if (send(self->nl.fd, &q, q.nh.nlmsg_len, 0) < 0) {
			errs++;
			continue;
		}
		oks++;
		drain(&self->nl);
	}
	TH_LOG("%ld sent, %ld refused by send()", oks, errs);
	ASSERT_EQ(0, ctl_info(self->ctl, 0, &info));
	EXPECT_EQ(DEV0_BYTES, info.bytes);
	for (idx = 1; idx < THPSWAP_MAX_DEVICES; idx++)
		if (!ctl_info(self->ctl, idx, &info))
			EXPECT_EQ(0, ctl_dev(self->ctl, THPSWAP_IOC_REMOVE, idx));
	/* the family still answers */
	ASSERT_EQ(0, stats_get(&self->nl, 0, &(struct devinfo){ 0 }));
	EXPECT_EQ(0, do_swapoff(DEV0_PATH));
}

/* Waits up to @ms for a multicast message; 1 with it in @buf, 0 on timeout. */
static int recv_event(int fd, char *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return 0;
	return recv(fd, buf, len, 0) > 0;
}

TEST_F_TIMEOUT(nl, events, 300)
{
	static char buf[65536];
	struct nl ev;
	struct nlmsghdr *nh;
	const size_t bytes = 8 * THP_SIZE;
	int idx, seen_new = 0, seen_del = 0, err, len;
	long huge = 0, msgs = 0;
	double t0;
	char *p;

	ASSERT_EQ(0, nl_open(&ev));
	ASSERT_EQ(0, setsockopt(ev.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				&events_grp, sizeof(events_grp)));
	idx = ctl_add(self->ctl, -1, 4 << 20);
	ASSERT_LE(1, idx);
	ASSERT_EQ(0, ctl_dev(self->ctl, THPSWAP_IOC_REMOVE, idx));
	t0 = now_s();
	while ((!seen_new || !seen_del) && now_s() - t0 < 5) {
		if (!recv_event(ev.fd, buf, sizeof(buf), 1000))
			continue;
		nh = (void *)buf;
		struct devinfo d;

		parse_dev(nh, &d);
		if (((struct genlmsghdr *)NLMSG_DATA(nh))->cmd == THPSWAP_CMD_DEV_NEW && d.index == idx) {
			seen_new = 1;
			EXPECT_EQ(4 << 20, d.size);
			EXPECT_EQ(2, d.nr_clusters);
		}
		if (((struct genlmsghdr *)NLMSG_DATA(nh))->cmd == THPSWAP_CMD_DEV_DEL && d.index == idx) {
			EXPECT_TRUE(seen_new);
			seen_del = 1;
		}
	}
	EXPECT_TRUE(seen_new);
	EXPECT_TRUE(seen_del);

	err = do_swapon(DEV0_PATH, 0);
	ASSERT_EQ(0, err);
	p = thp_alloc(bytes);
	ASSERT_NE(NULL, p);
	pattern_fill(p, bytes, 5, 0);
	ASSERT_EQ(0, madvise(p, bytes, MADV_PAGEOUT));
	t0 = now_s();
	while (huge < 8 && now_s() - t0 < 5) {
		struct nlattr *a;

		if (!recv_event(ev.fd, buf, sizeof(buf), 1000))
			continue;
		len = 0;
		for (nh = (void *)buf, len = 65536; NLMSG_OK(nh, len) && nh->nlmsg_len; nh = NLMSG_NEXT(nh, len)) {
			if (((struct genlmsghdr *)NLMSG_DATA(nh))->cmd != THPSWAP_CMD_CLUSTER_CHANGE)
				break;
			msgs++;
			for_each_attr(a, GENL_ATTRS(nh), GENL_ATTRLEN(nh)) {
				uint32_t first, count;
				int state;

				if (ATTR_TYPE(a) == THPSWAP_A_EVENTS_DROPPED)
					TH_LOG("dropped so far: %llu", (unsigned long long)ATTR_U64(a));
				if (ATTR_TYPE(a) != THPSWAP_A_RUN)
					continue;
				parse_run(a, &first, &count, &state);
				if (state == THPSWAP_CLUSTER_HUGE)
					huge += count;
			}
			break;	/* one multicast message per datagram */
		}
	}
	TH_LOG("%ld CLUSTER_CHANGE messages, %ld clusters reported HUGE", msgs, huge);
	EXPECT_LE(8, huge);
	EXPECT_EQ(0, pattern_verify(p, bytes, 5, 0, NULL));
	thp_free(p, bytes);
	EXPECT_EQ(0, do_swapoff(DEV0_PATH));
	close(ev.fd);
}

/* ---- the swap layer's cluster reports, step by step (patched kernels) ---- */

/* The cluster states as the CLUSTER_CHANGE events tell them, in order. */
struct evmodel {
	uint8_t state[NR_CLUSTERS];
	uint32_t gen;		/* generation of the last message applied */
	long msgs, backwards, dropped;
};

/* Apply one datagram's CLUSTER_CHANGE message for device @dev. */
static void evmodel_apply(struct evmodel *m, struct nlmsghdr *nh, int dev)
{
	struct nlattr *a;
	int index = -1;
	uint32_t gen = 0;

	if (((struct genlmsghdr *)NLMSG_DATA(nh))->cmd != THPSWAP_CMD_CLUSTER_CHANGE)
		return;
	for_each_attr(a, GENL_ATTRS(nh), GENL_ATTRLEN(nh)) {
		if (ATTR_TYPE(a) == THPSWAP_A_DEV_INDEX)
			index = ATTR_U32(a);
		if (ATTR_TYPE(a) == THPSWAP_A_DEV_GENERATION)
			gen = ATTR_U32(a);
	}
	if (index != dev)
		return;
	m->msgs++;
	if ((int32_t)(gen - m->gen) < 0)
		m->backwards++;
	m->gen = gen;
	for_each_attr(a, GENL_ATTRS(nh), GENL_ATTRLEN(nh)) {
		uint32_t first, count;
		int state;

		if (ATTR_TYPE(a) == THPSWAP_A_EVENTS_DROPPED)
			m->dropped = ATTR_U64(a);
		if (ATTR_TYPE(a) != THPSWAP_A_RUN)
			continue;
		parse_run(a, &first, &count, &state);
		if (state >= 0 && first < NR_CLUSTERS && count <= NR_CLUSTERS - first)
			memset(m->state + first, state, count);
	}
}

/*
 * Apply events until the model equals @expect; false if it has not after
 * @secs of silence-bounded waiting (events come within ~100 ms of a change).
 */
static bool evmodel_wait(struct evmodel *m, int fd, int dev,
			 const uint8_t *expect, double secs)
{
	static char buf[65536];
	double t0 = now_s();

	while (memcmp(m->state, expect, NR_CLUSTERS)) {
		if (now_s() - t0 > secs)
			return false;
		if (recv_event(fd, buf, sizeof(buf), 200))
			evmodel_apply(m, (struct nlmsghdr *)buf, dev);
	}
	return true;
}

/* The cluster of the THP at @p if it is swapped out whole, else -1. */
static long thp_swap_cluster(const void *p)
{
	unsigned int type, t;
	uint64_t first, off;
	size_t i;

	if (pagemap_swap(p, &type, &first) != 1 || first % 512)
		return -1;
	for (i = 1; i < THP_SIZE / PAGE_SZ; i++)
		if (pagemap_swap((const char *)p + i * PAGE_SZ, &t, &off) != 1 ||
		    t != type || off != first + i)
			return -1;
	return first / 512;
}

static const char *state_str(const uint8_t *st)
{
	static char s[NR_CLUSTERS + 1];
	static const char c[] = ".HSs";
	int k;

	for (k = 0; k < (int)NR_CLUSTERS; k++)
		s[k] = st[k] < 4 ? c[st[k]] : '?';
	return s;
}

/* The device's states, by dump, must be @expect, and so must the model. */
#define EXPECT_STATES(step, expect)						\
	do {									\
		bool _ok = evmodel_wait(&m, ev.fd, 0, (expect), 10);		\
		EXPECT_TRUE(_ok) TH_LOG("%s: events say\n%s\nexpected\n%s", step,	\
					state_str(m.state), state_str(expect));	\
		ASSERT_EQ(0, clusters_dump(&self->nl, 0, -1, -1, r));		\
		EXPECT_EQ(0, memcmp(r->state, (expect), NR_CLUSTERS))		\
			TH_LOG("%s: dump says\n%s", step, state_str(r->state));	\
	} while (0)

/*
 * Patched kernels: 8 THPs swapped out (their clusters HUGE, where pagemap
 * says the THPs are), one split by a partial munmap (SPLIT), the others
 * swapped back in whole (FREE), then everything freed (swapoff).  At each
 * step the events, applied in the order they came, and a dump give exactly
 * the states the page tables imply; event generations never go backwards.
 */
TEST_F_TIMEOUT(nl, kernel_steps, 600)
{
	const size_t nr = 8, bytes = nr * THP_SIZE;
	static uint8_t expect[NR_CLUSTERS];
	struct thpswap_ioc_info info;
	struct runs *r = calloc(1, sizeof(*r));
	struct evmodel m = { 0 };
	long cl[8], swpin0;
	struct nl ev;
	size_t k;
	char *p;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, do_swapon(DEV0_PATH, 0));
	ASSERT_EQ(0, ctl_info(self->ctl, 0, &info));
	if (!(info.flags & THPSWAP_INFO_F_AUTHORITATIVE)) {
		free(r);
		ASSERT_FALSE(expect_patched())
			TH_LOG("THPSWAP_EXPECT_PATCHED=1 but thpswap0 does not report the kernel's cluster states");
		SKIP(return, "this kernel does not report cluster states (no patches/0001)");
	}
	ASSERT_EQ(0, nl_open(&ev));
	ASSERT_EQ(0, setsockopt(ev.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				&events_grp, sizeof(events_grp)));
	/* Subscribed first: every change after this dump comes as an event. */
	ASSERT_EQ(0, clusters_dump(&self->nl, 0, -1, -1, r));
	ASSERT_EQ(0, self->nl.intr);
	memcpy(m.state, r->state, NR_CLUSTERS);
	memcpy(expect, r->state, NR_CLUSTERS);
	swpin0 = vmstat_get("thp_swpin");

	/* 1: swapped out whole, each THP in a cluster of its own */
	p = thp_alloc(bytes);
	ASSERT_NE(NULL, p);
	pattern_fill(p, bytes, 11, 0);
	ASSERT_EQ(0, madvise(p, bytes, MADV_PAGEOUT));
	for (k = 0; k < nr; k++) {
		cl[k] = thp_swap_cluster(p + k * THP_SIZE);
		ASSERT_LE(0, cl[k]) TH_LOG("THP %zu is not one whole swap cluster", k);
		ASSERT_GT((long)NR_CLUSTERS, cl[k]);
		expect[cl[k]] = THPSWAP_CLUSTER_HUGE;
	}
	EXPECT_STATES("swapped out", expect);

	/* 2: half of THP 0 unmapped: its cluster is split */
	ASSERT_EQ(0, munmap(p + THP_SIZE / 2, THP_SIZE / 2));
	expect[cl[0]] = THPSWAP_CLUSTER_SPLIT;
	EXPECT_STATES("partial munmap", expect);

	/* 3: THPs 1..7 swapped in whole: their clusters are freed at once */
	for (k = 1; k < nr; k++) {
		EXPECT_EQ(0, pattern_verify(p + k * THP_SIZE, THP_SIZE, 11,
					    k * THP_SIZE / 8, NULL));
		expect[cl[k]] = THPSWAP_CLUSTER_FREE;
	}
	EXPECT_EQ(nr - 1, vmstat_get("thp_swpin") - swpin0);
	EXPECT_STATES("swapped in", expect);

	/* 4: the rest swapped in 4 KiB at a time, everything freed */
	EXPECT_EQ(0, pattern_verify(p, THP_SIZE / 2, 11, 0, NULL));
	ASSERT_EQ(0, munmap(p, THP_SIZE / 2));
	ASSERT_EQ(0, munmap(p + THP_SIZE, bytes - THP_SIZE));
	munmap(p - THP_SIZE, THP_SIZE);			/* the guards */
	munmap(p + bytes, THP_SIZE);
	EXPECT_EQ(0, do_swapoff(DEV0_PATH));
	expect[cl[0]] = THPSWAP_CLUSTER_FREE;
	EXPECT_STATES("all freed", expect);

	EXPECT_EQ(0, m.backwards) TH_LOG("event generations went backwards");
	EXPECT_EQ(0, m.dropped);
	TH_LOG("%ld CLUSTER_CHANGE messages, generation %u", m.msgs, m.gen);
	close(ev.fd);
	free(r);
}

/* A number after "key": in JSON text, or -1. */
static long long json_number(const char *text, const char *key)
{
	char pat[64];
	const char *s;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	s = strstr(text, pat);
	return s ? strtoll(s + strlen(pat), NULL, 10) : -1;
}

/*
 * Patched kernels: with no free cluster left (every cluster of a small
 * device holds single-page slots, pagemap says so, and three quarters of
 * the slots are free), THPs are split before swap-out and the device counts each as
 * fallback_no_cluster, as the vm counts thp_swpout_fallback; thpswapctl
 * shows it.  No data is lost.
 */
TEST_F_TIMEOUT(nl, no_free_cluster, 600)
{
	const size_t small = 24 * MiB, nthp = 4, thp_bytes = nthp * THP_SIZE;
	const uint64_t dev_bytes = 16 * MiB, nclusters = dev_bytes / THP_SIZE;
	uint64_t v0[__THPSWAP_STAT_CNT], v1[__THPSWAP_STAT_CNT], off;
	long long out0, fb0, out1, fb1, json;
	struct thpswap_ioc_info info;
	unsigned int used[8] = { 0 }, type;
	char path[64], cmd[160], text[8192];
	size_t i, swapped = 0, n;
	char *a, *t;
	FILE *f;
	int idx;

	idx = ctl_add(self->ctl, -1, dev_bytes);
	ASSERT_LE(1, idx);
	snprintf(path, sizeof(path), "/dev/thpswap%d", idx);
	snprintf(cmd, sizeof(cmd), "mkswap %s >/dev/null", path);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, do_swapon(path, 0));
	ASSERT_EQ(0, ctl_info(self->ctl, idx, &info));
	if (!(info.flags & THPSWAP_INFO_F_AUTHORITATIVE)) {
		do_swapoff(path);
		ctl_dev(self->ctl, THPSWAP_IOC_REMOVE, idx);
		ASSERT_FALSE(expect_patched())
			TH_LOG("THPSWAP_EXPECT_PATCHED=1 but %s does not report fallbacks", path);
		SKIP(return, "this kernel does not report fallbacks (no patches/0001)");
	}

	/*
	 * Fill the device with 4 KiB pages, then free three in four: every
	 * cluster keeps some, and the 4 THPs split below still find room
	 * (with fewer than 512 slots free in all, get_swap_pages() would
	 * not even look for a cluster, and no device would be told).
	 */
	a = mmap(NULL, small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_EQ(0, madvise(a, small, MADV_NOHUGEPAGE));
	pattern_fill(a, small, 21, 0);
	ASSERT_EQ(0, madvise(a, small, MADV_PAGEOUT));
	for (i = 0; i < small / PAGE_SZ; i++) {
		if (pagemap_swap(a + i * PAGE_SZ, &type, &off) != 1)
			continue;
		swapped++;
		if (i % 4) {
			ASSERT_EQ(0, madvise(a + i * PAGE_SZ, PAGE_SZ, MADV_DONTNEED));
			continue;
		}
		ASSERT_GT(nclusters, off / 512);
		used[off / 512]++;
	}
	TH_LOG("%zu pages swapped out, kept in clusters %u %u %u %u %u %u %u %u",
	       swapped, used[0], used[1], used[2], used[3], used[4], used[5],
	       used[6], used[7]);
	ASSERT_LT(nclusters * 512 * 3 / 4, swapped) TH_LOG("the device did not fill up");
	for (i = 0; i < nclusters; i++)
		ASSERT_LT(0, used[i] + (i == 0)) TH_LOG("cluster %zu is free", i);

	/* THPs now: no cluster to take them whole. */
	ASSERT_EQ(0, ctl_stats(self->ctl, idx, v0));
	out0 = vmstat_get("thp_swpout");
	fb0 = vmstat_get("thp_swpout_fallback");
	t = thp_alloc(thp_bytes);
	ASSERT_NE(NULL, t);
	pattern_fill(t, thp_bytes, 22, 0);
	ASSERT_EQ(0, madvise(t, thp_bytes, MADV_PAGEOUT));
	ASSERT_EQ(0, ctl_stats(self->ctl, idx, v1));
	out1 = vmstat_get("thp_swpout");
	fb1 = vmstat_get("thp_swpout_fallback");
	EXPECT_EQ(0, out1 - out0);
	EXPECT_EQ((long long)nthp, fb1 - fb0);
	EXPECT_EQ(fb1 - fb0, (long long)(v1[THPSWAP_STAT_FALLBACK_NO_CLUSTER] -
					 v0[THPSWAP_STAT_FALLBACK_NO_CLUSTER]));
	EXPECT_EQ(0, v1[THPSWAP_STAT_THP_WRITES] - v0[THPSWAP_STAT_THP_WRITES]);
	EXPECT_LT(0, v1[THPSWAP_STAT_PAGE_WRITES] - v0[THPSWAP_STAT_PAGE_WRITES])
		TH_LOG("the split THPs were not swapped out as pages");

	/* The CLI says so too. */
	snprintf(cmd, sizeof(cmd), "thpswapctl --json stats thpswap%d", idx);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	EXPECT_EQ(0, pclose(f));
	json = json_number(text, "fallback_no_cluster");
	EXPECT_EQ((long long)v1[THPSWAP_STAT_FALLBACK_NO_CLUSTER], json)
		TH_LOG("thpswapctl --json: %.400s", text);

	/* Nothing lost. */
	EXPECT_EQ(0, pattern_verify(t, thp_bytes, 22, 0, NULL));
	for (i = 0; i < small / PAGE_SZ; i += 4)
		EXPECT_EQ(0, pattern_verify(a + i * PAGE_SZ, PAGE_SZ, 21,
					    i * PAGE_SZ / 8, NULL));
	thp_free(t, thp_bytes);
	munmap(a, small);
	EXPECT_EQ(0, do_swapoff(path));
	EXPECT_EQ(0, ctl_dev(self->ctl, THPSWAP_IOC_REMOVE, idx));
}

TEST_HARNESS_MAIN
