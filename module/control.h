/* SPDX-License-Identifier: GPL-2.0 */
/* thpswap control device: /dev/thpswap-control.  See control.c. */
#ifndef _THPSWAP_CONTROL_H
#define _THPSWAP_CONTROL_H

/* May sleep. */
int thpswap_control_init(void);
void thpswap_control_exit(void);

#endif /* _THPSWAP_CONTROL_H */
