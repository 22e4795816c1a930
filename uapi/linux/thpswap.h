/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * thpswap: the interface between the thpswap module and user space.
 *
 * This header is the only definition of what crosses the boundary; the
 * module and thpswapctl both include it.  Three transports, one set of
 * facts:
 *
 *   /dev/thpswap-control     ioctls below (misc device; opening it loads
 *                            the module through its devname alias)
 *   generic netlink family   "thpswap", below; multicast group "events"
 *   /sys/block/thpswapN/thpswap/stats     "name value" lines; the first is
 *                            "version THPSWAP_STATS_VERSION"; keys are
 *                            only ever appended
 *   /sys/block/thpswapN/thpswap/clusters  total, then one count per state
 *
 * Both the ioctls and netlink report from the same snapshot in the module,
 * so for an idle device they return identical numbers.
 */
#ifndef _UAPI_LINUX_THPSWAP_H
#define _UAPI_LINUX_THPSWAP_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define THPSWAP_STATS_VERSION	1

/* Devices are /dev/thpswapN with 0 <= N < THPSWAP_MAX_DEVICES. */
#define THPSWAP_MAX_DEVICES	64
/* A device's size is a multiple of 2 MiB and at least two clusters. */
#define THPSWAP_CLUSTER_SIZE	(2ULL << 20)
#define THPSWAP_MIN_DEV_SIZE	(2 * THPSWAP_CLUSTER_SIZE)

/*
 * State of one 2 MiB swap cluster (512 slots) of a device.  Only ever
 * appended.
 */
enum thpswap_cluster_state {
	THPSWAP_CLUSTER_FREE,	/* no live slot */
	THPSWAP_CLUSTER_HUGE,	/* written as one whole THP, untouched since */
	THPSWAP_CLUSTER_SPLIT,	/* was HUGE, then partly freed or 4 KiB-accessed */
	THPSWAP_CLUSTER_SMALL,	/* used by single 4 KiB pages */

	__THPSWAP_CLUSTER_STATE_MAX	/* number of states */
};

/* Where a device keeps its data. */
enum thpswap_backing_kind {
	THPSWAP_BACKING_RAM,	/* preallocated 2 MiB chunks of RAM */
	THPSWAP_BACKING_MEMMAP,	/* a range reserved with memmap=SIZE!ADDR */

	__THPSWAP_BACKING_MAX	/* number of kinds */
};

/*
 * Counters and gauges of a device, reported as an array indexed by this
 * enum (ioctl) or as attribute type index + 1 (netlink).  Only ever
 * appended: a reader that knows fewer simply sees a prefix, a reader that
 * knows more sees how many the kernel filled.
 */
