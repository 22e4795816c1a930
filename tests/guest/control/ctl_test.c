// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_test: /dev/thpswap-control ioctls.
 *
 * Precondition (tests/guest/control/control.sh): modprobe thpswap
 * size=256M; mkswap /dev/thpswap0; thpswap0 not swapped on; no other swap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../lib.h"
#include "ctl.h"

#define DEV0_PATH	"/dev/thpswap0"
#define DEV0_BYTES	(256ULL << 20)

TEST(info_dev0)
{
	struct thpswap_ioc_info i;
	int fd = ctl_open();

	ASSERT_LE(0, fd) TH_LOG("open /dev/thpswap-control: %s", strerror(errno));
	ASSERT_EQ(0, ctl_info(fd, 0, &i));
	EXPECT_EQ(DEV0_BYTES, i.bytes);
	EXPECT_EQ(DEV0_BYTES >> 21, i.nr_clusters);
	EXPECT_EQ(THPSWAP_BACKING_RAM, i.backing);
	EXPECT_EQ(0, i.flags & ~THPSWAP_INFO_F_ALL);
	/* AUTHORITATIVE depends on the kernel: see swap_cycle. */
	EXPECT_EQ(0, i.flags & THPSWAP_INFO_F_SWAPON);
	/* No node= at load: the RAM is not bound to a node. */
	EXPECT_EQ(THPSWAP_INFO_F_NODE_VALID, i.flags & THPSWAP_INFO_F_NODE_VALID);
	EXPECT_EQ(-1, i.node);
	EXPECT_EQ(0, i.pad);
	EXPECT_NE(0, i.generation);
	close(fd);
}

TEST(add_remove_several)
{
	struct thpswap_ioc_info i;
	int fd = ctl_open(), idx[4], k;
	char path[64];

	ASSERT_LE(0, fd);
	for (k = 0; k < 3; k++) {
		idx[k] = ctl_add(fd, -1, (4ULL + 2 * k) << 20);
		ASSERT_LE(1, idx[k]) TH_LOG("ADD: %s", strerror(-idx[k]));
		snprintf(path, sizeof(path), "/dev/thpswap%d", idx[k]);
		EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s missing", path);
		ASSERT_EQ(0, ctl_info(fd, idx[k], &i));
		EXPECT_EQ((4ULL + 2 * k) << 20, i.bytes);
		EXPECT_EQ(2 + k, i.nr_clusters);
	}
	EXPECT_NE(idx[0], idx[1]);
	EXPECT_NE(idx[1], idx[2]);
	idx[3] = ctl_add(fd, 42, 4 << 20);
	ASSERT_EQ(42, idx[3]);
	EXPECT_EQ(-EEXIST, ctl_add(fd, 42, 4 << 20));
	for (k = 0; k < 4; k++) {
		EXPECT_EQ(0, ctl_dev(fd, THPSWAP_IOC_REMOVE, idx[k]));
		EXPECT_EQ(-ENODEV, ctl_info(fd, idx[k], &i));
		EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_REMOVE, idx[k]));
	}
	close(fd);
}

