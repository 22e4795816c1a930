#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The boot test's guest half (tests/boot/run copies it to the shared
# directory as phase.sh; boot-test.service runs it as root once the
# Debian system is up).  /mnt/host/phase-name says which boot this is;
# /mnt/host/debs has the .debs under test, /mnt/host/repo the local apt
# repository with the running kernel's headers.  Prints "ok - ..." and
# "not ok - ..." lines (the host numbers them and adds the plan), "# ..."
# diagnostics, and the seconds each timed step took as "# time NAME S".
set -euo pipefail

# Out of the OOM killer's reach, this script and its runner: where a
# teardown swaps off more than fits (issue 38, the packages before the fix),
# the OOM kills must not take the phase with them, or its results are lost.
echo -1000 > /proc/self/oom_score_adj
echo -1000 > "/proc/$PPID/oom_score_adj" 2> /dev/null || true

H=/mnt/host
phase=$(cat "$H/phase-name")
kver=$(uname -r)
conf=/etc/thpswap.conf
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o Dpkg::Options::=--force-confold -o Dpkg::Use-Pty=0)

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
diag() { sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: ok if COMMAND succeeds, else not ok.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; fi
}
# wait_for SECONDS COMMAND...: poll COMMAND (every 0.2 s) until it succeeds
# or SECONDS pass; its status.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}
# timed NAME COMMAND...: run COMMAND, output to /tmp/out, print its time.
timed() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" > /tmp/out 2>&1 || rc=$?
	echo "# time $name $((SECONDS - t0))"
	return "$rc"
}
swapped_on() { grep -q "^/dev/$1 " /proc/swaps; }
swap_prio() { awk -v d="/dev/$1" '$1 == d { print $5 }' /proc/swaps; }
swap_used_kb() { awk -v d="/dev/$1" '$1 == d { print $4 }' /proc/swaps; }
# The swap header's UUID: the same bytes as long as the device is not re-created.
swap_uuid() { od -An -tx1 -j1036 -N16 "/dev/$1" | tr -d ' \n'; }
unit_state() { systemctl show -p ActiveState --value thpswap.service; }
module_loaded() { [ -d /sys/module/thpswap ]; }
show_unit() { { systemctl status --no-pager -l thpswap.service || true; journalctl -b -u thpswap.service -o cat --no-pager | tail -n 15; } 2>&1 | diag; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'; }
meminfo_mb() { awk -v k="$1:" '$1 == k { print int($2 / 1024) }' /proc/meminfo; }

write_conf() {
	printf '# boot test\nthpswap0   size=256M\n%s' "${1:-}" > "$conf"
}
use_repo() {
	echo "deb [trusted=yes] file:$H/repo ./" > /etc/apt/sources.list.d/boot-test.list
	apt-get update -q > /dev/null 2>&1 || { notok "apt-get update on the local repository"; return 1; }
}

# DKMS built and installed thpswap for the running kernel.
dkms_installed() { dkms status -m thpswap -k "$kver" 2>/dev/null | grep -q ': installed'; }

up_with_thpswap0() {	# DESCRIPTION: the unit is active and thpswap0 is swap with priority 100
	if [ "$(unit_state)" = active ] && swapped_on thpswap0 && [ "$(swap_prio thpswap0)" = 100 ]; then
		ok "$1"
	else
		notok "$1 (unit $(unit_state), swaps: $(sed 1d /proc/swaps | awk '{print $1}' | tr '\n' ' '))"
		show_unit
	fi
}

echo "# phase $phase, kernel $kver"
case "$phase" in
ctl-first)
	# thpswapctl with a configuration kept from before, then thpswap-dkms
	# without headers, then the headers: the order apt often takes.
	use_repo
	write_conf
	rc=0
	timed "apt-install-thpswapctl" "${APT[@]}" --no-install-recommends install "$H"/debs/thpswapctl_*.deb || rc=$?
	check "apt installs thpswapctl (configuration kept): exit 0" [ "$rc" = 0 ]
	tail -n 12 /tmp/out | diag
	if [ "$(unit_state)" = failed ] && ! swapped_on thpswap0; then
		ok "no module yet: thpswap.service failed, nothing swapped on"
	else
		notok "no module yet: unit $(unit_state)"
	fi
	if grep -q "not installed for the running kernel" /tmp/out; then
		ok "apt's output says why the service did not start (module not installed for $kver)"
	else
		notok "apt's output does not say why thpswap.service failed"
	fi
	st=$(systemctl show -p ExecMainStatus --value thpswap.service)
	check "the unit's setup exited with status 4 (no module), not 1 (got $st)" [ "$st" = 4 ]

	rc=0
	timed "apt-install-thpswap-dkms-no-headers" "${APT[@]}" --no-install-recommends install "$H"/debs/thpswap-dkms_*.deb || rc=$?
	check "apt installs thpswap-dkms without headers: exit 0" [ "$rc" = 0 ]
	st=$(dkms status -m thpswap 2> /dev/null || true)
	check "dkms status: thpswap added, not built (no headers): '$st'" grep -q ': added' <<< "$st"
	rc=0
	thpswapctl setup > /tmp/out 2> /tmp/err || rc=$?
	if [ "$rc" = 4 ] && grep -q "apt install linux-headers-$kver" /tmp/err &&
	   grep -q "dkms status" /tmp/err; then
		ok "thpswapctl setup: exit 4, names linux-headers-$kver and dkms status"
	else
		notok "thpswapctl setup without the module: exit $rc"
		diag < /tmp/err
	fi
	installed linux-headers-amd64 && notok "--no-install-recommends pulled linux-headers-amd64" ||
		ok "no headers installed (--no-install-recommends)"

	rc=0
	timed "apt-install-headers-dkms-build" "${APT[@]}" install "linux-headers-$kver" || rc=$?
	check "apt installs linux-headers-$kver (DKMS builds thpswap): exit 0" [ "$rc" = 0 ]
	tail -n 8 /tmp/out | diag
	check "dkms status: thpswap installed for $kver" dkms_installed
	up_with_thpswap0 "when apt returns, thpswap.service is active and thpswap0 swapped on (priority 100)"
	;;