enum thpswap_stat {
	THPSWAP_STAT_THP_WRITES,	/* whole 2 MiB clusters written */
	THPSWAP_STAT_THP_READS,		/* whole 2 MiB clusters read */
	THPSWAP_STAT_PAGE_WRITES,	/* 4 KiB pages written otherwise */
	THPSWAP_STAT_PAGE_READS,	/* 4 KiB pages read otherwise */
	THPSWAP_STAT_BYTES_WRITTEN,
	THPSWAP_STAT_BYTES_READ,
	THPSWAP_STAT_DISCARDS,		/* discard requests */
	THPSWAP_STAT_SLOT_FREES,	/* swap_slot_free_notify() calls */
	THPSWAP_STAT_REJECTED,		/* out-of-range or misaligned I/O */
	/* Global vm events (all swap devices); 0 if the kernel lacks them. */
	THPSWAP_STAT_THP_SWPOUT,
	THPSWAP_STAT_THP_SWPOUT_FALLBACK,
	/* Gauges: current values, not touched by a reset. */
	THPSWAP_STAT_CLUSTERS_FREE,	/* clusters per state ... */
	THPSWAP_STAT_CLUSTERS_HUGE,
	THPSWAP_STAT_CLUSTERS_SPLIT,
	THPSWAP_STAT_CLUSTERS_SMALL,
	THPSWAP_STAT_LIVE_SLOTS,	/* 4 KiB slots holding data ("swap used") */
	/*
	 * Why THPs could not be swapped out whole on this device, as the
	 * kernel reports it (kernels with the patches/ series; 0 otherwise).
	 */
	THPSWAP_STAT_FALLBACK_NO_CLUSTER, /* no free cluster */
	THPSWAP_STAT_FALLBACK_MEMCG,	/* the memcg swap charge failed */
	THPSWAP_STAT_FALLBACK_NOMEM,	/* the swap cache could not take it */
	THPSWAP_STAT_KERNEL_EVENTS,	/* cluster notifications received */
	/*
	 * THP swap-in (kernels with whole-THP swap-in).  THP_SWPIN and
	 * THP_SWPIN_FALLBACK are the global vm events, like THP_SWPOUT;
	 * SWAPIN_WHOLE counts the THPs the kernel read back whole from this
	 * device (thp_reads counts all 2 MiB reads, a read by dd included).
	 */
	THPSWAP_STAT_THP_SWPIN,
	THPSWAP_STAT_THP_SWPIN_FALLBACK,
	THPSWAP_STAT_SWAPIN_WHOLE,
	/*
	 * The swapin_enabled=auto policy (kernels with its patch; 0
	 * otherwise), global vm events like THP_SWPIN: a fault at an intact
	 * swapped-out THP declined as sparse and swapped in 4 KiB pages; a
	 * range later promoted to a THP because the access turned out dense;
	 * a promotion that was tried and failed.
	 */
	THPSWAP_STAT_THP_SWPIN_DECLINED,
	THPSWAP_STAT_THP_SWPIN_PROMOTED,
	THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK,
	/*
	 * Swap-out of THPs that only PTEs map (kernels that count
	 * THP_SWPOUT_PTE_MAPPED; 0 otherwise), global vm events like
	 * THP_SWPOUT: a THP swapped out whole that no PMD mapped (counted in
	 * THP_SWPOUT too); a THP that reclaim or MADV_PAGEOUT split because
	 * it was only partly mapped.
	 */
	THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED,
	THPSWAP_STAT_THP_SPLIT_RECLAIM,
	/*
	 * Whole swap-in of THPs that fork shared (kernels that count
	 * THP_SWPIN_SHARED; 0 otherwise), a global vm event like THP_SWPIN:
	 * a process mapped whole, read-only, a THP that other processes
	 * share (the THP was read once, and counted once in THP_SWPIN).
	 */
	THPSWAP_STAT_THP_SWPIN_SHARED,
	/*
	 * A global vm event (THP_SWPIN_COLLAPSE_READ; 0 otherwise): a range
	 * collapsed into a THP whose missing pages, those of one THP swapped
	 * out whole, came back with one read of their swap cluster.
	 */
	THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ,
	/*
	 * A global vm event (THP_SWPIN_HANDOFF; 0 otherwise): a THP
	 * that another thread of the process swapped in whole, mapped by the
	 * thread holding the mmap write lock together with its own.
	 */
	THPSWAP_STAT_THP_SWPIN_HANDOFF,

	__THPSWAP_STAT_CNT		/* number of stats this header knows */
};

/* ======================================================================
 * ioctls on /dev/thpswap-control
 * ======================================================================
 *
 * Every argument struct starts with __u32 size, which the caller sets to
 * sizeof() of the struct it was compiled with.  The command is recognised
 * by its magic, number and direction; the size bits of the ioctl number
 * are ignored and @size is authoritative, so that a struct can grow:
 *   - a caller's struct shorter than the kernel's: the missing tail reads
 *     as zero; it must still cover the first version (THPSWAP_*_SIZE_VER0),
 *     else -EINVAL;
 *   - a caller's struct longer than the kernel's: the extra bytes must be
 *     zero, else -E2BIG (copy_struct_from_user() semantics);
 *   - replies write only min(caller's size, kernel's size) bytes.
 * Reserved fields and padding must be zero on input (else -EINVAL) and are
 * zero on output.  Unknown flag bits are rejected with -EINVAL.
 *
 * Errors common to all: -ENOTTY unknown command, -EFAULT bad pointer,
 * -EINVAL bad size or field, -ENODEV no such device index, -EPERM a
 * mutation (ADD, REMOVE, RESET_STATS) without CAP_SYS_ADMIN.
 */
