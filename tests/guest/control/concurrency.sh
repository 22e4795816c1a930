#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: the control plane under concurrency, and module autoload.
#  - opening /dev/thpswap-control loads the module (devname alias), and so
#    does a netlink lookup of the family (genl family alias);
#  - while thpswap0 swaps THPs in and out, devices are added and removed
#    over netlink and ioctl and the device list and cluster map are dumped
#    over both transports: every dump must succeed (a torn one is retried
#    or reported as changing, never wrong), the swapped data must verify,
#    and the kernel must stay clean (the harness fails on any report).
# Flat TAP on stdout; exits non-zero if anything failed.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {
	desc=$1; shift
	if out=$("$@" 2>&1); then ok "$desc"; else notok "$desc"; echo "$out" | sed 's/^/# /' | head -20; fi
}
loaded() { [ -d /sys/module/thpswap ]; }

echo "TAP version 13"
# Autoload through the control device node, as udev or kmod static-nodes
# would create it from modules.devname before the module is loaded.
check "modules.devname names thpswap-control" \
	grep -q '^thpswap thpswap-control c10:247$' /lib/modules/$(uname -r)/modules.devname
check "module not loaded yet" sh -c '! [ -d /sys/module/thpswap ]'
[ -e /dev/thpswap-control ] || mknod /dev/thpswap-control c 10 247
check "opening /dev/thpswap-control loads thpswap" sh -c 'exec 3</dev/thpswap-control && [ -d /sys/module/thpswap ]'
check "rmmod thpswap" rmmod thpswap
check "a netlink lookup of the family loads thpswap" sh -c 'thpswapctl list >/dev/null && [ -d /sys/module/thpswap ]'
check "rmmod thpswap again" rmmod thpswap

check "modprobe thpswap size=256M" modprobe thpswap size=256M
check "mkswap + swapon thpswap0" sh -c 'mkswap /dev/thpswap0 >/dev/null && swapon /dev/thpswap0'

# Swap traffic in the background, with every word verified.
thpswap-mem --size 128 --cycles 6 --quiet > /tmp/mem.out 2>&1 &
mempid=$!

# Devices come and go over both transports...
churn() {
	i=0
	while [ $i -lt 40 ]; do
		if [ $((i % 2)) = 0 ]; then t=; else t=--ioctl; fi
		d=$(thpswapctl $t add --size 8M) || { echo "add $i failed"; return 1; }
		thpswapctl $t remove "$d" || { echo "remove $d failed"; return 1; }
		i=$((i + 1))
	done
}
churn > /tmp/churn.out 2>&1 &
churnpid=$!

# ...while the list and the cluster map are dumped over both.
dumps() {	# dumps TRANSPORT-FLAG
	i=0 bad=0
	while [ $i -lt 60 ]; do
		thpswapctl $1 list > /dev/null 2>> /tmp/dump$1.err || bad=$((bad + 1))
		thpswapctl $1 clusters thpswap0 > /tmp/cl$1.out 2>> /tmp/dump$1.err || bad=$((bad + 1))
		# The runs must cover the device exactly: 128 clusters.
		total=$(awk 'NR > 1 { n += $2 } END { print n }' /tmp/cl$1.out)
		[ "$total" = 128 ] || { bad=$((bad + 1)); echo "runs cover $total clusters" >> /tmp/dump$1.err; }
		thpswapctl $1 --json clusters thpswap0 > /dev/null 2>> /tmp/dump$1.err || bad=$((bad + 1))
		i=$((i + 1))
	done
	echo "$bad"
}
dumps "" > /tmp/dumps-nl.out &
nlpid=$!
dumps --ioctl > /tmp/dumps-ioctl.out &
ioctlpid=$!

wait $churnpid; churnrc=$?
wait $nlpid
wait $ioctlpid
wait $mempid; memrc=$?

if [ $churnrc = 0 ]; then ok "40 add/remove pairs over netlink and ioctl during swap"
else notok "add/remove during swap"; sed 's/^/# /' /tmp/churn.out; fi
for t in nl ioctl; do
	bad=$(cat /tmp/dumps-$t.out)
	if [ "$bad" = 0 ]; then ok "60 rounds of list + clusters dumps over $t, all succeeded"
	else notok "$bad of 180 dumps over $t failed"; sed 's/^/# /' /tmp/dump*.err | grep -v 'warning:' | head; fi
done
grep -h 'warning:' /tmp/dump*.err 2>/dev/null | sort | uniq -c | sed 's/^/# torn and reported: /'
# Not only no bad word: each of the 6 cycles swapped all 128 MiB out
# (smaps Swap, pswpout and the device's bytes written), else it was no
# swap cycle.
swapped_cycles() {
	awk '/^cycle=/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		n++
		if (v["swap_kb"] < 131072 || v["pswpout"] < 32768 ||
		    v["dev_bytes_written"] < 134217728) {
			bad++
			print "# cycle " v["cycle"] ": swap_kb " v["swap_kb"] ", pswpout +" v["pswpout"] ", device bytes_written +" v["dev_bytes_written"]
		}
	} END { print "# " n " cycle records, " bad + 0 " not swapped in full"; exit !(n == 6 && !bad) }' /tmp/mem.out
}
if [ $memrc = 0 ] && grep -q '^result=ok bad_words=0 cycles=6 ' /tmp/mem.out &&
   swapped_cycles; then
	ok "6 swap cycles of 128 MiB, all swapped out and verified, during the churn"
else
	notok "swap cycles during the churn (exit $memrc)"; sed 's/^/# /' /tmp/mem.out | tail -5
fi
check "only thpswap0 is left" sh -c '[ "$(ls -d /sys/block/thpswap* | wc -l)" = 1 ]'
check "swapoff + rmmod" sh -c 'swapoff /dev/thpswap0 && rmmod thpswap'
echo "1..$n"
[ "$failed" = 0 ]
