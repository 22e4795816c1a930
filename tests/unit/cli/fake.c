// SPDX-License-Identifier: GPL-2.0
/*
 * A fake transport for host tests of thpswapctl: it replaces transport.c,
 * nl.c and ioctl.c, and keeps its "kernel" in the text file named by
 * $THPSWAPCTL_FAKE, so the real command, option and formatting code runs
 * without a module.  Lines:
 *
 *   dev INDEX SIZE [ADDR]            a device (ADDR: memmap backing)
 *   counter INDEX NAME VALUE         a device counter
 *   global NAME VALUE                thp_swpout, thp_swpout_fallback
 *   run INDEX FIRST COUNT STATE      clusters in a state (others are free)
 *   fail OP ERRNO MESSAGE...         make OP fail with -ERRNO and extack MESSAGE
 *   event TYPE INDEX FIRST COUNT FROM TO   delivered to watch
 *   swaps PATH                       read PATH instead of /proc/swaps
 *
 * add, remove and reset rewrite the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thpswapctl.h"

#define MAXD 64
#define MAXL 512

static struct tsw_dev devs[MAXD];
static size_t ndevs;
static struct { uint32_t index; struct tsw_run run; } runs[MAXL];
static size_t nruns;
static char other[MAXL][256];	/* lines kept verbatim */
static size_t nother;
static uint64_t g_swpout, g_fallback;
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

static struct tsw_dev *find(uint32_t index)
{
	for (size_t i = 0; i < ndevs; i++)
		if (devs[i].index == index)
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

static void fill(struct tsw_dev *d)
{
	uint64_t used = 0;

	d->nr_clusters = d->size / TSW_CLUSTER_SIZE;
	memset(d->state_count, 0, sizeof(d->state_count));
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].index == d->index) {
			d->state_count[runs[i].run.state] += runs[i].run.count;
			used += runs[i].run.count;
		}
	d->state_count[TSW_FREE] += d->nr_clusters - used;
	d->thp_swpout = g_swpout;
	d->thp_swpout_fallback = g_fallback;
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
			struct tsw_dev *d = &devs[ndevs++];
			int n = sscanf(line, "dev %u %" SCNu64 " %" SCNx64, &idx, &x, &y);

			memset(d, 0, sizeof(*d));
			d->index = idx;
			d->size = x;
			d->memmap = n == 3;
			d->memmap_addr = n == 3 ? y : 0;
			dev_name(idx, d->name, sizeof(d->name));
		} else if (sscanf(line, "counter %u %63s %" SCNu64, &idx, a, &x) == 3) {
			struct tsw_dev *d = find(idx);

			for (int i = 0; d && i < TSW_NR_COUNTERS; i++)
				if (!strcmp(a, tsw_counters[i].name))
					d->counter[i] = x;
		} else if (sscanf(line, "global %63s %" SCNu64, a, &x) == 2) {
			if (!strcmp(a, "thp_swpout"))
				g_swpout = x;
			else
				g_fallback = x;
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
		fprintf(f, "dev %u %" PRIu64, devs[i].index, devs[i].size);
		if (devs[i].memmap)
			fprintf(f, " %" PRIx64, devs[i].memmap_addr);
		fputc('\n', f);
		for (int c = 0; c < TSW_NR_COUNTERS; c++)
			if (devs[i].counter[c])
				fprintf(f, "counter %u %s %" PRIu64 "\n", devs[i].index,
					tsw_counters[c].name, devs[i].counter[c]);
	}
	for (size_t i = 0; i < nruns; i++)
		if (find(runs[i].index))
			fprintf(f, "run %u %" PRIu64 " %" PRIu64 " %s\n", runs[i].index,
				runs[i].run.start, runs[i].run.count,
				tsw_state_name[runs[i].run.state]);
	fprintf(f, "global thp_swpout %" PRIu64 "\nglobal thp_swpout_fallback %" PRIu64 "\n",
		g_swpout, g_fallback);
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
	memcpy(*out, devs, ndevs * sizeof(**out));
	qsort(*out, ndevs, sizeof(**out), cmp);
	*n = ndevs;
	return 0;
}

static int f_get(uint32_t index, struct tsw_dev *d)
{
	struct tsw_dev *s = find(index);
	int err = failing("get");

	if (err)
		return err;
	if (!s) {
		tsw_set_errmsg("no device with this index");
		return -ENODEV;
	}
	*d = *s;
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
	d = &devs[ndevs++];
	memset(d, 0, sizeof(*d));
	d->index = i;
	d->size = req->size / TSW_CLUSTER_SIZE * TSW_CLUSTER_SIZE;
	d->memmap = req->memmap;
	d->memmap_addr = req->memmap_addr;
	dev_name(i, d->name, sizeof(d->name));
	fill(d);
	*index = i;
	return save();
}

static int f_remove(uint32_t index)
{
	struct tsw_dev *d = find(index);
	int err = failing("remove");

	if (err)
		return err;
	if (!d)
		return -ENODEV;
	*d = devs[--ndevs];
	return save();
}

static int f_reset(uint32_t index)
{
	struct tsw_dev *d = find(index);
	int err = failing("reset");

	if (err)
		return err;
	if (!d)
		return -ENODEV;
	memset(d->counter, 0, sizeof(d->counter));
	return save();
}

static int f_clusters(uint32_t index, uint64_t first, uint64_t last, struct tsw_runs *r)
{
	struct tsw_dev *d = find(index);
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
