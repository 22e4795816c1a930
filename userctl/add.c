// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl add --size SIZE [--memmap ADDR | --node N] [--index N]: create a
 * device and print its name (or, with --json, the device), so that
 * dev=$(thpswapctl add --size 1G) works.
 */
#include <errno.h>
#include <inttypes.h>

#include "commands.h"
#include "thpswapctl.h"

int cmd_add(int argc, char **argv)
{
	struct tsw_add_req req = { 0 };
	struct tsw_dev dev;
	struct json j;
	uint32_t index;
	char size[32];
	int err;

	(void)argc;
	(void)argv;
	if (!(opt.seen & O_SIZE))
		return usage_err("'add' needs --size SIZE");
	req.size = opt.size;
	req.memmap = opt.seen & O_MEMMAP;
	req.memmap_addr = opt.memmap;
	req.want_index = opt.seen & O_INDEX;
	req.index = opt.index;
	req.want_node = opt.seen & O_NODE;
	req.node = opt.node;
	err = tp->add(&req, &index);
	if (err) {
		fmt_bytes(opt.size, size, sizeof(size));
		if (req.want_node)
			op_err(err, "adding a %s device on NUMA node %d", size, req.node);
		else
			op_err(err, "adding a %s device", size);
		return EXIT_FAIL;
	}
	err = tp->get(index, &dev);
	if (err) {
		/* Created, but gone or unreadable already: still name it. */
		dev_name(index, dev.name, sizeof(dev.name));
		if (!opt.json) {
			printf("%s\n", dev.name);
			return EXIT_OK;
		}
		return op_err(err, "reading %s", dev.name);
	}
	swaps_fill(&dev, 1);
	if (opt.json) {
		json_begin(&j, stdout);
		json_dev(&j, NULL, &dev);
		json_end(&j);
	} else {
		printf("%s\n", dev.name);
	}
	return EXIT_OK;
}
