#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: a device backed by a physical range reserved at boot with
# memmap=512M!4G (run with --mem 5120 --append 'memmap=512M!4G'), through
# the same whole-THP swap test as RAM-backed devices, then its bad blocks.
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

# Bad blocks, as pmem keeps them: a read touching a recorded bad sector
# fails with EIO (never stale data), a write of it succeeds and makes it
# good again.  Slots 256-257 (sectors 2048-2063), all with O_DIRECT so the
# page cache cannot answer for the device.
BB=/sys/block/thpswap0/badblocks
INJ=/sys/kernel/debug/thpswap/thpswap0/inject_badblocks
dev=/dev/thpswap0
# dd_read SLOT COUNT OUT / dd_write IN SLOT COUNT, 4 KiB slots, O_DIRECT.
dd_read() { dd if=$dev of="$3" bs=4096 skip="$1" count="$2" iflag=direct 2>/tmp/dd.err; }
dd_write() { dd if="$1" of=$dev bs=4096 seek="$2" count="$3" oflag=direct conv=notrunc 2>/tmp/dd.err; }
eio() {
	! dd_read "$@" && grep -q 'Input/output error' /tmp/dd.err && return
	cat /tmp/dd.err; false
}
dd if=/dev/urandom of=/tmp/old bs=4096 count=2 2>/dev/null
dd if=/dev/urandom of=/tmp/new bs=4096 count=2 2>/dev/null
check "write 8 KiB at slot 256" dd_write /tmp/old 256 2
is "the badblocks list starts empty" "$(cat $BB)" ""
check "inject_badblocks is root's only (0200)" \
	test "$(stat -c %a $INJ)" = 200
check "inject 16 bad sectors at 2048" sh -c "echo '2048 16' > $INJ"
is "sysfs badblocks lists them" "$(cat $BB)" "2048 16"
check "an O_DIRECT read of the bad slots fails with EIO" eio 256 2 /tmp/got
check "...so does a read of only the second of them" eio 257 1 /tmp/got
check "a read of the slot after them still works" dd_read 258 1 /tmp/got
check "a bad range past the end of the device is refused" \
	sh -c "! echo '1048570 8' > $INJ"
is "...and not recorded" "$(cat $BB)" "2048 16"
check "a write of the first bad slot succeeds" dd_write /tmp/new 256 1
is "...and clears only what it wrote" "$(cat $BB)" "2056 8"
check "...the other slot still fails with EIO" eio 257 1 /tmp/got
check "a write of both slots succeeds" dd_write /tmp/new 256 2
is "the badblocks list is empty again" "$(cat $BB)" ""
check "an O_DIRECT read of them now works" dd_read 256 2 /tmp/got
check "...and returns what was written last" cmp /tmp/got /tmp/new
check "rmmod thpswap" rmmod thpswap
if modprobe thpswap size=512M backing_phys=0x100001000 2>/dev/null; then
	not_ok "an unaligned backing_phys is refused"
	rmmod thpswap
else
	ok "an unaligned backing_phys is refused"
fi
tap_end
