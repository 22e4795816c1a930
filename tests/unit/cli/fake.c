// SPDX-License-Identifier: GPL-2.0
/*
 * A fake transport for host tests of thpswapctl: it replaces transport.c,
 * nl.c and ioctl.c, and keeps its "kernel" in the text file named by
 * $THPSWAPCTL_FAKE, so the real command, option and formatting code runs
 * without a module.  Lines:
 *
 *   dev INDEX SIZE [ADDR]            a device (ADDR: memmap backing)
 *   counter INDEX NAME VALUE         a device stat, by its sysfs name
 *   global NAME VALUE                thp_swpout, thp_swpout_fallback,
 *                                    thp_swpin, thp_swpin_fallback,
 *                                    thp_swpin_declined, thp_swpin_promoted,
 *                                    thp_swpin_promote_fallback,
 *                                    thp_swpout_pte_mapped, thp_split_reclaim,
 *                                    thp_swpin_shared,
 *                                    thp_swpin_collapse_read,
 *                                    thp_swpin_handoff
 *   authoritative INDEX              the device's THPSWAP_INFO_F_AUTHORITATIVE
 *   node INDEX N                     the device's RAM is on NUMA node N
 *   numa_nodes N                     nodes 0..N-1 exist (default 1); add
 *                                    --node beyond them fails -ENODEV
 *   nr_stats N                       the "kernel" reports only stats 0..N-1
 *                                    (an older module), default all
 *   run INDEX FIRST COUNT STATE      clusters in a state (others are free)
 *   fail OP ERRNO MESSAGE...         make OP fail with -ERRNO and extack MESSAGE
 *   event TYPE INDEX FIRST COUNT FROM TO   delivered to watch
 *   swaps PATH                       read PATH instead of /proc/swaps
 *
 * The "kernel" keeps the uapi's stats array (enum thpswap_stat) per device
 * and hands its first nr_stats entries to dev_set_stat(), as the real
 * transports do.  add, remove and reset rewrite the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/thpswap.h>

#include "thpswapctl.h"

#define MAXD 64
#define MAXL 512

/* The view, and the "kernel's" stats behind it. */
struct fdev {
	struct tsw_dev d;
	uint64_t stat[__THPSWAP_STAT_CNT];	/* per-device counters */
};

/* The module's sysfs names (module/stats.c), used in the state file. */
static const char *const stat_name[__THPSWAP_STAT_CNT] = {
	[THPSWAP_STAT_THP_WRITES] = "thp_writes",
	[THPSWAP_STAT_THP_READS] = "thp_reads",
	[THPSWAP_STAT_PAGE_WRITES] = "page_writes",
	[THPSWAP_STAT_PAGE_READS] = "page_reads",
	[THPSWAP_STAT_BYTES_WRITTEN] = "bytes_written",
	[THPSWAP_STAT_BYTES_READ] = "bytes_read",
	[THPSWAP_STAT_DISCARDS] = "discards",
	[THPSWAP_STAT_SLOT_FREES] = "slot_frees",
	[THPSWAP_STAT_REJECTED] = "rejected",
	[THPSWAP_STAT_THP_SWPOUT] = "thp_swpout",
	[THPSWAP_STAT_THP_SWPOUT_FALLBACK] = "thp_swpout_fallback",
	[THPSWAP_STAT_CLUSTERS_FREE] = "clusters_free",
	[THPSWAP_STAT_CLUSTERS_HUGE] = "clusters_huge",
	[THPSWAP_STAT_CLUSTERS_SPLIT] = "clusters_split",
	[THPSWAP_STAT_CLUSTERS_SMALL] = "clusters_small",
	[THPSWAP_STAT_LIVE_SLOTS] = "live_slots",
	[THPSWAP_STAT_FALLBACK_NO_CLUSTER] = "fallback_no_cluster",
	[THPSWAP_STAT_FALLBACK_MEMCG] = "fallback_memcg",
	[THPSWAP_STAT_FALLBACK_NOMEM] = "fallback_nomem",
	[THPSWAP_STAT_KERNEL_EVENTS] = "kernel_events",
	[THPSWAP_STAT_THP_SWPIN] = "thp_swpin",
	[THPSWAP_STAT_THP_SWPIN_FALLBACK] = "thp_swpin_fallback",
	[THPSWAP_STAT_SWAPIN_WHOLE] = "swapin_whole",
	[THPSWAP_STAT_THP_SWPIN_DECLINED] = "thp_swpin_declined",
	[THPSWAP_STAT_THP_SWPIN_PROMOTED] = "thp_swpin_promoted",
	[THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK] = "thp_swpin_promote_fallback",
	[THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED] = "thp_swpout_pte_mapped",
	[THPSWAP_STAT_THP_SPLIT_RECLAIM] = "thp_split_reclaim",
	[THPSWAP_STAT_THP_SWPIN_SHARED] = "thp_swpin_shared",
	[THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ] = "thp_swpin_collapse_read",
	[THPSWAP_STAT_THP_SWPIN_HANDOFF] = "thp_swpin_handoff",
};

