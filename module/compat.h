/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only place in thpswap that knows which kernel it is built for.
 *
 * Force-included into every file by Kbuild.  Driver files use the 6.1 API
 * as it is; when another kernel needs something different, add a feature
 * probe to Kbuild ($(wildcard ...) or a grep of a header setting a
 * -DTHPSWAP_COMPAT_* flag) and a shim here, never a LINUX_VERSION_CODE
 * test in a driver file.
 *
 * Built against and tested with 6.1 (Debian bookworm), stock and with the
 * patches/ series.
 */
#ifndef _THPSWAP_COMPAT_H
#define _THPSWAP_COMPAT_H

/*
 * swap_cluster_notify() in block_device_operations (Kbuild: its name in
 * include/linux/blkdev.h): the swap layer tells us what it does with each
 * cluster.  Without it the cluster states are inferred from the I/O, and
 * the handler is built but never called; the event names then stand here
 * with the values the kernel's enum gives them.
 */
#ifdef THPSWAP_HAVE_SWAP_CLUSTER_NOTIFY
#define THPSWAP_KERNEL_CLUSTER_EVENTS		true
#define THPSWAP_FOPS_SWAP_CLUSTER_NOTIFY(fn)	.swap_cluster_notify = (fn),
#else
#define THPSWAP_KERNEL_CLUSTER_EVENTS		false
#define THPSWAP_FOPS_SWAP_CLUSTER_NOTIFY(fn)
enum swap_cluster_event {
	SWAP_CLUSTER_ALLOC,
	SWAP_CLUSTER_ALLOC_HUGE,
	SWAP_CLUSTER_HUGE_DONE,
	SWAP_CLUSTER_HUGE_SPLIT,
	SWAP_CLUSTER_FREE,
	SWAP_CLUSTER_FALLBACK_NO_CLUSTER,
	SWAP_CLUSTER_FALLBACK_MEMCG,
	SWAP_CLUSTER_FALLBACK_NOMEM,
};
#endif

/*
 * SWAP_CLUSTER_HUGE_SWAPIN (Kbuild: its name in include/linux/blkdev.h):
 * the kernel read a swapped-out THP back whole.  Kernels without it never
 * send the value used here.
 */
#ifdef THPSWAP_HAVE_SWAP_CLUSTER_HUGE_SWAPIN
#define THPSWAP_EVENT_HUGE_SWAPIN	SWAP_CLUSTER_HUGE_SWAPIN
#else
#define THPSWAP_EVENT_HUGE_SWAPIN	(-1)
#endif

/*
 * The vm events below are probed by Kbuild, each by its name in
 * include/linux/vm_event_item.h.
 *
 * THP_SWPIN and THP_SWPIN_FALLBACK (whole-THP swap-in) are summed into the
 * stats when THPSWAP_HAVE_VM_THP_SWPIN is set, else read as 0.
 */

/*
 * THP_SWPIN_DECLINED, THP_SWPIN_PROMOTED and THP_SWPIN_PROMOTE_FALLBACK vm
 * events (the swapin_enabled=auto patch) are summed into the stats when
 * THPSWAP_HAVE_VM_THP_SWPIN_AUTO is set, else read as 0.
 */

/*
 * THP_SWPOUT_PTE_MAPPED and THP_SPLIT_RECLAIM vm events (swap-out of
 * THPs that only PTEs map) are summed into the stats when
 * THPSWAP_HAVE_VM_THP_SWPOUT_PTE_MAPPED is set, else read as 0.
 */

/*
 * The THP_SWPIN_SHARED vm event (THPs that fork shared, swapped back in
 * whole) is summed into the stats when
 * THPSWAP_HAVE_VM_THP_SWPIN_SHARED is set, else read as 0.
 *
 * The THP_SWPIN_COLLAPSE_READ vm event (a collapse that reads the missing
 * pages of a range with one read of their cluster) is summed
 * into the stats when THPSWAP_HAVE_VM_THP_SWPIN_COLLAPSE_READ is set, else
 * read as 0.
 */

/*
 * The THP_SWPIN_HANDOFF vm event (a THP that another thread of the
 * process swapped in, mapped by the thread holding the mmap write lock
 * with its own) is summed into the stats when
 * THPSWAP_HAVE_VM_THP_SWPIN_HANDOFF is set, else read as 0.
 */

#endif /* _THPSWAP_COMPAT_H */
