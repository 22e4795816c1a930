#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# programs.sh: real, unmodified Debian programs under memory pressure, with
# their results verified (busybox ash, run as root by tests/vm/run
# --host-root; the programs run in 'chroot /host').  Each workload runs in
# the cgroup v2 /sys/fs/cgroup/prog, whose memory.max is about half of the
# program's working set, THP enabled=always, swap on the device under test.
#
#   tests/vm/run --host-root --mem 2048 \
#       --script tests/guest/programs/programs.sh -- [VAR=VALUE...]
#
# Workloads (WORKLOADS, default "redis sqlite cc magick"):
#   redis   redis-server (disable-thp no) loaded with REDIS_MIB of keys with
#           values of 64 B to 32 KiB, first without a limit (reference
#           DEBUG DIGEST), then again under memory.max = REDIS_MAX_MIB; then
#           redis-benchmark GETs of uniformly random keys and of a hot 10 %.
#           Verified: the digest after loading and after both passes equals
#           the reference, every GET hit (keyspace_misses unchanged).
#           Then BGSAVE while the data set is swapped out (the memcg's
#           memory.reclaim pushes out what it can first): redis forks a
#           child that reads every value, so every swapped-out slot is
#           shared by two processes (patches/0012), and writes the dump to
#           the guest's /tmp (a tmpfs, charged to the memcg).  Verified:
#           the save succeeded, the parent's digest is unchanged, and a
#           second redis-server (outside the memcg) loads the dump to the
#           reference digest.  Its record is wl=bgsave.
#   sqlite  sqlite3 with an in-memory database of SQL_ROWS rows (~2.1 KB
#           each) under memory.max = SQL_MAX_MIB: load, full scan, index
#           range scan, random point lookups.  Verified: PRAGMA
#           integrity_check, every row equal to the formula it was made
#           from, sha3 of the table after loading equal to the one at the
#           end, every point lookup found its row.
#   cc      make -j2 of the objects in CC_DIR (tests/guest/programs/
#           cc-prepare: linux-source-6.1, tinyconfig) under memory.max =
#           CC_MAX_MIB.  Verified: the objects' sha256 equal those of a
#           native build without memory pressure.
#   magick  ImageMagick's convert (one thread) on a MAGICK_PX x MAGICK_PX
#           image (Q16: 8 bytes a pixel, 72 MiB at 3072): seeded noise,
#           then eight whole-image passes (negate, evaluate, level, gamma),
#           and the image's SHA-256 signature; first without a limit, then
#           under memory.max = MAGICK_MAX_MIB.  The dense real program: its
#           memory is one pixel cache, mostly THPs without pressure, every
#           pass reads and writes all of it in order.  Its resource policy
#           (/etc/ImageMagick-6/policy.xml caps the pixel cache at 256 MiB
#           and would move it to a disk file) is replaced, in the guest
#           only, by an empty one.  Verified: the signature under the limit
#           equals the one without.
#
# Variables: KERNEL, CONFIG (labels for the records), DEV (thpswap, pmem or
# zram; default thpswap; pmem is Debian's nd_e820 + nd_pmem on a memmap=
# range of SWAP_MIB, which tests/vm/run --append must give), SWAPIN (a
# value of transparent_hugepage/swapin_enabled, which must then exist;
# empty: leave it), SWAP_MIB
# (default 1024), REPS (default 1), QUICK=1 (the small sizes below),
# GLOBAL=1 (no memory.max: the limits below are what global reclaim leaves
# the machine, see cg_enter_limit),
# REDIS_MIB, REDIS_MAX_MIB, REDIS_GETS, SQL_ROWS, SQL_MAX_MIB, SQL_POINTS,
# CC_DIR, CC_MAX_MIB, MAGICK_PX, MAGICK_MAX_MIB, INJECT (any of redis,
# bgsave, sqlite, cc, magick: corrupt that
# workload's result on purpose, to see its check fail).
# On a kernel with mTHP (Debian's 6.12, 7.3) every size is enabled and
# zswap must be off, as in make bench (mthp.sh, which tests/vm/run --add
# puts on PATH).
#
# Output: TAP ("ok N - ...", "not ok N - ...", "1..N" at the end) and one
# record per workload and repetition, "P kernel=K config=C rep=R wl=W
# key=value...", for bench/programs.  Exit status 0 when every check passed.
set -u

