#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh: fault injection during swap cycles on thpswap (busybox ash, run
# as root by tests/vm/run on the debug kernel: CONFIG_FAILSLAB,
# CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS).  Flat TAP; exit
# status 0 only if every check passed.
#
#  1. (run last, then swapoff) failslab and fail_page_alloc fail 10 % of all allocations made by the
#     swapping task (task-filter, thpswap-mem --make-it-fail) while it
#     pages 64 MiB out and in, three times.  Swap-out and swap-in run in
#     that task, rw_page included: thpswap must not fail one I/O, and not
#     one word may change, while allocations around it do fail.
#  2. Kernels with whole-THP swap-in: fail_page_alloc fails every order-9
#     allocation of the task.  Every THP falls back to 4 KiB swap-in,
#     counted as thp_swpin_fallback_alloc; nothing is lost.
#  3. Same kernels: thpswap's own fail_read fails the first two reads (the
#     rw_page of one THP and the kernel's bio retry of it).  That THP falls
#     back, counted as thp_swpin_fallback_io; the others come back whole.
#  4. Same kernels: swapin_unclaim_test.  fail_read fails a THP's read
#     after a delay, during which another thread unmaps half the THP: the
#     claim given back frees those slots and the cluster is no longer huge.
#
#   tests/vm/run --kernel debug --script tests/guest/faults.sh
set -u

DEV=thpswap0
BLK=/dev/$DEV
DBG=/sys/kernel/debug
PATH=$PATH:$(dirname "$0")
. tap.sh
swapin_always
tap_args "$@"

vm() { sed -n "s/^$1 //p" /proc/vmstat; }
dstat() { sed -n "s/^$1 //p" /sys/block/$DEV/thpswap/stats; }
# sum KEY FILE: the sum of KEY=value over the cycle records in FILE.
sum() { sed -n "s/.* $1=\([-0-9]*\).*/\1/p" "$2" | awk '{ s += $1 } END { print s + 0 }'; }
# fault ATTR FILE VALUE: one fault-injection attribute.
fault() { printf '%s\n' "$3" > "$DBG/$1/$2"; }
# fault_on ATTR PROBABILITY TIMES TASK_FILTER: every knob set, none inherited.
fault_on() {
	fault "$1" interval 1
	fault "$1" times "$3"
	fault "$1" space 0
	fault "$1" verbose 0
	fault "$1" task-filter "$4"
	[ ! -e "$DBG/$1/ignore-gfp-wait" ] || fault "$1" ignore-gfp-wait N
	[ ! -e "$DBG/$1/ignore-gfp-highmem" ] || fault "$1" ignore-gfp-highmem N
	fault "$1" probability "$2"
}
fault_off() {
	for a in failslab fail_page_alloc thpswap/fail_read; do
		[ -d "$DBG/$a" ] && fault "$a" probability 0
	done
}

for a in failslab fail_page_alloc; do
	if [ ! -d "$DBG/$a" ]; then
		bail "$DBG/$a missing: this kernel has no fault injection"
	fi
done

step "modprobe thpswap size=256M" "$MODPROBE" thpswap size=256M
step "fail_read is in debugfs" test -d "$DBG/thpswap/fail_read"
step "mkswap + swapon" sh -c "mkswap $BLK >/dev/null && swapon $BLK"
dmesg -c > /dev/null

# ---- 2: no THP for swap-in -------------------------------------------------
if [ -z "$(vm thp_swpin)" ]; then
	skip_unless_patched "2: THP allocation failure at swap-in" "no whole-THP swap-in in this kernel"
	skip_unless_patched "3: read error at THP swap-in" "no whole-THP swap-in in this kernel"
	skip_unless_patched "4: a claim given back after a failed read" "no whole-THP swap-in in this kernel"
