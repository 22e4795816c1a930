// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl: control and show thpswap devices.
 *
 * A table of {name, fn, help} subcommands, as wg(8) has, one file per
 * command.  Options may come before or after the command; each command
 * says which ones apply to it, and anything else is a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "thpswapctl.h"

#include <linux/thpswap.h>

/* The Makefile passes dkms.conf's PACKAGE_VERSION: module, CLI and packages share it. */
#ifndef THPSWAPCTL_VERSION
#define THPSWAPCTL_VERSION "unknown"
#endif

const char *prog = "thpswapctl";
struct tsw_opts opt;
const struct tsw_transport *tp;

static int cmd_help(int argc, char **argv);

#define READ_OPTS (O_JSON | O_COLOR)

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned int opts;	/* enum opt_bit this command accepts */
	int min_args, max_args;	/* positional arguments after the name */
	const char *args;
	const char *help;
} commands[] = {
	{ "list", cmd_list, READ_OPTS, 0, 0, "",
	  "one line per device (the default command)" },
	{ "stats", cmd_stats, READ_OPTS | O_PROMETHEUS, 0, 1, "[DEV] [--prometheus]",
	  "every counter of one or all devices" },
	{ "clusters", cmd_clusters, READ_OPTS | O_RANGE, 1, 1, "DEV [--range A:B]",
	  "runs of clusters in the same state" },
	{ "map", cmd_map, READ_OPTS | O_WIDTH, 1, 1, "DEV [--width N]",
	  "a picture of the cluster states" },
	{ "watch", cmd_watch, READ_OPTS | O_INTERVAL | O_COUNT, 0, 1,
	  "[DEV] [--interval S] [--count N]", "live counters and cluster events" },
	{ "dump", cmd_dump, O_COLOR, 0, 1, "[DEV]",
	  "tab-separated values for scripts, one line per device" },
	{ "add", cmd_add, O_JSON | O_COLOR | O_SIZE | O_MEMMAP | O_INDEX | O_NODE, 0, 0,
	  "--size SIZE [--memmap ADDR | --node N] [--index N]",
	  "create a device and print its name" },
	{ "remove", cmd_remove, O_COLOR, 1, 1, "DEV", "remove a device" },
	{ "reset", cmd_reset, O_COLOR, 1, 1, "DEV", "zero the counters of a device" },
	{ "setup", cmd_setup, O_COLOR | O_CONFIG, 0, 0, "[--config FILE]",
	  "create and swap on the devices of /etc/thpswap.conf" },
	{ "teardown", cmd_teardown, O_COLOR | O_CONFIG, 0, 0, "[--config FILE]",
	  "swap off and remove the devices of /etc/thpswap.conf" },
	{ "help", cmd_help, O_COLOR, 0, 1, "[COMMAND]", "show this help, or a command's" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static void show_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s [OPTIONS] [COMMAND] [ARGS]\n\ncommands:\n", prog);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-9s %-40s %s\n", commands[i].name, commands[i].args,
			commands[i].help);
	fprintf(f,
		"\noptions (before or after the command):\n"
		"  --json             JSON output (list, stats, clusters, map, watch, add)\n"
		"  --ioctl            use /dev/thpswap-control instead of generic netlink\n"
		"  --netlink          use generic netlink (the default)\n"
		"  --color=WHEN       auto (colour on a terminal), always or never\n"
		"  --size SIZE        bytes, or with a K, M, G or T suffix (add)\n"
		"  --memmap ADDR      back the device by reserved memory at ADDR (add)\n"
		"  --index N          ask for device index N (add)\n"
		"  --node N           take the device's RAM from NUMA node N only, e.g. a\n"
		"                     CPU-less CXL memory node (add)\n"
		"  --range A:B        clusters A to B-1 (clusters)\n"
		"  --width N          cells per row (map)\n"
		"  --interval S       seconds between refreshes, default 1 (watch)\n"
		"  --count N          stop after N refreshes (watch)\n"
		"  --prometheus       Prometheus text format (stats)\n"
		"  --config FILE      instead of /etc/thpswap.conf (setup, teardown)\n"
		"  -h, --help         this help\n"
		"  -V, --version      print the version\n"
		"\nDEV is thpswapN, /dev/thpswapN or N.\n"
		"exit status: 0 success, 1 failure, 2 bad usage, 3 no such device.\n");
}

