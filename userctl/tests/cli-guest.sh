#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow for thpswapctl (busybox ash, run as root in the test VM):
# add/remove over both transports, --json and dump against sysfs (the
# kernel-reported fallback reasons and swap-in counters too), netlink and ioctl
# agreeing, map, watch events, and the errors and exit codes of a missing
# device, a busy device and an unprivileged caller.  TAP on stdout; exits
# non-zero if any step failed.
#
#   tests/vm/run --add userctl/thpswapctl --script userctl/tests/cli-guest.sh \
#       [-- THPSWAP_EXPECT_PATCHED=1]
#
# THPSWAP_EXPECT_PATCHED=1 (tests/check on the patched kernel): the stock
# kernel's branch ("fallback reasons not reported") is then a failure.
for arg in "$@"; do
	case "$arg" in
	THPSWAP_*=*) export "$arg" ;;
	*) echo "Bail out! unknown argument '$arg'"; exit 2 ;;
	esac
done
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
show() { sed 's/^/# /' /tmp/out /tmp/err 2>/dev/null | head -20; }
check() {	# check DESCRIPTION COMMAND...
	desc=$1; shift
	if "$@" > /tmp/out 2> /tmp/err; then ok "$desc"; else notok "$desc"; show; fi
}
# expect RC DESCRIPTION COMMAND...: the command exits with RC.
expect() {
	want=$1 desc=$2; shift 2
	"$@" > /tmp/out 2> /tmp/err
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else notok "$desc (exit $rc, wanted $want)"; show; fi
}
# jnum KEY FILE: the first "KEY": NUMBER in pretty-printed JSON.
jnum() { sed -n "s/^ *\"$1\": \([0-9]*\),\{0,1\}$/\1/p" "$2" | head -1; }
sysstat() { sed -n "s/^$1 //p" /sys/block/thpswap0/thpswap/stats; }
syscl() { sed -n "s/^$1 //p" /sys/block/thpswap0/thpswap/clusters; }
# Reported by kernels with the patches/ series, 0 on stock ones; dump
# columns 30-36 in this order.
KSTATS="fallback_no_cluster fallback_memcg fallback_nomem kernel_events thp_swpin thp_swpin_fallback swapin_whole"
# and columns 38-40 (swapin_enabled=auto's decisions), 41-42 (swap-out
# of THPs that only PTEs map, patches/0011), 43 (THPs that fork shared,
# swapped in whole, patches/0012), 44 (the collapse read, patches/0013),
# 45 (THPs mapped by another thread, patches/0014)
KSTATS2="thp_swpin_declined thp_swpin_promoted thp_swpin_promote_fallback thp_swpout_pte_mapped thp_split_reclaim thp_swpin_shared thp_swpin_collapse_read thp_swpin_handoff"

