/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands, one file each.  argv[0] is the command's name and the
 * rest are its positional arguments; options are already in opt.  Each
 * returns an exit code.
 */
#ifndef THPSWAPCTL_COMMANDS_H
#define THPSWAPCTL_COMMANDS_H

int cmd_list(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_clusters(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_teardown(int argc, char **argv);

#endif