static struct fdev devs[MAXD];
static size_t ndevs;
static struct { uint32_t index; struct tsw_run run; } runs[MAXL];
static size_t nruns;
static char other[MAXL][256];	/* lines kept verbatim */
static size_t nother;
static uint64_t g_stat[__THPSWAP_STAT_CNT];	/* the global vm events */
static unsigned int nr_stats = __THPSWAP_STAT_CNT;
static unsigned int numa_nodes = 1;
static const char *path;
static char swaps[256];
static int evpipe[2] = { -1, -1 };

static int state_of(const char *s)
{
	for (int i = 0; i < TSW_NR_STATES; i++)
		if (!strcmp(s, tsw_state_name[i]))
			return i;
	return -1;
}

static int stat_of(const char *s)
{
	for (int i = 0; i < __THPSWAP_STAT_CNT; i++)
		if (!strcmp(s, stat_name[i]))
			return i;
	return -1;
}

static bool is_global(int stat)
{
	return stat == THPSWAP_STAT_THP_SWPOUT || stat == THPSWAP_STAT_THP_SWPOUT_FALLBACK ||
	       stat == THPSWAP_STAT_THP_SWPIN || stat == THPSWAP_STAT_THP_SWPIN_FALLBACK ||
	       stat == THPSWAP_STAT_THP_SWPIN_DECLINED || stat == THPSWAP_STAT_THP_SWPIN_PROMOTED ||
	       stat == THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK ||
	       stat == THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED || stat == THPSWAP_STAT_THP_SPLIT_RECLAIM ||
	       stat == THPSWAP_STAT_THP_SWPIN_SHARED ||
	       stat == THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ ||
	       stat == THPSWAP_STAT_THP_SWPIN_HANDOFF;
}

static struct fdev *find(uint32_t index)
{
	for (size_t i = 0; i < ndevs; i++)
		if (devs[i].d.index == index)
			return &devs[i];
	return NULL;
}

static int failing(const char *op)
{
	for (size_t i = 0; i < nother; i++) {
		char o[32], msg[200] = "";
		int e;

		if (sscanf(other[i], "fail %31s %d %199[^\n]", o, &e, msg) >= 2 &&
		    !strcmp(o, op)) {
			tsw_set_errmsg("%s", msg);
			return -e;
		}
	}
	return 0;
}

/* The view of a device, as a transport builds it from the kernel's stats. */
static void fill(struct fdev *f)
{
	struct tsw_dev *d = &f->d;
	uint64_t v[__THPSWAP_STAT_CNT], used = 0;

	memcpy(v, f->stat, sizeof(v));
	for (int i = 0; i < __THPSWAP_STAT_CNT; i++)
		if (is_global(i))
			v[i] = g_stat[i];
	d->nr_clusters = d->size / TSW_CLUSTER_SIZE;
	v[THPSWAP_STAT_CLUSTERS_FREE] = v[THPSWAP_STAT_CLUSTERS_HUGE] = 0;
	v[THPSWAP_STAT_CLUSTERS_SPLIT] = v[THPSWAP_STAT_CLUSTERS_SMALL] = 0;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].index == d->index && runs[i].run.state < TSW_NR_STATES) {
			v[THPSWAP_STAT_CLUSTERS_FREE + runs[i].run.state] += runs[i].run.count;
			used += runs[i].run.count;
		}
	v[THPSWAP_STAT_CLUSTERS_FREE] += d->nr_clusters - used;
	/* what an older kernel does not report is never set */
	memset(d->counter, 0, sizeof(d->counter));
	memset(d->state_count, 0, sizeof(d->state_count));
	d->live_slots = 0;
	d->thp_swpout = d->thp_swpout_fallback = d->thp_swpin = d->thp_swpin_fallback = 0;
	d->thp_swpin_declined = d->thp_swpin_promoted = d->thp_swpin_promote_fallback = 0;
	d->thp_swpout_pte_mapped = d->thp_split_reclaim = d->thp_swpin_shared = 0;
	d->thp_swpin_collapse_read = d->thp_swpin_handoff = 0;
	for (unsigned int i = 0; i < nr_stats && i < __THPSWAP_STAT_CNT; i++)
		dev_set_stat(d, i, v[i]);
}

