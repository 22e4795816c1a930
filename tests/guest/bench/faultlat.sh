#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# faultlat.sh: the guest half of bench/latency (busybox ash, run as root by
# tests/vm/run).  For each repetition, each value of
# transparent_hugepage/swapin_enabled in KNOBS and each swap device in
# DEVICES (the order reversed every other repetition; the device set up
# afresh by devices.sh for each run), one faultlat run: a thread swaps
# SWAPIN_MIB back in while another times its 4 KiB faults.
#
#   tests/vm/run --kernel DIR --mem 6144 --append 'memmap=<SWAP_MIB>M!4G' \
#       --script tests/guest/bench/faultlat.sh -- [VAR=VALUE...]
#
# Variables (VAR=VALUE arguments):
#   KNOBS      swapin_enabled values (default "always never always/p").  A
#              knob written K/p runs faultlat -p: the timed faults come from
#              another process, which shares no mmap_lock with the swap-in.
#              K/m runs faultlat -m: the other thread times mmap() + munmap()
#              (the write lock) instead.  "-" (-/p, -/m) leaves the knob
#              alone; on a kernel without the knob (Debian's newer ones)
#              every value is taken as "-", keeping its /p or /m.
#   DEVICES    swap devices (devices.sh; default thpswap-keep: thpswap with
#              the knob as KNOBS set it); pmem needs the memmap= range
#   SWAP_MIB   size of the swap device, and of the memmap= range for pmem
#              (default SWAPIN_MIB + 256)
#   REPS       repetitions (default 3)
#   SWAPIN_MIB what faultlat swaps out and back in (default 1024)
# On a kernel with mTHP every size is enabled (mthp.sh), as its users
# would, and zswap must be off (zswap.enabled=0): the run fails otherwise.
#
# Output: one line "L rep=R knob=K <faultlat's key=value pairs> dev=D
# large_swpin_kb=N mthp_swpin=S status=RC" per run; anything else is a
# comment.  knob= is the swapin_enabled value (K/p, K/m as in KNOBS) on
# thpswap-keep; where the knob is "-" it is the device (pmem, pmem/m, ...).
# large_swpin_kb: kB swapped in as folios above 4 KiB (per-size mTHP
# counters; "-" on a kernel without them), mthp_swpin: those folios per
# size, "KB:COUNT,...".  Exit status 0 when every device was set up and
# every run swapped out and read back every word right.
set -u
REPS=3 SWAPIN_MIB=1024 KNOBS="always never always/p" DEVICES=thpswap-keep
SWAP_MIB=
for arg in "$@"; do
	case "$arg" in
	REPS=*|SWAPIN_MIB=*|KNOBS=*|DEVICES=*|SWAP_MIB=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# faultlat.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
REC=L REC_KEY=knob
. bench-lib.sh
. devices.sh
. mthp.sh
: "${SWAP_MIB:=$((SWAPIN_MIB + 256))}"
KNOB=$THP/swapin_enabled
has_knob=0
[ -w "$KNOB" ] && has_knob=1

# mthp_swpin: "KB:COUNT" per line, every size's stats/swpin (none on 6.1).
mthp_swpin() {
	for f in "$THP"/hugepages-*kB/stats/swpin; do
		[ -r "$f" ] || continue
		kb=${f#"$THP"/hugepages-}
		echo "${kb%%kB/*}:$(cat "$f")"
	done
}

# The runs: KNOB:DEV, each once.
runs=
for k in $KNOBS; do
	case "$k" in
	*/?) m=${k%/?} s=/${k##*/} ;;
	*) m=$k s= ;;
	esac
	[ "$has_knob" = 1 ] || m=-
	for d in $DEVICES; do
		case " $runs " in
		*" $m$s:$d "*) ;;
		*) runs="$runs $m$s:$d" ;;
		esac
	done
done
mthp=$(mthp_setup) || { echo "# FAIL: mTHP setup"; exit 1; }
zswap=$(zswap_state)
[ "$zswap" = Y ] && { echo "# FAIL: zswap is on (boot with zswap.enabled=0)"; exit 1; }
echo "# faultlat: kernel $(uname -r), $NCPU CPUs, swapin_enabled $([ "$has_knob" = 1 ] && cat "$KNOB" || echo none), runs '$runs' x $REPS, $SWAPIN_MIB MiB on $SWAP_MIB MiB of swap, mTHP always: $mthp kB, zswap $zswap, THP $(cat "$THP/enabled")"
rep=1
while [ "$rep" -le "$REPS" ]; do
	order=$runs
	if [ $((rep % 2)) = 0 ]; then
		order=
		for c in $runs; do order="$c $order"; done
	fi
	for c in $order; do
		k=${c%%:*} d=${c#*:}
		m=${k%/?} opt=
		case "$k" in
		*/p) opt=-p ;;
		*/m) opt=-m ;;
		esac
		if [ "$d" = thpswap-keep ]; then
			label=$k
		elif [ "$m" = - ]; then
			label=$d${k#-}
		else
			label=$d-$k
		fi
		if [ "$m" != - ]; then
			echo "$m" > "$KNOB" || { fail "swapin_enabled=$m"; continue; }
		fi
		if ! setup "$d" > /tmp/setup.log 2>&1; then
			fail "setup $d for $label: $(cat /tmp/setup.log)"
			continue
		fi
		[ "$d" = zram ] && echo "# zram: $(cat /sys/block/zram0/comp_algorithm)"
		# The same starting point for every run (bench-lib.sh's run).
		echo 1 > /proc/sys/vm/compact_memory
		before=$(mthp_swpin)
		out=$(faultlat -s "$SWAPIN_MIB" $opt)
		rc=$?
		large=- sizes=
		if [ -n "$before" ]; then
			large=0
			for a in $(mthp_swpin); do
				kb=${a%%:*} n=${a#*:}
				for b in $before; do
					[ "${b%%:*}" = "$kb" ] && n=$((n - ${b#*:}))
				done
				[ "$n" = 0 ] && continue
				large=$((large + n * kb))
				sizes="$sizes${sizes:+,}$kb:$n"
			done
		fi
		echo "L rep=$rep knob=$label $out dev=$d large_swpin_kb=$large mthp_swpin=${sizes:--} status=$rc"
		[ "$rc" = 0 ] || fail "rep $rep $label: faultlat exited $rc"
		teardown "$d" "$blk" || fail "teardown $d for $label"
	done
	rep=$((rep + 1))
done
echo "# $failed failures"
[ "$failed" = 0 ]