echo "TAP version 13"
# su needs an unprivileged user to become.
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >> /etc/group
check "modprobe thpswap size=256M" modprobe thpswap size=256M
for T in "" --ioctl; do
	t=${T:-netlink}; t=${t#--}
	C="thpswapctl $T"
	check "$t: mkswap /dev/thpswap0 (some I/O to count)" mkswap /dev/thpswap0

	check "$t: list shows thpswap0, 256 MiB, not swapped on" sh -c "$C list | grep -Eq '^thpswap0 +256 MiB +- '"
	check "$t: stats 0 --json" $C stats 0 --json
	cp /tmp/out /tmp/stats.json
	bad=
	# (a key missing from both sides would compare equal: require it)
	for k in thp_writes thp_reads page_writes page_reads bytes_written bytes_read discards slot_frees rejected thp_swpout thp_swpout_fallback; do
		j=$(jnum $k /tmp/stats.json) v=$(sysstat $k)
		{ [ -n "$j" ] && [ "$j" = "$v" ]; } || bad="$bad $k=${j:-missing}/${v:-missing}"
	done
	for k in total free huge split small; do
		j=$(jnum $k /tmp/stats.json) v=$(syscl $k)
		{ [ -n "$j" ] && [ "$j" = "$v" ]; } || bad="$bad clusters.$k=${j:-missing}/${v:-missing}"
	done
	if [ -z "$bad" ] && [ "$(jnum bytes_written /tmp/stats.json)" -gt 0 ]; then
		ok "$t: --json counters equal /sys/block/thpswap0/thpswap/stats"
	else
		notok "$t: --json counters equal sysfs:$bad"
	fi
	# The kernel-reported ones: present in both, and equal.
	kbad=
	for k in $KSTATS $KSTATS2; do
		j=$(jnum $k /tmp/stats.json) v=$(sysstat $k)
		{ [ -n "$j" ] && [ -n "$v" ] && [ "$j" = "$v" ]; } || kbad="$kbad $k=${j:-missing}/${v:-missing}"
	done
	if [ -z "$kbad" ]; then
		ok "$t: --json fallback_*, kernel_events, thp_swpin*, swapin_whole equal sysfs"
	else
		notok "$t: --json kernel-reported stats equal sysfs:$kbad"
	fi
	if [ "$(grep -c '^ *"global": {$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_swpin": [0-9]*,$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_swpin_fallback": [0-9]*,$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_swpin_promote_fallback": [0-9]*,$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_split_reclaim": [0-9]*,$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_swpin_shared": [0-9]*,$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_swpin_collapse_read": [0-9]*,$' /tmp/stats.json)" = 2 ] &&
	   [ "$(grep -c '^ *"thp_swpin_handoff": [0-9]*$' /tmp/stats.json)" = 2 ]; then
		ok "$t: --json: thp_swpin(_fallback) in the device's and the top-level global object"
	else
		notok "$t: --json: thp_swpin(_fallback) twice"; sed 's/^/# /' /tmp/stats.json | tail -20
	fi
	check "$t: stats 0" $C stats 0
	if [ "$(sysstat kernel_events)" = 0 ] && ! grep -q '"authoritative": true' /tmp/stats.json; then
		# a stock kernel: one line instead of counters that would all read 0
		if [ "${THPSWAP_EXPECT_PATCHED:-0}" = 1 ]; then
			notok "$t: stats: THPSWAP_EXPECT_PATCHED=1, but the device does not take its states from the kernel"; show
		elif grep -q '^  fallback reasons  *not reported  by the kernel' /tmp/out &&
		   ! grep -q '^  fallback_\|^  swapin_whole ' /tmp/out && grep -q '^  kernel_events  *0 ' /tmp/out; then
			ok "$t: stats: the kernel does not report fallback reasons (stock kernel)"
		else
			notok "$t: stats on a stock kernel"; show
		fi
	elif grep -q "^  fallback_no_cluster  *$(sysstat fallback_no_cluster) " /tmp/out &&
	     grep -q "^  swapin_whole  *[0-9.kM]* " /tmp/out && ! grep -q 'not reported' /tmp/out; then
		ok "$t: stats: the kernel's fallback reasons and swapin_whole"
	else
		notok "$t: stats on a reporting kernel"; show
	fi
	if grep -q "^  thp_swpin  *[0-9.kM]*  THPs swapped in whole$" /tmp/out &&
	   grep -q "^  thp_swpin_fallback  *[0-9.kM]*  THP swap-ins that fell back to 4 KiB pages$" /tmp/out &&
	   grep -q "^  thp_swpout_fallback  *[0-9.kM]*  THPs split before swap-out$" /tmp/out; then
		ok "$t: stats: thp_swpin and thp_swpin_fallback among the vm events"
	else
		notok "$t: stats: the vm events"; show
	fi

	expect 0 "$t: add --size 64M" $C add --size 64M
	dev=$(cat /tmp/out)
	if [ "$dev" = thpswap1 ] && [ -b /dev/thpswap1 ] && [ "$(cat /sys/block/thpswap1/size)" = 131072 ]; then
		ok "$t: add printed thpswap1, a 64 MiB block device"
	else
		notok "$t: add printed '$dev'"
	fi
	expect 0 "$t: add --size 8M --index 5" $C add --size 8M --index 5
	check "$t: list shows three devices" sh -c "[ \$($C dump | wc -l) = 3 ]"
	expect 1 "$t: add to a taken index fails" $C add --size 8M --index 5
	grep -q "File exists" /tmp/err || { notok "$t: EEXIST named"; show; }
	expect 1 "$t: add of 3 MiB fails" $C add --size 3M
	if grep -q "adding a 3 MiB device: [^:]*: .*[Ss][Ii][Zz][Ee]" /tmp/err; then
		ok "$t: the error explains itself: $(cat /tmp/err)"
	else
		notok "$t: no explanation naming the size after the errno"; show
	fi
	# No device can have an index past 63: bad usage on both transports,
	# refused before anything is created (4294967295 was -1 over ioctl).
	expect 2 "$t: add at index 4294967295 is bad usage" $C add --size 8M --index 4294967295
	expect 2 "$t: stats of index 64 is bad usage" $C stats 64
	expect 2 "$t: add at index 64 is bad usage" $C add --size 8M --index 64
	if grep -q "bad index '64': want 0-63" /tmp/err; then
		ok "$t: the error names the index: $(cat /tmp/err)"
	else
		notok "$t: no explanation naming the index"; show
	fi
	expect 0 "$t: remove /dev/thpswap5" $C remove /dev/thpswap5
	expect 0 "$t: remove thpswap1" $C remove thpswap1
	check "$t: removed devices are gone" sh -c '! [ -e /dev/thpswap1 ] && ! [ -e /dev/thpswap5 ]'
	expect 3 "$t: stats of a missing device exits 3" $C stats thpswap9
	grep -q thpswap9 /tmp/err || { notok "$t: the missing device is named"; show; }
	expect 3 "$t: remove of a missing device exits 3" $C remove 9
	expect 2 "$t: a malformed DEV exits 2" $C remove sda

	check "$t: map 0" $C map 0 --width 64
	if [ "$(grep -c '^ *[0-9]* [.HSs]*$' /tmp/out)" = 2 ] && grep -q '^legend:' /tmp/out &&
	   ! grep -q "$(printf '\033')" /tmp/out; then
		ok "$t: map: two rows of 64 clusters, a legend, no colour in a pipe"
	else
		notok "$t: map output"; show
	fi
	check "$t: clusters 0 --json" $C clusters 0 --json
	cp /tmp/out /tmp/cl.json
	sum=$(sed -n 's/^ *"count": \([0-9]*\),*$/\1/p' /tmp/cl.json | awk '{ s += $1 } END { print s }')
	if [ "$sum" = 128 ]; then ok "$t: cluster runs cover the device"; else
		notok "$t: cluster runs cover $sum clusters, not 128"; sed 's/^/# /' /tmp/cl.json | head; fi
	check "$t: human list, stats, clusters" sh -c "$C && $C stats && $C clusters 0"
	sed 's/^/# /' /tmp/out

	check "$t: swapon /dev/thpswap0" swapon /dev/thpswap0
	expect 1 "$t: remove of a swapped-on device fails" $C remove 0
	if grep -q "Device or resource busy" /tmp/err && grep -q "swapoff" /tmp/err; then
		ok "$t: EBUSY named, with a swapoff hint"
	else
		notok "$t: EBUSY message"; show
	fi
	check "$t: list shows swap in use" sh -c "$C dump 0 | awk -F'\t' '\$6 == 1 && \$16 == 1 { ok = 1 } END { exit !ok }'"
	check "$t: swapoff" swapoff /dev/thpswap0

	if [ "$t" = netlink ]; then
		expect 0 "$t: an unprivileged user can read" su -s /bin/sh nobody -c "$C list"
	fi
	expect 1 "$t: unprivileged add fails" su -s /bin/sh nobody -c "$C add --size 8M"
	grep -q "Operation not permitted\|Permission denied" /tmp/err || { notok "$t: EPERM named"; show; }
	expect 1 "$t: unprivileged remove fails" su -s /bin/sh nobody -c "$C remove 0"
	expect 1 "$t: unprivileged reset fails" su -s /bin/sh nobody -c "$C reset 0"
	check "$t: thpswap0 survived" test -b /dev/thpswap0
	expect 0 "$t: reset 0 as root" $C reset 0
	check "$t: counters are zero after reset" sh -c "[ \"\$(sed -n 's/^bytes_written //p' /sys/block/thpswap0/thpswap/stats)\" = 0 ]"
done

# Both transports report the same, idle, after a swap cycle.
if command -v thpswap-mem > /dev/null; then
	check "mkswap + swapon" sh -c 'mkswap /dev/thpswap0 && swapon /dev/thpswap0'
	# watch refreshes every 0.5 s: wait for its first refresh, run the
	# cycle, wait for one refresh after it.  (Cluster events are not
	# required: a cycle shorter than the 100 ms event coalescing shows
	# only its end state, free.)
	thpswapctl watch 0 --interval 0.5 > /tmp/watch.out 2> /tmp/watch.err &
	wpid=$!
	refreshes() { grep -c 'thp out' /tmp/watch.out; }
	wait_refreshes() {	# wait_refreshes N: up to 20 s for N refreshes
		i=0
		while [ "$(refreshes)" -lt "$1" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	}
	wait_refreshes 1
	check "a 32 MiB THP swap cycle" thpswap-mem --size 32 --cycles 1 --dev thpswap0 --quiet
	wait_refreshes $(($(refreshes) + 1))
	kill "$wpid"
	wait "$wpid" 2> /dev/null
	if grep -q 'thp out [0-9]* (+[1-9]' /tmp/watch.out &&
	   grep 'thp out' /tmp/watch.out | tail -n1 | grep -q 'thp out 16 '; then
		ok "watch during the cycle: THP out grows to 16"
	else
		notok "watch during the cycle"; sed 's/^/# /' /tmp/watch.out /tmp/watch.err | head -30
	fi
	check "swapoff" swapoff /dev/thpswap0
else
	for i in 1 2 3 4; do ok "swap cycle # SKIP no thpswap-mem in the guest"; done
fi
thpswapctl dump > /tmp/nl.dump 2>&1
thpswapctl --ioctl dump > /tmp/io.dump 2>&1
if cmp -s /tmp/nl.dump /tmp/io.dump; then ok "netlink and ioctl dump agree"; else
	notok "netlink and ioctl dump agree"; sed 's/^/# nl: /' /tmp/nl.dump; sed 's/^/# io: /' /tmp/io.dump; fi
want=$(for k in $KSTATS; do sysstat $k; done | tr '\n' ' ')
want2=$(for k in $KSTATS2; do sysstat $k; done | tr '\n' ' ')
got=$(awk -F'\t' '$1 == "thpswap0" { print NF; for (i = 30; i <= 45; i++) print $i }' /tmp/nl.dump | tr '\n' ' ')
# 37: the node, -1 (not bound to one)
if [ "$got" = "45 $want-1 $want2" ]; then ok "dump: 45 columns, 30-36 and 38-45 equal sysfs ($want/ $want2), node -1"; else
	notok "dump columns 30-45: '$got', sysfs '$want-1 $want2'"; sed 's/^/# /' /tmp/nl.dump; fi
# The cycle under the default policy (auto): its first THP declined, then
# promoted, so columns 38 and 39 are not 0 on the patched kernel.
if [ "${THPSWAP_EXPECT_PATCHED:-0}" = 1 ]; then
	set -- $want2
	if [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ]; then ok "dump: the swap cycle's auto decisions counted (declined $1, promoted $2)"; else
		notok "dump: no auto decision counted after the swap cycle ('$want2')"; fi
fi
# After the swap cycle (non-zero on a kernel that reports them), --json again.
for T in "" --ioctl; do
	t=${T:-netlink}; t=${t#--}
	thpswapctl $T stats 0 --json > /tmp/stats.json 2> /tmp/err
	kbad=
	for k in $KSTATS $KSTATS2; do
		j=$(jnum $k /tmp/stats.json) v=$(sysstat $k)
		{ [ -n "$j" ] && [ "$j" = "$v" ]; } || kbad="$kbad $k=${j:-missing}/${v:-missing}"
	done
	if [ -z "$kbad" ]; then ok "$t: after a swap cycle, --json kernel-reported stats equal sysfs ($want)"; else
		notok "$t: after a swap cycle, --json:$kbad"; fi
done
thpswapctl clusters 0 > /tmp/nl.cl 2>&1
thpswapctl --ioctl clusters 0 > /tmp/io.cl 2>&1
if cmp -s /tmp/nl.cl /tmp/io.cl; then ok "netlink and ioctl clusters agree"; else
	notok "netlink and ioctl clusters agree"; diff /tmp/nl.cl /tmp/io.cl | sed 's/^/# /'; fi

# watch sees a device come and go (netlink events).  watch says on stderr
# when it has joined the events group: wait for that line (bounded by the
# clock, 60 s), not for a guessed time, or a loaded host adds thpswap7
# before watch listens.  Its 3 refreshes 1.5 s apart leave 3 s for the add
# and remove.
uptime_s() { cut -d. -f1 /proc/uptime; }
thpswapctl watch --count 3 --interval 1.5 > /tmp/watch.out 2> /tmp/watch.err &
wpid=$!
t0=$(uptime_s) i=0
until grep -q 'listening for events' /tmp/watch.err || [ $(($(uptime_s) - t0)) -ge 60 ] ||
      ! kill -0 $wpid 2> /dev/null; do
	sleep 0.1	# polling for watch's line, bounded: not synchronisation
	i=$((i + 1))
done
if grep -q 'listening for events' /tmp/watch.err; then
	ok "watch says when it listens"
else
	alive=no; kill -0 $wpid 2> /dev/null && alive=yes
	notok "watch said nothing on stderr in $(($(uptime_s) - t0)) s ($i polls; watch running: $alive)"
	sed 's/^/# stderr: /' /tmp/watch.err
fi
thpswapctl add --size 8M --index 7 > /dev/null 2>&1
thpswapctl remove 7 > /dev/null 2>&1
wait $wpid
wrc=$?
if [ $wrc = 0 ] && grep -q "thpswap7 added" /tmp/watch.out && grep -q "thpswap7 removed" /tmp/watch.out &&
   [ "$(grep -c ' thpswap0 huge' /tmp/watch.out)" = 3 ]; then
	ok "watch --count 3: three refreshes, thpswap7 added and removed"
else
	notok "watch events (exit $wrc)"; sed 's/^/# /' /tmp/watch.out /tmp/watch.err
fi
thpswapctl --ioctl watch --count 2 --interval 0.1 > /tmp/out 2> /tmp/err
if [ $? = 0 ] && [ "$(grep -c ' thpswap0 huge' /tmp/out)" = 2 ] && grep -q "no events" /tmp/err; then
	ok "watch --ioctl: counters only, and says so"
else
	notok "watch --ioctl"; show
fi

check "rmmod thpswap" rmmod thpswap
# (netlink would load the module again through its family alias)
expect 1 "no module: --ioctl list fails with a hint" thpswapctl --ioctl list
grep -q "modprobe thpswap" /tmp/err || { notok "hint names modprobe"; show; }
echo "1..$n"
[ "$failed" -eq 0 ]