static int load(void)
{
	char line[256], a[64], b[64];
	FILE *f;

	path = getenv("THPSWAPCTL_FAKE");
	if (!path)
		return -ENOENT;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t x, y, z;
		unsigned int idx;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "dev %u %" SCNu64 " %" SCNx64, &idx, &x, &y) >= 2 && ndevs < MAXD) {
			struct tsw_dev *d = &devs[ndevs].d;
			int n = sscanf(line, "dev %u %" SCNu64 " %" SCNx64, &idx, &x, &y);

			memset(&devs[ndevs++], 0, sizeof(devs[0]));
			d->index = idx;
			d->size = x;
			d->memmap = n == 3;
			d->memmap_addr = n == 3 ? y : 0;
			d->node = -1;
			dev_name(idx, d->name, sizeof(d->name));
		} else if (sscanf(line, "counter %u %63s %" SCNu64, &idx, a, &x) == 3) {
			struct fdev *f = find(idx);
			int st = stat_of(a);

			if (f && st >= 0 && !is_global(st))
				f->stat[st] = x;
		} else if (sscanf(line, "global %63s %" SCNu64, a, &x) == 2) {
			int st = stat_of(a);

			if (st >= 0 && is_global(st))
				g_stat[st] = x;
		} else if (sscanf(line, "authoritative %u", &idx) == 1) {
			struct fdev *f = find(idx);

			if (f)
				f->d.authoritative = true;
		} else if (sscanf(line, "node %u %" SCNu64, &idx, &x) == 2) {
			struct fdev *f = find(idx);

			if (f)
				f->d.node = (int)x;
		} else if (sscanf(line, "numa_nodes %u", &idx) == 1) {
			numa_nodes = idx;
		} else if (sscanf(line, "nr_stats %u", &idx) == 1) {
			nr_stats = idx;
		} else if (sscanf(line, "run %u %" SCNu64 " %" SCNu64 " %63s", &idx, &x, &y, b) == 4 &&
			   nruns < MAXL) {
			runs[nruns].index = idx;
			runs[nruns].run.start = x;
			runs[nruns].run.count = y;
			runs[nruns].run.state = (uint8_t)state_of(b);
			nruns++;
		} else if (sscanf(line, "swaps %255s", swaps) == 1) {
			proc_swaps_path = swaps;
		} else if (nother < MAXL) {
			snprintf(other[nother++], 256, "%s", line);
		}
		(void)z;
	}
	fclose(f);
	for (size_t i = 0; i < ndevs; i++)
		fill(&devs[i]);
	return 0;
}

static int save(void)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	for (size_t i = 0; i < ndevs; i++) {
		const struct tsw_dev *d = &devs[i].d;

		fprintf(f, "dev %u %" PRIu64, d->index, d->size);
		if (d->memmap)
			fprintf(f, " %" PRIx64, d->memmap_addr);
		fputc('\n', f);
		if (d->authoritative)
			fprintf(f, "authoritative %u\n", d->index);
		if (d->node >= 0)
			fprintf(f, "node %u %d\n", d->index, d->node);
		for (int c = 0; c < __THPSWAP_STAT_CNT; c++)
			if (devs[i].stat[c])
				fprintf(f, "counter %u %s %" PRIu64 "\n", d->index, stat_name[c],
					devs[i].stat[c]);
	}
	for (size_t i = 0; i < nruns; i++)
		if (find(runs[i].index))
			fprintf(f, "run %u %" PRIu64 " %" PRIu64 " %s\n", runs[i].index,
				runs[i].run.start, runs[i].run.count,
				tsw_state_name[runs[i].run.state]);
	for (int i = 0; i < __THPSWAP_STAT_CNT; i++)
		if (is_global(i))
			fprintf(f, "global %s %" PRIu64 "\n", stat_name[i], g_stat[i]);
	if (nr_stats != __THPSWAP_STAT_CNT)
		fprintf(f, "nr_stats %u\n", nr_stats);
	if (numa_nodes != 1)
		fprintf(f, "numa_nodes %u\n", numa_nodes);
	if (proc_swaps_path == swaps)
		fprintf(f, "swaps %s\n", swaps);
	for (size_t i = 0; i < nother; i++)
		fprintf(f, "%s\n", other[i]);
	return fclose(f) ? -errno : 0;
}

static int f_open(void)
{
	int err = load();

	return err ? err : failing("open");
}

static void f_close(void)
{
	if (evpipe[0] >= 0)
		close(evpipe[0]);
	if (evpipe[1] >= 0)
		close(evpipe[1]);
}

