// SPDX-License-Identifier: GPL-2.0
/* thpswapctl [list]: one line per device. */
#include <stdlib.h>

#include "commands.h"
#include "thpswapctl.h"

int cmd_list(int argc, char **argv)
{
	struct tsw_dev *devs;
	struct json j;
	size_t n;
	int ret;

	(void)argc;
	(void)argv;
	ret = get_devs(NULL, &devs, &n);
	if (ret)
		return ret;
	if (opt.json) {
		json_begin(&j, stdout);
		json_obj_open(&j, NULL);
		json_devices(&j, devs, n);
		json_obj_close(&j);
		json_end(&j);
	} else if (!n) {
		printf("no thpswap devices (create one with '%s add --size SIZE')\n", prog);
	} else {
		print_list_table(stdout, devs, n);
	}
	free(devs);
	return EXIT_OK;
}
