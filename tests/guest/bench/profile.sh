#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh: the guest half of bench/profile (busybox ash, run as root by
# tests/vm/run with --add for perf).  For each configuration, a MADV_PAGEOUT
# cycle of CYCLE_MIB on a device written once before (steady state) runs
# under 'perf record -a -g' (cpu-clock); perf report then keeps the samples
# whose call chain passes through do_swap_page(), i.e. the swap-in path,
# and prints their top symbols (self time).
#
#   CONFIGS   "thpswap/always thpswap/never brd/always" (DEVICE/swapin_enabled;
#             DEVICE as devices.sh knows it: thpswap-keep, pmem, brd, zram;
#             thpswap is thpswap-keep; swapin_enabled "-": left alone, as on
#             a kernel without it, where every mTHP size is enabled instead)
#   CYCLE_MIB size of the cycle (default 512)
#   TOUCH_PCT % of the pages read back (default 100: all, in order; below,
#             at random: thpswap-mem --touch-pct)
#   SWAP_MIB  the device's size (default CYCLE_MIB + 256; pmem: the memmap=
#             range, which must be this size)
#   WORKLOAD  cycle (default: thpswap-mem, as above) or mt: make bench's
#             mt-4t instead (swapbench pressure, one process, 2 x CPUs
#             threads, 384 MiB under memory.max = 192 MiB; its read phase)
#
# Output: "P config=C key=value..." records (thpswap-mem's figures), the
# perf tables between "P begin config=C" and "P end config=C", and
# comments.  Exit status 0 when every configuration ran and verified.
set -u
CONFIGS="thpswap/always thpswap/never brd/always"
CYCLE_MIB=512 TOUCH_PCT=100 SWAP_MIB= WORKLOAD=cycle
for arg in "$@"; do
	case "$arg" in
	CONFIGS=*|CYCLE_MIB=*|TOUCH_PCT=*|SWAP_MIB=*|WORKLOAD=*) eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# profile.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
REC="P" REC_KEY=config
. bench-lib.sh
. devices.sh
. mthp.sh

echo always > $THP/enabled
echo madvise > $THP/defrag
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
command -v perf > /dev/null || { echo "# no perf (tests/vm/run --add)"; exit 1; }
: "${SWAP_MIB:=$((CYCLE_MIB + 256))}"
mthp=$(mthp_setup) || { echo "# mTHP setup failed"; exit 1; }
[ "$(zswap_state)" != Y ] || { echo "# zswap is on (zswap.enabled=0)"; exit 1; }
echo "# kernel $(uname -r), mTHP sizes always: $mthp, touch $TOUCH_PCT %"
head -c 1048576 /dev/urandom > /tmp/random-1m || exit 1

for c in $CONFIGS; do
	d=${c%/*} knob=${c#*/}
	[ "$d" = thpswap ] && d=thpswap-keep
	if [ "$knob" != - ] && ! [ -w $THP/swapin_enabled ]; then
		fail "$c: not a kernel with whole-THP swap-in"
		continue
	fi
	setup "$d" > /tmp/setup.log 2>&1 || { fail "$c: setup: $(cat /tmp/setup.log)"; continue; }
	b=${blk#/dev/}
	# Steady state: the whole device written once (brd allocates then).
	swapoff "$blk"
	mib=$(($(blockdev --getsize64 "$blk") / 1048576))
	i=0
	while [ $i -lt "$mib" ]; do cat /tmp/random-1m; i=$((i + 1)); done |
		dd of="$blk" bs=1048576 iflag=fullblock 2>/dev/null
	mkswap "$blk" > /dev/null && swapon "$blk" || { fail "$c: swapon"; continue; }
	[ "$knob" = - ] || echo "$knob" > $THP/swapin_enabled
	echo 1 > /proc/sys/vm/compact_memory
	if [ "$WORKLOAD" = mt ]; then
		t=$((2 * NCPU))
		perf record -q -e cpu-clock -F 4000 -a -g -o /tmp/perf.data -- \
			swapbench pressure --dev "$b" --workers 1 --threads "$t" \
			--wset $((384 / t)) --max 192 --access seq --seed 1 > /tmp/mem.out 2>&1
		rc=$?
		echo "P config=$c status=$rc $(grep -E 'phase=read' /tmp/mem.out | head -n1 | tr '\n' ' ')"
	else
		perf record -q -e cpu-clock -F 4000 -a -g -o /tmp/perf.data -- \
			thpswap-mem --size "$CYCLE_MIB" --cycles 2 --dev "$b" --touch-pct "$TOUCH_PCT" \
			--quiet > /tmp/mem.out 2>&1
		rc=$?
		echo "P config=$c status=$rc $(grep -E '^(cycle=2|result=)' /tmp/mem.out | tr '\n' ' ')"
	fi
	[ "$rc" = 0 ] || { fail "$c: thpswap-mem exited $rc"; sed 's/^/# /' /tmp/mem.out; }
	echo "P begin config=$c"
	perf report -q -i /tmp/perf.data --stdio --no-children --sort sym -g none \
		--parent do_swap_page -x --percentage relative --percent-limit 0.5 2>/dev/null |
		grep -v '^$' | head -n 30
	echo "P end config=$c"
	[ "$knob" = - ] || echo always > $THP/swapin_enabled
	teardown "$d" "$blk" || fail "$c: teardown"
done
echo "# profile.sh: $failed failure(s)"
[ "$failed" = 0 ]
