#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: a device backed by a physical range reserved at boot with
# memmap=512M!4G (run with --mem 5120 --append 'memmap=512M!4G'), through
# the same whole-THP swap test as RAM-backed devices.
# Flat TAP (swap_thp_test's cases renumbered into this plan).
PATH=$PATH:$(dirname "$0")
. tap.sh
check() { step "$@" || true; }
# memmap=512M!4G makes the range "Persistent Memory (legacy)" in
# /proc/iomem (type 12, e820 PRAM), exactly 0x100000000-0x11fffffff.
# (Asking /proc/cmdline would only read back the argument we passed.)
reserved() {
	grep -E '^ *100000000-11fffffff : Persistent Memory' /proc/iomem ||
		{ grep -iE 'persistent|reserved|^1[0-9a-f]{8}-' /proc/iomem; false; }
}

echo "TAP version 13"
check "the memmap range is reserved" reserved
check "modprobe thpswap size=512M backing_phys=0x100000000" \
	modprobe thpswap size=512M backing_phys=0x100000000
check "backing reports the physical range" \
	grep -qx 'memmap 0x100000000' /sys/block/thpswap0/thpswap/backing
check "mkswap + swapon" sh -c 'mkswap /dev/thpswap0 && swapon /dev/thpswap0'
THPSWAP_DEV=thpswap0 run_kselftest swap_thp_test -t pageout_256m -t fork_then_swap || true
check "swapoff" swapoff /dev/thpswap0
check "rmmod thpswap" rmmod thpswap
if modprobe thpswap size=512M backing_phys=0x100001000 2>/dev/null; then
	not_ok "an unaligned backing_phys is refused"
	rmmod thpswap
else
	ok "an unaligned backing_phys is refused"
fi
tap_end