TEST(errors)
{
	struct thpswap_ioc_add a;
	struct thpswap_ioc_info i;
	struct thpswap_ioc_stats s;
	struct thpswap_ioc_clusters c;
	struct thpswap_cluster_entry e[4];
	uint64_t v[__THPSWAP_STAT_CNT];
	unsigned char big[256];
	bool had[THPSWAP_MAX_DEVICES];
	int fd = ctl_open(), k;

	ASSERT_LE(0, fd);
	/* unknown commands */
	EXPECT_EQ(-ENOTTY, ctl_ioctl(fd, _IOWR(THPSWAP_IOCTL_MAGIC, 0x55, struct thpswap_ioc_dev), &a));
	EXPECT_EQ(-ENOTTY, ctl_ioctl(fd, _IOWR('X', 0x00, struct thpswap_ioc_add), &a));
	EXPECT_EQ(-ENOTTY, ctl_ioctl(fd, _IOR(THPSWAP_IOCTL_MAGIC, 0x00, struct thpswap_ioc_add), &a));
	/* sizes */
	memset(&a, 0, sizeof(a));
	a.bytes = 4 << 20;
	a.index = -1;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));	/* size 0 */
	a.size = 8;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));	/* < VER0 */
	a.size = 1 << 20;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));	/* absurd */
	memset(big, 0, sizeof(big));
	memcpy(big, &a, sizeof(a));
	((struct thpswap_ioc_add *)big)->size = sizeof(big);
	big[200] = 1;
	EXPECT_EQ(-E2BIG, ctl_ioctl(fd, THPSWAP_IOC_INFO, big));
	/* flags, reserved, fields */
	a.size = sizeof(a);
	a.flags = 0x80;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.flags = 0;
	a.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.reserved[2] = 0;
	a.pad = 1;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.pad = 0;
	/* node: reserved (zero) without THPSWAP_ADD_F_NODE */
	a.node = 1;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.flags = THPSWAP_ADD_F_NODE;
	a.node = -2;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.node = 1000;	/* no machine here has it */
	EXPECT_EQ(-ENODEV, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.node = 0;
	a.backing = THPSWAP_BACKING_MEMMAP;
	a.backing_phys = 1ULL << 32;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.backing = THPSWAP_BACKING_RAM;
	a.backing_phys = 0;
	a.flags = 0;
	a.bytes = (4 << 20) + 4096;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = 2 << 20;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = 4 << 20;
	a.index = 64;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.index = -1;
	a.backing = 7;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.backing = THPSWAP_BACKING_RAM;
	a.backing_phys = 1ULL << 32;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.backing_phys = 0;
	a.bytes = 1ULL << 40;	/* more than the RAM */
	EXPECT_EQ(-ENOMEM, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	/* issue 15: indices past the table (-1 alone means the lowest free) */
	for (k = 0; k < THPSWAP_MAX_DEVICES; k++)
		had[k] = !ctl_info(fd, k, &i);
	a.bytes = 4 << 20;
	a.index = INT32_MAX;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.index = INT32_MIN;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.index = -2;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.index = -1;
	/* sizes and memmap ranges that overflow */
	a.bytes = 0xffffffffffe00000ULL;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = ~0ULL;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = (16ULL << 40) + (2 << 20);
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = 4 << 20;
	a.backing = THPSWAP_BACKING_MEMMAP;
	a.backing_phys = 0;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));	/* no address */
	a.backing_phys = 0xffffffffffe00000ULL;			/* wraps */
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.backing_phys = 0xffffffffffc00000ULL;			/* ends at 2^64 */
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = 16ULL << 40;
	a.backing_phys = 0xfffff80000000000ULL;			/* wraps */
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.bytes = 4 << 20;
	a.backing_phys = 0;
	a.backing = THPSWAP_BACKING_RAM;
	/* the struct one byte short of its first version */
	a.size = THPSWAP_ADD_SIZE_VER0 - 1;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_ADD, &a));
	a.size = sizeof(a);
	/* none of it made a device */
	for (k = 0; k < THPSWAP_MAX_DEVICES; k++)
		EXPECT_EQ(had[k], !ctl_info(fd, k, &i)) TH_LOG("thpswap%d came or went", k);
	/* indices */
	EXPECT_EQ(-ENODEV, ctl_info(fd, 63, &i));
	EXPECT_EQ(-ENODEV, ctl_info(fd, 100000, &i));
	EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_REMOVE, 63));
	EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_RESET_STATS, 1U << 31));
	EXPECT_EQ(-ENODEV, ctl_info(fd, 64, &i));
	EXPECT_EQ(-ENODEV, ctl_info(fd, 0xffffffffU, &i));
	EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_REMOVE, 64));
	EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_REMOVE, 0xffffffffU));
	EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_RESET_STATS, 64));
	EXPECT_EQ(-ENODEV, ctl_dev(fd, THPSWAP_IOC_RESET_STATS, 0xffffffffU));
	EXPECT_EQ(-ENODEV, ctl_stats(fd, 64, v));
	EXPECT_EQ(-ENODEV, ctl_stats(fd, 0xffffffffU, v));
	/* STATS: count grows and shrinks */
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.count = 3;
	s.values = (uintptr_t)v;
	ASSERT_EQ(0, ctl_ioctl(fd, THPSWAP_IOC_STATS, &s));
	EXPECT_EQ(3, s.count);
	EXPECT_EQ(__THPSWAP_STAT_CNT, s.nr_stats);
	s.count = 1000;		/* more room than stats: gets them all */
	ASSERT_EQ(0, ctl_ioctl(fd, THPSWAP_IOC_STATS, &s));
	EXPECT_EQ(__THPSWAP_STAT_CNT, s.count);
	s.count = 2;
	s.values = 8;
	EXPECT_EQ(-EFAULT, ctl_ioctl(fd, THPSWAP_IOC_STATS, &s));
	s.values = (uintptr_t)v;
	s.reserved[1] = 5;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_STATS, &s));
	/* CLUSTERS */
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.count = 4;
	c.entries = (uintptr_t)e;
	c.entry_size = 8;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_CLUSTERS, &c));
	c.entry_size = sizeof(e[0]);
	c.first = (DEV0_BYTES >> 21) + 1;
	EXPECT_EQ(-EINVAL, ctl_ioctl(fd, THPSWAP_IOC_CLUSTERS, &c));
	c.first = DEV0_BYTES >> 21;
	ASSERT_EQ(0, ctl_ioctl(fd, THPSWAP_IOC_CLUSTERS, &c));
	EXPECT_EQ(0, c.count);
	c.first = 0;
	c.count = 4;
	ASSERT_EQ(0, ctl_ioctl(fd, THPSWAP_IOC_CLUSTERS, &c));
	EXPECT_EQ(4, c.count);
	EXPECT_EQ(DEV0_BYTES >> 21, c.nr_clusters);
	c.entries = 4096;
	EXPECT_EQ(-EFAULT, ctl_ioctl(fd, THPSWAP_IOC_CLUSTERS, &c));
	/* the argument itself unmapped */
	EXPECT_EQ(-EFAULT, ctl_ioctl(fd, THPSWAP_IOC_INFO, (void *)16));
	close(fd);
}

