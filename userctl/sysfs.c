// SPDX-License-Identifier: GPL-2.0
/*
 * Reading thpswap devices through sysfs (/sys/block/thpswapN/thpswap/).
 * The generic netlink transport replaces this as the primary one once the
 * control plane exists; the view structure stays the same.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thpswapctl.h"

static int name_index(const char *name)
{
	char *end;
	long idx;

	if (strncmp(name, "thpswap", 7) || !isdigit((unsigned char)name[7]))
		return -1;
	idx = strtol(name + 7, &end, 10);
	return *end ? -1 : (int)idx;
}

/* DEV may be thpswapN, /dev/thpswapN or N. */
int dev_resolve(const char *arg, char *name, size_t len)
{
	const char *p = arg;
	char path[128];
	FILE *f;

	if (!strncmp(p, "/dev/", 5))
		p += 5;
	if (isdigit((unsigned char)*p)) {
		char *end;
		long idx = strtol(p, &end, 10);

		if (*end || idx < 0 || idx > 1000000)
			return -EINVAL;
		snprintf(name, len, "thpswap%ld", idx);
	} else if (name_index(p) >= 0) {
		snprintf(name, len, "%s", p);
	} else {
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/thpswap/stats", name);
	f = fopen(path, "r");
	if (!f)
		return -ENODEV;
	fclose(f);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return name_index(a) - name_index(b);
}

int dev_list(char names[][32], int max)
{
	struct dirent *de;
	DIR *d = opendir("/sys/block");
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		if (name_index(de->d_name) >= 0 && strlen(de->d_name) < 32)
			memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	qsort(names, n, 32, cmp_names);
	return n;
}

static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

static void read_swaps(struct dev_view *v)
{
	char line[256], path[64];
	FILE *f = fopen("/proc/swaps", "r");
	uint64_t size_kb, used_kb;

	if (!f)
		return;
	snprintf(path, sizeof(path), "/dev/%s", v->name);
	while (fgets(line, sizeof(line), f)) {
		char fname[128], type[32];

		if (sscanf(line, "%127s %31s %" SCNu64 " %" SCNu64, fname, type,
			   &size_kb, &used_kb) == 4 && !strcmp(fname, path)) {
			v->swapped_on = true;
			v->swap_used_bytes = used_kb * 1024;
		}
	}
	fclose(f);
}

int dev_read(const char *name, struct dev_view *v)
{
	char path[128], key[32];
	uint64_t val, sectors;
	FILE *f;
	int err;

	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->index = name_index(name);

	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	err = read_u64(path, &sectors);
	if (err)
		return err;
	v->size_bytes = sectors * 512;

	snprintf(path, sizeof(path), "/sys/block/%s/thpswap/stats", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fscanf(f, "%31s %" SCNu64, key, &val) == 2) {
		if (!strcmp(key, "version") || v->nstats == THPSWAP_MAX_STATS)
			continue;
		snprintf(v->stats[v->nstats].name, 32, "%s", key);
		v->stats[v->nstats++].value = val;
	}
	fclose(f);

	snprintf(path, sizeof(path), "/sys/block/%s/thpswap/clusters", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fscanf(f, "%31s %" SCNu64, key, &val) == 2) {
		if (!strcmp(key, "total"))
			v->clusters_total = val;
		else if (!strcmp(key, "free"))
			v->clusters_free = val;
		else if (!strcmp(key, "huge"))
			v->clusters_huge = val;
		else if (!strcmp(key, "split"))
			v->clusters_split = val;
		else if (!strcmp(key, "small"))
			v->clusters_small = val;
	}
	fclose(f);
	read_swaps(v);
	return 0;
}

uint64_t dev_stat(const struct dev_view *v, const char *key)
{
	for (int i = 0; i < v->nstats; i++)
		if (!strcmp(v->stats[i].name, key))
			return v->stats[i].value;
	return 0;
}
