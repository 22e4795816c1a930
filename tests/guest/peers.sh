#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: the same 256 MiB MADV_PAGEOUT cycle on thpswap (RAM), thpswap
# (memmap), Debian's pmem (nd_e820 + nd_pmem on memmap=) and brd, one after
# the other in one VM, for comparison.  Run with
#   --mem 6144 --append 'memmap=512M!4G memmap=512M!5G'
# (the first range backs thpswap, the second pmem0).
set -u
size=${1:-256}
cycle() {	# cycle LABEL DEVICE
	echo "### $1 ($2)"
	mkswap "$2" >/dev/null && swapon "$2" || { echo "not ok - swapon $2"; return 1; }
	thpswap-mem --size "$size" --cycles 3 --dev "${3:-none}" --quiet
	swapoff "$2"
}
modprobe thpswap size=512M
echo "copy_bw_mbps=$(cat /sys/block/thpswap0/thpswap/copy_bw_mbps)"
cycle thpswap-ram /dev/thpswap0 thpswap0
rmmod thpswap
modprobe thpswap size=512M backing_phys=0x100000000
cycle thpswap-memmap /dev/thpswap0 thpswap0
rmmod thpswap
modprobe nd_e820 && modprobe nd_pmem
# libnvdimm probes asynchronously; reading wait_probe waits for it.
cat /sys/bus/nd/devices/ndbus*/wait_probe >/dev/null
cycle pmem /dev/pmem0
modprobe brd rd_nr=1 rd_size=$((512 * 1024))
cycle brd /dev/ram0
swapoff /dev/ram0 2>/dev/null
modprobe zram num_devices=1
echo 512M > /sys/block/zram0/disksize
cycle zram /dev/zram0
