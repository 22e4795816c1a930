#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow: what an unprivileged user can make thpswap do (issue 15).
# Run with --mem 5120 --append 'memmap=512M!4G': the memmap device is where
# a physical address could leak.  As uid 65534 (nobody):
#  - loading the module through the genl family alias allocates nothing;
#  - 500 concurrent reads of every sysfs file finish quickly and cost no
#    memory (copy_bw_mbps is a stored figure);
#  - no physical address reaches it (CLI over both transports, sysfs, the
#    module parameter, DEV_NEW events), while root still sees it;
#  - root of its own user namespace is refused every change;
#  - a long `add` by root does not hold up a generic netlink lookup, and a
#    killed `add` leaves nothing behind;
#  - a cluster dump racing a remove and re-add of its device is flagged;
#  - a forged event sent to a listener's socket is not taken for real.
# Flat TAP on stdout; exits non-zero if anything failed.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check DESCRIPTION COMMAND...
	desc=$1; shift
	if out=$("$@" 2>&1); then ok "$desc"; else notok "$desc"; echo "$out" | sed 's/^/# /' | head -20; fi
}
# as_nobody COMMAND: run a shell command line as uid/gid 65534.
as_nobody() { su -s /bin/sh nobody -c "$1"; }
avail_kb() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
# Hundredths of a second since boot (busybox date has no %N).
now_cs() { awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime; }
loaded() { [ -d /sys/module/thpswap ]; }
PHYS=0x100000000
# Every spelling of the range's address a tool might print.
PHYS_RE='0x100000000|4294967296|100000000'

grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
echo "TAP version 13"

# ---- 1. autoload allocates nothing ------------------------------------
check "module not loaded yet" sh -c '! [ -d /sys/module/thpswap ]'
before=$(avail_kb)
as_nobody 'thpswapctl list' > /tmp/list.out 2>&1
after=$(avail_kb)
check "nobody's 'thpswapctl list' autoloaded the module" loaded
check "the autoload created no device" sh -c '! ls /sys/block | grep -q thpswap'
drop=$((before - after))
echo "# MemAvailable dropped by $drop kB on the autoload"
check "MemAvailable dropped by less than 32 MiB ($drop kB)" test "$drop" -lt 32768
check "rmmod thpswap" rmmod thpswap
check "plain modprobe creates no device" sh -c \
	'modprobe thpswap && ! ls /sys/block | grep -q thpswap && rmmod thpswap'
check "modprobe num_devices=2 size=8M gives two devices" sh -c \
	'modprobe thpswap num_devices=2 size=8M && test -b /dev/thpswap0 && test -b /dev/thpswap1 && ! test -e /dev/thpswap2 && rmmod thpswap'
check "modprobe size=64M alone gives one 64 MiB device" sh -c \
	'modprobe thpswap size=64M && test "$(cat /sys/block/thpswap0/size)" -eq 131072 && ! test -e /dev/thpswap1 && rmmod thpswap'
# 2^64 + 8 MiB: memparse() wrapped it to a valid 8 MiB.
check "size=18446744073717940224 (2^64 + 8M) is refused, not wrapped" sh -c \
	'! modprobe thpswap size=18446744073717940224 && ! [ -d /sys/module/thpswap ]'
check "size=16E is refused (does not fit in 64 bits)" sh -c '! modprobe thpswap size=16E'

# ---- 3. physical addresses ------------------------------------------------
check "modprobe thpswap size=512M backing_phys=$PHYS" \
	modprobe thpswap size=512M backing_phys=$PHYS
check "root sees the address in sysfs" grep -qx "memmap $PHYS" /sys/block/thpswap0/thpswap/backing
check "root sees the address in 'stats' (netlink)" sh -c "thpswapctl stats thpswap0 | grep -qi '$PHYS'"
check "root sees the address in 'stats' (ioctl)" sh -c "thpswapctl --ioctl stats thpswap0 | grep -qi '$PHYS'"
check "the module parameter is 0400" sh -c \
	'test "$(stat -c %a /sys/module/thpswap/parameters/backing_phys)" = 400'