/* A short struct from an "older" caller: the missing tail reads as zero. */
TEST(short_and_long_structs)
{
	unsigned char buf[sizeof(struct thpswap_ioc_info) + 64];
	struct thpswap_ioc_info *i = (void *)buf;
	int fd = ctl_open();

	ASSERT_LE(0, fd);
	memset(buf, 0xee, sizeof(buf));
	memset(buf, 0, sizeof(buf) - 8);
	i->size = sizeof(buf) - 8;	/* longer, zero tail */
	ASSERT_EQ(0, ctl_ioctl(fd, THPSWAP_IOC_INFO, i));
	EXPECT_EQ(DEV0_BYTES, i->bytes);
	/* only the kernel's size was written back */
	EXPECT_EQ(0, buf[sizeof(*i)]);
	EXPECT_EQ(0xee, buf[sizeof(buf) - 1]);
	close(fd);
}

static void count_clusters(int fd, struct __test_metadata *_metadata,
			   const uint64_t *v)
{
	struct thpswap_cluster_entry e[DEV0_BYTES >> 21];
	uint64_t n[4] = { 0 }, live = 0, g0, g1;
	long nr, k;

	nr = ctl_clusters_all(fd, 0, e, DEV0_BYTES >> 21, &g0, &g1);
	ASSERT_EQ((long)(DEV0_BYTES >> 21), nr);
	for (k = 0; k < nr; k++) {
		ASSERT_LT(e[k].state, __THPSWAP_CLUSTER_STATE_MAX);
		ASSERT_GE(512, e[k].live);
		n[e[k].state]++;
		live += e[k].live;
		if (e[k].state == THPSWAP_CLUSTER_HUGE)
			EXPECT_EQ(512, e[k].live);
		if (e[k].state == THPSWAP_CLUSTER_FREE)
			EXPECT_EQ(0, e[k].live);
	}
	EXPECT_EQ(g0, g1);
	EXPECT_EQ(v[THPSWAP_STAT_CLUSTERS_FREE], n[THPSWAP_CLUSTER_FREE]);
	EXPECT_EQ(v[THPSWAP_STAT_CLUSTERS_HUGE], n[THPSWAP_CLUSTER_HUGE]);
	EXPECT_EQ(v[THPSWAP_STAT_CLUSTERS_SPLIT], n[THPSWAP_CLUSTER_SPLIT]);
	EXPECT_EQ(v[THPSWAP_STAT_CLUSTERS_SMALL], n[THPSWAP_CLUSTER_SMALL]);
	EXPECT_EQ(v[THPSWAP_STAT_LIVE_SLOTS], live);
}

