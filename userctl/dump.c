// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl dump [DEV]: one tab-separated line per device, no header,
 * exact numbers; the columns are documented in thpswapctl(8) and only
 * ever appended.
 */
#include <stdlib.h>

#include "commands.h"
#include "thpswapctl.h"

int cmd_dump(int argc, char **argv)
{
	struct tsw_dev *devs;
	size_t n, i;
	int ret;

	ret = get_devs(argc > 1 ? argv[1] : NULL, &devs, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		dump_dev(stdout, &devs[i]);
	free(devs);
	return EXIT_OK;
}