#define THPSWAP_CONTROL_NAME	"thpswap-control"
#define THPSWAP_IOCTL_MAGIC	0xBB	/* unused in ioctl-number.rst (6.1) */

/*
 * ADD: create a device.  -EEXIST index taken, -ENOSPC none free.
 * With THPSWAP_ADD_F_NODE, a RAM backing comes from NUMA node @node only
 * (e.g. a CPU-less node of a CXL memory expander), never from another:
 * -ENODEV no such node or a node without memory, -ENOMEM too little free
 * memory there, -EINVAL with MEMMAP backing (the range is where it is).
 * Without the flag @node must be 0 and the chunks come from anywhere.
 */
struct thpswap_ioc_add {
	__u32 size;		/* in: sizeof(struct thpswap_ioc_add) */
	__u32 flags;		/* in: THPSWAP_ADD_F_* */
	__s32 index;		/* in: -1 lowest free, or N; out: the index */
	__u32 backing;		/* in: enum thpswap_backing_kind */
	__u64 bytes;		/* in: size, multiple of 2 MiB, >= 4 MiB */
	__u64 backing_phys;	/* in: MEMMAP: start of the range, else 0 */
	__s32 node;		/* in: with THPSWAP_ADD_F_NODE, else 0 */
	__u32 pad;		/* must be zero */
	__u64 reserved[3];	/* must be zero */
};

#define THPSWAP_ADD_F_NODE	0x1U	/* @node is given */
#define THPSWAP_ADD_F_ALL	0x1U	/* mask of known flags */
#define THPSWAP_ADD_SIZE_VER0	64

/* REMOVE and RESET_STATS: one device.  REMOVE: -EBUSY while open. */
struct thpswap_ioc_dev {
	__u32 size;		/* in: sizeof(struct thpswap_ioc_dev) */
	__u32 index;		/* in */
	__u32 flags;		/* in: none defined yet */
	__u32 pad;		/* must be zero */
	__u64 reserved[2];	/* must be zero */
};

#define THPSWAP_DEV_F_ALL	0x0U
#define THPSWAP_DEV_SIZE_VER0	32

/* INFO: what a device is. */
struct thpswap_ioc_info {
	__u32 size;		/* in: sizeof(struct thpswap_ioc_info) */
	__u32 index;		/* in */
	__u64 bytes;		/* out: device size */
	__u32 backing;		/* out: enum thpswap_backing_kind */
	__u32 flags;		/* out: THPSWAP_INFO_F_* */
	/*
	 * out: MEMMAP: start of the range, else 0; 0 too unless the caller
	 * has CAP_SYS_ADMIN (addresses are hidden as in /proc/iomem)
	 */
	__u64 backing_phys;
	__u64 nr_clusters;	/* out: bytes / 2 MiB */
	__u64 generation;	/* out: cluster map generation, see below */
	/*
	 * out: the NUMA node the RAM backing was taken from, -1 when it was
	 * not bound to one; valid when THPSWAP_INFO_F_NODE_VALID is set (an
	 * older module leaves 0 here and the flag clear)
	 */
	__s32 node;
	__u32 pad;		/* out: zero */
	__u64 reserved[3];	/* out: zero */
};

#define THPSWAP_INFO_F_OPEN		0x1U /* block device is open */
#define THPSWAP_INFO_F_SWAPON		0x2U /* in use as swap */
/*
 * Cluster states come from the swap layer itself rather than being
 * inferred from I/O.  Always clear on stock kernels; set when the kernel
 * carries the thpswap mm hooks (patches/).
 */
#define THPSWAP_INFO_F_AUTHORITATIVE	0x4U
/* @node is filled in (-1 or a node); clear from older modules. */
#define THPSWAP_INFO_F_NODE_VALID	0x8U
#define THPSWAP_INFO_F_ALL		0xfU
#define THPSWAP_INFO_SIZE_VER0		80