static void show_command_help(const struct command *c)
{
	printf("usage: %s %s %s\n  %s\n", prog, c->name, c->args, c->help);
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		show_help(stdout);
		return EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return usage_err("unknown command '%s'", argv[1]);
	show_command_help(c);
	return EXIT_OK;
}

enum {
	LO_IOCTL = 256, LO_NETLINK, LO_COLOR, LO_SIZE, LO_MEMMAP, LO_INDEX,
	LO_RANGE, LO_INTERVAL, LO_COUNT, LO_WIDTH, LO_PROMETHEUS, LO_CONFIG,
	LO_NODE,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "ioctl", no_argument, NULL, LO_IOCTL },
	{ "netlink", no_argument, NULL, LO_NETLINK },
	{ "color", optional_argument, NULL, LO_COLOR },
	{ "colour", optional_argument, NULL, LO_COLOR },
	{ "size", required_argument, NULL, LO_SIZE },
	{ "memmap", required_argument, NULL, LO_MEMMAP },
	{ "index", required_argument, NULL, LO_INDEX },
	{ "range", required_argument, NULL, LO_RANGE },
	{ "interval", required_argument, NULL, LO_INTERVAL },
	{ "count", required_argument, NULL, LO_COUNT },
	{ "width", required_argument, NULL, LO_WIDTH },
	{ "prometheus", no_argument, NULL, LO_PROMETHEUS },
	{ "config", required_argument, NULL, LO_CONFIG },
	{ "node", required_argument, NULL, LO_NODE },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	unsigned int bit;
	const char *name;
} opt_names[] = {
	{ O_JSON, "--json" }, { O_SIZE, "--size" }, { O_MEMMAP, "--memmap" },
	{ O_INDEX, "--index" }, { O_RANGE, "--range" }, { O_INTERVAL, "--interval" },
	{ O_COUNT, "--count" }, { O_COLOR, "--color" }, { O_WIDTH, "--width" },
	{ O_PROMETHEUS, "--prometheus" }, { O_CONFIG, "--config" }, { O_NODE, "--node" },
};