/* Swap on thpswap0: INFO flags, EBUSY, and STATS/CLUSTERS against sysfs. */
/* Only for the longer timeout of TEST_F_TIMEOUT. */
FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(slow)
{
}

TEST_F_TIMEOUT(slow, swap_cycle, 600)
{
	const size_t bytes = 32 * THP_SIZE;
	struct thpswap_ioc_info i;
	uint64_t v[__THPSWAP_STAT_CNT], v0[__THPSWAP_STAT_CNT];
	int fd = ctl_open(), err;
	__u32 auth;
	void *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ctl_dev(fd, THPSWAP_IOC_RESET_STATS, 0));
	ASSERT_EQ(0, ctl_stats(fd, 0, v0));
	EXPECT_EQ(0, v0[THPSWAP_STAT_THP_WRITES]);
	err = do_swapon(DEV0_PATH, 0);
	ASSERT_EQ(0, err) TH_LOG("swapon: %s (mkswap first)", strerror(-err));
	ASSERT_EQ(0, ctl_info(fd, 0, &i));
	auth = i.flags & THPSWAP_INFO_F_AUTHORITATIVE;
	EXPECT_EQ(THPSWAP_INFO_F_OPEN | THPSWAP_INFO_F_SWAPON | THPSWAP_INFO_F_NODE_VALID,
		  i.flags & ~auth);
	EXPECT_EQ(-EBUSY, ctl_dev(fd, THPSWAP_IOC_REMOVE, 0));

	p = thp_alloc(bytes);
	ASSERT_NE(NULL, p);
	pattern_fill(p, bytes, 7, 0);
	ASSERT_EQ(0, madvise(p, bytes, MADV_PAGEOUT));
	ASSERT_EQ(0, ctl_stats(fd, 0, v));
	TH_LOG("thp_writes %llu page_writes %llu huge %llu",
	       (unsigned long long)v[THPSWAP_STAT_THP_WRITES],
	       (unsigned long long)v[THPSWAP_STAT_PAGE_WRITES],
	       (unsigned long long)v[THPSWAP_STAT_CLUSTERS_HUGE]);
	EXPECT_LE(1, v[THPSWAP_STAT_THP_WRITES]);
	EXPECT_LE(1, v[THPSWAP_STAT_CLUSTERS_HUGE]);
	/*
	 * The device says its cluster states are the kernel's exactly when
	 * the kernel has been telling it about its clusters (patches/0001).
	 */
	EXPECT_EQ(!!auth, v[THPSWAP_STAT_KERNEL_EVENTS] > 0)
		TH_LOG("authoritative %d, kernel events %llu", !!auth,
		       (unsigned long long)v[THPSWAP_STAT_KERNEL_EVENTS]);
	EXPECT_EQ(v[THPSWAP_STAT_THP_WRITES], dev_stat("thpswap0", "thp_writes"));
	EXPECT_EQ(v[THPSWAP_STAT_PAGE_WRITES], dev_stat("thpswap0", "page_writes"));
	EXPECT_EQ(v[THPSWAP_STAT_CLUSTERS_HUGE], dev_cluster("thpswap0", "huge"));
	/* v0: the swap header mkswap wrote, a live slot all along */
	EXPECT_EQ(v[THPSWAP_STAT_THP_WRITES] * 512 + v[THPSWAP_STAT_PAGE_WRITES] +
		  v0[THPSWAP_STAT_LIVE_SLOTS], v[THPSWAP_STAT_LIVE_SLOTS]);
	count_clusters(fd, _metadata, v);

	EXPECT_EQ(0, pattern_verify(p, bytes, 7, 0, NULL));
	thp_free(p, bytes);
	EXPECT_EQ(0, do_swapoff(DEV0_PATH));
	ASSERT_EQ(0, ctl_stats(fd, 0, v));
	EXPECT_EQ(v0[THPSWAP_STAT_LIVE_SLOTS], v[THPSWAP_STAT_LIVE_SLOTS]);
	count_clusters(fd, _metadata, v);
	ASSERT_EQ(0, ctl_info(fd, 0, &i));
	EXPECT_EQ(auth | THPSWAP_INFO_F_NODE_VALID, i.flags);
	close(fd);
}

