#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of thpswapctl's commands, options, output and exit codes.
# The real command code runs against tests/unit/cli/fake.c, a transport
# that keeps its "kernel" in a text file, so no module is needed.  Also
# checks that userctl builds as shipped, the man page and bash completion.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

ok() {	# ok COND_STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		bad=$((bad + 1))
		if [ -s "$tmp/out" ]; then sed 's/^/# out: /' "$tmp/out" | head -20; fi
		if [ -s "$tmp/err" ]; then sed 's/^/# err: /' "$tmp/err" | head -20; fi
	fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# run EXPECTED_RC ARGS...: run the fake thpswapctl, keep out/err, check the status.
run() {
	local want=$1; shift
	"$B" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" = "$want" ]
}
has() { grep -q -- "$1" "$tmp/${2:-out}"; }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
jq_() {	# jq_ FILE EXPR: evaluate a python expression on the JSON in FILE (as j)
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

echo "TAP version 13"

# --- the real build ----------------------------------------------------------
if pkg-config --exists libnl-genl-3.0 2>/dev/null; then
	mkdir -p "$tmp/src"
	cp -r "$top/userctl" "$top/uapi" "$tmp/src/"
	make -s -C "$tmp/src/userctl" clean > /dev/null 2>&1
	make -s -C "$tmp/src/userctl" > "$tmp/out" 2> "$tmp/err"
	ok $? "userctl builds with -Wall -Wextra -Werror and libnl-genl-3"
	make -s -C "$tmp/src/userctl" install DESTDIR="$tmp/root" PREFIX=/usr > "$tmp/out" 2> "$tmp/err" &&
		[ -x "$tmp/root/usr/sbin/thpswapctl" ] && [ -f "$tmp/root/usr/share/man/man8/thpswapctl.8" ] &&
		[ -f "$tmp/root/usr/share/bash-completion/completions/thpswapctl" ]
	ok $? "make install puts binary, man page and completion under DESTDIR"
	"$tmp/src/userctl/thpswapctl" stats nonsense > "$tmp/out" 2> "$tmp/err"
	[ $? = 2 ] && has "not a device" err
	ok $? "real binary: a malformed DEV is a usage error before any transport"
else
	skip "userctl builds" "no libnl-genl-3.0 (apt-get install libnl-genl-3-dev)"
	skip "make install" "no libnl-genl-3.0"
	skip "real binary usage error" "no libnl-genl-3.0"
fi

# --- the fake build ----------------------------------------------------------
srcs=$(make -s -C "$top/userctl" print-core-sources | tr ' ' '\n' | sed "s|^|$top/userctl/|")
B=$tmp/thpswapctl
# shellcheck disable=SC2086
${CC:-cc} -O2 -Wall -Wextra -Werror -std=gnu11 -I"$top/userctl" -I"$top/uapi" -o "$B" \
	$srcs "$top/tests/unit/cli/fake.c" > "$tmp/out" 2> "$tmp/err"
ok $? "thpswapctl builds with the fake transport"
[ -x "$B" ] || { echo "1..$n"; exit 1; }

export THPSWAPCTL_FAKE=$tmp/state
cat > "$tmp/state" <<STATE
dev 0 268435456
counter 0 thp_writes 100
counter 0 thp_reads 3
counter 0 page_writes 12345
counter 0 bytes_written 209715200
run 0 0 1 small
run 0 1 40 huge
run 0 41 2 split
global thp_swpout 120
global thp_swpout_fallback 7
dev 2 67108864 100000000
swaps $tmp/swaps
event cluster 0 5 3 free huge
event add 2 0 0 - -
STATE
printf 'Filename\tType\tSize\tUsed\tPriority\n/dev/thpswap0   partition\t262140\t81920\t-2\n' > "$tmp/swaps"
have_py=0; command -v python3 > /dev/null && have_py=1

# list
run 0 && has "^DEVICE *SIZE *NODE *SWAP USED *HUGE *SPLIT *SMALL *FREE *THP OUT *FALLBACK *THP IN"
ok $? "no command means list: header"
grep -Eq '^thpswap0 +256 MiB +- +80 MiB +40 +2 +1 +85 +100 +7 +3$' "$tmp/out" &&
	grep -Eq '^thpswap2 +64 MiB +- +- +0 +0 +0 +32 +0 +7 +0$' "$tmp/out"
ok $? "list: one row per device, swap used from /proc/swaps, '-' when off"
[ ! -s "$tmp/err" ] && ! grep -q $'\033' "$tmp/out"
ok $? "list: nothing on stderr, no colour into a pipe"
run 0 list --color=always && grep -q $'\033\[' "$tmp/out"
ok $? "--color=always colours a pipe"
NO_COLOR=1 run 0 list && ! grep -q $'\033' "$tmp/out"
ok $? "NO_COLOR: no colour"

# JSON
run 0 --json list && cp "$tmp/out" "$tmp/j1" && run 0 list --json && cmp -s "$tmp/j1" "$tmp/out"
ok $? "options before and after the command are the same"
if [ $have_py = 1 ]; then
	json_ok "$tmp/j1"; ok $? "list --json is valid JSON"
	[ "$(jq_ "$tmp/j1" '[d["name"] for d in j["devices"]]')" = "['thpswap0', 'thpswap2']" ]
	ok $? "list --json: devices in index order"
	[ "$(jq_ "$tmp/j1" 'j["devices"][0]["counters"]["thp_writes"], j["devices"][0]["clusters"]["huge"], j["devices"][0]["swap"]["used"], j["devices"][0]["global"]["thp_swpout_fallback"]')" = "(100, 40, 83886080, 7)" ]
	ok $? "list --json: counters, clusters, swap, global values"
	[ "$(jq_ "$tmp/j1" 'j["devices"][1]["backing"], j["devices"][1]["memmap_addr"], j["devices"][0]["memmap_addr"]')" = "('memmap', 4294967296, None)" ]
	ok $? "list --json: memmap backing, null address for RAM"
	[ "$(jq_ "$tmp/j1" 'sorted(j["devices"][0].keys())')" = "['authoritative', 'backing', 'clusters', 'counters', 'generation', 'global', 'index', 'live_slots', 'memmap_addr', 'name', 'node', 'open', 'size', 'swap', 'swapon']" ]
	ok $? "list --json: the documented device keys"
else
	for i in 1 2 3 4 5; do skip "JSON check $i" "no python3"; done
fi

# DEV forms and stats
run 0 stats 0 && cp "$tmp/out" "$tmp/s0" && run 0 stats thpswap0 && cmp -s "$tmp/s0" "$tmp/out" &&
	run 0 stats /dev/thpswap0 && cmp -s "$tmp/s0" "$tmp/out"
ok $? "DEV as index, name and path"
has "^thpswap0: 256 MiB, RAM, swap on, 80 MiB" s0 && grep -Eq '^  thp_writes +100 ' "$tmp/s0" &&
	grep -Eq '^  page_writes +12.3k ' "$tmp/s0" && grep -Eq '^  bytes_written +200 MiB ' "$tmp/s0"
ok $? "stats: human units for counts and bytes"
# (a "|| break" would leave $? at 0: count the misses instead)
missing=
for c in thp_writes thp_reads page_writes page_reads bytes_written bytes_read discards slot_frees rejected; do
	grep -q "^  $c " "$tmp/s0" || missing="$missing $c"
done
[ -z "$missing" ] || echo "# not shown:$missing"
[ -z "$missing" ]; ok $? "stats: every counter is shown"
run 0 stats && grep -Eq '^  thp_swpout +120 ' "$tmp/out" && grep -Eq '^  thp_swpout_fallback +7 ' "$tmp/out" &&
	has "^thpswap2:"
ok $? "stats without DEV: all devices and the global THP counters"
if [ $have_py = 1 ]; then
	run 0 stats 2 --json && [ "$(jq_ "$tmp/out" 'len(j["devices"]), j["global"]["thp_swpout"]')" = "(1, 120)" ]
	ok $? "stats DEV --json: one device and the global counters"
else
	skip "stats --json" "no python3"
fi

# The kernel-reported stats: swap-out fallback reasons, kernel_events,
# swapin_whole, and the thp_swpin* vm events.  A file of their own.
K=$tmp/kstate
cat > "$K" <<STATE
dev 0 268435456
counter 0 thp_writes 100
counter 0 fallback_no_cluster 4
counter 0 fallback_memcg 2
counter 0 fallback_nomem 1
counter 0 kernel_events 812
counter 0 swapin_whole 37
run 0 1 40 huge
global thp_swpout 120
global thp_swpout_fallback 7
global thp_swpin 33
global thp_swpin_fallback 3
global thp_swpin_declined 11
global thp_swpin_promoted 5
global thp_swpin_promote_fallback 2
global thp_swpout_pte_mapped 9
global thp_split_reclaim 4
global thp_swpin_shared 6
global thp_swpin_collapse_read 7
global thp_swpin_handoff 8
STATE
kstats() { THPSWAPCTL_FAKE=$K run 0 stats "$@"; }
kdump() { THPSWAPCTL_FAKE=$K run 0 dump; }
kv() { grep -Eq "^  $1 +$2  $3\$" "$tmp/out"; }	# kv NAME VALUE HELP: a stats line
# authoritative
echo "authoritative 0" >> "$K"
kstats 0 && kv fallback_no_cluster 4 "THPs split before swap-out: no free cluster" &&
	kv fallback_memcg 2 "THPs split before swap-out: memcg charge failed" &&
	kv fallback_nomem 1 "THPs split before swap-out: no memory for the swap cache" &&
	kv swapin_whole 37 "THPs swapped in whole from this device" &&
	kv kernel_events 812 "cluster notifications from the kernel" && ! has "not reported"
ok $? "stats, authoritative: fallback reasons, kernel_events and swapin_whole"
[ "$(grep -n '' "$tmp/out" | sed -n 's/^\([0-9]*\):  \(rejected\|kernel_events\|fallback_[a-z_]*\|swapin_whole\) .*/\2/p' | tr '\n' ' ')" = \
	"rejected kernel_events fallback_no_cluster fallback_memcg fallback_nomem swapin_whole " ]
ok $? "stats: the kernel's counters follow the I/O counters"
kstats && kv thp_swpout 120 "THPs swapped out whole" && kv thp_swpout_fallback 7 "THPs split before swap-out" &&
	kv thp_swpin 33 "THPs swapped in whole" && kv thp_swpin_fallback 3 "THP swap-ins that fell back to 4 KiB pages" &&
	kv thp_swpin_declined 11 "THP swap-ins declined as sparse \(swapin_enabled=auto\)" &&
	kv thp_swpin_promoted 5 "swapped-in ranges promoted to a THP" &&
	kv thp_swpin_promote_fallback 2 "promotions that failed" &&
	kv thp_swpout_pte_mapped 9 "THPs swapped out whole with no PMD mapping them" &&
	kv thp_split_reclaim 4 "THPs split before swap-out: only partly mapped" &&
	kv thp_swpin_shared 6 "THPs mapped whole, shared with other processes" &&
	kv thp_swpin_collapse_read 7 "collapses that read the missing pages at once" &&
	kv thp_swpin_handoff 8 "THPs mapped by another thread with its own" &&
	[ "$(sed -n '/^all swap devices/,$p' "$tmp/out" | wc -l)" = 13 ]
ok $? "stats: the vm events block lists thp_swpout, thp_swpin, their fallbacks, the swapin_enabled=auto events, the PTE-mapped swap-out ones, thp_swpin_shared, thp_swpin_collapse_read and thp_swpin_handoff"
[ "$(sed -n '/^all swap devices/,$p' "$tmp/out" | sed 1d | awk '{ print index($0, $2) + length($2) }' | sort -u | wc -l)" = 1 ]
ok $? "stats: the vm events' values line up, thp_swpin_promote_fallback's too"
# not authoritative, no kernel events: a stock kernel
sed -i '/^authoritative/d; /kernel_events/d' "$K"
kstats 0 && ! has "fallback_" && ! has "swapin_whole  " && kv kernel_events 0 "cluster notifications from the kernel" &&
	[ "$(grep -c "not reported" "$tmp/out")" = 1 ] &&
	grep -Eq '^  fallback reasons +not reported  by the kernel, nor swapin_whole \(stock kernel: states inferred from I/O\)$' "$tmp/out"
ok $? "stats, stock kernel: one line says the fallback reasons and swapin_whole are not reported"
# not authoritative, but the kernel sent notifications
echo "counter 0 kernel_events 5" >> "$K"
kstats 0 && kv fallback_memcg 2 ".*" && kv swapin_whole 37 ".*" && ! has "not reported"
ok $? "stats: kernel_events > 0 shows them without the authoritative flag"
if [ $have_py = 1 ]; then
	kstats 0 --json && json_ok "$tmp/out" &&
		[ "$(jq_ "$tmp/out" '[(k, v) for k, v in j["devices"][0]["counters"].items()][9:]')" = \
		  "[('fallback_no_cluster', 4), ('fallback_memcg', 2), ('fallback_nomem', 1), ('kernel_events', 5), ('swapin_whole', 37)]" ] &&
		[ "$(jq_ "$tmp/out" 'j["devices"][0]["global"]')" = \
		  "{'thp_swpout': 120, 'thp_swpout_fallback': 7, 'thp_swpin': 33, 'thp_swpin_fallback': 3, 'thp_swpin_declined': 11, 'thp_swpin_promoted': 5, 'thp_swpin_promote_fallback': 2, 'thp_swpout_pte_mapped': 9, 'thp_split_reclaim': 4, 'thp_swpin_shared': 6, 'thp_swpin_collapse_read': 7, 'thp_swpin_handoff': 8}" ] &&
		[ "$(jq_ "$tmp/out" 'j["global"], j["devices"][0]["authoritative"]')" = \
		  "({'thp_swpout': 120, 'thp_swpout_fallback': 7, 'thp_swpin': 33, 'thp_swpin_fallback': 3, 'thp_swpin_declined': 11, 'thp_swpin_promoted': 5, 'thp_swpin_promote_fallback': 2, 'thp_swpout_pte_mapped': 9, 'thp_split_reclaim': 4, 'thp_swpin_shared': 6, 'thp_swpin_collapse_read': 7, 'thp_swpin_handoff': 8}, False)" ]
	ok $? "stats --json: the new counters after the old, thp_swpin* in both global objects"
	sed -i '/kernel_events/d' "$K"
	kstats 0 --json && [ "$(jq_ "$tmp/out" 'j["devices"][0]["counters"]["fallback_memcg"], j["devices"][0]["counters"]["swapin_whole"]')" = "(2, 37)" ]
	ok $? "stats --json: the keys and values are there whether or not the kernel reports them"
	THPSWAPCTL_FAKE=$K run 0 list --json && [ "$(jq_ "$tmp/out" 'j["devices"][0]["counters"]["swapin_whole"], j["devices"][0]["global"]["thp_swpin_fallback"], j["devices"][0]["global"]["thp_swpin_promote_fallback"]')" = "(37, 3, 2)" ] &&
		THPSWAPCTL_FAKE=$K run 0 watch --json --count 1 &&
		python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if "refresh" in l][0]
d = o["devices"][0]
assert d["counters"]["fallback_no_cluster"] == 4 and d["global"]["thp_swpin"] == 33
assert d["global"]["thp_swpin_declined"] == 11 and d["global"]["thp_swpin_promoted"] == 5
' "$tmp/out"
	ok $? "list --json and watch --json carry the new keys"
	: > "$tmp/empty"
	THPSWAPCTL_FAKE=$tmp/empty run 0 stats --json && [ "$(jq_ "$tmp/out" 'j')" = \
		"{'devices': [], 'global': {'thp_swpout': None, 'thp_swpout_fallback': None, 'thp_swpin': None, 'thp_swpin_fallback': None, 'thp_swpin_declined': None, 'thp_swpin_promoted': None, 'thp_swpin_promote_fallback': None, 'thp_swpout_pte_mapped': None, 'thp_split_reclaim': None, 'thp_swpin_shared': None, 'thp_swpin_collapse_read': None, 'thp_swpin_handoff': None}}" ]
	ok $? "stats --json without devices: every global value null"
else
	for i in 1 2 3 4; do skip "kernel stats JSON $i" "no python3"; done
fi
kdump && [ "$(cut -f19-20,30-36 "$tmp/out")" = $'120\t7\t4\t2\t1\t0\t33\t3\t37' ]
ok $? "dump: columns 30-36 are fallback_no_cluster..nomem, kernel_events, thp_swpin(_fallback), swapin_whole"
kdump && [ "$(cut -f38-40 "$tmp/out")" = $'11\t5\t2' ]
ok $? "dump: columns 38-40 are thp_swpin_declined, thp_swpin_promoted, thp_swpin_promote_fallback"
kdump && [ "$(cut -f41-42 "$tmp/out")" = $'9\t4' ]
ok $? "dump: columns 41-42 are thp_swpout_pte_mapped, thp_split_reclaim"
kdump && [ "$(cut -f43 "$tmp/out")" = 6 ]
ok $? "dump: column 43 is thp_swpin_shared"
kdump && [ "$(cut -f44 "$tmp/out")" = 7 ]
ok $? "dump: column 44 is thp_swpin_collapse_read"
kdump && [ "$(cut -f45 "$tmp/out")" = 8 ]
ok $? "dump: column 45 is thp_swpin_handoff"
THPSWAPCTL_FAKE=$K run 0 reset 0 && kdump && [ "$(cut -f19-20,21,30-36,38-45 "$tmp/out")" = $'120\t7\t0\t0\t0\t0\t0\t33\t3\t0\t11\t5\t2\t9\t4\t6\t7\t8' ]
ok $? "reset zeroes the kernel's per-device counters, not the vm events"
# An older module reports only stats 0..15: the rest is 0, not garbage.
cat > "$K" <<STATE
dev 0 268435456
counter 0 thp_writes 100
counter 0 fallback_memcg 2
counter 0 kernel_events 9
counter 0 swapin_whole 37
run 0 1 40 huge
global thp_swpout 120
global thp_swpin 33
global thp_swpin_fallback 3
global thp_swpin_declined 11
nr_stats 16
STATE
kdump && [ "$(cut -f11,19,21,30-36,38-45 "$tmp/out")" = $'40\t120\t100\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0' ]
ok $? "an older module (16 stats): the old values, zeros for the new"
kstats 0 && kv thp_writes 100 ".*" && kv kernel_events 0 ".*" && has "fallback reasons  *not reported" && ! has "swapin_whole  "
ok $? "an older module: stats shows them as not reported"
if [ $have_py = 1 ]; then
	kstats 0 --json && [ "$(jq_ "$tmp/out" 'j["devices"][0]["counters"]["fallback_memcg"], j["devices"][0]["counters"]["swapin_whole"], j["global"]["thp_swpin"], j["devices"][0]["counters"]["thp_writes"]')" = "(0, 0, 0, 100)" ]
	ok $? "an older module: --json has the new keys, as 0"
else
	skip "older module --json" "no python3"
fi
# A module from before the swapin_enabled=auto stats (23): thp_swpin, no more.
sed -i 's/^nr_stats 16$/nr_stats 23/' "$K"
kdump && [ "$(cut -f34,38-40 "$tmp/out")" = $'33\t0\t0\t0' ] &&
	kstats && kv thp_swpin 33 ".*" && kv thp_swpin_declined 0 ".*"
ok $? "a module without the swapin_enabled=auto stats: thp_swpin_declined etc. 0"
# A module from before the PTE-mapped swap-out stats (26).
cat >> "$K" <<STATE
global thp_swpin_promoted 5
global thp_swpout_pte_mapped 9
global thp_split_reclaim 4
STATE
sed -i 's/^nr_stats 23$/nr_stats 26/' "$K"
kdump && [ "$(cut -f38-42 "$tmp/out")" = $'11\t5\t0\t0\t0' ] &&
	kstats && kv thp_swpin_promoted 5 ".*" && kv thp_swpout_pte_mapped 0 ".*" && kv thp_split_reclaim 0 ".*"
ok $? "a module without the PTE-mapped swap-out stats: thp_swpout_pte_mapped and thp_split_reclaim 0"
# A module from before thp_swpin_shared (28).
cat >> "$K" <<STATE
global thp_swpin_shared 6
STATE
sed -i 's/^nr_stats 26$/nr_stats 28/' "$K"
kdump && [ "$(cut -f41-43 "$tmp/out")" = $'9\t4\t0' ] &&
	kstats && kv thp_split_reclaim 4 ".*" && kv thp_swpin_shared 0 ".*"
ok $? "a module without thp_swpin_shared: it reads 0"
# A module from before the collapse read stat (29).
echo "global thp_swpin_collapse_read 7" >> "$K"
sed -i 's/^nr_stats 28$/nr_stats 29/' "$K"
kdump && [ "$(cut -f43-44 "$tmp/out")" = $'6\t0' ] &&
	kstats && kv thp_swpin_shared 6 ".*" && kv thp_swpin_collapse_read 0 ".*"
ok $? "a module without the collapse read stat: thp_swpin_collapse_read 0"
# A module from before thp_swpin_handoff (30).
echo "global thp_swpin_handoff 8" >> "$K"
sed -i 's/^nr_stats 29$/nr_stats 30/' "$K"
kdump && [ "$(cut -f44-45 "$tmp/out")" = $'7\t0' ] &&
	kstats && kv thp_swpin_collapse_read 7 ".*" && kv thp_swpin_handoff 0 ".*"
ok $? "a module without thp_swpin_handoff: it reads 0"

# exit codes and errors
run 3 stats thpswap9 && has "thpswap9" err && has "no such device" err && [ ! -s "$tmp/out" ]
ok $? "stats of a missing device: exit 3, named on stderr, nothing on stdout"
run 2 stats sda && has "'sda' is not a device" err
ok $? "malformed DEV: exit 2"
run 2 frobnicate && has "unknown command 'frobnicate'" err
ok $? "unknown command: exit 2"
run 2 list --frob && has "unknown option '--frob'" err
ok $? "unknown option: exit 2"
run 2 list --size 4M && has "\-\-size does not apply to 'list'" err
ok $? "an option of another command: exit 2"
run 2 stats 0 1 && has "stats" err
ok $? "too many arguments: exit 2"
run 2 remove && has "'remove' needs DEV" err
ok $? "missing DEV: exit 2"
run 2 add && has "needs --size" err
ok $? "add without --size: exit 2"
run 2 add --size 12X && has "bad size '12X'" err
ok $? "add with a malformed size: exit 2"
run 2 add --size && has "needs a value" err
ok $? "option without its value: exit 2"
run 2 add --size 8M --memmap 0x1b && has "bad address '0x1b' (27 bytes): the memmap range starts at a non-zero multiple of 2 MiB" err
ok $? "add --memmap 0x1b: exit 2, naming the value as read"
run 2 add --size 8M --memmap 0x1000 --ioctl && has "bad address '0x1000' (4096 bytes)" err
ok $? "...over ioctl too"
run 2 add --size 8M --memmap 4X && has "bad address '4X': want 0xHEX" err
ok $? "add --memmap 4X: exit 2, not a number"
run 2 watch --interval 0 && has "bad interval" err
ok $? "watch --interval 0: exit 2"
run 2 clusters 0 --range 9:3 && has "bad range" err
ok $? "clusters --range B before A: exit 2"
run 2 clusters 0 --range 100:200 && has "outside thpswap0" err
ok $? "clusters --range beyond the device: exit 2"

# add / remove / reset
run 0 add --size 64M && [ "$(cat "$tmp/out")" = thpswap1 ] && [ ! -s "$tmp/err" ]
ok $? "add prints the new device's name, lowest free index"
run 0 add --size 0x800000 --index 5 && [ "$(cat "$tmp/out")" = thpswap5 ]
ok $? "add --index N, hex size"
run 1 add --size 8M --index 5 && has "adding a 8 MiB device: File exists: THPSWAP_A_DEV_INDEX: index in use" err
ok $? "add to a taken index: exit 1 with errno and the kernel's message"
run 1 add --size 2M && has "Invalid argument: THPSWAP_A_DEV_SIZE: at least 4 MiB" err
ok $? "add too small: the kernel's extack text on stderr"
if [ $have_py = 1 ]; then
	run 0 add --size 1G --memmap 4G --json && [ "$(jq_ "$tmp/out" 'j["name"], j["size"], j["backing"], j["memmap_addr"]')" = "('thpswap3', 1073741824, 'memmap', 4294967296)" ]
	ok $? "add --memmap --json prints the device object"
else
	run 0 add --size 1G --memmap 4G; ok $? "add --memmap"
fi
run 0 remove /dev/thpswap3 && run 0 remove thpswap5 && run 3 stats 5
ok $? "remove: the device is gone"

# add --node
echo "numa_nodes 2" >> "$tmp/state"
run 0 add --size 8M --node 1 --index 6 && [ "$(cat "$tmp/out")" = thpswap6 ]
ok $? "add --node 1"
run 0 stats 6 && has "^thpswap6: 8 MiB, RAM on node 1, "
ok $? "stats: RAM on node 1"
run 0 list && grep -Eq '^thpswap6 +8 MiB +1 +- ' "$tmp/out"
ok $? "list: the NODE column"
run 0 dump 6 && [ "$(awk -F'\t' '{ print $37 }' "$tmp/out")" = 1 ]
ok $? "dump: column 37 is the node"
if [ $have_py = 1 ]; then
	run 0 list --json && [ "$(jq_ "$tmp/out" '[d["node"] for d in j["devices"]]')" = "[None, None, None, 1]" ]
	ok $? "list --json: node 1, null for the others"
else
	skip "list --json: node" "no python3"
fi
run 0 remove 6
run 1 add --size 8M --node 2 && has "adding a 8 MiB device on NUMA node 2: No such device: THPSWAP_A_DEV_NODE: no such NUMA node" err
ok $? "add --node of a missing node: exit 1, the node and the kernel's message"
run 2 add --size 8M --node -1 && has "bad node '-1': want a NUMA node number 0-1023" err
ok $? "add --node -1: exit 2 (bad usage)"
run 2 add --size 8M --node x1 && has "bad node 'x1'" err
ok $? "add --node x1: exit 2"
run 2 add --size 8M --node 1 --memmap 4G && has "exclude each other" err
ok $? "add --node with --memmap: exit 2"
run 2 list --node 1 && has "does not apply to 'list'" err
ok $? "--node only with add"
sed -i '/^numa_nodes/d' "$tmp/state"
run 3 remove 7 && has "removing thpswap7: No such device" err
ok $? "remove a missing device: exit 3"
echo "fail remove 16 device is swapped on" >> "$tmp/state"
run 1 remove 0 && has "removing thpswap0: Device or resource busy: device is swapped on" err &&
	has "swapoff /dev/thpswap0" err
ok $? "remove of a busy device: exit 1, extack and a swapoff hint"
sed -i '/^fail remove/d' "$tmp/state"
echo "fail add 1 needs CAP_SYS_ADMIN" >> "$tmp/state"
run 1 add --size 8M && has "Operation not permitted: needs CAP_SYS_ADMIN" err
ok $? "unprivileged add: EPERM and why"
sed -i '/^fail add/d' "$tmp/state"
run 0 reset 0 && run 0 dump 0 && [ "$(cut -f21,22,23 "$tmp/out")" = $'0\t0\t0' ]
ok $? "reset zeroes the counters"
echo "fail open 2 no generic netlink family 'thpswap': is the module loaded? (modprobe thpswap)" >> "$tmp/state"
run 1 list && has "is the module loaded" err
ok $? "no module: exit 1 and a hint"
sed -i '/^fail open/d' "$tmp/state"

# dump
run 0 dump && [ "$(wc -l < "$tmp/out")" = 3 ] && awk -F'\t' 'NF != 45 { bad = 1 } END { exit bad }' "$tmp/out"
ok $? "dump: one line per device, 45 tab-separated columns"
[ "$(head -1 "$tmp/out" | cut -f1-14)" = $'thpswap0\t0\t268435456\tram\t-\t1\t268431360\t83886080\t128\t85\t40\t2\t1\t0' ]
ok $? "dump: columns 1-14 as documented"
dcols=$(sed -n '/^\.SH DUMP FORMAT/,/^\.SH EXIT/p' "$top/userctl/thpswapctl.8" | grep -c '^\.B [0-9][0-9]*$')
[ "$dcols" = 45 ]
ok $? "man page documents all 45 dump columns (found $dcols)"
if [ $have_py = 1 ]; then
	: > "$tmp/empty"
	missing=
	THPSWAPCTL_FAKE=$tmp/empty run 0 stats --json &&
		for k in $(jq_ "$tmp/out" '" ".join(j["global"])'); do
			grep -q "\"$k\": N" "$top/userctl/thpswapctl.8" &&
				grep -q "^\.BR\{0,1\} thpswap_vm_${k}_total\b" "$top/userctl/thpswapctl.8" &&
				grep -q "^\.BR\{0,1\} $k\b" "$top/userctl/thpswapctl.8" || missing="$missing $k"
		done
	[ -z "$missing" ]
	ok $? "man page documents every global vm event: stats, JSON and Prometheus${missing:+ (missing:$missing)}"
else
	skip "man page documents every global vm event" "no python3"
fi

# clusters
run 0 clusters 0 && has "^CLUSTERS *COUNT *SIZE *STATE" &&
	grep -Eq '^0 +1 +2 MiB  small$' "$tmp/out" && grep -Eq '^1-40 +40 +80 MiB  huge$' "$tmp/out" &&
	grep -Eq '^43-127 +85 +170 MiB  free$' "$tmp/out"
ok $? "clusters: runs with ranges, counts, sizes, states"
run 0 clusters 0 --range 30:45 && [ "$(sed 1d "$tmp/out" | awk '{print $1}' | tr '\n' ' ')" = "30-40 41-42 43-44 " ]
ok $? "clusters --range A:B clips runs to [A, B)"
if [ $have_py = 1 ]; then
	run 0 clusters 0 --json && [ "$(jq_ "$tmp/out" 'sum(r["count"] for r in j["runs"]), j["runs"][1]')" = "(128, {'first': 1, 'count': 40, 'state': 'huge'})" ]
	ok $? "clusters --json: runs cover the device"
else
	skip "clusters --json" "no python3"
fi

# map
run 0 map 0 --width 64 && [ "$(sed -n 2p "$tmp/out")" = "       0 sHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHSS....................." ] &&
	has "^legend:  H huge  S split  s small  \. free; one cell = one 2 MiB cluster"
ok $? "map: one cell per cluster, row offsets, legend"
! grep -q $'\033' "$tmp/out"
ok $? "map: no colour into a pipe"
run 0 map 0 --color=always && grep -q $'\033\[1;32mH' "$tmp/out"
ok $? "map --color=always: coloured cells"
run 0 map 0 --width 8 && [ "$(grep -c '^ *[0-9]* [.HSs]*$' "$tmp/out")" = 16 ]
ok $? "map --width 8: 16 rows for 128 clusters"
echo "dev 9 68719476736" >> "$tmp/state"
run 0 map 9 --width 64 && has "one cell = 16 clusters (32 MiB)" && [ "$(grep -c '^ *[0-9]* [.HSs]*$' "$tmp/out")" = 32 ]
ok $? "map of a 64 GiB device: groups of clusters, 32 rows"
if [ $have_py = 1 ]; then
	run 0 map 0 --json && [ "$(jq_ "$tmp/out" 'len(j["cells"]), j["cells"][:3], j["clusters_per_cell"]')" = "(128, 'sHH', 1)" ]
	ok $? "map --json: one character per cell"
else
	skip "map --json" "no python3"
fi

# watch
run 0 watch --count 2 --interval 0.1 && [ "$(grep -c ' thpswap0 huge 40 split 2 small 1 free 85' "$tmp/out")" = 2 ] &&
	has "thpswap0 clusters 5-7 free -> huge" && has "thpswap2 added" && has "thp out 0 (+0)"
ok $? "watch --count 2: two refreshes with deltas, and events"
run 0 watch 0 --count 3 --interval 0.05 && [ "$(grep -c 'thpswap0 huge' "$tmp/out")" = 3 ] && ! has "thpswap2"
ok $? "watch DEV: only that device and its events"
if [ $have_py = 1 ]; then
	run 0 watch --json --count 2 --interval 0.05 &&
		python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
r = [o for o in objs if o["type"] == "refresh"]
e = [o for o in objs if o["type"] == "event"]
assert len(r) == 2 and r[1]["refresh"] == 2 and len(r[0]["devices"]) == 4
assert e[0]["event"] == "cluster" and e[0]["first"] == 5 and e[0]["to"] == "huge"
' "$tmp/out"
	ok $? "watch --json: one object per line, refreshes and events"
else
	skip "watch --json" "no python3"
fi
run 3 watch 8 --count 1
ok $? "watch of a missing device: exit 3"

# help, man page, completion
missing=
run 0 --help || missing=" (exit $rc)"
for c in list stats clusters map watch dump add remove reset help; do has "^  $c " || missing="$missing $c"; done
[ -z "$missing" ] || echo "# --help lacks:$missing"
[ -z "$missing" ]; ok $? "--help lists every command"
run 0 map --help && has "usage: thpswapctl map DEV"
ok $? "COMMAND --help shows its usage"
run 0 help add && has "usage: thpswapctl add --size SIZE"
ok $? "help COMMAND"
missing=
for c in list stats clusters map watch dump add remove reset help; do
	grep -q "^\.B $c\b\|^\.BR $c\b" "$top/userctl/thpswapctl.8" || missing="$missing $c"
done
[ -z "$missing" ] || echo "# man: no$missing"
[ -z "$missing" ]; ok $? "the man page has every command"
if command -v groff > /dev/null; then
	out=$(groff -man -ww -z "$top/userctl/thpswapctl.8" 2>&1)
	[ -z "$out" ]; ok $? "man page renders without groff warnings"
else
	skip "man page renders" "no groff"
fi
comp() {	# comp WORDS...: completions of the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_init_completion() { cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
		_thpswapctl; echo "${COMPREPLY[*]}"' _ "$top/userctl/completion/thpswapctl.bash" "$@"
}
bash -n "$top/userctl/completion/thpswapctl.bash" &&
	[ "$(comp thpswapctl '')" = "list stats clusters map watch dump add remove reset setup teardown help" ] &&
	[ "$(comp thpswapctl --json r)" = "remove reset" ] &&
	[ "$(comp thpswapctl add --s)" = "--size" ] &&
	[ "$(comp thpswapctl --color '')" = "auto always never" ]
ok $? "bash completion: commands, after options, per-command options, --color values"

echo "1..$n"
[ $bad = 0 ]
