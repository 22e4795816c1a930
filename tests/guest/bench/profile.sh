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
#   CONFIGS   "thpswap/always thpswap/never brd/always" (DEVICE/swapin_enabled)
#   CYCLE_MIB size of the cycle (default 512)
#
# Output: "P config=C key=value..." records (thpswap-mem's figures), the
# perf tables between "P begin config=C" and "P end config=C", and
# comments.  Exit status 0 when every configuration ran and verified.
set -u
CONFIGS="thpswap/always thpswap/never brd/always"
CYCLE_MIB=512
for arg in "$@"; do
	case "$arg" in
	CONFIGS=*|CYCLE_MIB=*) eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# profile.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
MODPROBE=/sbin/modprobe RMMOD=/sbin/rmmod
[ -x "$MODPROBE" ] || MODPROBE=modprobe
[ -x "$RMMOD" ] || RMMOD=rmmod
THP=/sys/kernel/mm/transparent_hugepage
failed=0
fail() { failed=$((failed + 1)); echo "# FAIL: $*"; }

echo always > $THP/enabled
echo madvise > $THP/defrag
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
[ -w $THP/swapin_enabled ] || { echo "# not a kernel with whole-THP swap-in"; exit 1; }
command -v perf > /dev/null || { echo "# no perf (tests/vm/run --add)"; exit 1; }
swap_mib=$((CYCLE_MIB + 256))
head -c 1048576 /dev/urandom > /tmp/random-1m || exit 1

for c in $CONFIGS; do
	d=${c%/*} knob=${c#*/}
	case "$d" in
	thpswap) $MODPROBE thpswap size="${swap_mib}M" && b=thpswap0 ;;
	brd) $MODPROBE brd rd_nr=1 rd_size=$((swap_mib * 1024)) && b=ram0 ;;
	*) fail "$c: unknown device"; continue ;;
	esac || { fail "$c: modprobe"; continue; }
	# Steady state: the whole device written once (brd allocates then).
	i=0
	while [ $i -lt $swap_mib ]; do cat /tmp/random-1m; i=$((i + 1)); done |
		dd of=/dev/$b bs=1048576 iflag=fullblock 2>/dev/null
	mkswap /dev/$b > /dev/null && swapon /dev/$b || { fail "$c: swapon"; continue; }
	echo "$knob" > $THP/swapin_enabled
	echo 1 > /proc/sys/vm/compact_memory
	perf record -q -e cpu-clock -F 4000 -a -g -o /tmp/perf.data -- \
		thpswap-mem --size "$CYCLE_MIB" --cycles 2 --dev "$b" --quiet > /tmp/mem.out 2>&1
	rc=$?
	echo "P config=$c status=$rc $(grep -E '^(cycle=2|result=)' /tmp/mem.out | tr '\n' ' ')"
	[ "$rc" = 0 ] || { fail "$c: thpswap-mem exited $rc"; sed 's/^/# /' /tmp/mem.out; }
	echo "P begin config=$c"
	perf report -q -i /tmp/perf.data --stdio --no-children --sort sym -g none \
		--parent do_swap_page -x --percentage relative --percent-limit 0.5 2>/dev/null |
		grep -v '^$' | head -n 30
	echo "P end config=$c"
	swapoff /dev/$b
	echo always > $THP/swapin_enabled
	case "$d" in thpswap) $RMMOD thpswap ;; brd) $RMMOD brd ;; esac
done
echo "# profile.sh: $failed failure(s)"
[ "$failed" = 0 ]
