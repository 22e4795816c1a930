// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl transport: /dev/thpswap-control.  Every argument struct
 * carries its own size and is zeroed first, so reserved fields are zero
 * as the ABI demands.  Ioctls carry no error text, so the likely reason
 * for each errno is supplied here.  There is no event stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/thpswap.h>

#include "thpswapctl.h"

#define CONTROL_PATH	"/dev/" THPSWAP_CONTROL_NAME
#define MAP_RETRIES	5

static int fd = -1;

static int io_open(void)
{
	fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open(CONTROL_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT || err == ENODEV || err == ENXIO)
			tsw_set_errmsg("%s: is the module loaded? (modprobe thpswap)",
				       CONTROL_PATH);
		else
			tsw_set_errmsg("%s", CONTROL_PATH);
		return -err;
	}
	return 0;
}

static void io_close(void)
{
	if (fd >= 0)
		close(fd);
	fd = -1;
}

/* The errno of a failed ioctl, with a word on what it likely means. */
static int io_err(const char *what)
{
	int err = errno;

	switch (err) {
	case EPERM:
		tsw_set_errmsg("%s needs CAP_SYS_ADMIN", what);
		break;
	case ENOTTY:
		tsw_set_errmsg("the module does not know %s (older module?)", what);
		break;
	default:
		break;
	}
	return -err;
}

static int io_info(uint32_t index, struct thpswap_ioc_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->index = index;
	if (ioctl(fd, THPSWAP_IOC_INFO, info))
		return io_err("INFO");
	return 0;
}

static int io_get(uint32_t index, struct tsw_dev *d)
{
	struct thpswap_ioc_info info;
	struct thpswap_ioc_stats st;
	uint64_t v[__THPSWAP_STAT_CNT] = { 0 };
	uint32_t i;
	int err;

	err = io_info(index, &info);
	if (err)
		return err;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.index = index;
	st.count = __THPSWAP_STAT_CNT;
	st.values = (uint64_t)(uintptr_t)v;
	if (ioctl(fd, THPSWAP_IOC_STATS, &st))
		return io_err("STATS");

	memset(d, 0, sizeof(*d));
	d->index = index;
	dev_name(index, d->name, sizeof(d->name));
	d->size = info.bytes;
	d->memmap = info.backing == THPSWAP_BACKING_MEMMAP;
	d->memmap_addr = info.backing_phys;
	d->node = info.flags & THPSWAP_INFO_F_NODE_VALID ? info.node : -1;
	d->nr_clusters = info.nr_clusters;
	d->generation = (uint32_t)info.generation;
	d->open = info.flags & THPSWAP_INFO_F_OPEN;
	d->swapon = info.flags & THPSWAP_INFO_F_SWAPON;
	d->authoritative = info.flags & THPSWAP_INFO_F_AUTHORITATIVE;
	/*
	 * The module wrote min(room, its nr_stats) values: an older module
	 * knows fewer stats, and the ones it lacks stay 0.
	 */
	for (i = 0; i < st.count && i < __THPSWAP_STAT_CNT; i++)
		dev_set_stat(d, i, v[i]);
	return 0;
}

static int io_list(struct tsw_dev **devs, size_t *n)
{
	struct tsw_dev *v = calloc(THPSWAP_MAX_DEVICES, sizeof(*v));
	uint32_t i;
	int err;

	if (!v)
		return -ENOMEM;
	*n = 0;
	for (i = 0; i < THPSWAP_MAX_DEVICES; i++) {
		err = io_get(i, &v[*n]);
		if (err == -ENODEV)
			continue;
		if (err) {
			free(v);
			return err;
		}
		(*n)++;
	}
	tsw_errmsg[0] = 0;
	*devs = v;
	return 0;
}

