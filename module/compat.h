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
 * Built against and tested with 6.1 (Debian bookworm): nothing needed yet.
 */
#ifndef _THPSWAP_COMPAT_H
#define _THPSWAP_COMPAT_H

#endif /* _THPSWAP_COMPAT_H */