KERNEL=unknown CONFIG=thpswap DEV=thpswap SWAPIN= SWAP_MIB=1024 REPS=1 QUICK=0 GLOBAL=0
WORKLOADS="redis sqlite cc magick" INJECT= CC_DIR=
REDIS_MIB= REDIS_MAX_MIB= REDIS_GETS= SQL_ROWS= SQL_MAX_MIB= SQL_POINTS=
CC_MAX_MIB= MAGICK_PX= MAGICK_MAX_MIB=
for arg in "$@"; do
	case "$arg" in
	KERNEL=*|CONFIG=*|DEV=*|SWAPIN=*|SWAP_MIB=*|REPS=*|QUICK=*|GLOBAL=*|WORKLOADS=*|\
	INJECT=*|CC_DIR=*|REDIS_MIB=*|REDIS_MAX_MIB=*|REDIS_GETS=*|SQL_ROWS=*|\
	SQL_MAX_MIB=*|SQL_POINTS=*|CC_MAX_MIB=*|MAGICK_PX=*|MAGICK_MAX_MIB=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# programs.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
# Sizes: memory.max about half of each program's peak without a limit
# (redis: the data + ~30 %, 127 MB for 96 MiB; sqlite: ~2.3 KB per row;
# cc: two cc1 of up to 100 MB plus the headers' page cache).  Quick:
# ~1 min each under TCG on an idle host; full: a few minutes each.
if [ "$QUICK" = 1 ]; then
	: "${REDIS_MIB:=96}" "${REDIS_MAX_MIB:=64}" "${REDIS_GETS:=3000}"
	: "${SQL_ROWS:=20000}" "${SQL_MAX_MIB:=24}" "${SQL_POINTS:=2000}"
	: "${CC_MAX_MIB:=96}"
	: "${MAGICK_PX:=1536}" "${MAGICK_MAX_MIB:=16}"
else
	: "${REDIS_MIB:=384}" "${REDIS_MAX_MIB:=256}" "${REDIS_GETS:=20000}"
	: "${SQL_ROWS:=80000}" "${SQL_MAX_MIB:=96}" "${SQL_POINTS:=10000}"
	: "${CC_MAX_MIB:=96}"
	: "${MAGICK_PX:=3072}" "${MAGICK_MAX_MIB:=72}"
fi
MODPROBE=/sbin/modprobe
THP=/sys/kernel/mm/transparent_hugepage
CG=/sys/fs/cgroup/prog
SOCK=/tmp/redis.sock
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# check COND-STATUS DESCRIPTION
check() { if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; fi; }
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# incg CMD...: run CMD in the cgroup, chrooted into the host's root.
incg() {
	sh -c 'echo $$ > '"$CG"'/cgroup.procs && exec chroot /host "$@"' sh "$@"
}
host() { chroot /host "$@"; }
injecting() { case " $INJECT " in *" $1 "*) return 0 ;; esac; return 1; }

# vmstat counters around a workload; thp_swpin* exist only on the
# patched kernel ("na" elsewhere, never 0).  The thp_fault_* and split
# counters say where a workload's THPs went: never made (fallback, or
# fallback_charge: the memcg refused the charge), split at the PMD
# (thp_split_pmd), split as folios (thp_split_page; queued for it:
# thp_deferred_split_page; split by reclaim because only partly mapped:
# thp_split_reclaim, patches/0011), or out whole (thp_swpout; of those,
# mapped by PTEs only: thp_swpout_pte_mapped, 0011).
VMKEYS="pswpin pswpout pgmajfault thp_swpout thp_swpout_fallback thp_swpin thp_swpin_fallback
	thp_swpin_shared thp_fault_alloc thp_fault_fallback thp_fault_fallback_charge thp_split_page
	thp_split_pmd thp_deferred_split_page thp_split_reclaim thp_swpout_pte_mapped"