for c in "stats thpswap0" "--json stats thpswap0" "--ioctl stats thpswap0" \
	 "--ioctl --json stats thpswap0" "dump" "--ioctl dump" "list" "--json list"; do
	as_nobody "thpswapctl $c" > /tmp/out 2>&1
	rc=$?
	if [ "$rc" = 0 ] && ! grep -Eqi "$PHYS_RE" /tmp/out; then
		ok "nobody's 'thpswapctl $c' shows no physical address"
	else
		notok "nobody's 'thpswapctl $c' shows no physical address (exit $rc)"
		sed 's/^/# /' /tmp/out | head -5
	fi
done
check "nobody's sysfs backing says memmap, without the address" \
	as_nobody 'grep -qx memmap /sys/block/thpswap0/thpswap/backing'
check "nobody cannot read the backing_phys parameter" \
	as_nobody '! cat /sys/module/thpswap/parameters/backing_phys'
check "nobody's INFO ioctl and netlink DEV_GET carry no address" \
	as_nobody 'thpswap-harden phys 0'
check "root's INFO ioctl and netlink DEV_GET carry the address" \
	thpswap-harden phys 0 $PHYS
# DEV_NEW to a listener that is nobody: a second memmap-free device will
# not do, the address is what matters: remove and re-add the memmap one.
check "remove thpswap0" thpswapctl remove thpswap0
as_nobody 'thpswap-harden listen-new' > /tmp/listen.out 2>&1 &
lpid=$!
# The listener says when it has joined; no sleep.
i=0; while ! grep -q '^joined' /tmp/listen.out && [ $i -lt 100000 ]; do i=$((i + 1)); done
check "re-add the memmap device" thpswapctl add --size 512M --memmap $PHYS
wait $lpid
rc=$?
sed 's/^/# /' /tmp/listen.out
check "the DEV_NEW event nobody received carries no address" \
	sh -c "[ $rc = 0 ] && grep -q '^dev_new index 0 phys none' /tmp/listen.out"

# ---- 2. sysfs reads by anyone cost nothing --------------------------------
sys=/sys/block/thpswap0/thpswap
check "copy_bw_mbps is a figure > 0" test "$(cat $sys/copy_bw_mbps)" -gt 0
bw1=$(cat $sys/copy_bw_mbps); bw2=$(cat $sys/copy_bw_mbps)
check "copy_bw_mbps is measured once ($bw1 = $bw2)" test "$bw1" = "$bw2"
# The same 500 processes reading four sysfs files of the block layer first:
# what forking and kernfs cost on this kernel (seconds and tens of MiB on
# the debug kernel, with KASAN's quarantine and kmemleak), so that only
# what thpswap's own files add is judged.
readers() {	# readers FILE...: sets ms and drop (kB of MemAvailable)
	before=$(avail_kb)
	as_nobody "thpswap-harden readers 500 $*" > /tmp/readers.out 2>&1
	rc=$?
	after=$(avail_kb)
	drop=$((before - after))
	ms=$(sed -n 's/.*files: \([0-9]*\) ms.*/\1/p' /tmp/readers.out)
	ms=${ms:-99999}
	echo "# $(cat /tmp/readers.out); MemAvailable $before -> $after kB"
}
blk=/sys/block/thpswap0
readers $blk/size $blk/ro $blk/removable $blk/range
base_ms=$ms base_drop=$drop base_rc=$rc
readers $sys/stats $sys/clusters $sys/copy_bw_mbps $sys/backing
# Before the fix: 500 x 50 ms of copying, one at a time, at the least.
check "500 concurrent readers of every sysfs file, as nobody, took under 10 s more than of the block layer's ($ms ms against $base_ms ms)" \
	test "$rc" = 0 -a "$base_rc" = 0 -a $((ms - base_ms)) -lt 10000
check "...and MemAvailable dropped by under 32 MiB more ($drop kB against $base_drop kB)" \
	test $((drop - base_drop)) -lt 32768

# ---- user namespaces ------------------------------------------------------
if [ ! -e /proc/self/ns/user ]; then
	ok "user namespaces # SKIP this kernel has no CONFIG_USER_NS"
