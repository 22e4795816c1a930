#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: module lifecycle.  Load with a size, see the device and its
# size, swapon/swapoff it, rmmod refused while swapped on, unload cleanly,
# and num_devices.  TAP on stdout; exits non-zero if any step failed.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check DESCRIPTION COMMAND...
	desc=$1; shift
	if out=$("$@" 2>&1); then ok "$desc"; else notok "$desc"; echo "$out" | sed 's/^/# /'; fi
}
sectors() { cat "/sys/block/$1/size"; }

echo "TAP version 13"
check "modprobe thpswap size=64M" modprobe thpswap size=64M
check "/dev/thpswap0 is a block device" test -b /dev/thpswap0
check "/dev/thpswap0 is 64 MiB" test "$(sectors thpswap0)" -eq $((64 * 2048))
check "queue is non-rotational" test "$(cat /sys/block/thpswap0/queue/rotational)" = 0
check "logical block size 4096" test "$(cat /sys/block/thpswap0/queue/logical_block_size)" = 4096
check "mkswap /dev/thpswap0" mkswap /dev/thpswap0
stat() { sed -n "s/^$1 //p" /sys/block/thpswap0/thpswap/stats; }
check "mkswap was counted (bytes_written > 0)" test "$(stat bytes_written)" -gt 0
check "reset_stats rejects '2'" sh -c '! echo 2 > /sys/block/thpswap0/thpswap/reset_stats'
check "reset_stats accepts '1'" sh -c 'echo 1 > /sys/block/thpswap0/thpswap/reset_stats'
check "counters are zero after reset" sh -c '
	for k in thp_writes thp_reads page_writes page_reads bytes_written bytes_read discards slot_frees rejected; do
		v=$(sed -n "s/^$k //p" /sys/block/thpswap0/thpswap/stats)
		[ "$v" = 0 ] || { echo "$k is $v"; exit 1; }
	done'
check "copy bandwidth is measured (MB/s > 0)" sh -c '
	bw=$(cat /sys/block/thpswap0/thpswap/copy_bw_mbps); echo "copy_bw_mbps $bw"; [ "$bw" -gt 0 ]'
check "backing is ram" grep -qx ram /sys/block/thpswap0/thpswap/backing
check "swapon /dev/thpswap0" swapon /dev/thpswap0
check "/proc/swaps lists /dev/thpswap0" grep -q '^/dev/thpswap0 ' /proc/swaps
if rmmod thpswap 2>/dev/null; then
	notok "rmmod refused while swapped on"
else
	ok "rmmod refused while swapped on"
fi
check "device still present after refused rmmod" test -b /dev/thpswap0
check "swapoff /dev/thpswap0" swapoff /dev/thpswap0
check "/proc/swaps no longer lists it" sh -c '! grep -q "^/dev/thpswap0 " /proc/swaps'
check "rmmod thpswap" rmmod thpswap
check "/dev/thpswap0 gone after rmmod" test ! -e /dev/thpswap0
check "modprobe thpswap num_devices=3 size=8M" modprobe thpswap num_devices=3 size=8M
check "three devices of 8 MiB" sh -c 'for i in 0 1 2; do test "$(cat /sys/block/thpswap$i/size)" -eq 16384 || exit 1; done; test ! -e /dev/thpswap3'
check "rmmod with three devices" rmmod thpswap
if modprobe thpswap size=banana 2>/dev/null; then
	notok "modprobe with size=banana refused"
	rmmod thpswap
else
	ok "modprobe with size=banana refused"
fi
check "plain load creates no device (an autoload must not allocate)" sh -c 'modprobe thpswap && test ! -e /dev/thpswap0 && rmmod thpswap'
check "num_devices=1 alone gives one 1 GiB device" sh -c 'modprobe thpswap num_devices=1 && test "$(cat /sys/block/thpswap0/size)" -eq 2097152 && test ! -e /dev/thpswap1 && rmmod thpswap'
echo "1..$n"
[ "$failed" -eq 0 ]
