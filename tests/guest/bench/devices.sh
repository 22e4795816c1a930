# SPDX-License-Identifier: GPL-2.0
#
# devices.sh: the swap devices the benches compare, set up the same way for
# every guest half (busybox ash; sourced after bench-lib.sh, SWAP_MIB set).
#
# setup DEV: make DEV a swap device of SWAP_MIB and swapon it; sets blk to
# its block device.  DEV is one of
#   thpswap      thpswap.ko (6.1 only), swapin_enabled=always if the knob
#                exists; thpswap-4k: the same with swapin_enabled=never
#   thpswap-keep thpswap.ko, swapin_enabled left as it is
#   pmem         nd_e820 + nd_pmem on the memmap= range (its size is the
#                memmap= size, which must be SWAP_MIB)
#   brd          one ramdisk of SWAP_MIB
#   zram         one zram of SWAP_MIB, lzo-rle where offered (7.3 has no
#                lzo: it keeps its default, lz4, recorded by the callers)
# teardown DEV BLK: swapoff BLK and undo setup DEV.
pmem_loaded=0
setup() {
	case "$1" in
	thpswap|thpswap-4k|thpswap-keep)
		$MODPROBE thpswap size="${SWAP_MIB}M" || return 1
		if [ "$1" = thpswap-4k ]; then
			echo never > $THP/swapin_enabled || return 1
		elif [ "$1" = thpswap ] && [ -w $THP/swapin_enabled ]; then
			echo always > $THP/swapin_enabled || return 1
		fi
		blk=/dev/thpswap0 ;;
	pmem)
		if [ $pmem_loaded = 0 ]; then
			$MODPROBE nd_e820 && $MODPROBE nd_pmem || return 1
			# libnvdimm probes asynchronously; wait_probe waits.
			cat /sys/bus/nd/devices/ndbus*/wait_probe >/dev/null
			pmem_loaded=1
		fi
		blk=/dev/pmem0 ;;
	brd)
		$MODPROBE brd rd_nr=1 rd_size=$((SWAP_MIB * 1024)) || return 1
		blk=/dev/ram0 ;;
	zram)
		$MODPROBE zram num_devices=1 || return 1
		if grep -q 'lzo-rle' /sys/block/zram0/comp_algorithm; then
			echo lzo-rle > /sys/block/zram0/comp_algorithm || return 1
		fi
		echo "${SWAP_MIB}M" > /sys/block/zram0/disksize || return 1
		blk=/dev/zram0 ;;
	*) echo "unknown device $1"; return 1 ;;
	esac
	[ -b "$blk" ] || { echo "no $blk"; return 1; }
	mkswap "$blk" >/dev/null && swapon "$blk"
}
teardown() {	# teardown DEV BLK
	swapoff "$2" || return 1
	case "$1" in
	thpswap|thpswap-4k)
		[ -w $THP/swapin_enabled ] && echo always > $THP/swapin_enabled
		$RMMOD thpswap ;;
	thpswap-keep) $RMMOD thpswap ;;
	pmem) : ;;
	brd) $RMMOD brd ;;
	zram) echo 1 > /sys/block/zram0/reset && $RMMOD zram ;;
	esac
}