reboot)
	up_with_thpswap0 "after a reboot: thpswap.service active, thpswap0 swapped on (priority 100) at boot"
	check "setup's record lists thpswap0" grep -q '^thpswap0 created swapon$' /run/thpswap/devices
	# The last shutdown: teardown ran before systemd's own swapoff of the
	# device, so neither failed.
	prev=$(journalctl -b -1 -o cat --no-pager -u thpswap.service -u dev-thpswap0.swap 2>&1 |
	       sed -n '/^\(Stopping thpswap.service\|Deactivating swap\)/,$p' || true)
	if grep -q 'thpswap0: swapped off and removed' <<< "$prev" &&
	   ! grep -Eqi 'failed|error|busy|invalid' <<< "$prev"; then
		ok "previous shutdown: teardown swapped off and removed thpswap0, no unit failed"
	else
		notok "previous shutdown of thpswap.service and dev-thpswap0.swap"
		diag <<< "$prev"
	fi
	after=$(systemctl show -p After --value thpswap.service)
	check "thpswap.service is ordered after dev-thpswap0.swap (stops before it)" \
		grep -qw 'dev-thpswap0.swap' <<< "$after"
	check "dev-thpswap0.swap is a loaded unit" \
		[ "$(systemctl show -p LoadState --value dev-thpswap0.swap)" = loaded ]

	# --- reload: a device added, then removed; thpswap0 untouched --------
	u0=$(swap_uuid thpswap0)
	write_conf 'thpswap1   size=64M priority=50
'
	rc=0
	timed reload-add systemctl reload thpswap || rc=$?
	if [ "$rc" = 0 ] && swapped_on thpswap1 && [ "$(swap_prio thpswap1)" = 50 ] &&
	   [ "$(swap_uuid thpswap0)" = "$u0" ] && [ "$(unit_state)" = active ]; then
		ok "reload with thpswap1 added: thpswap1 swapped on (priority 50), thpswap0 untouched"
	else
		notok "reload with thpswap1 added (exit $rc)"; diag < /tmp/out; show_unit
	fi
	write_conf
	rc=0
	timed reload-remove systemctl reload thpswap || rc=$?
	if [ "$rc" = 0 ] && ! swapped_on thpswap1 && [ ! -e /sys/block/thpswap1 ] &&
	   [ "$(swap_uuid thpswap0)" = "$u0" ] && swapped_on thpswap0; then
		ok "reload with thpswap1's line gone: thpswap1 swapped off and removed, thpswap0 untouched"
	else
		notok "reload with thpswap1's line gone (exit $rc)"; show_unit
	fi
	write_conf 'thpswap9   size=banana
