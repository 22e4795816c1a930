// SPDX-License-Identifier: GPL-2.0
/* thpswapctl clusters DEV [--range A:B]: runs of clusters in one state. */
#include <errno.h>
#include <inttypes.h>

#include "commands.h"
#include "thpswapctl.h"

int cmd_clusters(int argc, char **argv)
{
	struct tsw_runs runs = { 0 };
	struct tsw_dev dev;
	uint64_t first = 0, last;
	uint32_t index;
	struct json j;
	int ret, err;

	(void)argc;
	ret = get_dev(argv[1], &dev, &index);
	if (ret)
		return ret;
	last = dev.nr_clusters;
	if (opt.seen & O_RANGE) {
		first = opt.range_first;
		if (opt.range_has_last)
			last = opt.range_last;
		if (first >= dev.nr_clusters || last > dev.nr_clusters)
			return usage_err("range %" PRIu64 ":%" PRIu64 " is outside %s, which has clusters 0:%" PRIu64,
					 first, last, dev.name, dev.nr_clusters);
	}
	err = tp->clusters(index, first, last, &runs);
	if (err)
		return op_err(err, "reading the clusters of %s", dev.name);
	if (opt.json) {
		json_begin(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "device", dev.name);
		json_u64(&j, "nr_clusters", dev.nr_clusters);
		json_u64(&j, "first", first);
		json_u64(&j, "last", last);
		json_runs(&j, &runs);
		json_obj_close(&j);
		json_end(&j);
	} else {
		print_runs(stdout, &runs);
	}
	runs_free(&runs);
	return EXIT_OK;
}