vmsnap() {
	for k in $VMKEYS; do
		v=$(awk -v k="$k" '$1 == k { print $2 }' /proc/vmstat)
		echo "$k=${v:-na}"
	done
}
# vmdelta BEFORE AFTER: "key=delta ..." and the derived figures.
vmdelta() {
	for k in $VMKEYS; do
		a=$(echo "$1" | sed -n "s/^$k=//p")
		b=$(echo "$2" | sed -n "s/^$k=//p")
		if [ "$a" = na ] || [ "$b" = na ]; then printf '%s=na ' "$k"
		else printf '%s=%s ' "$k" $((b - a)); fi
	done
}
# THP retention: the share of the memcg's resident anonymous memory that
# is in THPs, sampled every second while the workload runs (a sampling
# interval, not synchronisation), averaged.
sample_start() {
	: > /tmp/ret.samples
	while :; do
		awk '$1 == "anon" { a = $2 } $1 == "anon_thp" { t = $2 }
		     END { if (a > 1048576) printf "%.1f\n", 100 * t / a }' $CG/memory.stat >> /tmp/ret.samples
		sleep 1
	done &
	sampler=$!
}
sample_stop() {	# prints the mean
	kill $sampler; wait $sampler 2>/dev/null
	awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n; else print "na" }' /tmp/ret.samples
}
cg_fresh() {	# a new cgroup for each run: memory.peak and memory.stat its own
	rmdir $CG 2>/dev/null
	mkdir $CG
}
# The limit a workload runs under.  With a memcg (GLOBAL=0, the default),
# memory.max.  Without one (GLOBAL=1: global reclaim, as on most machines),
# the cgroup only counts, and a process outside it (the hog) mlocks all of
# MemAvailable but MIB, so that the machine's RAM is what memory.max would
# have left: kswapd and direct reclaim of the whole machine do the rest.
# limit_end undoes it (the hog goes) once the limited phase is over.
hog=
cg_enter_limit() {	# cg_enter_limit MIB|max
	limit_end
	if [ "$1" = max ]; then echo max > $CG/memory.max; return; fi
	if [ "$GLOBAL" != 1 ]; then echo $(($1 * 1024 * 1024)) > $CG/memory.max; return; fi
	echo max > $CG/memory.max
	avail=$(($(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo) / 1024))
	mib=$((avail - $1))
	[ "$mib" -gt 0 ] || return 0
	rm -f /tmp/hog.ready
	# A simple command, so that $! is the hog itself (chroot execs it).
	chroot /host python3 -c "$HOG" "$mib" > /tmp/hog.ready 2>&1 &
	hog=$!
	i=0
	# polling for the hog's word, bounded: not synchronisation
	until grep -q ready /tmp/hog.ready 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 1200 ] && kill -0 $hog 2>/dev/null ||
			{ not_ok "global reclaim: the hog of $mib MiB did not start: $(cat /tmp/hog.ready)"; hog=; return 1; }
		sleep 0.1
	done
	echo "# global reclaim: $mib MiB of $avail MiB available mlocked, $1 MiB left"
}
lim() {	# lim MIB: the limit, in words
	if [ "$GLOBAL" = 1 ]; then echo "global reclaim, ${1}M left"; else echo "memory.max=${1}M"; fi
}
limit_end() {
	[ -n "$hog" ] || return 0
	kill $hog; wait $hog 2>/dev/null
	hog=
	# Its memory is free again before the next phase measures anything.
	grep -q Mlocked: /proc/meminfo &&
		[ "$(awk '$1 == "Mlocked:" { print $2 }' /proc/meminfo)" -lt 65536 ] ||
		not_ok "global reclaim: the hog's memory is still locked ($(grep Mlocked: /proc/meminfo))"
}
# The hog: MIB of anonymous memory, mlocked (MCL_FUTURE populates it).
HOG='
import ctypes, mmap, signal, sys
libc = ctypes.CDLL("libc.so.6", use_errno=True)
if libc.mlockall(3) != 0:
    sys.exit("mlockall: errno %d" % ctypes.get_errno())
m = mmap.mmap(-1, int(sys.argv[1]) << 20)
print("ready", flush=True)
signal.pause()
'


