#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# swapin.sh: guest flow for whole-THP swap-in (busybox ash, run as root by
# tests/vm/run on a kernel with the swap-in patches).  Loads thpswap, puts
# swap on it, runs swapin_test and the others (swapout_pte_test: THPs
# that only PTEs map go out whole; swapin_fork_test: THPs that fork
# shared come back whole), checks that no slot leaked and that the
# kernel logged no warning, takes it all down.  Flat TAP; exit status 0
# only if every step passed.
#
#   tests/vm/run --kernel DIR --script tests/guest/swapin/swapin.sh \
#       [-- THPSWAP_TEST_DIV=N THPSWAP_SWAPIN_CYCLES=N]
set -eu

for arg in "$@"; do
	case "$arg" in
	THPSWAP_*=*) export "$arg" ;;
	*) echo "Bail out! unknown argument '$arg'"; exit 2 ;;
	esac
done
DEV=${THPSWAP_DEV:-thpswap0}
SIZE=${THPSWAP_SIZE:-1G}
BLK=/dev/$DEV
export THPSWAP_DEV=$DEV
PATH=$PATH:$(dirname "$0")
. tap.sh

has_knob() {
	cat /sys/kernel/mm/transparent_hugepage/swapin_enabled &&
		grep -E '^thp_swpin' /proc/vmstat
}
# Each CPU's swap slot cache (mm/swap_slots.c) holds up to 64 slots it
# took for allocations to come and 64 freed slots not yet given back
# (SWAP_SLOTS_CACHE_SIZE each): those count as used.  Whole clusters never
# go through it.  A real leak would also keep swapoff from finishing.
swap_all_free() {
	set -- $(awk '$1 == "SwapTotal:" { t = $2 } $1 == "SwapFree:" { f = $2 }
		END { print t, f }' /proc/meminfo)
	cached=$((2 * 64 * 4 * $(grep -c ^processor /proc/cpuinfo)))
	echo "SwapTotal $1 kB, SwapFree $2 kB, slot caches hold up to $cached kB"
	[ $(($1 - $2)) -le "$cached" ]
}
no_kernel_warnings() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|KASAN:|circular locking dependency|inconsistent lock state|possible recursive locking|Bad page'
}
echo "TAP version 13"
echo "# kernel $(uname -r), thpswap size=$SIZE on $BLK, THPSWAP_TEST_DIV=${THPSWAP_TEST_DIV:-1}"
step "whole-THP swap-in knob and counters" has_knob ||
	bail "not a kernel with whole-THP swap-in"
step "swapin_enabled is auto by default" \
	grep -qx 'always madvise \[auto\] never' /sys/kernel/mm/transparent_hugepage/swapin_enabled || true
step "modprobe thpswap size=$SIZE" $MODPROBE thpswap size="$SIZE" ||
	bail "cannot load thpswap"
step "mkswap $BLK" mkswap "$BLK" || bail "mkswap failed"
step "swapon $BLK" swapon "$BLK" || bail "swapon failed"

run_kselftest swapin_test || true
run_kselftest swapin_race_test || true
run_kselftest swapin_auto_test || true
run_kselftest swapout_pte_test || true
run_kselftest swapin_fork_test || true
run_kselftest swapin_stall_test || true
echo "# vmstat: $(grep -E '^(thp_swpin|pswpin|thp_swpout|thp_split_reclaim)' /proc/vmstat | tr '\n' ' ')"
step "no swap slot leaked" swap_all_free || true
step "swapoff $BLK" swapoff "$BLK" || true
step "rmmod thpswap" $RMMOD thpswap || true
step "no kernel warnings" no_kernel_warnings || true

echo "# $failed of $n steps failed"
tap_end