'
	rc=0
	systemctl reload thpswap > /dev/null 2>&1 || rc=$?
	if [ "$rc" != 0 ] && [ "$(unit_state)" = active ] && [ "$(swap_uuid thpswap0)" = "$u0" ]; then
		ok "reload with a bad line fails and changes nothing: unit active, thpswap0 untouched"
	else
		notok "reload with a bad line (exit $rc, unit $(unit_state))"
	fi

	# --- restart with a bad line: teardown still undoes setup ------------
	rc=0
	systemctl restart thpswap > /dev/null 2>&1 || rc=$?
	line=$(grep -n thpswap9 "$conf" | cut -d: -f1)
	if [ "$rc" != 0 ] && [ "$(unit_state)" = failed ] && ! swapped_on thpswap0 &&
	   [ ! -e /sys/block/thpswap0 ] &&
	   journalctl -b -u thpswap.service -o cat --no-pager | grep -q "thpswap.conf:$line: bad size 'banana'"; then
		ok "restart with a bad line: the stop swapped off and removed thpswap0, the start failed naming line $line"
	else
		notok "restart with a bad line (exit $rc, unit $(unit_state))"; show_unit
		grep thpswap /proc/swaps | diag || true
	fi
	rc=0
	systemctl stop thpswap > /dev/null 2>&1 || rc=$?
	if [ "$rc" = 0 ] && ! swapped_on thpswap0 && [ ! -e /sys/block/thpswap0 ]; then
		ok "a stop after it: exit 0, no thpswap swap left"
	else
		notok "a stop after the failed restart (exit $rc)"
	fi
	write_conf
	systemctl start thpswap || true
	up_with_thpswap0 "line fixed, started again"

	# --- stop with swap in use that does not fit in memory --------------
	# A service limited to 48 MiB with 200 MiB, so ~150 MiB sit in thpswap0;
	# then a tmpfs file takes the memory available below that.
	# 1 MiB at a time, so reclaim keeps up with it.
	systemd-run -q --unit=hog -p MemoryMax=48M -p MemorySwapMax=infinity \
		perl -e 'push @a, "x" x (1 << 20) for 1 .. 200; sleep 3600'
	if wait_for 180 bash -c '[ "$(awk '\''$1 == "/dev/thpswap0" { print $4 }'\'' /proc/swaps)" -gt 122880 ]'; then
		ok "a memory-limited service has $(( $(swap_used_kb thpswap0) / 1024 )) MiB in thpswap0"
	else
		notok "the hog did not push 120 MiB into thpswap0 ($(swap_used_kb thpswap0) KiB, hog $(systemctl show -p ActiveState --value hog.service))"
		{ journalctl -b -k -o cat --no-pager | grep -iE -A3 'oom|killed' | tail -n 12; grep -E 'Mem|Swap' /proc/meminfo; } | diag || true
	fi
	used=$(( $(swap_used_kb thpswap0) / 1024 ))
	mkdir -p /mnt/fill && mount -t tmpfs -o size=90% fill /mnt/fill
	fill=$(( $(meminfo_mb MemAvailable) - used / 2 ))
	[ "$fill" -gt 0 ] && dd if=/dev/zero of=/mnt/fill/f bs=1M count="$fill" status=none
	echo "# swap used ${used} MiB, MemAvailable now $(meminfo_mb MemAvailable) MiB"
	# With packages whose teardown swaps off anyway, the swapoff OOM-kills
	# the hog and then wants the memory the tmpfs file holds: free it once
	# the hog is gone (bounded poll while the stop runs), or the guest
	# deadlocks on memory and the phase's results are lost.
	rc=0 t0=$SECONDS end=$((SECONDS + 300))
	systemctl stop thpswap > /tmp/out 2>&1 &
	stop_pid=$!
	while kill -0 "$stop_pid" 2> /dev/null && [ "$SECONDS" -lt "$end" ]; do
		if [ "$(systemctl show -p ActiveState --value hog.service)" != active ]; then
			rm -f /mnt/fill/f
			break
		fi
		sleep 0.2
	done
	wait "$stop_pid" || rc=$?
	echo "# time stop-refused $((SECONDS - t0))"
	j=$(journalctl -b -u thpswap.service -o cat --no-pager | tail -n 8)
	if [ "$(unit_state)" = failed ] && swapped_on thpswap0 &&
	   [ "$(systemctl show -p ActiveState --value hog.service)" = active ] &&
	   grep -q 'refusing to tear down' <<< "$j" && grep -q 'teardown --force' <<< "$j"; then
		ok "stop with more swap in use than memory available: refused (unit failed, says why and --force), thpswap0 on, the service alive"
	else
		notok "stop with swap in use (unit $(unit_state), hog $(systemctl show -p ActiveState --value hog.service))"
		diag <<< "$j"
		journalctl -b -k -o cat --no-pager | grep -E 'Killed process|oom-kill:' | tail -n 6 | diag || true
	fi
	rc=0
	timed apt-remove-refused "${APT[@]}" remove thpswapctl || rc=$?
	if [ "$rc" != 0 ] && installed thpswapctl && swapped_on thpswap0 &&
	   grep -q 'thpswapctl teardown --force' /tmp/out; then
		ok "apt remove while teardown refuses: fails, thpswapctl kept, the message says what to do"
	else
		notok "apt remove while teardown refuses (exit $rc)"
	fi
	tail -n 12 /tmp/out | diag
	rm -f /mnt/fill/f && umount /mnt/fill
	systemctl stop hog.service 2>/dev/null || true

	# --- remove, purge: nothing loaded, nothing left -------------------
	rc=0
	timed apt-remove "${APT[@]}" remove thpswapctl thpswap-dkms || rc=$?
	if [ "$rc" = 0 ] && ! module_loaded && [ ! -e /dev/thpswap-control ] && ! grep -q thpswap /proc/swaps; then
		ok "apt remove: exit 0, no swap, module unloaded, no /dev/thpswap-control"
	else
		notok "apt remove (exit $rc): module $(module_loaded && echo loaded || echo unloaded)"
		tail -n 20 /tmp/out | diag
	fi
	rc=0
	"${APT[@]}" purge thpswapctl thpswap-dkms > /tmp/out 2>&1 || rc=$?
	if [ "$rc" = 0 ] && ! module_loaded && [ ! -e "$conf" ] && ! installed thpswapctl && ! installed thpswap-dkms; then
		ok "apt purge: exit 0, no module loaded, /etc/thpswap.conf gone"
	else
		notok "apt purge (exit $rc)"; tail -n 20 /tmp/out | diag
	fi
	;;

