#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# auto-guest.sh: the guest half of bench/auto (busybox ash, run as root by
# tests/vm/run).  On each swap device in DEVICES, every workload under
# every value of transparent_hugepage/swapin_enabled in MODES, REPS times,
# the order reversed on every other repetition, the device set up afresh
# (devices.sh) for each mode.
#
#   tests/vm/run --mem 6144 --append 'memmap=<SWAP_MIB>M!4G' \
#       --script tests/guest/bench/auto-guest.sh -- KERNEL=patched [VAR=VALUE...]
#
# Variables (VAR=VALUE arguments):
#   KERNEL     label for the records (stock, patched, 6.12, 7.3)
#   MODES      swapin_enabled values (default "always never auto"); "-"
#              leaves the knob alone (the stock and newer kernels have none)
#   DEVICES    swap devices (devices.sh; default thpswap-keep, thpswap with
#              the knob as MODES set it); on a kernel with mTHP every size
#              is enabled (mthp.sh) and zswap must be off
#   SWAP_MIB   size of the swap device, and of the memmap= range for pmem
#              (default twice the larger of SIZE_MIB and PR_TOTAL_MIB)
#   REPS       repetitions (default 3)
#   SIZE_MIB   the MADV_PAGEOUT workloads' region (default 512)
#   PCTS       % of its pages read back: 100 is the dense cycle (every
#              page, in order), below 100 pages at random in a random
#              order (default "100 1 10 50")
#   FORK       1 (default): also fork-SIZE_MIB, the dense cycle read back by
#              the process and a child forked after the page-out, side by
#              side (thpswap-mem --fork: every slot shared, as after a
#              BGSAVE fork); 0: not
#   PRESSURE   1 (default): also the memory.max workloads seq-2p, seq-4p,
#              rand-2p (RAND_PCT % read back) and mt-4t of make bench; 0: not
#   PR_MAX_MIB, PR_TOTAL_MIB, RAND_PCT   as bench-guest.sh (192, 384, 1)
#
# Output: one line "A kernel= rep= mode= wl= " followed by the key=value
# pairs of thpswap-mem / swapbench per workload, and "A ... status=RC";
# mode= is the swapin_enabled value, or the device where MODES is "-" and
# the device is not thpswap-keep.
# Exit status: 0 when every setup step and workload succeeded.
set -u

KERNEL=unknown MODES="always never auto" DEVICES=thpswap-keep REPS=3
SIZE_MIB=512 PCTS="100 1 10 50" FORK=1 PRESSURE=1 PR_MAX_MIB=192 PR_TOTAL_MIB=384
RAND_PCT=1 SWAP_MIB=
for arg in "$@"; do
	case "$arg" in
	KERNEL=*|MODES=*|DEVICES=*|REPS=*|SIZE_MIB=*|PCTS=*|FORK=*|PRESSURE=*|\
	PR_MAX_MIB=*|PR_TOTAL_MIB=*|RAND_PCT=*|SWAP_MIB=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# auto-guest.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
REC="A kernel=$KERNEL" REC_KEY=mode
. bench-lib.sh
. devices.sh
: "${SWAP_MIB:=$((SIZE_MIB > PR_TOTAL_MIB ? SIZE_MIB * 2 : PR_TOTAL_MIB * 2))}"

workloads() {	# workloads REP LABEL DEV (DEV: the block device's name)
	for p in $PCTS; do
		w=rand$p
		[ "$p" = 100 ] && w=cycle
		run "$1" "$2" "$w-$SIZE_MIB" swapbench exec --dev "$3" -- \
			thpswap-mem --size "$SIZE_MIB" --cycles 1 --seed "$1" \
			--touch-pct "$p" --dev "$3" --quiet
	done
	if [ "$FORK" = 1 ]; then
		run "$1" "$2" "fork-$SIZE_MIB" swapbench exec --dev "$3" -- \
			thpswap-mem --size "$SIZE_MIB" --cycles 1 --seed "$1" \
			--fork --dev "$3" --quiet
	fi
	[ "$PRESSURE" = 1 ] || return 0
	for wl in seq seq2 rand mt; do
		n=$NCPU t=1 acc=seq
		case $wl in
		seq2) n=$((2 * NCPU)) ;;
		rand) acc=rand ;;
		mt) n=1 t=$((2 * NCPU)) ;;
		esac
		name=$acc-${n}p
		[ "$wl" = mt ] && name=mt-${t}t
		run "$1" "$2" "$name" swapbench pressure --dev "$3" \
			--workers "$n" --threads "$t" \
			--wset $((PR_TOTAL_MIB / (n * t))) --max "$PR_MAX_MIB" \
			--access $acc --rand-pct "$RAND_PCT" --seed "$1"
	done
}

echo "# auto-guest: kernel $(uname -r) ($KERNEL), $NCPU CPUs, modes '$MODES' x devices '$DEVICES' x $REPS, ${SIZE_MIB} MiB at '$PCTS' %, swap $SWAP_MIB MiB"
echo always > $THP/enabled
echo madvise > $THP/defrag
# A newer kernel's mTHP swap as its users would set it up (mthp.sh).
. mthp.sh
mthp=$(mthp_setup) || fail "mTHP setup"
zswap=$(zswap_state)
[ "$zswap" = Y ] && fail "zswap is on (boot with zswap.enabled=0)"
echo "kver=$(uname -r) ncpu=$NCPU mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo) mthp_always_kb=$mthp zswap=$zswap" | rec 0 - info
r=1
while [ "$r" -le "$REPS" ]; do
	order=
	for m in $MODES; do
		for d in $DEVICES; do order="$order $m:$d"; done
	done
	if [ $((r % 2)) = 0 ]; then
		rev=
		for c in $order; do rev="$c $rev"; done
		order=$rev
	fi
	for c in $order; do
		m=${c%%:*} d=${c#*:} label=${c%%:*}
		[ "$m" = - ] && [ "$d" != thpswap-keep ] && label=$d
		if [ "$m" != - ]; then
			echo "$m" > $THP/swapin_enabled ||
				{ fail "swapin_enabled=$m"; continue; }
		fi
		if ! setup "$d" > /tmp/setup.log 2>&1; then
			fail "setup $d for $m: $(cat /tmp/setup.log)"
			continue
		fi
		case "$d" in
		zram) echo "zram_comp=$(sed 's/.*\[\(.*\)\].*/\1/' \
			/sys/block/zram0/comp_algorithm)" | rec 0 "$label" info ;;
		esac
		workloads "$r" "$label" "${blk#/dev/}"
		teardown "$d" "$blk" || fail "teardown $d for $m"
	done
	r=$((r + 1))
done
echo "# auto-guest: $failed failure(s)"
[ "$failed" = 0 ]
