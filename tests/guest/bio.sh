#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: the bio path of a 64 MiB device that is not swapped on.
modprobe thpswap size=64M || { echo "not ok 1 - modprobe thpswap size=64M"; exit 1; }
THPSWAP_DEV=thpswap0 bio_test
rc=$?
rmmod thpswap || { echo "not ok - rmmod thpswap after the bio tests"; exit 1; }
exit $rc