dkms-first)
	use_repo
	if ! installed thpswapctl && ! module_loaded && [ ! -e /lib/systemd/system/thpswap.service ]; then
		ok "after purge and a reboot: no thpswap package, unit or module"
	else
		notok "after purge and a reboot, thpswap is still there"
	fi
	write_conf
	rc=0
	timed "apt-install-thpswap-dkms-dkms-build" "${APT[@]}" install "$H"/debs/thpswap-dkms_*.deb || rc=$?
	check "apt installs thpswap-dkms with the headers there (DKMS builds it): exit 0" [ "$rc" = 0 ]
	check "dkms status: thpswap installed for $kver" dkms_installed
	rc=0
	timed "apt-install-thpswapctl" "${APT[@]}" install "$H"/debs/thpswapctl_*.deb || rc=$?
	check "apt installs thpswapctl after it: exit 0" [ "$rc" = 0 ]
	up_with_thpswap0 "when apt returns, thpswap.service is active and thpswap0 swapped on"
	rc=0
	timed apt-purge-up "${APT[@]}" purge thpswapctl thpswap-dkms || rc=$?
	if [ "$rc" = 0 ] && ! module_loaded && ! grep -q thpswap /proc/swaps; then
		ok "apt purge with the service up: exit 0, swap off, module unloaded"
	else
		notok "apt purge with the service up (exit $rc)"; tail -n 20 /tmp/out | diag
	fi
	;;

*)
	notok "unknown phase '$phase'"
	;;
esac
