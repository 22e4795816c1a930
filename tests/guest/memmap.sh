#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: a device backed by a physical range reserved at boot with
# memmap=512M!4G (run with --mem 5120 --append 'memmap=512M!4G'), through
# the same whole-THP swap test as RAM-backed devices.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {
	desc=$1; shift
	if out=$("$@" 2>&1); then ok "$desc"; else notok "$desc"; echo "$out" | sed 's/^/# /'; fi
}

check "the memmap range is reserved" grep -q 'memmap=512M!4G' /proc/cmdline
check "modprobe thpswap size=512M backing_phys=0x100000000" \
	modprobe thpswap size=512M backing_phys=0x100000000
check "backing reports the physical range" \
	grep -qx 'memmap 0x100000000' /sys/block/thpswap0/thpswap/backing
check "mkswap + swapon" sh -c 'mkswap /dev/thpswap0 && swapon /dev/thpswap0'
THPSWAP_DEV=thpswap0 swap_thp_test -t pageout_256m -t fork_then_swap || failed=$((failed + 1))
check "swapoff" swapoff /dev/thpswap0
check "rmmod thpswap" rmmod thpswap
if modprobe thpswap size=512M backing_phys=0x100001000 2>/dev/null; then
	notok "an unaligned backing_phys is refused"
	rmmod thpswap
else
	ok "an unaligned backing_phys is refused"
fi
[ "$failed" -eq 0 ]
