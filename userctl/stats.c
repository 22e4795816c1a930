// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl stats [DEV]: every counter, in human units, and the
 * system-wide THP swap-out counters.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "commands.h"
#include "thpswapctl.h"

int cmd_stats(int argc, char **argv)
{
	struct tsw_dev *devs;
	struct json j;
	char a[32];
	size_t n, i;
	int ret;

	ret = get_devs(argc > 1 ? argv[1] : NULL, &devs, &n);
	if (ret)
		return ret;
	if (opt.json) {
		json_begin(&j, stdout);
		json_obj_open(&j, NULL);
		json_devices(&j, devs, n);
		json_obj_open(&j, "global");
		if (n) {
			json_u64(&j, "thp_swpout", devs[n - 1].thp_swpout);
			json_u64(&j, "thp_swpout_fallback", devs[n - 1].thp_swpout_fallback);
		} else {
			json_null(&j, "thp_swpout");
			json_null(&j, "thp_swpout_fallback");
		}
		json_obj_close(&j);
		json_obj_close(&j);
		json_end(&j);
		free(devs);
		return EXIT_OK;
	}
	if (!n) {
		printf("no thpswap devices\n");
		free(devs);
		return EXIT_OK;
	}
	for (i = 0; i < n; i++) {
		print_stats(stdout, &devs[i]);
		putchar('\n');
	}
	printf("%sall swap devices%s (vm events)\n", color_bold(), color_reset());
	fmt_count(devs[n - 1].thp_swpout, a, sizeof(a));
	printf("  %-20s %12s  %s\n", "thp_swpout", a, "THPs swapped out whole");
	fmt_count(devs[n - 1].thp_swpout_fallback, a, sizeof(a));
	printf("  %-20s %12s  %s\n", "thp_swpout_fallback", a,
	       "THPs split before swap-out (no free cluster)");
	free(devs);
	return EXIT_OK;
}
