#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of tests/vm/scan-log: it must find every kind of kernel report
# the harness promises to fail on, and nothing in a clean boot log.
set -u
scan=$(dirname "$0")/../vm/scan-log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

expect() {	# expect found|clean TAINT DESCRIPTION <<< log text
	local want=$1 taint=$2 desc=$3 got
	cat > "$tmp/log"
	n=$((n + 1))
	if "$scan" "$tmp/log" "$taint" > "$tmp/out"; then got=clean; else got=found; fi
	if [ "$got" = "$want" ]; then
		echo "ok $n - scan-log: $desc"
	else
		echo "not ok $n - scan-log: $desc (wanted $want, got $got)"
		sed 's/^/# /' "$tmp/out"
		bad=$((bad + 1))
	fi
}

echo "TAP version 13"
echo "1..13"
expect clean 12288 "clean boot with out-of-tree taint (O, E)" <<'LOG'
[    0.036000] tsc: Unable to calibrate against PIT
[    2.765566] Unstable clock detected, switching default tracing clock to "global"
[    3.284082] thpswap: loading out-of-tree module taints kernel.
[    3.411444] reboot: Power down
LOG
expect found 0 "WARN with cut-here marker" <<'LOG'
[    3.316446] ------------[ cut here ]------------
[    3.317378] WARNING: CPU: 1 PID: 97 at module.c:18 init+0x1a/0x1000 [thpswap]
LOG
expect found 0 "NULL dereference oops" <<'LOG'
[   10.1] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   10.2] Oops: 0002 [#1] PREEMPT SMP NOPTI
LOG
expect found 0 "sleeping in atomic context" <<'LOG'
[   5.0] BUG: sleeping function called from invalid context at mm/page_alloc.c:5000
LOG
expect found 0 "KASAN report" <<'LOG'
[   7.0] ==================================================================
[   7.0] BUG: KASAN: slab-out-of-bounds in thpswap_rw_page+0x42/0x100 [thpswap]
LOG
expect found 0 "lockdep circular dependency" <<'LOG'
[   8.0] ======================================================
[   8.0] WARNING: possible circular locking dependency detected
LOG
expect found 0 "kmemleak" <<'LOG'
unreferenced object 0xffff888003a1c000 (size 64):
  comm "modprobe", pid 99, jiffies 4294893296 (age 12.345s)
LOG
expect found 0 "hung task" <<'LOG'
[ 245.0] INFO: task swapoff:123 blocked for more than 120 seconds.
LOG
expect found 0 "RCU stall" <<'LOG'
[ 59.0] thpswap: before
[ 60.0] rcu: INFO: rcu_sched self-detected stall on CPU
[ 60.1] 	1-....: (21000 ticks this GP) idle=d2c/1/0x4000000000000000
[ 60.2] RIP: 0010:swap_range_free+0x1c/0x90
LOG
n=$((n + 1))
if grep -q 'RIP: 0010:swap_range_free' "$tmp/out" &&
   ! grep -q 'thpswap: before' "$tmp/out"; then
	echo "ok $n - scan-log: a report comes with the console lines from its first line on"
else
	echo "not ok $n - scan-log: a report comes with the console lines from its first line on"
	sed 's/^/# /' "$tmp/out"
	bad=$((bad + 1))
fi
expect found 0 "kernel BUG at" <<'LOG'
[ 9.0] kernel BUG at mm/swapfile.c:1234!
LOG
expect found 512 "taint W without console text" <<'LOG'
[ 1.0] nothing to see here
LOG
expect found 0 "panic" <<'LOG'
[ 9.0] Kernel panic - not syncing: Fatal exception
LOG
exit $((bad > 0))