else
	fault fail_page_alloc min-order 9
	fault_on fail_page_alloc 100 -1 Y
	a0=$(vm thp_swpin_fallback_alloc) s0=$(vm thp_swpin)
	thpswap-mem --size 64 --make-it-fail --quiet > /tmp/f2 2>&1
	rc=$?
	fault_off
	fault fail_page_alloc min-order 0
	sed 's/^/# /' /tmp/f2 | head -4
	is "2: every word correct with no THP to swap in" \
		"$rc $(sed -n 's/^result=\([a-z]*\).*/\1/p' /tmp/f2)" "0 ok"
	is "2: 32 THPs swapped out whole" "$(sum dev_thp_writes /tmp/f2)" 32
	is "2: no THP swapped in whole" "$(($(vm thp_swpin) - s0))" 0
	is "2: 32 fallbacks counted as thp_swpin_fallback_alloc" \
		"$(($(vm thp_swpin_fallback_alloc) - a0))" 32
	is "2: swapped in as 16384 pages" "$(sum dev_page_reads /tmp/f2)" 16384

	# ---- 3: a read error -----------------------------------------------
	fault_on thpswap/fail_read 100 2 N
	io0=$(vm thp_swpin_fallback_io) s0=$(vm thp_swpin)
	w0=$(dstat swapin_whole)
	thpswap-mem --size 8 --quiet > /tmp/f3 2>&1
	rc=$?
	left=$(cat $DBG/thpswap/fail_read/times)
	fault_off
	sed 's/^/# /' /tmp/f3 | head -4
	is "3: every word correct after a failed THP read" \
		"$rc $(sed -n 's/^result=\([a-z]*\).*/\1/p' /tmp/f3)" "0 ok"
	is "3: both injected read errors happened" "$left" 0
	is "3: one fallback counted as thp_swpin_fallback_io" \
		"$(($(vm thp_swpin_fallback_io) - io0))" 1
	is "3: the other 3 THPs swapped in whole" "$(($(vm thp_swpin) - s0))" 3
	is "3: the device counted 3 whole swap-ins" "$(($(dstat swapin_whole) - w0))" 3
	is "3: the failed THP came back as 512 pages" "$(sum dev_page_reads /tmp/f3)" 512

	# ---- 4: half the THP unmapped while its failing read waits -----------
	THPSWAP_DEV=$DEV run_kselftest swapin_unclaim_test || true
	fault_off
fi

step "swapoff, swapon" sh -c "swapoff $BLK && swapon $BLK"

# ---- 1: random allocation failures around swap I/O -----------------------
# Then swapoff: when an xarray node allocation failed inside
# add_to_swap_cache(), stock 6.1 left the empty nodes xas_create_range() had
# linked in the swap cache, and swapoff VM_WARNed in
# exit_swap_address_space() (fixed by patches/, "mm/swap: free the nodes a
# failed add_to_swap_cache() leaves behind").  tests/vm/run fails the run on
# any WARN.
BIG=1000000000
fault fail_page_alloc min-order 0
fault_on failslab 10 $BIG Y
fault_on fail_page_alloc 10 $BIG Y
rej0=$(dstat rejected)
dmesg -c > /dev/null
thpswap-mem --size 64 --cycles 3 --make-it-fail --quiet > /tmp/f1 2>&1
rc=$?
fault_off
slab=$((BIG - $(cat $DBG/failslab/times)))
page=$((BIG - $(cat $DBG/fail_page_alloc/times)))
echo "# injected: $slab slab and $page page allocation failures in the swapping task"
sed 's/^/# /' /tmp/f1 | head -8
is "1: every word correct after 3 cycles with 10% of the task's allocations failing" \
	"$rc $(sed -n 's/^result=\([a-z]*\).*/\1/p' /tmp/f1)" "0 ok"
step "1: allocations did fail during the cycles" test $((slab + page)) -gt 0
step "1: the task swapped out (pswpout > 0)" test "$(sum pswpout /tmp/f1)" -gt 0
step "1: thpswap wrote during the cycles" \
	test $(($(sum dev_thp_writes /tmp/f1) + $(sum dev_page_writes /tmp/f1))) -gt 0
step "1: thpswap read during the cycles" \
	test $(($(sum dev_thp_reads /tmp/f1) + $(sum dev_page_reads /tmp/f1))) -gt 0
is "1: thpswap rejected no I/O" "$(dstat rejected)" "$rej0"
step "1: the kernel logged no swap I/O error" \
	sh -c '! dmesg | grep -E "(Read|Write)-error on swap-device"'
step "1: swapoff afterwards" swapoff "$BLK"
step "1: no kernel warning (an empty swap cache has no xarray nodes left)" \
	sh -c '! dmesg | grep -E "WARNING:|BUG:"'

tap_end
