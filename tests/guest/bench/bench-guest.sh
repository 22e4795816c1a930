#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh: the guest half of `make bench` (busybox ash, run as root
# by tests/vm/run, driven by bench/run).  One boot runs every device and
# workload REPS times, the device order reversed on every other
# repetition, one swap device active at a time.
#
#   tests/vm/run --mem 6144 --append 'memmap=<SWAP_MIB>M!4G' \
#       --script tests/guest/bench/bench-guest.sh -- KERNEL=stock [VAR=VALUE...]
#
# Variables (VAR=VALUE arguments):
#   KERNEL      label for the records (stock, patched, 6.12, 7.3)
#   DEVICES     devices, in the order of the odd repetitions (default
#               "thpswap pmem brd zram"); thpswap-4k is thpswap with
#               transparent_hugepage/swapin_enabled=never (patched kernel);
#               on a kernel with mTHP (6.8+: hugepages-<size>kB/) every
#               size is enabled (mthp_setup) and thpswap cannot be used
#   REPS        repetitions (default 3)
#   SWAP_MIB    size of every swap device; pmem0 is the memmap= range, which
#               must be this size too (default 1280)
#   CYCLE_MIB   MADV_PAGEOUT cycle sizes (default "256 1024")
#   PR_MAX_MIB  memory.max of the pressure workloads (default 192)
#   PR_TOTAL_MIB  their total working set (default 384)
#   RAND_PCT    % of the pages the rand workload reads back (default 1)
#   WORKLOADS   subset of: cycle seq seq2 rand mt (default all)
#   STEADY      1 (default): after a device's workloads, write the whole
#               device once (swapoff, incompressible data, mkswap, swapon)
#               and run the cycles again as cycle-<MiB>-steady: brd and
#               zram allocate their memory on first write, so a fresh
#               device measures that allocation; 0: fresh only
#
# Output: every record is one line "B kernel= rep= dev= wl= " followed by
# the key=value pairs of swapbench / thpswap-mem (see their headers), and
# one "B ... wl=W status=RC" line per workload.  Anything else is a
# comment.  Exit status: 0 when every setup step and workload succeeded.
#
# No "set -e": one failing workload or device must not hide the others'
# results; every failure is counted (fail) and decides the exit status.
set -u

KERNEL=unknown
DEVICES="thpswap pmem brd zram"
REPS=3
SWAP_MIB=1280
CYCLE_MIB="256 1024"
PR_MAX_MIB=192
PR_TOTAL_MIB=384
RAND_PCT=1
WORKLOADS="cycle seq seq2 rand mt"
STEADY=1
for arg in "$@"; do
	case "$arg" in
	KERNEL=*|DEVICES=*|REPS=*|SWAP_MIB=*|CYCLE_MIB=*|PR_MAX_MIB=*|\
	PR_TOTAL_MIB=*|RAND_PCT=*|WORKLOADS=*|STEADY=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# bench-guest.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
REC="B kernel=$KERNEL" REC_KEY=dev
. bench-lib.sh

# copy_bw REP DEV: the module's in-kernel copy bandwidth, for the copy
# each direction really does: copy_bw_mbps a 2 MiB memcpy_flushcache (a
# THP swap-out), copy_read_bw_mbps a 2 MiB read in 4 KiB pieces (swap-in).
copy_bw() {
	bw=$(cat /sys/block/thpswap0/thpswap/copy_bw_mbps) ||
		{ fail "read copy_bw_mbps"; return 1; }
	rbw=$(cat /sys/block/thpswap0/thpswap/copy_read_bw_mbps) ||
		{ fail "read copy_read_bw_mbps"; return 1; }
	echo "copy_bw_mbps=$bw copy_read_bw_mbps=$rbw" | rec "$1" "$2" copybw
}

# ---- devices: setup DEV / teardown DEV BLK (devices.sh)
. devices.sh

# ---- workloads (run REP DEV WL CMD..., bench-lib.sh)
workloads() {	# workloads REP DEV BLK
	r=$1 d=$2 b=$3 name=${3#/dev/}
	for wl in $WORKLOADS; do
		case "$wl" in
		cycle)
			for m in $CYCLE_MIB; do
				run "$r" "$d" "cycle-$m" swapbench exec --dev "$name" -- \
					thpswap-mem --size "$m" --cycles 1 --dev "$name" --quiet
			done ;;
		seq|seq2|rand)
			n=$NCPU acc=seq
			[ "$wl" = seq2 ] && n=$((2 * NCPU))
			[ "$wl" = rand ] && acc=rand
			run "$r" "$d" "$acc-${n}p" swapbench pressure --dev "$name" \
				--workers "$n" --wset $((PR_TOTAL_MIB / n)) --max "$PR_MAX_MIB" \
				--access $acc --rand-pct "$RAND_PCT" --seed "$r" ;;
		mt)
			t=$((2 * NCPU))
			run "$r" "$d" "mt-${t}t" swapbench pressure --dev "$name" \
				--workers 1 --threads "$t" --wset $((PR_TOTAL_MIB / t)) \
				--max "$PR_MAX_MIB" --access seq --seed "$r" ;;
		*) fail "unknown workload $wl" ;;
		esac
	done
}