/*
 * STATS: the counters, into a user array of __u64 indexed by enum
 * thpswap_stat.  @count in: room in @values; out: entries written,
 * min(room, @nr_stats).  @nr_stats out: how many the kernel knows.
 */
struct thpswap_ioc_stats {
	__u32 size;		/* in: sizeof(struct thpswap_ioc_stats) */
	__u32 index;		/* in */
	__u32 count;		/* in/out */
	__u32 nr_stats;		/* out */
	__u64 values;		/* in: user pointer to __u64[count] */
	__u64 reserved[2];	/* must be zero */
};

#define THPSWAP_STATS_SIZE_VER0	40

/*
 * CLUSTERS: state and live-slot count of clusters @first.. into a user
 * array of @entry_size-byte entries.  @count in: room (at most
 * THPSWAP_CLUSTERS_MAX_CHUNK are filled per call; iterate for big
 * devices); out: entries written, 0 when @first == @nr_clusters.
 * @first > @nr_clusters is -EINVAL.  Each entry is read under its
 * cluster's lock; the array as a whole is consistent only if @generation
 * did not change between the first and last call.
 */
struct thpswap_cluster_entry {
	__u8 state;		/* enum thpswap_cluster_state */
	__u8 reserved;		/* zero */
	__u16 live;		/* live 4 KiB slots, 0..512 */
};

struct thpswap_ioc_clusters {
	__u32 size;		/* in: sizeof(struct thpswap_ioc_clusters) */
	__u32 index;		/* in */
	__u64 first;		/* in: first cluster */
	__u32 count;		/* in/out */
	__u32 entry_size;	/* in: sizeof(struct thpswap_cluster_entry) */
	__u64 entries;		/* in: user pointer to the entries */
	__u64 nr_clusters;	/* out: clusters of the device */
	__u64 generation;	/* out: cluster map generation */
	__u64 reserved[2];	/* must be zero */
};

#define THPSWAP_CLUSTERS_MAX_CHUNK	4096
#define THPSWAP_CLUSTERS_SIZE_VER0	64

#define THPSWAP_IOC_ADD		_IOWR(THPSWAP_IOCTL_MAGIC, 0x00, struct thpswap_ioc_add)
#define THPSWAP_IOC_REMOVE	_IOW(THPSWAP_IOCTL_MAGIC, 0x01, struct thpswap_ioc_dev)
#define THPSWAP_IOC_INFO	_IOWR(THPSWAP_IOCTL_MAGIC, 0x02, struct thpswap_ioc_info)
#define THPSWAP_IOC_STATS	_IOWR(THPSWAP_IOCTL_MAGIC, 0x03, struct thpswap_ioc_stats)
#define THPSWAP_IOC_CLUSTERS	_IOWR(THPSWAP_IOCTL_MAGIC, 0x04, struct thpswap_ioc_clusters)
#define THPSWAP_IOC_RESET_STATS	_IOW(THPSWAP_IOCTL_MAGIC, 0x05, struct thpswap_ioc_dev)

/*
 * The cluster map generation: a per-device 32-bit counter that changes on
 * every cluster state transition (it wraps).  Equal generations before
 * and after reading the map mean no cluster changed state in between.
 */

