// SPDX-License-Identifier: GPL-2.0
/* thpswapctl remove DEV: remove a device; refused while open or swapped on. */
#include <errno.h>

#include "commands.h"
#include "thpswapctl.h"

int cmd_remove(int argc, char **argv)
{
	struct tsw_dev dev;
	uint32_t index;
	char name[TSW_NAME_LEN];
	int err, ret;

	(void)argc;
	if (parse_dev(argv[1], &index))
		return usage_err("'%s' is not a device: use thpswapN, /dev/thpswapN or N",
				 argv[1]);
	dev_name(index, name, sizeof(name));
	err = tp->remove(index);
	if (!err)
		return EXIT_OK;
	ret = op_err(err, "removing %s", name);
	if (err == -EBUSY) {
		snprintf(dev.name, sizeof(dev.name), "%s", name);
		swaps_fill(&dev, 1);
		if (dev.swap_active)
			fprintf(stderr, "%s: %s is swapped on: run 'swapoff /dev/%s' first\n",
				prog, name, name);
	}
	return ret;
}