# ---- setup --------------------------------------------------------------------
setup() {
	grep -q ' /host 9p ' /proc/mounts || { echo "# /host is not mounted (tests/vm/run --host-root)"; return 1; }
	echo always > $THP/enabled || return 1
	if ls -d $THP/hugepages-*kB > /dev/null 2>&1; then
		. mthp.sh || return 1
		mthp=$(mthp_setup) || return 1
		[ "$(zswap_state)" != Y ] || { echo "# zswap is on (zswap.enabled=0)"; return 1; }
		echo "# mTHP sizes always: $mthp kB"
	fi
	if [ -n "$SWAPIN" ]; then
		[ -w $THP/swapin_enabled ] || { echo "# SWAPIN=$SWAPIN but no $THP/swapin_enabled"; return 1; }
		echo "$SWAPIN" > $THP/swapin_enabled || return 1
	fi
	case "$DEV" in
	thpswap)
		$MODPROBE thpswap size="${SWAP_MIB}M" || return 1
		bdev=/dev/thpswap0 ;;
	pmem)
		$MODPROBE nd_e820 && $MODPROBE nd_pmem || return 1
		# libnvdimm probes asynchronously; wait_probe waits for it.
		cat /sys/bus/nd/devices/ndbus*/wait_probe > /dev/null || return 1
		bdev=/dev/pmem0
		[ -b $bdev ] || { echo "# no $bdev (memmap= on the command line?)"; return 1; }
		sz=$(($(cat /sys/block/pmem0/size) / 2048))
		[ "$sz" = "$SWAP_MIB" ] || { echo "# $bdev has $sz MiB, not $SWAP_MIB"; return 1; } ;;
	zram)
		$MODPROBE zram num_devices=1 || return 1
		echo "${SWAP_MIB}M" > /sys/block/zram0/disksize || return 1
		bdev=/dev/zram0 ;;
	*) echo "# DEV=$DEV: thpswap, pmem or zram"; return 1 ;;
	esac
	mkswap "$bdev" > /dev/null && swapon "$bdev" || return 1
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p $CG
}
setup
check $? "setup: $DEV swap of $SWAP_MIB MiB, THP always, swapin_enabled=${SWAPIN:-unchanged}, cgroup $CG"
[ "$failed" = 0 ] || { echo "1..$n"; exit 1; }
echo "# kernel $(uname -r); THP $(cat $THP/enabled); swapin_enabled $(cat $THP/swapin_enabled 2>/dev/null || echo absent)"

