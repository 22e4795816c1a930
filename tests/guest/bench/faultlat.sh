#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# faultlat.sh: the guest half of bench/latency (busybox ash, run as root by
# tests/vm/run on the patched kernel).  Swap on thpswap; for each
# repetition and each value of transparent_hugepage/swapin_enabled (the
# order reversed every other repetition), one faultlat run: a thread swaps
# SWAPIN_MIB back in while another times its 4 KiB faults.
#
#   tests/vm/run --kernel DIR --mem 3072 --script tests/guest/bench/faultlat.sh \
#       -- [REPS=N] [SWAPIN_MIB=N] [KNOBS="always never always/p"]
#
# A knob written K/p runs faultlat -p: the timed faults come from another
# process, which shares no mmap_lock with the swap-in.  K/m runs faultlat
# -m: the other thread times mmap() + munmap() (the write lock) instead.
#
# Output: one line "L rep=R knob=K <faultlat's key=value pairs> status=RC"
# per run; anything else is a comment.  Exit status 0 when every run
# swapped out and read back every word right.
set -u
REPS=3
SWAPIN_MIB=1024
KNOBS="always never always/p"
for arg in "$@"; do
	case "$arg" in
	REPS=*|SWAPIN_MIB=*|KNOBS=*) eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# faultlat.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
MODPROBE=/sbin/modprobe
[ -x "$MODPROBE" ] || MODPROBE=modprobe
KNOB=/sys/kernel/mm/transparent_hugepage/swapin_enabled
[ -w "$KNOB" ] || { echo "# no $KNOB: not the patched kernel"; exit 1; }
$MODPROBE thpswap size=$((SWAPIN_MIB + 256))M || exit 1
mkswap /dev/thpswap0 > /dev/null && swapon /dev/thpswap0 || exit 1
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
failed=0
rep=1
while [ "$rep" -le "$REPS" ]; do
	order=$KNOBS
	if [ $((rep % 2)) = 0 ]; then
		order=
		for k in $KNOBS; do order="$k $order"; done
	fi
	for k in $order; do
		echo "${k%/?}" > "$KNOB" || exit 1
		case "$k" in
		*/p) opt=-p ;;
		*/m) opt=-m ;;
		*) opt= ;;
		esac
		out=$(faultlat -s "$SWAPIN_MIB" $opt)
		rc=$?
		echo "L rep=$rep knob=$k $out status=$rc"
		[ "$rc" = 0 ] || failed=$((failed + 1))
	done
	rep=$((rep + 1))
done
swapoff /dev/thpswap0
echo "# $failed runs failed"
[ "$failed" = 0 ]
