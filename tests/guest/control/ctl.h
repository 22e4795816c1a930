/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the control-plane guest tests: ioctls on
 * /dev/thpswap-control.
 */
#ifndef THPSWAP_CTL_H
#define THPSWAP_CTL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/thpswap.h>

static inline int ctl_open(void)
{
	return open("/dev/" THPSWAP_CONTROL_NAME, O_RDWR | O_CLOEXEC);
}

/* 0 or -errno. */
static inline int ctl_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int ctl_add(int fd, int index, uint64_t bytes)
{
	struct thpswap_ioc_add a = { .size = sizeof(a), .index = index,
				     .bytes = bytes };
	int err = ctl_ioctl(fd, THPSWAP_IOC_ADD, &a);

	return err ? err : a.index;
}

static inline int ctl_dev(int fd, unsigned long cmd, uint32_t index)
{
	struct thpswap_ioc_dev d = { .size = sizeof(d), .index = index };

	return ctl_ioctl(fd, cmd, &d);
}

static inline int ctl_info(int fd, uint32_t index, struct thpswap_ioc_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	i->index = index;
	return ctl_ioctl(fd, THPSWAP_IOC_INFO, i);
}

/* Fills v[__THPSWAP_STAT_CNT]; 0 or -errno. */
static inline int ctl_stats(int fd, uint32_t index, uint64_t *v)
{
	struct thpswap_ioc_stats s = {
		.size = sizeof(s), .index = index, .count = __THPSWAP_STAT_CNT,
		.values = (uintptr_t)v,
	};
	int err = ctl_ioctl(fd, THPSWAP_IOC_STATS, &s);

	if (!err && s.count != __THPSWAP_STAT_CNT)
		return -ERANGE;
	return err;
}

/*
 * All clusters of device @index into @e (room for @max); returns the
 * number of clusters or -errno; @gen0 and @gen1 receive the generation at
 * the first and the last call.
 */
static inline long ctl_clusters_all(int fd, uint32_t index,
				    struct thpswap_cluster_entry *e, size_t max,
				    uint64_t *gen0, uint64_t *gen1)
{
	struct thpswap_ioc_clusters c;
	uint64_t first = 0;
	int err;

	for (;;) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.index = index;
		c.first = first;
		c.count = max - first > THPSWAP_CLUSTERS_MAX_CHUNK ?
			  THPSWAP_CLUSTERS_MAX_CHUNK : max - first;
		c.entry_size = sizeof(*e);
		c.entries = (uintptr_t)(e + first);
		err = ctl_ioctl(fd, THPSWAP_IOC_CLUSTERS, &c);
		if (err)
			return err;
		if (!first && gen0)
			*gen0 = c.generation;
		if (gen1)
			*gen1 = c.generation;
		first += c.count;
		if (!c.count || first >= c.nr_clusters || first >= max)
			break;
	}
	return first;
}

#endif