/* ======================================================================
 * Generic netlink family "thpswap"
 * ======================================================================
 *
 * Strictly validated: unknown attributes, wrong types and out-of-range
 * values are rejected with an errno and an extended-ack message naming
 * the attribute (set NETLINK_EXT_ACK on the socket to read it).
 * DEV_ADD, DEV_DEL and STATS_RESET need CAP_NET_ADMIN and CAP_SYS_ADMIN.
 * Attributes marked [out] are only ever in replies and notifications and
 * are rejected in requests.
 *
 * THPSWAP_CMD_DEV_GET (doit with DEV_INDEX; dump without)
 *   request:  [THPSWAP_A_DEV_INDEX]             u32, doit only
 *   reply:    THPSWAP_A_DEV_INDEX               u32
 *             THPSWAP_A_DEV_NAME                string "thpswapN"
 *             THPSWAP_A_DEV_SIZE                u64 bytes
 *             THPSWAP_A_DEV_BACKING             u32 enum thpswap_backing_kind
 *             THPSWAP_A_DEV_BACKING_PHYS        u64, MEMMAP only, and only
 *                                               to CAP_SYS_ADMIN
 *             THPSWAP_A_DEV_FLAGS               u32 THPSWAP_INFO_F_*
 *             THPSWAP_A_DEV_NR_CLUSTERS         u64
 *             THPSWAP_A_DEV_GENERATION          u32
 *             THPSWAP_A_STATS                   nest, as in STATS_GET
 *             THPSWAP_A_DEV_NODE                s32 NUMA node of the RAM
 *                                               backing, -1 for none
 *
 * THPSWAP_CMD_DEV_ADD (doit)
 *   request:  THPSWAP_A_DEV_SIZE                u64 bytes, required
 *             [THPSWAP_A_DEV_INDEX]             u32, default lowest free
 *             [THPSWAP_A_DEV_BACKING]           u32, default RAM
 *             [THPSWAP_A_DEV_BACKING_PHYS]      u64, required for MEMMAP
 *             [THPSWAP_A_DEV_NODE]              s32, RAM only: take every
 *                                               chunk from this NUMA node
 *                                               (-1: any, the default);
 *                                               -ENODEV no such node or no
 *                                               memory on it, -ENOMEM too
 *                                               little free there
 *   reply:    as DEV_GET of the new device
 *
 * THPSWAP_CMD_DEV_DEL (doit; also the notification of a removal)
 *   request:  THPSWAP_A_DEV_INDEX               u32, required
 *   notify:   THPSWAP_A_DEV_INDEX, THPSWAP_A_DEV_NAME
 *
 * THPSWAP_CMD_STATS_GET (doit)
 *   request:  THPSWAP_A_DEV_INDEX               u32, required
 *   reply:    THPSWAP_A_DEV_INDEX               u32
 *             THPSWAP_A_STATS                   nest
 *               THPSWAP_A_STAT(THPSWAP_STAT_x)  u64, one per stat, type
 *                                               = enum thpswap_stat + 1
 *
 * THPSWAP_CMD_STATS_RESET (doit)
 *   request:  THPSWAP_A_DEV_INDEX               u32, required
 *
 * THPSWAP_CMD_CLUSTERS_GET (dump; runs of equal state)
 *   request:  THPSWAP_A_DEV_INDEX               u32, required
 *             [THPSWAP_A_CLUSTERS_FIRST]        u32, default 0
 *             [THPSWAP_A_CLUSTERS_COUNT]        u32, default to the end
 *   each message:
 *             THPSWAP_A_DEV_INDEX               u32
 *             THPSWAP_A_DEV_GENERATION          u32
 *             THPSWAP_A_RUN                     nest, repeated, in order
 *               THPSWAP_A_RUN_FIRST             u32 first cluster
 *               THPSWAP_A_RUN_COUNT             u32 clusters in the run
 *               THPSWAP_A_RUN_STATE             u8 enum thpswap_cluster_state
 *   A run may be cut at a message boundary (the next run then continues
 *   with the same state).  If any cluster changed state during the dump,
 *   a message carries NLM_F_DUMP_INTR: retry for a consistent picture.
 *
 * Notifications, multicast group "events" (built only while someone
 * listens):
 * THPSWAP_CMD_DEV_NEW: as DEV_GET reply, a device was added (never with
 *   THPSWAP_A_DEV_BACKING_PHYS: anyone may listen)
 * THPSWAP_CMD_DEV_DEL: see above, a device was removed
 * THPSWAP_CMD_CLUSTER_CHANGE: clusters changed state; sent at most every
 *   ~100 ms per device, naming each cluster that changed with its state at
 *   send time (intermediate states are coalesced):
 *             THPSWAP_A_DEV_INDEX               u32
 *             THPSWAP_A_DEV_GENERATION          u32
 *             THPSWAP_A_EVENTS_DROPPED          u64, cumulative for the
 *                                               device: changes that could
 *                                               not be sent (no memory, a
 *                                               full socket: -ENOBUFS)
 *             THPSWAP_A_EVENTS_COALESCED        u64, cumulative:
 *                                               transitions folded into a
 *                                               later one
 *             THPSWAP_A_RUN                     nest, repeated, as above
 */