elif as_nobody 'unshare -U -r id -u' 2>/dev/null | grep -qx 0; then
	for c in "add --size 8M" "remove thpswap0" "reset thpswap0" \
		 "--ioctl add --size 8M" "--ioctl remove thpswap0" "--ioctl reset thpswap0"; do
		check "userns root is refused 'thpswapctl $c'" \
			as_nobody "! unshare -U -r thpswapctl $c"
	done
	check "userns root cannot reset through sysfs" \
		as_nobody "! unshare -U -r sh -c 'echo 1 > $sys/reset_stats'"
	# uid 0 passes the file's mode (0200): the capability is what counts.
	check "root's own user namespace cannot reset through sysfs either" \
		sh -c "! unshare -U -r sh -c 'echo 1 > $sys/reset_stats'"
	check "still exactly one device" sh -c 'test -b /dev/thpswap0 && ! test -e /dev/thpswap1'
else
	notok "nobody can create a user namespace (unshare -U -r)"
fi

# ---- 4. a long add blocks nobody else; a killed one leaves nothing ----------
check "remove thpswap0" thpswapctl remove thpswap0
before=$(avail_kb)
thpswapctl add --size 1536M > /tmp/add.out 2>&1 &
apid=$!
# In progress: a quarter of it allocated, and still running.
i=0
while kill -0 $apid 2>/dev/null && [ $((before - $(avail_kb))) -lt 393216 ]; do i=$((i + 1)); done
t0=$(now_cs)
thpswapctl list > /tmp/list2.out 2>&1
lrc=$?
t1=$(now_cs)
if kill -0 $apid 2>/dev/null; then running=yes; else running=no; fi
echo "# 'thpswapctl list' during the add: $(( (t1 - t0) * 10 )) ms, add still running: $running"
check "a family lookup and dump during a long add returned (exit $lrc) while it still ran" \
	test "$lrc" = 0 -a "$running" = yes
wait $apid
check "the long add completed" grep -qx thpswap0 /tmp/add.out
# ---- 5. the memory budget counts every device --------------------------------
total_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
more=$(( (total_mb * 3 / 4 - 1536 + 64) / 2 * 2 ))	# a multiple of 2 MiB
thpswapctl add --size ${more}M > /tmp/add2.out 2>&1
rc=$?
sed 's/^/# /' /tmp/add2.out
check "a second device taking the RAM devices past 3/4 of RAM ($more MiB) is refused" \
	sh -c "[ $rc = 1 ] && grep -q 'RAM devices would pass 3/4 of RAM' /tmp/add2.out && ! test -e /dev/thpswap1"
thpswapctl --ioctl add --size ${more}M > /tmp/add2.out 2>&1
rc=$?
check "...over ioctl as well (exit $rc)" sh -c "[ $rc = 1 ] && ! test -e /dev/thpswap1"
check "remove it" thpswapctl remove thpswap0
before=$(avail_kb)
thpswapctl add --size 1536M > /tmp/add.out 2>&1 &
apid=$!
i=0
while kill -0 $apid 2>/dev/null && [ $((before - $(avail_kb))) -lt 393216 ]; do i=$((i + 1)); done
kill -9 $apid
wait $apid
after=$(avail_kb)
echo "# killed add: MemAvailable $before -> $after kB"
check "a killed add created no device" sh -c '! ls /sys/block | grep -q thpswap'
check "...and gave its memory back (within 64 MiB)" test $((before - after)) -lt 65536

# ---- 6. a dump racing remove/re-add ---------------------------------------
check "add thpswap0 of 64 MiB" thpswapctl add --size 64M
check "a cluster dump across a remove and re-add is flagged DUMP_INTR" \
	thpswap-harden dump-race 0
thpswapctl remove thpswap0 > /dev/null 2>&1

# ---- 8. forged events -----------------------------------------------------
thpswapctl watch --json > /tmp/watch.out 2>&1 &
wpid=$!
check "a forged DEV_NEW sent to watch's socket was delivered" thpswap-harden forge $wpid
check "add a real device" thpswapctl add --size 8M --index 3
i=0; while ! grep -q '"thpswap3"' /tmp/watch.out && [ $i -lt 200000 ]; do i=$((i + 1)); done
kill $wpid; wait $wpid 2>/dev/null
grep '"event"' /tmp/watch.out | sed 's/^/# /' | head -10
check "watch reported the real event" grep -q '"thpswap3"' /tmp/watch.out
check "watch ignored the forged one (thpswap42)" sh -c '! grep -q thpswap42 /tmp/watch.out'
thpswapctl remove thpswap3 > /dev/null 2>&1

check "rmmod thpswap" rmmod thpswap
echo "1..$n"
[ "$failed" -eq 0 ]
