#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# auto-guest.sh: the guest half of bench/auto (busybox ash, run as root by
# tests/vm/run).  On thpswap swap, every workload under every value of
# transparent_hugepage/swapin_enabled in MODES, REPS times, the mode order
# reversed on every other repetition, thpswap loaded afresh for each mode.
#
#   tests/vm/run --mem 6144 --script tests/guest/bench/auto-guest.sh -- \
#       KERNEL=patched [VAR=VALUE...]
#
# Variables (VAR=VALUE arguments):
#   KERNEL     label for the records (stock, patched)
#   MODES      swapin_enabled values (default "always never auto"); "-"
#              leaves the knob alone (the stock kernel has none)
#   REPS       repetitions (default 3)
#   SIZE_MIB   the MADV_PAGEOUT workloads' region (default 512)
#   PCTS       % of its pages read back: 100 is the dense cycle (every
#              page, in order), below 100 pages at random in a random
#              order (default "100 1 10 50")
#   PRESSURE   1 (default): also the memory.max workloads seq-2p, seq-4p,
#              rand-2p (RAND_PCT % read back) and mt-4t of make bench; 0: not
#   PR_MAX_MIB, PR_TOTAL_MIB, RAND_PCT   as bench-guest.sh (192, 384, 1)
#
# Output: one line "A kernel= rep= mode= wl= " followed by the key=value
# pairs of thpswap-mem / swapbench per workload, and "A ... status=RC".
# Exit status: 0 when every setup step and workload succeeded.
set -u

KERNEL=unknown MODES="always never auto" REPS=3 SIZE_MIB=512
PCTS="100 1 10 50" PRESSURE=1 PR_MAX_MIB=192 PR_TOTAL_MIB=384 RAND_PCT=1
for arg in "$@"; do
	case "$arg" in
	KERNEL=*|MODES=*|REPS=*|SIZE_MIB=*|PCTS=*|PRESSURE=*|PR_MAX_MIB=*|\
	PR_TOTAL_MIB=*|RAND_PCT=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# auto-guest.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
REC="A kernel=$KERNEL" REC_KEY=mode
. bench-lib.sh
SWAP_MIB=$((SIZE_MIB > PR_TOTAL_MIB ? SIZE_MIB * 2 : PR_TOTAL_MIB * 2))

workloads() {	# workloads REP MODE
	for p in $PCTS; do
		w=rand$p
		[ "$p" = 100 ] && w=cycle
		run "$1" "$2" "$w-$SIZE_MIB" swapbench exec --dev thpswap0 -- \
			thpswap-mem --size "$SIZE_MIB" --cycles 1 --seed "$1" \
			--touch-pct "$p" --dev thpswap0 --quiet
	done
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
		run "$1" "$2" "$name" swapbench pressure --dev thpswap0 \
			--workers "$n" --threads "$t" \
			--wset $((PR_TOTAL_MIB / (n * t))) --max "$PR_MAX_MIB" \
			--access $acc --rand-pct "$RAND_PCT" --seed "$1"
	done
}

echo "# auto-guest: kernel $(uname -r) ($KERNEL), $NCPU CPUs, modes '$MODES' x $REPS, ${SIZE_MIB} MiB at '$PCTS' %"
echo always > $THP/enabled
echo madvise > $THP/defrag
echo "kver=$(uname -r) ncpu=$NCPU mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)" | rec 0 - info
r=1
while [ "$r" -le "$REPS" ]; do
	order=$MODES
	if [ $((r % 2)) = 0 ]; then
		order=
		for m in $MODES; do order="$m $order"; done
	fi
	for m in $order; do
		if [ "$m" != - ]; then
			echo "$m" > $THP/swapin_enabled ||
				{ fail "swapin_enabled=$m"; continue; }
		fi
		if ! $MODPROBE thpswap size="${SWAP_MIB}M" ||
		   ! mkswap /dev/thpswap0 > /dev/null ||
		   ! swapon /dev/thpswap0; then
			fail "setup thpswap for $m"
			continue
		fi
		workloads "$r" "$m"
		swapoff /dev/thpswap0 && $RMMOD thpswap || fail "teardown for $m"
	done
	r=$((r + 1))
done
echo "# auto-guest: $failed failure(s)"
[ "$failed" = 0 ]
