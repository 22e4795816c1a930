/* SPDX-License-Identifier: GPL-2.0 */
#ifndef THPSWAPCTL_H
#define THPSWAPCTL_H

#include <stdbool.h>
#include <stdint.h>

#define THPSWAP_MAX_STATS 32

struct stat_kv {
	char name[32];
	uint64_t value;
};

struct dev_view {
	char name[32];		/* thpswapN */
	int index;
	uint64_t size_bytes;
	int nstats;
	struct stat_kv stats[THPSWAP_MAX_STATS];
	uint64_t clusters_total, clusters_free, clusters_huge;
	uint64_t clusters_split, clusters_small;
	uint64_t swap_used_bytes;	/* from /proc/swaps, 0 if not swapped on */
	bool swapped_on;
};

/* sysfs.c: the read-only transport until the control plane lands. */
int dev_resolve(const char *arg, char *name, size_t len);
int dev_list(char names[][32], int max);
int dev_read(const char *name, struct dev_view *v);
uint64_t dev_stat(const struct dev_view *v, const char *key);

#endif