/* An unprivileged process with an open control fd: reads only. */
TEST(eperm_unprivileged)
{
	int fd = ctl_open(), status;
	pid_t pid;

	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct thpswap_ioc_info i;
		uint64_t v[__THPSWAP_STAT_CNT];

		/* setresuid away from 0 drops every capability. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (ctl_add(fd, -1, 4 << 20) != -EPERM)
			_exit(11);
		if (ctl_dev(fd, THPSWAP_IOC_REMOVE, 0) != -EPERM)
			_exit(12);
		if (ctl_dev(fd, THPSWAP_IOC_RESET_STATS, 0) != -EPERM)
			_exit(13);
		if (ctl_info(fd, 0, &i) || ctl_stats(fd, 0, v))
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child step %d failed", WEXITSTATUS(status));
	close(fd);
}

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 100,000 random ioctls: commands, sizes, fields and pointers. */
TEST_F_TIMEOUT(slow, fuzz, 900)
{
	static const unsigned long cmds[] = {
		THPSWAP_IOC_ADD, THPSWAP_IOC_REMOVE, THPSWAP_IOC_INFO,
		THPSWAP_IOC_STATS, THPSWAP_IOC_CLUSTERS, THPSWAP_IOC_RESET_STATS,
	};
	static unsigned char buf[8192] __attribute__((aligned(64)));
	static unsigned char out[65536] __attribute__((aligned(64)));
	struct thpswap_ioc_info info;
	unsigned long cmd, errs[8] = { 0 };
	long k, ok = 0;
	int fd = ctl_open(), idx;
	void *arg;
	char *guard;

	ASSERT_LE(0, fd);
	guard = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, guard);
	ASSERT_EQ(0, mprotect(guard + 4096, 4096, PROT_NONE));
	for (k = 0; k < 100000; k++) {
		uint64_t r = rnd();
		size_t i, len = rnd() % 160;

		/* command: a real one, one with odd size/dir bits, or junk */
		switch (r % 4) {
		case 0: case 1:
			cmd = cmds[rnd() % 6];
			break;
		case 2:
			cmd = (cmds[rnd() % 6] & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
			      ((rnd() % 256) << _IOC_SIZESHIFT);
			break;
		default:
			cmd = (uint32_t)rnd();
			if (rnd() % 2)
				cmd = (cmd & ~(0xffUL << _IOC_TYPESHIFT)) |
				      (THPSWAP_IOCTL_MAGIC << _IOC_TYPESHIFT);
		}
		/* the struct: random bytes, or plausible with random holes */
		for (i = 0; i < len; i += 8)
			*(uint64_t *)(buf + i) = rnd();
		memset(buf + len, 0, 256);
		if (rnd() % 2) {
			memset(buf, 0, 128);
			*(uint32_t *)buf = rnd() % 3 ? 32 + 8 * (rnd() % 8) : rnd() % 200;
			*(uint32_t *)(buf + 4) = rnd() % 4 ? rnd() % 70 :	/* index */
				(uint32_t[]){ 0xffffffffU, 64, 0x80000000U, 0xfffffffeU }[rnd() % 4];
			if (_IOC_NR(cmd) == 1 && *(uint32_t *)(buf + 4) == 0)
				*(uint32_t *)(buf + 4) = 1;	/* keep thpswap0 */
			*(uint64_t *)(buf + 8) = rnd() % 3 ? rnd() % 300 : rnd();
			*(uint32_t *)(buf + 16) = rnd() % 5000;
			*(uint32_t *)(buf + 20) = rnd() % 2 ? 4 : rnd() % 16;
			if (_IOC_NR(cmd) == 0) {	/* ADD: small sizes only */
				*(int32_t *)(buf + 8) = (int32_t)(rnd() % 70) - 1;
				*(uint64_t *)(buf + 16) = (rnd() % 6) << 21;
				if (rnd() % 4 == 0)	/* issue 15: an index past the table */
					*(int32_t *)(buf + 8) = (int32_t[]){ INT32_MAX, INT32_MIN, 64, -2 }[rnd() % 4];
				if (rnd() % 8 == 0) {	/* sizes and ranges that overflow */
					*(uint64_t *)(buf + 16) = (uint64_t[]){ ~0ULL, 0xffffffffffe00000ULL, 16ULL << 40 }[rnd() % 3];
					*(uint32_t *)(buf + 12) = rnd() % 2;	/* backing */
					*(uint64_t *)(buf + 24) = (uint64_t[]){ 0, 0xffffffffffe00000ULL, 0xfffff80000000000ULL }[rnd() % 3];
				}
			}
			switch (rnd() % 5) {	/* user pointers inside */
			case 0: *(uint64_t *)(buf + 24) = (uintptr_t)out; break;
			case 1: *(uint64_t *)(buf + 16) = (uintptr_t)out; break;
			case 2: *(uint64_t *)(buf + 24) = 0xffffffff81000000ULL; break;
			case 3: *(uint64_t *)(buf + 24) = (uintptr_t)(guard + 4096 - 8); break;
			default: break;
			}
		}
		/* never REMOVE thpswap0, which the other tests need */
		if (_IOC_TYPE(cmd) == THPSWAP_IOCTL_MAGIC && _IOC_NR(cmd) == 1 &&
		    !*(uint32_t *)(buf + 4))
			*(uint32_t *)(buf + 4) = 1;
		switch (rnd() % 8) {
		case 0: arg = NULL; break;
		case 1: arg = (void *)(uintptr_t)rnd(); break;
		case 2: arg = (void *)0xffff888000000000ULL; break;
		case 3:	/* straddles the guard page */
			arg = guard + 4096 - 16;
			memcpy(arg, buf, 16);
			break;
		default: arg = buf; break;
		}
		if (ioctl(fd, cmd, arg) == 0)
			ok++;
		else
			errs[errno == ENOTTY ? 0 : errno == EINVAL ? 1 :
			     errno == EFAULT ? 2 : errno == ENODEV ? 3 :
			     errno == E2BIG ? 4 : errno == EEXIST ? 5 :
			     errno == EBUSY ? 6 : 7]++;
	}
	TH_LOG("ok %ld ENOTTY %lu EINVAL %lu EFAULT %lu ENODEV %lu E2BIG %lu EEXIST %lu EBUSY %lu other %lu",
	       ok, errs[0], errs[1], errs[2], errs[3], errs[4], errs[5],
	       errs[6], errs[7]);
	/* the device we need is still there; drop what the fuzz created */
	ASSERT_EQ(0, ctl_info(fd, 0, &info));
	EXPECT_EQ(DEV0_BYTES, info.bytes);
	for (idx = 1; idx < THPSWAP_MAX_DEVICES; idx++)
		if (!ctl_info(fd, idx, &info))
			EXPECT_EQ(0, ctl_dev(fd, THPSWAP_IOC_REMOVE, idx));
	munmap(guard, 8192);
	close(fd);
}

TEST_HARNESS_MAIN