# ---- redis --------------------------------------------------------------------
# The load generator: keys key:%012d (redis-benchmark's __rand_int__
# format), values of 64 B..32 KiB cycling, each filled from its key so a
# misplaced page shows in the digest.  RESP for redis-cli --pipe.
REDIS_GEN='
import sys
mib, = map(int, sys.argv[1:])
sizes = (64, 512, 2048, 8192, 32768)
n = mib * 1048576 // (sum(sizes) // len(sizes))
out = sys.stdout.buffer
for i in range(n):
    k = b"key:%012d" % i
    sz = sizes[(i * 7) % len(sizes)]
    v = (b"%d." % (i * 2654435761 % 1000003)) * (sz // 8 + 1)
    v = v[:sz]
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
print(n, file=sys.stderr)
'
rcli() { host redis-cli -s $SOCK "$@"; }
# redis_up SOCK PID TRIES: wait until the server PID answers PING on SOCK
# (after loading its data: LOADING before), polled every 0.1 s, at most
# TRIES times; false if it died or never answered.
redis_up() {
	local i=0
	until host redis-cli -s "$1" ping 2>/dev/null | grep -q PONG; do
		i=$((i + 1))
		[ $i -lt "$3" ] && kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1	# polling for the socket, bounded: not synchronisation
	done
}
redis_load() {	# prints the number of keys
	host python3 -c "$REDIS_GEN" "$REDIS_MIB" 2> /tmp/redis.n |
		host redis-cli -s $SOCK --pipe > /tmp/redis.pipe 2>&1 || return 1
	grep -q 'errors: 0, replies: ' /tmp/redis.pipe || { cat /tmp/redis.pipe; return 1; }
	cat /tmp/redis.n
}
info_field() { rcli info "$1" | tr -d '\r' | sed -n "s/^$2://p"; }
# bench_get KEYSPACE: "rps p99_ms" of REDIS_GETS GETs of random keys below
# KEYSPACE, 4 clients.
bench_get() {
	host redis-benchmark -s $SOCK -c 4 -n "$REDIS_GETS" -r "$1" --csv \
		GET key:__rand_int__ > /tmp/bench.csv 2>&1 || { cat /tmp/bench.csv; return 1; }
	# "test","rps","avg_latency_ms","min_latency_ms","p50","p95","p99","max"
	tr -d '"' < /tmp/bench.csv | awk -F, '$1 ~ /^GET/ { print $2, $7; f = 1 } END { exit !f }'
}
# redis_bgsave REP REF DIGEST KEYS: BGSAVE of the running server (its digest
# DIGEST) while its data set is swapped out; the dump loaded by a second
# server must give REF.  Prints the wl=bgsave record.
redis_bgsave() {
	local rep=$1 ref=$2 dig=$3 keys=$4 sock2=/tmp/redis2.sock i st d2 d3 n3 pid2
	local before after t0 sw save_s rdb_mib
	rm -f /tmp/dump.rdb
	# Push out what memory.reclaim can (EAGAIN when it fell short: fine).
	echo "$(cat $CG/memory.current)" > $CG/memory.reclaim 2> /dev/null
	sw=$(($(cat $CG/memory.swap.current) / 1048576))
	before=$(vmsnap)
	t0=$(now)
	rcli bgsave | grep -q 'Background saving started'
	check $? "bgsave $rep: BGSAVE started (${sw} MiB of the memcg in swap)"
	# The end of a BGSAVE shows only in INFO: poll it, bounded (10 min).
	i=0
	while [ "$(info_field persistence rdb_bgsave_in_progress)" != 0 ] && [ $i -lt 12000 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	save_s=$(since "$t0")
	after=$(vmsnap)
	st=$(info_field persistence rdb_last_bgsave_status)
	[ "$st" = ok ] && [ -s /tmp/dump.rdb ]
	check $? "bgsave $rep: the save finished in ${save_s} s (status $st, $(wc -c < /tmp/dump.rdb 2>/dev/null) bytes)"
	rdb_mib=$(($(wc -c < /tmp/dump.rdb 2>/dev/null || echo 0) / 1048576))
	d2=$(rcli debug digest)
	[ -n "$dig" ] && [ "$d2" = "$dig" ]
	check $? "bgsave $rep: the server's digest unchanged by the save ($dig -> $d2)"
	# The dump, loaded by a second server outside the memcg.
	rm -f $sock2
	host redis-server --port 0 --unixsocket $sock2 --save '' --appendonly no \
		--enable-debug-command yes --dir /tmp --dbfilename dump.rdb \
		--logfile /tmp/redis2.log &
	pid2=$!
	# Up once the dump is loaded; the digest check below says if not.
	redis_up $sock2 $pid2 6000
	injecting bgsave && host redis-cli -s $sock2 setrange key:000000000007 3 X > /dev/null
	d3=$(host redis-cli -s $sock2 debug digest 2>/dev/null)
	n3=$(host redis-cli -s $sock2 dbsize 2>/dev/null)
	[ -n "$ref" ] && [ "$d3" = "$ref" ] && [ "$n3" = "$keys" ]
	check $? "bgsave $rep: the dump loads to the reference digest ($ref: $d3, $n3 of $keys keys)"
	host redis-cli -s $sock2 shutdown nosave > /dev/null 2>&1
	wait $pid2
	rm -f /tmp/dump.rdb
	echo "P kernel=$KERNEL config=$CONFIG rep=$rep wl=bgsave keys=$keys swapped_mib=$sw save_s=$save_s rdb_mib=$rdb_mib $(vmdelta "$before" "$after")"
}
wl_redis() {	# wl_redis REP
	rep=$1
	cg_fresh
	cg_enter_limit max
	rm -f $SOCK
	incg redis-server --port 0 --unixsocket $SOCK --save '' --appendonly no \
		--disable-thp no --enable-debug-command yes --dir /tmp \
		--logfile /tmp/redis.log &
	rpid=$!
	redis_up $SOCK $rpid 600 ||
		{ not_ok "redis $rep: redis-server did not start"; cat /tmp/redis.log; return; }
	keys=$(redis_load)
	check $? "redis $rep: reference load without a limit ($keys keys, ${REDIS_MIB} MiB of values)"
	ref=$(rcli debug digest)
	peak=$(cat $CG/memory.peak 2>/dev/null || echo na)
	rcli flushall sync > /dev/null && rcli memory purge > /dev/null
	check $? "redis $rep: FLUSHALL, MEMORY PURGE"

	cg_enter_limit "$REDIS_MAX_MIB"
	before=$(vmsnap)
	sample_start
	t0=$(now)
	keys2=$(redis_load)
	check $? "redis $rep: load under $(lim "$REDIS_MAX_MIB") ($keys2 keys)"
	load_s=$(since "$t0")
	d0=$(rcli debug digest)
	injecting redis && rcli setrange key:000000000007 3 X > /dev/null
	misses0=$(info_field stats keyspace_misses)
	t0=$(now)
	# INJECT=redis: also GETs of keys that do not exist.
	uni_keys=$keys2
	injecting redis && uni_keys=$((keys2 * 2))
	r1=$(bench_get "$uni_keys")
	check $? "redis $rep: redis-benchmark GET, uniform random keys ($r1)"
	uni_s=$(since "$t0")
	t0=$(now)
	r2=$(bench_get $((keys2 / 10)))
	check $? "redis $rep: redis-benchmark GET, hot 10 % of the keys ($r2)"
	hot_s=$(since "$t0")
	misses1=$(info_field stats keyspace_misses)
	ret=$(sample_stop)
	d1=$(rcli debug digest)
	after=$(vmsnap)
	swap_mib=$(($(cat $CG/memory.swap.current) / 1048576))
	[ -n "$ref" ] && [ "$keys" = "$keys2" ] && [ "$ref" = "$d0" ] && [ "$d0" = "$d1" ]
	check $? "redis $rep: DEBUG DIGEST unchanged (reference $ref, after load $d0, after GETs $d1)"
	[ -n "$misses0" ] && [ "$misses0" = "$misses1" ]
	check $? "redis $rep: every GET hit a key (keyspace_misses $misses0 -> $misses1)"
	redis_bgsave "$rep" "$ref" "$d1" "$keys2"
	rcli shutdown nosave > /dev/null 2>&1
	wait $rpid
	echo "P kernel=$KERNEL config=$CONFIG rep=$rep wl=redis keys=$keys2 peak_nolimit=$peak swap_mib=$swap_mib load_s=$load_s uni_s=$uni_s uni_rps=${r1% *} uni_p99_ms=${r1#* } hot_s=$hot_s hot_rps=${r2% *} hot_p99_ms=${r2#* } retention_pct=$ret $(vmdelta "$before" "$after")"
}

# ---- sqlite -------------------------------------------------------------------
# Row id: k scrambles the order (so the index range scan visits the table
# at random), v is 200..3999 bytes made from id.
SQL_K='((id * 2654435761) % 1000003)'
SQL_V="substr(replace(hex(zeroblob(200 + (id * 7919) % 3800)), '00', printf('%08x.', id)), 1, 200 + (id * 7919) % 3800)"
wl_sqlite() {	# wl_sqlite REP
	rep=$1
	lo=200000 hi=300000	# 10 % of the k range
	inj=
	injecting sqlite && inj="UPDATE t SET v = v || 'x' WHERE id = 7;"
	cat > /tmp/prog.sql <<SQL
.timer on
.print phase=load
WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c WHERE id < $SQL_ROWS)
INSERT INTO t SELECT id, $SQL_K, $SQL_V FROM c;
CREATE INDEX tk ON t(k);
.timer off
SELECT 'sha_load=' || hex(sha3_query('SELECT id, k, v FROM t ORDER BY id'));
$inj
.timer on
.print phase=scan
SELECT 'scan=' || count(*) || ',' || sum(length(v)) || ',' || sum(unicode(substr(v, -1))) FROM t;
.print phase=range
SELECT 'range=' || count(*) || ',' || sum(length(v)) FROM t WHERE k BETWEEN $lo AND $hi;
.print phase=point
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < $SQL_POINTS)
SELECT 'point=' || count(x) FROM (SELECT (SELECT v FROM t WHERE id = 1 + abs(random()) % $SQL_ROWS) AS x FROM r);
.print phase=verify
SELECT 'integrity=' || group_concat(integrity_check, ';') FROM pragma_integrity_check;
SELECT 'bad_rows=' || count(*) FROM t WHERE k <> $SQL_K OR v <> $SQL_V;
SELECT 'rows=' || count(*) FROM t;
SELECT 'sha_end=' || hex(sha3_query('SELECT id, k, v FROM t ORDER BY id'));
.timer off
SQL
	{ echo "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL);"
	  cat /tmp/prog.sql; } > /tmp/prog.full.sql
	cg_fresh
	cg_enter_limit "$SQL_MAX_MIB"
	before=$(vmsnap)
	sample_start
	t0=$(now)
	incg sqlite3 -bail :memory: < /tmp/prog.full.sql > /tmp/sql.out 2>&1
	rc=$?
	total_s=$(since "$t0")
	ret=$(sample_stop)
	after=$(vmsnap)
	check $rc "sqlite $rep: sqlite3 ran the script under $(lim "$SQL_MAX_MIB") ($SQL_ROWS rows, ${total_s}s)"
	g() { sed -n "s/^$1=//p" /tmp/sql.out | head -n1; }
	# "Run Time: real X user Y sys Z" follows each ".print phase=P".
	times=$(awk '/^phase=/ { p = substr($0, 7) } /^Run Time: real/ && p != "" { t[p] += $4 }
		END { for (p in t) printf "%s_s=%.2f ", p, t[p] }' /tmp/sql.out)
	[ "$(g integrity)" = ok ]
	check $? "sqlite $rep: PRAGMA integrity_check says ok ($(g integrity))"
	[ "$(g rows)" = "$SQL_ROWS" ] && [ "$(g bad_rows)" = 0 ]
	check $? "sqlite $rep: every row equals its formula ($(g rows) rows, $(g bad_rows) differ)"
	[ -n "$(g sha_load)" ] && [ "$(g sha_load)" = "$(g sha_end)" ]
	check $? "sqlite $rep: sha3 of the table after loading equals the one at the end"
	[ "$(g point)" = "$SQL_POINTS" ]
	check $? "sqlite $rep: every point lookup found its row ($(g point) of $SQL_POINTS)"
	[ "$rc" = 0 ] || tail -n 20 /tmp/sql.out | sed 's/^/# /'
	echo "P kernel=$KERNEL config=$CONFIG rep=$rep wl=sqlite rows=$SQL_ROWS total_s=$total_s $times retention_pct=$ret $(vmdelta "$before" "$after")"
}

# ---- cc -----------------------------------------------------------------------
wl_cc() {	# wl_cc REP
	rep=$1
	if [ -z "$CC_DIR" ] || [ ! -f "/host$CC_DIR/ref.sha256" ]; then
		not_ok "cc $rep: no prepared tree (CC_DIR='$CC_DIR', tests/guest/programs/cc-prepare)"
		return
	fi
	objs=$(cat "/host$CC_DIR/objs")
	rm -rf /tmp/cc && cp -a "/host$CC_DIR/prep" /tmp/cc
	check $? "cc $rep: copy of the prepared tree"
	cg_fresh
	cg_enter_limit "$CC_MAX_MIB"
	before=$(vmsnap)
	sample_start
	t0=$(now)
	# shellcheck disable=SC2086
	incg make -s -C /tmp/cc -f "$CC_DIR/programs.mk" -j2 > /tmp/cc.log 2>&1
	rc=$?
	cc_s=$(since "$t0")
	ret=$(sample_stop)
	after=$(vmsnap)
	check $rc "cc $rep: make -j2 $objs under $(lim "$CC_MAX_MIB") (${cc_s}s)"
	[ "$rc" = 0 ] || tail -n 20 /tmp/cc.log | sed 's/^/# /'
	injecting cc && printf x >> "/tmp/cc/${objs%% *}"
	(cd /tmp/cc && sha256sum $objs) > /tmp/cc.sha256 2>&1
	cmp -s /tmp/cc.sha256 "/host$CC_DIR/ref.sha256"
	check $? "cc $rep: objects equal the native build without pressure ($(echo $objs | wc -w) objects)"
	diff "/host$CC_DIR/ref.sha256" /tmp/cc.sha256 | sed 's/^/# /' | head -n 6
	echo "P kernel=$KERNEL config=$CONFIG rep=$rep wl=cc objs=$(echo $objs | wc -w) cc_s=$cc_s retention_pct=$ret $(vmdelta "$before" "$after")"
	rm -rf /tmp/cc
}

# ---- magick -------------------------------------------------------------------
MAGICK_POLICY=/host/etc/ImageMagick-6/policy.xml magick_policy=0
# magick_run OUT: convert's passes in the cgroup; the signature to OUT.
magick_run() {
	incg env MAGICK_THREAD_LIMIT=1 convert-im6.q16 -limit thread 1 -seed 7 \
		-size "${MAGICK_PX}x${MAGICK_PX}" gradient:navy-orange +noise Random \
		-negate -evaluate multiply 0.9 -level 2%,98% -negate -gamma 1.1 \
		-negate -evaluate add 3% -gamma 0.9 -negate \
		-print '%#\n' null: > "$1" 2>&1
}
wl_magick() {	# wl_magick REP
	rep=$1
	if ! host test -x /usr/bin/convert-im6.q16; then
		not_ok "magick $rep: no /usr/bin/convert-im6.q16 on the host (imagemagick-6.q16)"
		return
	fi
	if [ "$magick_policy" = 0 ]; then
		printf '<policymap>\n</policymap>\n' > /tmp/im-policy.xml &&
			mount -o bind /tmp/im-policy.xml "$MAGICK_POLICY"
		check $? "magick $rep: an empty resource policy, in the guest only"
		magick_policy=1
	fi
	cg_fresh
	cg_enter_limit max
	t0=$(now)
	magick_run /tmp/magick.ref
	rc=$?
	ref_s=$(since "$t0")
	ref=$(cat /tmp/magick.ref)
	peak=$(cat $CG/memory.peak 2>/dev/null || echo na)
	check $rc "magick $rep: ${MAGICK_PX}x$MAGICK_PX without a limit (${ref_s}s, peak $peak B)"
	cg_fresh
	cg_enter_limit "$MAGICK_MAX_MIB"
	before=$(vmsnap)
	sample_start
	t0=$(now)
	magick_run /tmp/magick.out
	rc=$?
	magick_s=$(since "$t0")
	ret=$(sample_stop)
	after=$(vmsnap)
	check $rc "magick $rep: the same under $(lim "$MAGICK_MAX_MIB") (${magick_s}s)"
	got=$(cat /tmp/magick.out)
	injecting magick && got=${got%?}x
	[ ${#ref} = 64 ] && [ "$ref" = "$got" ]
	check $? "magick $rep: signature under the limit equals the one without ($ref, $got)"
	echo "P kernel=$KERNEL config=$CONFIG rep=$rep wl=magick px=$MAGICK_PX peak_nolimit=$peak ref_s=$ref_s magick_s=$magick_s retention_pct=$ret $(vmdelta "$before" "$after")"
}

rep=1
while [ $rep -le "$REPS" ]; do
	for w in $WORKLOADS; do
		case "$w" in
		redis|sqlite|cc|magick) echo "# repetition $rep: $w ($(date -u +%H:%M:%S))"; "wl_$w" $rep ;;
		*) not_ok "unknown workload '$w'" ;;
		esac
		limit_end
		# Each workload starts with its memcg empty and swap unused.
		[ -e $CG/cgroup.procs ] && [ -z "$(cat $CG/cgroup.procs)" ] ||
			not_ok "$w $rep: processes left in $CG: $(cat $CG/cgroup.procs | tr '\n' ' ')"
	done
	rep=$((rep + 1))
done
echo "1..$n"
[ "$failed" = 0 ]
