#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# swap-suite.sh: guest test flow (busybox ash, run as root by tests/vm/run).
# Loads thpswap, puts swap on it, runs swap_thp_test, takes it all down
# again.  Flat TAP: swap_thp_test's results are renumbered into this
# flow's plan, its other lines become "# " diagnostics.  Exit status is 0
# only if every step passed.
#
#   tests/vm/run --script tests/guest/swap-suite.sh [-- VAR=VALUE...]
#
# Variables (environment, or VAR=VALUE arguments): THPSWAP_DEV (default
# thpswap0), THPSWAP_SIZE (default 1G), THPSWAP_TEST_DIV (1/2/4/8: shrink
# swap_thp_test's big working sets, for debug kernels).
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
# Test binaries: on PATH (tests/vm/run installs tests/guest/build/*), or
# beside this script.
PATH=$PATH:$(dirname "$0")
. tap.sh

is_swapped_on() { grep -q "^$BLK[[:space:]]" /proc/swaps; }
check_stats() {
	f=/sys/block/$DEV/thpswap/stats
	[ -r "$f" ] || { echo "$f missing"; return 1; }
	head -n 1 "$f" | grep -qx 'version 1' || {
		echo "first line of $f is '$(head -n 1 "$f")', want 'version 1'"
		return 1
	}
	cat /sys/block/$DEV/thpswap/clusters
}
rmmod_must_fail() {
	if $RMMOD thpswap 2>&1; then
		echo "rmmod thpswap succeeded while $BLK is swapped on"
		return 1
	fi
	[ -d /sys/module/thpswap ] || { echo "module gone"; return 1; }
	is_swapped_on || { echo "$BLK no longer in /proc/swaps"; return 1; }
}
module_gone() {
	$RMMOD thpswap && [ ! -d /sys/module/thpswap ] && [ ! -e "$BLK" ]
}

echo "TAP version 13"
echo "# kernel $(uname -r), thpswap size=$SIZE on $BLK, THPSWAP_TEST_DIV=${THPSWAP_TEST_DIV:-1}"

step "modprobe thpswap size=$SIZE" $MODPROBE thpswap size="$SIZE" ||
	bail "cannot load thpswap"
step "$BLK exists" test -b "$BLK" || bail "no $BLK"
step "sysfs stats version 1" check_stats || true
step "mkswap $BLK" mkswap "$BLK" || bail "mkswap failed"
step "swapon $BLK" swapon "$BLK" || bail "swapon failed"
step "$BLK listed in /proc/swaps" is_swapped_on || bail "swap not active"
step "rmmod thpswap fails while swapped on" rmmod_must_fail || true
if ! is_swapped_on; then
	bail "$BLK lost its swap"
fi

# (set -e: a bare failing command here would end the flow before swapoff
# and rmmod, and lose the test's status)
run_kselftest swap_thp_test || true

echo "# stats: $(tr '\n' ' ' < /sys/block/$DEV/thpswap/stats)"
step "swapoff $BLK" swapoff "$BLK" || true
step "rmmod thpswap" module_gone || true

echo "# $failed of $n steps failed"
tap_end