#define THPSWAP_GENL_NAME		"thpswap"
#define THPSWAP_GENL_VERSION		1
#define THPSWAP_GENL_MCGRP_EVENTS	"events"

enum thpswap_cmd {
	THPSWAP_CMD_UNSPEC,
	THPSWAP_CMD_DEV_GET,
	THPSWAP_CMD_DEV_ADD,
	THPSWAP_CMD_DEV_DEL,
	THPSWAP_CMD_STATS_GET,
	THPSWAP_CMD_STATS_RESET,
	THPSWAP_CMD_CLUSTERS_GET,
	THPSWAP_CMD_DEV_NEW,		/* notification only */
	THPSWAP_CMD_CLUSTER_CHANGE,	/* notification only */

	__THPSWAP_CMD_LAST
};

#define THPSWAP_CMD_MAX		(__THPSWAP_CMD_LAST - 1)

enum thpswap_attr {
	THPSWAP_A_UNSPEC,
	THPSWAP_A_PAD,			/* alignment padding of u64s */
	THPSWAP_A_DEV_INDEX,		/* u32 */
	THPSWAP_A_DEV_NAME,		/* string [out] */
	THPSWAP_A_DEV_SIZE,		/* u64 bytes */
	THPSWAP_A_DEV_BACKING,		/* u32 enum thpswap_backing_kind */
	THPSWAP_A_DEV_BACKING_PHYS,	/* u64 */
	THPSWAP_A_DEV_FLAGS,		/* u32 THPSWAP_INFO_F_* [out] */
	THPSWAP_A_DEV_NR_CLUSTERS,	/* u64 [out] */
	THPSWAP_A_DEV_GENERATION,	/* u32 [out] */
	THPSWAP_A_STATS,		/* nest of THPSWAP_A_STAT() [out] */
	THPSWAP_A_CLUSTERS_FIRST,	/* u32 */
	THPSWAP_A_CLUSTERS_COUNT,	/* u32 */
	THPSWAP_A_RUN,			/* nest of THPSWAP_A_RUN_* [out] */
	THPSWAP_A_EVENTS_DROPPED,	/* u64 [out] */
	THPSWAP_A_EVENTS_COALESCED,	/* u64 [out] */
	THPSWAP_A_DEV_NODE,		/* s32 NUMA node, -1 none */

	__THPSWAP_A_LAST
};

#define THPSWAP_A_MAX		(__THPSWAP_A_LAST - 1)

/*
 * Inside THPSWAP_A_STATS: one u64 per stat, of type stat + 1; type 0
 * (THPSWAP_A_STATS_PAD) is alignment padding, on architectures that
 * need it.  A reader ignores types it does not know.
 */
#define THPSWAP_A_STATS_PAD	0
#define THPSWAP_A_STAT(stat)	((stat) + 1)
#define THPSWAP_A_STATS_MAX	THPSWAP_A_STAT(__THPSWAP_STAT_CNT - 1)

enum thpswap_run_attr {
	THPSWAP_A_RUN_UNSPEC,
	THPSWAP_A_RUN_FIRST,		/* u32 */
	THPSWAP_A_RUN_COUNT,		/* u32 */
	THPSWAP_A_RUN_STATE,		/* u8 enum thpswap_cluster_state */

	__THPSWAP_A_RUN_LAST
};

#define THPSWAP_A_RUN_MAX	(__THPSWAP_A_RUN_LAST - 1)

#endif /* _UAPI_LINUX_THPSWAP_H */
/* uapi: complete */
