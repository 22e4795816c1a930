// SPDX-License-Identifier: GPL-2.0
/*
 * uapi_layout: the ABI of uapi/linux/thpswap.h cannot drift silently.
 * Checks every ioctl struct's size and field offsets, the ioctl numbers,
 * and the numbering of the enums and netlink attributes, against values
 * written down here once.  Compiled and run for the host, and compiled
 * with -m32 -DLAYOUT_STATIC (the 32-bit layout must be identical: the
 * compat ioctls depend on it).  Prints TAP.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <linux/thpswap.h>

static int n, failed;

static void check(int cond, const char *what, long got, long want)
{
	n++;
	if (cond) {
		printf("ok %d - %s\n", n, what);
	} else {
		failed++;
		printf("not ok %d - %s (got %ld, want %ld)\n", n, what, got, want);
	}
}

#ifdef LAYOUT_STATIC
/*
 * -DLAYOUT_STATIC: every check at compile time, so a -m32 build checks the
 * 32-bit layout without running a 32-bit program (which not every host
 * can).  A difference is a compile error naming the expression.
 */
#define EQ(expr, want) _Static_assert((long)(expr) == (long)(want), #expr " != " #want)
#else
#define EQ(expr, want) check((long)(expr) == (long)(want), #expr, (long)(expr), (long)(want))
#endif
#define OFF(type, field, want) EQ(offsetof(struct type, field), want)

