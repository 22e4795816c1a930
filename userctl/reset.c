// SPDX-License-Identifier: GPL-2.0
/* thpswapctl reset DEV: zero a device's counters (not its cluster states). */
#include "commands.h"
#include "thpswapctl.h"

int cmd_reset(int argc, char **argv)
{
	uint32_t index;
	char name[TSW_NAME_LEN];
	int err;

	(void)argc;
	if (parse_dev(argv[1], &index))
		return usage_err("'%s' is not a device: use thpswapN, /dev/thpswapN or N",
				 argv[1]);
	dev_name(index, name, sizeof(name));
	err = tp->reset(index);
	if (err)
		return op_err(err, "resetting the counters of %s", name);
	return EXIT_OK;
}
