// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl: show thpswap devices.  A table of {name, fn, help}
 * subcommands, as wg(8) does.  This first version reads sysfs; the
 * control-plane commands (add, remove, reset, map, watch, --json) come
 * with the netlink family.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thpswapctl.h"

#define EXIT_USAGE	2
#define EXIT_NODEV	3

static const char *prog = "thpswapctl";

static void human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

static int open_dev(const char *arg, struct dev_view *v)
{
	char name[32];
	int err = dev_resolve(arg, name, sizeof(name));

	if (err == -EINVAL) {
		fprintf(stderr, "%s: '%s' is not a device (use thpswapN, /dev/thpswapN or N)\n",
			prog, arg);
		return EXIT_USAGE;
	}
	if (err) {
		fprintf(stderr, "%s: no thpswap device '%s' (is the module loaded?)\n",
			prog, arg);
		return EXIT_NODEV;
	}
	err = dev_read(name, v);
	if (err) {
		fprintf(stderr, "%s: reading %s: %s\n", prog, name, strerror(-err));
		return EXIT_FAILURE;
	}
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	char names[256][32];
	int n, i;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "%s: list takes no arguments\n", prog);
		return EXIT_USAGE;
	}
	n = dev_list(names, 256);
	if (n < 0) {
		fprintf(stderr, "%s: /sys/block: %s\n", prog, strerror(-n));
		return EXIT_FAILURE;
	}
	printf("%-10s %10s %10s %6s %6s %6s %6s %9s %9s %9s\n", "DEVICE", "SIZE",
	       "SWAP USED", "HUGE", "SPLIT", "SMALL", "FREE", "THP OUT",
	       "FALLBACK", "THP IN");
	for (i = 0; i < n; i++) {
		struct dev_view v;
		char size[16], used[16];

		if (dev_read(names[i], &v))
			continue;
		human(v.size_bytes, size, sizeof(size));
		if (v.swapped_on)
			human(v.swap_used_bytes, used, sizeof(used));
		else
			snprintf(used, sizeof(used), "-");
		printf("%-10s %10s %10s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
		       " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n",
		       v.name, size, used, v.clusters_huge, v.clusters_split,
		       v.clusters_small, v.clusters_free, dev_stat(&v, "thp_writes"),
		       dev_stat(&v, "thp_swpout_fallback"), dev_stat(&v, "thp_reads"));
	}
	if (!n)
		printf("(no thpswap devices: modprobe thpswap)\n");
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	struct dev_view v;
	int err, i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s stats DEV\n", prog);
		return EXIT_USAGE;
	}
	err = open_dev(argv[1], &v);
	if (err)
		return err;
	printf("%s:\n", v.name);
	for (i = 0; i < v.nstats; i++) {
		const char *k = v.stats[i].name;
		char buf[16];

		if (strstr(k, "bytes")) {
			human(v.stats[i].value, buf, sizeof(buf));
			printf("  %-22s %s\n", k, buf);
		} else {
			printf("  %-22s %" PRIu64 "\n", k, v.stats[i].value);
		}
	}
	printf("  %-22s %" PRIu64 " total, %" PRIu64 " huge, %" PRIu64 " split, %"
	       PRIu64 " small, %" PRIu64 " free\n", "clusters", v.clusters_total,
	       v.clusters_huge, v.clusters_split, v.clusters_small, v.clusters_free);
	return 0;
}

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "list", cmd_list, "show every thpswap device (the default)" },
	{ "stats", cmd_stats, "show the counters of one device" },
	{ "help", cmd_help, "show this help" },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: %s [COMMAND] [ARGS]\n\n", prog);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-8s %s\n", commands[i].name, commands[i].help);
	printf("\nDEV is thpswapN, /dev/thpswapN or N.\n");
	return 0;
}

int main(int argc, char **argv)
{
	static char *list_argv[] = { "list", NULL };
	size_t i;

	if (argc < 2)
		return cmd_list(1, list_argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(argc - 1, argv + 1);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s' (see '%s help')\n", prog, argv[1], prog);
	return EXIT_USAGE;
}