/* Parse every option wherever it is; returns 0 or an exit code. */
static int parse_options(int argc, char **argv, bool *help)
{
	uint64_t v;
	int err;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hjV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			*help = true;
			break;
		case 'V':
			printf("%s %s\n", prog, THPSWAPCTL_VERSION);
			exit(EXIT_OK);
		case 'j':
			opt.json = true;
			opt.seen |= O_JSON;
			break;
		case LO_IOCTL:
			opt.ioctl = true;
			break;
		case LO_NETLINK:
			opt.ioctl = false;
			break;
		case LO_COLOR:
			opt.seen |= O_COLOR;
			if (!optarg || !strcmp(optarg, "always"))
				opt.color = COLOR_ALWAYS;
			else if (!strcmp(optarg, "never"))
				opt.color = COLOR_NEVER;
			else if (!strcmp(optarg, "auto"))
				opt.color = COLOR_AUTO;
			else
				return usage_err("--color wants auto, always or never, not '%s'",
						 optarg);
			break;
		case LO_SIZE:
			opt.seen |= O_SIZE;
			if (parse_size(optarg, &opt.size) || !opt.size)
				return usage_err("bad size '%s': want bytes or a number with K, M, G or T",
						 optarg);
			break;
		case LO_MEMMAP:
			opt.seen |= O_MEMMAP;
			err = parse_memmap_addr(optarg, &opt.memmap);
			if (err == -EDOM)
				return usage_err("bad address '%s' (%" PRIu64 " bytes): the memmap range starts at a non-zero multiple of 2 MiB (memmap=SIZE!ADDR; e.g. 0x100000000 or 4G)",
						 optarg, opt.memmap);
			if (err)
				return usage_err("bad address '%s': want 0xHEX, or a number with K, M, G or T",
						 optarg);
			break;
		case LO_INDEX:
			opt.seen |= O_INDEX;
			if (parse_dev(optarg, &opt.index))
				return usage_err("bad index '%s': want 0-%d", optarg,
						 THPSWAP_MAX_DEVICES - 1);
			break;
		case LO_RANGE:
			opt.seen |= O_RANGE;
			if (parse_range(optarg, &opt.range_first, &opt.range_last,
					&opt.range_has_last))
				return usage_err("bad range '%s': want A:B with A < B, A:, :B or A",
						 optarg);
			break;
		case LO_INTERVAL:
			opt.seen |= O_INTERVAL;
			if (parse_interval(optarg, &opt.interval))
				return usage_err("bad interval '%s': want seconds from 0.05 to 86400",
						 optarg);
			break;
		case LO_COUNT:
			opt.seen |= O_COUNT;
			if (parse_u64(optarg, &v) || !v || v > 1000000000)
				return usage_err("bad count '%s': want a positive number", optarg);
			opt.count = (unsigned long)v;
			break;
		case LO_WIDTH:
			opt.seen |= O_WIDTH;
			if (parse_u64(optarg, &v) || v < 8 || v > 1024)
				return usage_err("bad width '%s': want 8 to 1024", optarg);
			opt.width = (unsigned int)v;
			break;
		case LO_PROMETHEUS:
			opt.seen |= O_PROMETHEUS;
			break;
		case LO_CONFIG:
			opt.seen |= O_CONFIG;
			conf_path = optarg;
			break;
		case LO_NODE:
			opt.seen |= O_NODE;
			if (parse_node(optarg, &opt.node))
				return usage_err("bad node '%s': want a NUMA node number 0-%d",
						 optarg, TSW_MAX_NODE);
			break;
		case ':':
			return usage_err("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return usage_err("unknown option '-%c'", optopt);
			return usage_err("unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char *default_argv[] = { "list", NULL };
	const struct command *cmd;
	bool help = false;
	int nargs, ret;
	size_t i;

	opt.interval = 1.0;
	ret = parse_options(argc, argv, &help);
	if (ret)
		return ret;
	argv += optind;
	argc -= optind;
	if (!argc) {
		if (help) {
			show_help(stdout);
			return EXIT_OK;
		}
		argv = default_argv;
		argc = 1;
	}
	cmd = find_command(argv[0]);
	if (!cmd)
		return usage_err("unknown command '%s'", argv[0]);
	if (help) {
		show_command_help(cmd);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(opt_names) / sizeof(opt_names[0]); i++)
		if (opt.seen & opt_names[i].bit & ~cmd->opts)
			return usage_err("%s does not apply to '%s'", opt_names[i].name,
					 cmd->name);
	nargs = argc - 1;
	if (nargs < cmd->min_args)
		return usage_err("'%s' needs %s", cmd->name, cmd->args);
	if (nargs > cmd->max_args)
		return usage_err("'%s' takes %s%s, not '%s'", cmd->name,
				 cmd->max_args ? "" : "no arguments",
				 cmd->max_args ? cmd->args : "", argv[cmd->max_args + 1]);
	if (cmd->fn == cmd_help)
		return cmd_help(argc, argv);
	/* A malformed DEV is bad usage, whether or not the module is there. */
	if (nargs && strstr(cmd->args, "DEV")) {
		uint32_t index;

		if (parse_dev(argv[1], &index))
			return usage_err("'%s' is not a device: use thpswapN, /dev/thpswapN or N",
					 argv[1]);
	}

	/* Bad usage is said before the transport may load the module. */
	if (cmd->fn == cmd_add && !(opt.seen & O_SIZE))
		return usage_err("'add' needs --size SIZE");
	if (cmd->fn == cmd_add && (opt.seen & O_NODE) && (opt.seen & O_MEMMAP))
		return usage_err("--node and --memmap exclude each other: a memmap range is where it is");

	tp = transport_select(opt.ioctl);
	/* setup and teardown read their file and load the module before opening it. */
	if (cmd->fn == cmd_setup || cmd->fn == cmd_teardown) {
		ret = cmd->fn(argc, argv);
	} else {
		ret = tp_open();
		if (ret)
			return ret;
		ret = cmd->fn(argc, argv);
		tp->close();
	}
	if (fflush(stdout) && !ret) {
		fprintf(stderr, "%s: writing output: %s\n", prog, strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}
