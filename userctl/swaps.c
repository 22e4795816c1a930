// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a device is swapped on, and how much of it swap uses, is the
 * swap layer's knowledge, not the module's: it comes from /proc/swaps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "thpswapctl.h"

const char *proc_swaps_path = "/proc/swaps";

void swaps_fill(struct tsw_dev *devs, size_t n)
{
	char line[512], fname[256], type[32];
	uint64_t size_kb, used_kb;
	FILE *f;
	int prio;
	size_t i;

	for (i = 0; i < n; i++) {
		devs[i].swap_active = false;
		devs[i].swap_size = devs[i].swap_used = 0;
		devs[i].swap_prio = 0;
	}
	f = fopen(proc_swaps_path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *base;

		if (sscanf(line, "%255s %31s %" SCNu64 " %" SCNu64 " %d", fname, type,
			   &size_kb, &used_kb, &prio) != 5)
			continue;
		base = strrchr(fname, '/');
		base = base ? base + 1 : fname;
		for (i = 0; i < n; i++) {
			if (strcmp(base, devs[i].name))
				continue;
			devs[i].swap_active = true;
			devs[i].swap_size = size_kb * 1024;
			devs[i].swap_used = used_kb * 1024;
			devs[i].swap_prio = prio;
		}
	}
	fclose(f);
}
