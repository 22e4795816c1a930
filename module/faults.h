/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswap fault injection for the I/O path.  It sits beside io.c, which
 * asks it whether to fail a request; debugfs.c, the layer above, only
 * publishes its attributes.  Without CONFIG_FAULT_INJECTION_DEBUG_FS it
 * compiles to nothing and no request fails.
 */
#ifndef _THPSWAP_FAULTS_H
#define _THPSWAP_FAULTS_H

#include <linux/types.h>

struct dentry;

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/* Does not sleep or allocate.  True when fail_read picks this read. */
bool thpswap_should_fail_read(u64 bytes);
/*
 * May sleep: only where the read may (rw_page()).  Waits fail_read/delay_ms
 * before a read that fail_read picked fails, as a device that times out.
 */
void thpswap_fail_read_delay(void);
/* May sleep.  Creates the fail_read attributes in @dir (may be an error). */
void thpswap_faults_debugfs_init(struct dentry *dir);
#else
static inline bool thpswap_should_fail_read(u64 bytes)
{
	return false;
}

static inline void thpswap_fail_read_delay(void)
{
}

static inline void thpswap_faults_debugfs_init(struct dentry *dir)
{
}
#endif

#endif /* _THPSWAP_FAULTS_H */