static int io_add(const struct tsw_add_req *req, uint32_t *index)
{
	struct thpswap_ioc_add a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.index = req->want_index ? (int32_t)req->index : -1;
	a.backing = req->memmap ? THPSWAP_BACKING_MEMMAP : THPSWAP_BACKING_RAM;
	a.bytes = req->size;
	a.backing_phys = req->memmap ? req->memmap_addr : 0;
	if (req->want_node) {
		a.flags |= THPSWAP_ADD_F_NODE;
		a.node = req->node;
	}
	if (ioctl(fd, THPSWAP_IOC_ADD, &a)) {
		int err = io_err("ADD");

		if (err == -EEXIST)
			tsw_set_errmsg("index %u is taken", req->index);
		else if (err == -ENOSPC)
			tsw_set_errmsg("all %d device indices are taken", THPSWAP_MAX_DEVICES);
		else if (err == -EINVAL && req->want_index && req->index >= THPSWAP_MAX_DEVICES)
			tsw_set_errmsg("the index must be below %d", THPSWAP_MAX_DEVICES);
		else if (err == -EINVAL && (req->size % THPSWAP_CLUSTER_SIZE ||
					    req->size < THPSWAP_MIN_DEV_SIZE))
			tsw_set_errmsg("the size must be a multiple of 2 MiB and at least 4 MiB");
		else if (err == -EINVAL && req->memmap)
			tsw_set_errmsg("the memmap range must be 2 MiB aligned and reserved with memmap=SIZE!ADDR");
		else if (err == -EINVAL && req->want_node)
			tsw_set_errmsg("the module does not know --node (too old?)");
		else if (err == -ENODEV && req->want_node)
			tsw_set_errmsg("NUMA node %d does not exist or has no memory", req->node);
		else if (err == -ENOMEM && req->want_node)
			tsw_set_errmsg("not enough free memory on NUMA node %d (devices there may take 3/4 of it, leaving 1/4 free)",
				       req->node);
		return err;
	}
	*index = (uint32_t)a.index;
	return 0;
}

static int dev_op(unsigned long cmd, const char *what, uint32_t index)
{
	struct thpswap_ioc_dev d;

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.index = index;
	if (ioctl(fd, cmd, &d)) {
		int err = io_err(what);

		if (err == -EBUSY)
			tsw_set_errmsg("the device is open or swapped on");
		return err;
	}
	return 0;
}

static int io_remove(uint32_t index)
{
	return dev_op(THPSWAP_IOC_REMOVE, "REMOVE", index);
}

static int io_reset(uint32_t index)
{
	return dev_op(THPSWAP_IOC_RESET_STATS, "RESET_STATS", index);
}

/*
 * The map in chunks; consistent when the generation did not move between
 * the first and the last chunk, else read again.
 */
static int io_clusters(uint32_t index, uint64_t first, uint64_t last, struct tsw_runs *runs)
{
	struct thpswap_cluster_entry *e;
	int tries, err = 0;
	bool torn = true;

	e = calloc(THPSWAP_CLUSTERS_MAX_CHUNK, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (tries = 0; tries < MAP_RETRIES && torn && !err; tries++) {
		struct thpswap_ioc_clusters c = { .generation = 0 };
		struct thpswap_ioc_info info;
		uint64_t pos = first;

		runs->n = 0;
		torn = false;
		err = io_info(index, &info);
		if (err)
			break;
		while (pos < last) {
			uint64_t want = last - pos;
			uint32_t i;

			memset(&c, 0, sizeof(c));
			c.size = sizeof(c);
			c.index = index;
			c.first = pos;
			c.count = want > THPSWAP_CLUSTERS_MAX_CHUNK ? THPSWAP_CLUSTERS_MAX_CHUNK
								    : (uint32_t)want;
			c.entry_size = sizeof(*e);
			c.entries = (uint64_t)(uintptr_t)e;
			if (ioctl(fd, THPSWAP_IOC_CLUSTERS, &c)) {
				err = io_err("CLUSTERS");
				break;
			}
			if (!c.count)
				break;
			for (i = 0; i < c.count; i++) {
				uint8_t st = e[i].state < TSW_NR_STATES ? e[i].state : TSW_NR_STATES;

				if (runs_push(runs, pos + i, 1, st)) {
					err = -ENOMEM;
					break;
				}
			}
			pos += c.count;
		}
		torn = !err && c.generation != info.generation;
	}
	free(e);
	if (!err && torn)
		fprintf(stderr, "%s: warning: clusters kept changing state while read; "
			"the picture mixes moments\n", prog);
	return err;
}

const struct tsw_transport ioctl_transport = {
	.name = "ioctl",
	.open = io_open,
	.close = io_close,
	.list = io_list,
	.get = io_get,
	.add = io_add,
	.remove = io_remove,
	.reset = io_reset,
	.clusters = io_clusters,
	.events_subscribe = NULL,
	.events_read = NULL,
};
