#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: the bio path of a 64 MiB device that is not swapped on.
# Flat TAP (bio_test's cases renumbered into this plan); non-zero on failure.
PATH=$PATH:$(dirname "$0")
. tap.sh

echo "TAP version 13"
step "modprobe thpswap size=64M" $MODPROBE thpswap size=64M ||
	bail "cannot load thpswap"
THPSWAP_DEV=thpswap0 run_kselftest bio_test || true
step "rmmod thpswap after the bio tests" $RMMOD thpswap || true
tap_end