# steady REP DEV BLK: write all of BLK once (1 MiB of random bytes over
# and over: nothing a compressing or zero-detecting device can skip), put
# swap back on it and run the cycles again, as cycle-<MiB>-steady.
steady() {
	r=$1 d=$2 b=$3
	[ "$STEADY" = 1 ] || return 0
	swapoff "$b" || { fail "steady $d: swapoff"; return; }
	mib=$(($(blockdev --getsize64 "$b") / 1048576))
	i=0
	while [ $i -lt "$mib" ]; do cat /tmp/random-1m; i=$((i + 1)); done |
		dd of="$b" bs=1048576 count="$mib" iflag=fullblock 2>/dev/null ||
		{ fail "steady $d: writing $mib MiB to $b"; return; }
	mkswap "$b" > /dev/null && swapon "$b" ||
		{ fail "steady $d: mkswap/swapon"; return; }
	echo "# rep $r $d: $mib MiB written once; steady-state cycles"
	for m in $CYCLE_MIB; do
		run "$r" "$d" "cycle-$m-steady" swapbench exec --dev "${b#/dev/}" -- \
			thpswap-mem --size "$m" --cycles 1 --dev "${b#/dev/}" --quiet
	done
}
head -c 1048576 /dev/urandom > /tmp/random-1m || fail "no /dev/urandom"

echo "# bench-guest: kernel $(uname -r) ($KERNEL), $NCPU CPUs, $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB"
echo "# devices '$DEVICES' x $REPS, swap ${SWAP_MIB} MiB, cycles '$CYCLE_MIB' MiB, pressure ${PR_TOTAL_MIB} MiB in memory.max ${PR_MAX_MIB} MiB"
echo always > $THP/enabled
echo madvise > $THP/defrag

# A newer kernel's mTHP swap as its users would set it up (mthp.sh).
. mthp.sh
mthp=$(mthp_setup) || fail "mTHP setup"
zswap=$(zswap_state)
[ "$zswap" = Y ] && fail "zswap is on (boot with zswap.enabled=0)"
{
	echo "kver=$(uname -r) ncpu=$NCPU mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "thp_enabled=$(sed 's/.*\[\(.*\)\].*/\1/' $THP/enabled) swapin_knob=$([ -e $THP/swapin_enabled ] && echo yes || echo no)"
	echo "mthp_always_kb=$mthp zswap=$zswap"
} | rec 0 vm info

# The copy-bandwidth limit, three readings before anything else runs
# (thpswap.ko exists for 6.1 only).
case " $DEVICES " in
*" thpswap"*)
	if $MODPROBE thpswap size=64M; then
		for i in 1 2 3; do copy_bw 0 thpswap; done
		$RMMOD thpswap || fail "rmmod thpswap"
	else
		fail "modprobe thpswap"
	fi ;;
esac

r=1
while [ "$r" -le "$REPS" ]; do
	order=$DEVICES
	if [ $((r % 2)) = 0 ]; then
		order=
		for d in $DEVICES; do order="$d $order"; done
	fi
	echo "# repetition $r: $order"
	for d in $order; do
		if ! setup "$d" > /tmp/setup.log 2>&1; then
			fail "setup $d: $(cat /tmp/setup.log)"
			echo "status=99" | rec "$r" "$d" setup
			continue
		fi
		case "$d" in
		thpswap*) for i in 1 2 3; do copy_bw "$r" "$d"; done ;;
		zram) echo "zram_comp=$(sed 's/.*\[\(.*\)\].*/\1/' \
			/sys/block/zram0/comp_algorithm)" | rec 0 vm info ;;
		esac
		workloads "$r" "$d" "$blk"
		case " $WORKLOADS " in *" cycle "*) steady "$r" "$d" "$blk" ;; esac
		teardown "$d" "$blk" || fail "teardown $d"
	done
	r=$((r + 1))
done
echo "# bench-guest: $failed failure(s)"
[ "$failed" = 0 ]
