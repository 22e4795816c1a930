// SPDX-License-Identifier: GPL-2.0
/* Which transport a run uses: generic netlink, or the ioctls with --ioctl. */
#include "thpswapctl.h"

extern const struct tsw_transport nl_transport;
extern const struct tsw_transport ioctl_transport;

const struct tsw_transport *transport_select(bool use_ioctl)
{
	return use_ioctl ? &ioctl_transport : &nl_transport;
}