int main(void)
{
	printf("TAP version 13\n");

	/* struct thpswap_ioc_add */
	EQ(sizeof(struct thpswap_ioc_add), 64);
	EQ(THPSWAP_ADD_SIZE_VER0, 64);
	OFF(thpswap_ioc_add, size, 0);
	OFF(thpswap_ioc_add, flags, 4);
	OFF(thpswap_ioc_add, index, 8);
	OFF(thpswap_ioc_add, backing, 12);
	OFF(thpswap_ioc_add, bytes, 16);
	OFF(thpswap_ioc_add, backing_phys, 24);
	OFF(thpswap_ioc_add, node, 32);
	OFF(thpswap_ioc_add, pad, 36);
	OFF(thpswap_ioc_add, reserved, 40);

	/* struct thpswap_ioc_dev */
	EQ(sizeof(struct thpswap_ioc_dev), 32);
	EQ(THPSWAP_DEV_SIZE_VER0, 32);
	OFF(thpswap_ioc_dev, size, 0);
	OFF(thpswap_ioc_dev, index, 4);
	OFF(thpswap_ioc_dev, flags, 8);
	OFF(thpswap_ioc_dev, pad, 12);
	OFF(thpswap_ioc_dev, reserved, 16);

	/* struct thpswap_ioc_info */
	EQ(sizeof(struct thpswap_ioc_info), 80);
	EQ(THPSWAP_INFO_SIZE_VER0, 80);
	OFF(thpswap_ioc_info, size, 0);
	OFF(thpswap_ioc_info, index, 4);
	OFF(thpswap_ioc_info, bytes, 8);
	OFF(thpswap_ioc_info, backing, 16);
	OFF(thpswap_ioc_info, flags, 20);
	OFF(thpswap_ioc_info, backing_phys, 24);
	OFF(thpswap_ioc_info, nr_clusters, 32);
	OFF(thpswap_ioc_info, generation, 40);
	OFF(thpswap_ioc_info, node, 48);
	OFF(thpswap_ioc_info, pad, 52);
	OFF(thpswap_ioc_info, reserved, 56);

	/* struct thpswap_ioc_stats */
	EQ(sizeof(struct thpswap_ioc_stats), 40);
	EQ(THPSWAP_STATS_SIZE_VER0, 40);
	OFF(thpswap_ioc_stats, size, 0);
	OFF(thpswap_ioc_stats, index, 4);
	OFF(thpswap_ioc_stats, count, 8);
	OFF(thpswap_ioc_stats, nr_stats, 12);
	OFF(thpswap_ioc_stats, values, 16);
	OFF(thpswap_ioc_stats, reserved, 24);

	/* struct thpswap_ioc_clusters and its entries */
	EQ(sizeof(struct thpswap_ioc_clusters), 64);
	EQ(THPSWAP_CLUSTERS_SIZE_VER0, 64);
	OFF(thpswap_ioc_clusters, size, 0);
	OFF(thpswap_ioc_clusters, index, 4);
	OFF(thpswap_ioc_clusters, first, 8);
	OFF(thpswap_ioc_clusters, count, 16);
	OFF(thpswap_ioc_clusters, entry_size, 20);
	OFF(thpswap_ioc_clusters, entries, 24);
	OFF(thpswap_ioc_clusters, nr_clusters, 32);
	OFF(thpswap_ioc_clusters, generation, 40);
	OFF(thpswap_ioc_clusters, reserved, 48);
	EQ(sizeof(struct thpswap_cluster_entry), 4);
	OFF(thpswap_cluster_entry, state, 0);
	OFF(thpswap_cluster_entry, reserved, 1);
	OFF(thpswap_cluster_entry, live, 2);
	EQ(THPSWAP_CLUSTERS_MAX_CHUNK, 4096);

	/* ioctl numbers (x86 encoding: dir<<30 | size<<16 | type<<8 | nr) */
	EQ(THPSWAP_IOCTL_MAGIC, 0xBB);
	EQ(THPSWAP_IOC_ADD, 0xc040bb00UL);
	EQ(THPSWAP_IOC_REMOVE, 0x4020bb01UL);
	EQ(THPSWAP_IOC_INFO, 0xc050bb02UL);
	EQ(THPSWAP_IOC_STATS, 0xc028bb03UL);
	EQ(THPSWAP_IOC_CLUSTERS, 0xc040bb04UL);
	EQ(THPSWAP_IOC_RESET_STATS, 0x4020bb05UL);

	/* flags */
	EQ(THPSWAP_ADD_F_NODE, 1);
	EQ(THPSWAP_ADD_F_ALL, 1);
	EQ(THPSWAP_DEV_F_ALL, 0);
	EQ(THPSWAP_INFO_F_OPEN, 1);
	EQ(THPSWAP_INFO_F_SWAPON, 2);
	EQ(THPSWAP_INFO_F_AUTHORITATIVE, 4);
	EQ(THPSWAP_INFO_F_NODE_VALID, 8);
	EQ(THPSWAP_INFO_F_ALL, 15);

	/* enums: only ever appended */
	EQ(THPSWAP_CLUSTER_FREE, 0);
	EQ(THPSWAP_CLUSTER_HUGE, 1);
	EQ(THPSWAP_CLUSTER_SPLIT, 2);
	EQ(THPSWAP_CLUSTER_SMALL, 3);
	EQ(__THPSWAP_CLUSTER_STATE_MAX, 4);
	EQ(THPSWAP_BACKING_RAM, 0);
	EQ(THPSWAP_BACKING_MEMMAP, 1);
	EQ(THPSWAP_STAT_THP_WRITES, 0);
	EQ(THPSWAP_STAT_REJECTED, 8);
	EQ(THPSWAP_STAT_THP_SWPOUT, 9);
	EQ(THPSWAP_STAT_THP_SWPOUT_FALLBACK, 10);
	EQ(THPSWAP_STAT_CLUSTERS_FREE, 11);
	EQ(THPSWAP_STAT_LIVE_SLOTS, 15);
	EQ(THPSWAP_STAT_FALLBACK_NO_CLUSTER, 16);
	EQ(THPSWAP_STAT_FALLBACK_MEMCG, 17);
	EQ(THPSWAP_STAT_FALLBACK_NOMEM, 18);
	EQ(THPSWAP_STAT_KERNEL_EVENTS, 19);
	EQ(THPSWAP_STAT_THP_SWPIN, 20);
	EQ(THPSWAP_STAT_THP_SWPIN_FALLBACK, 21);
	EQ(THPSWAP_STAT_SWAPIN_WHOLE, 22);
	EQ(THPSWAP_STAT_THP_SWPIN_DECLINED, 23);
	EQ(THPSWAP_STAT_THP_SWPIN_PROMOTED, 24);
	EQ(THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK, 25);
	EQ(THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED, 26);
	EQ(THPSWAP_STAT_THP_SPLIT_RECLAIM, 27);
	EQ(THPSWAP_STAT_THP_SWPIN_SHARED, 28);
	EQ(THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ, 29);
	EQ(THPSWAP_STAT_THP_SWPIN_HANDOFF, 30);
	EQ(__THPSWAP_STAT_CNT, 31);

	/* netlink */
	check(!strcmp(THPSWAP_GENL_NAME, "thpswap"), "family name", 0, 0);
	check(!strcmp(THPSWAP_GENL_MCGRP_EVENTS, "events"), "group name", 0, 0);
	check(!strcmp(THPSWAP_CONTROL_NAME, "thpswap-control"), "control name", 0, 0);
	EQ(THPSWAP_GENL_VERSION, 1);
	EQ(THPSWAP_CMD_DEV_GET, 1);
	EQ(THPSWAP_CMD_DEV_ADD, 2);
	EQ(THPSWAP_CMD_DEV_DEL, 3);
	EQ(THPSWAP_CMD_STATS_GET, 4);
	EQ(THPSWAP_CMD_STATS_RESET, 5);
	EQ(THPSWAP_CMD_CLUSTERS_GET, 6);
	EQ(THPSWAP_CMD_DEV_NEW, 7);
	EQ(THPSWAP_CMD_CLUSTER_CHANGE, 8);
	EQ(THPSWAP_CMD_MAX, 8);
	EQ(THPSWAP_A_PAD, 1);
	EQ(THPSWAP_A_DEV_INDEX, 2);
	EQ(THPSWAP_A_DEV_NAME, 3);
	EQ(THPSWAP_A_DEV_SIZE, 4);
	EQ(THPSWAP_A_DEV_BACKING, 5);
	EQ(THPSWAP_A_DEV_BACKING_PHYS, 6);
	EQ(THPSWAP_A_DEV_FLAGS, 7);
	EQ(THPSWAP_A_DEV_NR_CLUSTERS, 8);
	EQ(THPSWAP_A_DEV_GENERATION, 9);
	EQ(THPSWAP_A_STATS, 10);
	EQ(THPSWAP_A_CLUSTERS_FIRST, 11);
	EQ(THPSWAP_A_CLUSTERS_COUNT, 12);
	EQ(THPSWAP_A_RUN, 13);
	EQ(THPSWAP_A_EVENTS_DROPPED, 14);
	EQ(THPSWAP_A_EVENTS_COALESCED, 15);
	EQ(THPSWAP_A_DEV_NODE, 16);
	EQ(THPSWAP_A_MAX, 16);
	EQ(THPSWAP_A_STAT(THPSWAP_STAT_THP_WRITES), 1);
	EQ(THPSWAP_A_STATS_MAX, __THPSWAP_STAT_CNT);
	EQ(THPSWAP_A_RUN_FIRST, 1);
	EQ(THPSWAP_A_RUN_COUNT, 2);
	EQ(THPSWAP_A_RUN_STATE, 3);
	EQ(THPSWAP_A_RUN_MAX, 3);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
