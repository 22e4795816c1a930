// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl stats [DEV]: every counter, in human units, and the
 * system-wide THP swap-out and swap-in counters.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "thpswapctl.h"

/*
 * A name longer than its column (thp_swpin_promote_fallback) takes room
 * from the value's, so that the values still line up.
 */
static void global(uint64_t v, const char *name, const char *help)
{
	int over = (int)strlen(name) - 20;
	char a[32];

	fmt_count(v, a, sizeof(a));
	printf("  %-20s %*s  %s\n", name, over > 0 ? 12 - over : 12, a, help);
}

int cmd_stats(int argc, char **argv)
{
	struct tsw_dev *devs;
	struct json j;
	size_t n, i;
	int ret;

	if ((opt.seen & O_PROMETHEUS) && opt.json)
		return usage_err("--json and --prometheus: choose one");
	ret = get_devs(argc > 1 ? argv[1] : NULL, &devs, &n);
	if (ret)
		return ret;
	if (opt.seen & O_PROMETHEUS) {
		prom_print(stdout, devs, n);
		free(devs);
		return EXIT_OK;
	}
	if (opt.json) {
		json_begin(&j, stdout);
		json_obj_open(&j, NULL);
		json_devices(&j, devs, n);
		json_obj_open(&j, "global");
		for (i = 0; i < TSW_NR_VM_EVENTS; i++) {
			if (n)
				json_u64(&j, tsw_vm_events[i].name,
					 tsw_vm_event(&devs[n - 1], i));
			else
				json_null(&j, tsw_vm_events[i].name);
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
	for (i = 0; i < TSW_NR_VM_EVENTS; i++)
		global(tsw_vm_event(&devs[n - 1], i), tsw_vm_events[i].name,
		       tsw_vm_events[i].help);
	free(devs);
	return EXIT_OK;
}
