#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# control.sh: guest flow for the control plane (busybox ash, run as root by
# tests/vm/run).  Loads thpswap (size=256M), checks the control device
# appears, runs ctl_test (ioctls) and nl_test (netlink), unloads.
#
#   tests/vm/run --script tests/guest/control/control.sh [-- THPSWAP_EXPECT_PATCHED=1]
#
# Output is flat TAP: every test case of the programs becomes one line of
# this script's plan (named "prog: case"), everything else is a "# "
# diagnostic; there is no nested TAP.  Exits non-zero if anything failed.
set -u

PATH=$PATH:$(dirname "$0")
. tap.sh
swapin_always
tap_args "$@"	# THPSWAP_EXPECT_PATCHED=1: nl_test fails where it would skip

# run_prog NAME: a kselftest_harness program; its "ok N name" lines are
# re-numbered into ours, the rest becomes diagnostics.
run_prog() {
	prog=$1
	tmp=/tmp/$prog.out
	"$prog" > "$tmp" 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*)
			name=${line#ok }
			name=${name#* }
			case "$name" in
			# "ok N # SKIP reason": keep the directive, so it counts as a skip
			*"# SKIP"*) skip "$prog" "${name#*# SKIP }" ;;
			*) ok "$prog: ${name#* }" ;;
			esac ;;
		"not ok "*)
			name=${line#not ok }
			name=${name#* }
			not_ok "$prog: ${name#* }" ;;
		*) echo "# $line" ;;
		esac
	done < "$tmp"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$tmp"; then
		not_ok "$prog exited $rc"
	fi
}

echo "TAP version 13"
step "modprobe thpswap size=256M" $MODPROBE thpswap size=256M || {
	echo "Bail out! cannot load thpswap"
	exit 1
}
step "/dev/thpswap-control exists" test -c /dev/thpswap-control
step "control device is misc minor 247 (devname alias)" \
	sh -c 'grep -q "^247 thpswap-control$" /proc/misc'
step "mkswap /dev/thpswap0" mkswap /dev/thpswap0

for prog in ${CONTROL_TESTS:-ctl_test nl_test}; do
	run_prog "$prog"
done

grep -q '^/dev/thpswap' /proc/swaps && swapoff /dev/thpswap0
step "rmmod thpswap" $RMMOD thpswap
step "control device gone after rmmod" sh -c '! grep -q thpswap-control /proc/misc'
echo "1..$n"
echo "# $failed failed of $n"
[ "$failed" -eq 0 ]
