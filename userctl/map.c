// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl map DEV: one character per cluster, or per group of
 * clusters on devices too big for a screen, with a legend.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "commands.h"
#include "thpswapctl.h"

#define MAP_MAX_ROWS	32

/* Cells per row: --width, or what fits the terminal, in steps of 16. */
static unsigned int map_width(void)
{
	struct winsize ws;
	unsigned int w = 64;

	if (opt.width)
		return opt.width;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 30) {
		w = (ws.ws_col - 10) / 16 * 16;
		if (w > 128)
			w = 128;
	}
	return w;
}

int cmd_map(int argc, char **argv)
{
	struct tsw_runs runs = { 0 };
	unsigned int width = map_width();
	struct tsw_map m;
	struct tsw_dev dev;
	uint32_t index;
	struct json j;
	int ret, err;
	size_t i;

	(void)argc;
	ret = get_dev(argv[1], &dev, &index);
	if (ret)
		return ret;
	err = tp->clusters(index, 0, dev.nr_clusters, &runs);
	if (err)
		return op_err(err, "reading the clusters of %s", dev.name);
	if (map_build(&m, &runs, dev.nr_clusters, (size_t)width * MAP_MAX_ROWS)) {
		runs_free(&runs);
		return op_err(-12, "building the map");
	}
	if (opt.json) {
		json_begin(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "device", dev.name);
		json_u64(&j, "nr_clusters", dev.nr_clusters);
		json_u64(&j, "clusters_per_cell", m.per_cell);
		json_u64(&j, "width", width);
		json_str(&j, "legend", ".=free H=huge S=split s=small");
		{
			char *cells = malloc(m.nr_cells + 1);

			if (cells) {
				for (i = 0; i < m.nr_cells; i++)
					cells[i] = tsw_state_char[m.cell[i]];
				cells[m.nr_cells] = 0;
				json_str(&j, "cells", cells);
				free(cells);
			}
		}
		json_obj_close(&j);
		json_end(&j);
	} else {
		char size[32];

		fmt_bytes(dev.size, size, sizeof(size));
		printf("%s%s%s: %s, %" PRIu64 " clusters of 2 MiB\n", color_bold(), dev.name,
		       color_reset(), size, dev.nr_clusters);
		map_print(stdout, &m, width, use_color(stdout));
	}
	map_free(&m);
	runs_free(&runs);
	return EXIT_OK;
}