static int cmp(const void *a, const void *b)
{
	const struct tsw_dev *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int f_list(struct tsw_dev **out, size_t *n)
{
	int err = failing("list");

	if (err)
		return err;
	*out = calloc(ndevs ? ndevs : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < ndevs; i++)
		(*out)[i] = devs[i].d;
	qsort(*out, ndevs, sizeof(**out), cmp);
	*n = ndevs;
	return 0;
}

static int f_get(uint32_t index, struct tsw_dev *d)
{
	struct fdev *s = find(index);
	int err = failing("get");

	if (err)
		return err;
	if (!s) {
		tsw_set_errmsg("no device with this index");
		return -ENODEV;
	}
	*d = s->d;
	return 0;
}

static int f_add(const struct tsw_add_req *req, uint32_t *index)
{
	int err = failing("add");
	struct tsw_dev *d;
	uint32_t i = 0;

	if (err)
		return err;
	if (req->size < (4 << 20)) {
		tsw_set_errmsg("THPSWAP_A_DEV_SIZE: at least 4 MiB");
		return -EINVAL;
	}
	if (req->want_node && (unsigned int)req->node >= numa_nodes) {
		tsw_set_errmsg("THPSWAP_A_DEV_NODE: no such NUMA node");
		return -ENODEV;
	}
	if (req->want_index) {
		if (find(req->index)) {
			tsw_set_errmsg("THPSWAP_A_DEV_INDEX: index in use");
			return -EEXIST;
		}
		i = req->index;
	} else {
		while (find(i))
			i++;
	}
	if (ndevs == MAXD)
		return -ENOSPC;
	memset(&devs[ndevs], 0, sizeof(devs[0]));
	d = &devs[ndevs].d;
	d->index = i;
	d->size = req->size / TSW_CLUSTER_SIZE * TSW_CLUSTER_SIZE;
	d->memmap = req->memmap;
	d->memmap_addr = req->memmap_addr;
	d->node = req->want_node ? req->node : -1;
	dev_name(i, d->name, sizeof(d->name));
	fill(&devs[ndevs++]);
	*index = i;
	return save();
}

static int f_remove(uint32_t index)
{
	struct fdev *d = find(index);
	int err = failing("remove");

	if (err)
		return err;
	if (!d)
		return -ENODEV;
	*d = devs[--ndevs];
	return save();
}

/* As the module: every per-device counter, not the gauges or vm events. */
static int f_reset(uint32_t index)
{
	struct fdev *d = find(index);
	int err = failing("reset");

	if (err)
		return err;
	if (!d)
		return -ENODEV;
	for (int i = 0; i < __THPSWAP_STAT_CNT; i++)
		if (i != THPSWAP_STAT_LIVE_SLOTS)
			d->stat[i] = 0;
	fill(d);
	return save();
}

static int f_clusters(uint32_t index, uint64_t first, uint64_t last, struct tsw_runs *r)
{
	struct fdev *d = find(index);
	uint64_t pos = first;
	int err = failing("clusters");

	if (err)
		return err;
	if (!d)
		return -ENODEV;
	/* runs are listed in order in the file; fill the gaps with free */
	for (size_t i = 0; i < nruns; i++) {
		uint64_t s = runs[i].run.start, e = s + runs[i].run.count;

		if (runs[i].index != index || e <= first || s >= last)
			continue;
		if (s < first)
			s = first;
		if (e > last)
			e = last;
		if (s > pos)
			runs_push(r, pos, s - pos, TSW_FREE);
		runs_push(r, s, e - s, runs[i].run.state);
		pos = e;
	}
	if (pos < last)
		runs_push(r, pos, last - pos, TSW_FREE);
	return 0;
}

static int f_subscribe(void)
{
	int err = failing("subscribe");

	if (err)
		return err;
	if (pipe(evpipe))
		return -errno;
	fcntl(evpipe[0], F_SETFL, O_NONBLOCK);
	if (write(evpipe[1], "x", 1) != 1)
		return -EIO;
	return evpipe[0];
}

static int f_events_read(tsw_event_fn fn, void *arg)
{
	static const char *const types[] = { "add", "remove", "cluster", "dropped" };
	char c, t[32], from[32], to[32];
	unsigned int idx;
	uint64_t first, count;

	while (read(evpipe[0], &c, 1) == 1)
		;
	for (size_t i = 0; i < nother; i++) {
		struct tsw_event ev = { .from = -1, .to = -1 };

		if (sscanf(other[i], "event %31s %u %" SCNu64 " %" SCNu64 " %31s %31s", t, &idx,
			   &first, &count, from, to) != 6)
			continue;
		ev.type = TSW_EV_OTHER;
		for (int k = 0; k < 4; k++)
			if (!strcmp(t, types[k]))
				ev.type = (enum tsw_event_type)k;
		ev.index = idx;
		ev.first = first;
		ev.count = count;
		ev.from = state_of(from);
		ev.to = state_of(to);
		fn(&ev, arg);
	}
	return 0;
}

static const struct tsw_transport fake = {
	.name = "fake",
	.open = f_open,
	.close = f_close,
	.list = f_list,
	.get = f_get,
	.add = f_add,
	.remove = f_remove,
	.reset = f_reset,
	.clusters = f_clusters,
	.events_subscribe = f_subscribe,
	.events_read = f_events_read,
};

const struct tsw_transport *transport_select(bool use_ioctl)
{
	(void)use_ioctl;
	return &fake;
}
