#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow for thpswapctl setup / teardown and stats --prometheus (busybox
# ash, root, thpswap not loaded yet): devices from a configuration file
# come up swapped on with their sizes and priorities (/proc/swaps), a
# second setup changes nothing, a malformed file changes nothing and names
# its bad lines, a device of another size is refused before any change, a
# failure half way is undone, teardown removes what the file declares and
# is idempotent; setup records what it made in /run/thpswap/devices, and
# teardown undoes that whatever the file says by then, a second setup
# with an edited file (systemctl reload) adds and removes devices and
# leaves the others alone; the Prometheus text parses and matches stats
# --json.
# TAP on stdout; exits non-zero if any step failed.
#
#   tests/vm/run --script userctl/tests/setup-guest.sh
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
show() { sed 's/^/# /' /tmp/out /tmp/err 2>/dev/null | head -30; }
# expect RC DESCRIPTION COMMAND...: the command exits with RC.
expect() {
	want=$1 desc=$2; shift 2
	"$@" > /tmp/out 2> /tmp/err
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else notok "$desc (exit $rc, wanted $want)"; show; fi
}
# The state setup may change: swap areas, devices, module.
state() {
	{
		sed 1d /proc/swaps | awk '{ print $1, $2, $3, $5 }'
		ls /sys/block | grep '^thpswap' || true
		[ -d /sys/module/thpswap ] && echo "module loaded"
	} > "$1"
}
same_state() {	# same_state FILE: the state now equals FILE's
	state /tmp/now
	cmp -s "$1" /tmp/now || { echo "# before:"; sed 's/^/#   /' "$1"; echo "# now:"; sed 's/^/#   /' /tmp/now; return 1; }
}
sysstat() { sed -n "s/^$2 //p" "/sys/block/$1/thpswap/stats"; }

echo "TAP version 13"
mkdir -p /tmp/etc
C=/tmp/etc/thpswap.conf
cat > $C <<'EOF'
# two devices, one index skipped; thpswap2 with a low priority
thpswap0   size=64M priority=100

thpswap2   size=32M   priority=7 discard=once   # a comment after options
EOF

# --- malformed, with the module not loaded: nothing may change -------------
[ ! -d /sys/module/thpswap ] && ok "precondition: thpswap not loaded" || notok "thpswap loaded before the test"
state /tmp/s0
cp $C /tmp/etc/bad.conf
cat >> /tmp/etc/bad.conf <<'EOF'
thpswap1 size=16M
thpswap3 size=3M priority=5
thpswap4 size=8M colour=blue
EOF
expect 1 "setup with bad lines 6 and 7: exit 1" thpswapctl setup --config /tmp/etc/bad.conf
if grep -q "^/tmp/etc/bad.conf:6: bad size '3M'" /tmp/err &&
   grep -q "^/tmp/etc/bad.conf:7: unknown key 'colour'" /tmp/err &&
   [ "$(grep -c 'bad.conf:[0-9]*:' /tmp/err)" = 2 ]; then
	ok "each bad line named as thpswap.conf-style FILE:LINE: message, and only those"
else
	notok "bad lines named"; show
fi
same_state /tmp/s0 && ok "nothing changed: no module loaded, no device (not even line 5's valid thpswap1)" ||
	notok "a malformed file changed something"

# --- setup ---------------------------------------------------------------------
expect 0 "setup --config $C" thpswapctl setup --config $C
show
# /proc/swaps: Filename Type Size(KiB) Used Priority; the header page is not swap.
sw() { awk -v d="/dev/$1" '$1 == d { print $3, $5 }' /proc/swaps; }
[ "$(sw thpswap0)" = "65532 100" ] && ok "thpswap0 swapped on: 65532 KiB (64 MiB less the header page), priority 100" ||
	notok "thpswap0 in /proc/swaps: '$(sw thpswap0)', want '65532 100'"
[ "$(sw thpswap2)" = "32764 7" ] && ok "thpswap2 swapped on: 32764 KiB, priority 7" ||
	notok "thpswap2 in /proc/swaps: '$(sw thpswap2)', want '32764 7'"
devs=$(ls /sys/block | grep '^thpswap' | tr '\n' ' ')
[ "$devs" = "thpswap0 thpswap2 " ] && ok "exactly the declared devices exist (no default device from the module)" ||
	notok "devices: '$devs', want 'thpswap0 thpswap2 '"
[ "$(cat /sys/block/thpswap0/size)" = 131072 ] && [ "$(cat /sys/block/thpswap2/size)" = 65536 ] &&
	ok "block device sizes 64 MiB and 32 MiB" || notok "block device sizes"

# --- idempotent ----------------------------------------------------------------
state /tmp/s1
w0=$(sysstat thpswap0 bytes_written)
expect 0 "setup again: exit 0" thpswapctl setup --config $C
if same_state /tmp/s1 && [ "$(sysstat thpswap0 bytes_written)" = "$w0" ] &&
   [ "$(grep -c 'left as it is' /tmp/out)" = 2 ]; then
	ok "setup again changes nothing: same swaps, no new write (bytes_written $w0), both 'left as it is'"
else
	notok "second setup changed something"; show
fi

# --- a device that exists with another size: refused before any change ----------
printf 'thpswap1 size=16M\nthpswap0 size=128M\n' > /tmp/etc/other.conf
expect 1 "setup with thpswap0 at 128M while it is 64M: exit 1" thpswapctl setup --config /tmp/etc/other.conf
grep -q "other.conf:2: thpswap0 exists with 64 MiB" /tmp/err && same_state /tmp/s1 &&
	ok "size conflict named (line 2), and thpswap1 of line 1 not created" || { notok "size conflict"; show; }

# --- exists but not swapped on: formatted and swapped on with the file's priority -
swapoff /dev/thpswap2
expect 0 "setup with thpswap2 there but swapped off" thpswapctl setup --config $C
[ "$(sw thpswap2)" = "32764 7" ] && grep -q '^thpswap2: 32 MiB, swapped on' /tmp/out &&
	ok "thpswap2 swapped on again with priority 7, not re-created" || { notok "thpswap2 after swapoff: '$(sw thpswap2)'"; show; }

# --- Prometheus -------------------------------------------------------------------
# Some swap traffic first, so counters are not all 0.
if command -v thpswap-mem > /dev/null; then
	thpswap-mem --size 32 --quiet > /dev/null 2>&1 || true
fi
expect 0 "stats --prometheus" thpswapctl stats --prometheus
cp /tmp/out /tmp/prom
expect 0 "stats --json" thpswapctl stats --json
cp /tmp/out /tmp/json
# The text format: HELP and TYPE once per family, before its samples, the
# family's samples together, names and labels well formed, counters end in
# _total, no series twice, values numbers.  Prints "NAME{LABELS} VALUE".
awk '
function fail(m) { print "# bad line " NR ": " m ": " $0; bad = 1 }
/^# HELP / { if ($3 in help) fail("HELP twice"); help[$3] = 1; next }
/^# TYPE / {
	if ($3 in type) fail("TYPE twice")
	if ($4 != "counter" && $4 != "gauge") fail("type")
	if ($4 == "counter" && $3 !~ /_total$/) fail("counter without _total")
	type[$3] = $4; next
}
/^#/ { fail("comment"); next }
{
	if (NF != 2) { fail("fields"); next }
	s = $1; name = s; labels = ""
	i = index(s, "{")
	if (i) {
		name = substr(s, 1, i - 1); labels = substr(s, i)
		if (labels !~ /^\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*\}$/) fail("labels")
	}
	if (name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) fail("name")
	if (!(name in type) || !(name in help)) fail("no TYPE/HELP before the sample")
	if (name != last && (name in done)) fail("family not contiguous")
	done[name] = 1; last = name
	if ($2 !~ /^-?[0-9]+(\.[0-9]+)?$/) fail("value")
	if (s in seen) fail("series twice")
	seen[s] = 1
	print s, $2
}
END { exit bad }' /tmp/prom > /tmp/prom.series
prc=$?
nser=$(wc -l < /tmp/prom.series)
[ "$prc" = 0 ] && [ "$nser" -gt 30 ] && ok "Prometheus text parses: $nser series" || { notok "Prometheus text does not parse (rc $prc, $nser series)"; sed 's/^/# /' /tmp/prom | head -40; }

# stats --json flattened to "devices.N.KEY... VALUE" / "global.KEY VALUE".
awk '
{
	line = $0; sub(/^ */, "", line); sub(/,$/, "", line)
	if (line == "}" || line == "]") { d--; next }
	key = ""
	if (line ~ /^"/) {	# "KEY": VALUE
		key = substr(line, 2); key = substr(key, 1, index(key, "\"") - 1)
		line = substr(line, length(key) + 5)
	}
	if (line == "{" || line == "[") {
		d++
		if (key == "" && arr[d - 1]) key = idx[d - 1]++
		path[d] = key; arr[d] = (line == "["); idx[d] = 0
		next
	}
	if (key == "" && arr[d]) key = idx[d]++
	p = ""
	for (i = 2; i <= d; i++) p = p path[i] "."
	gsub(/"/, "", line)
	print p key, line
}' /tmp/json > /tmp/json.flat
# Each device: json name -> index in the array.
bad=
for i in 0 1; do
	name=$(sed -n "s/^devices\.$i\.name //p" /tmp/json.flat)
	[ -n "$name" ] || { bad="$bad no-device-$i"; continue; }
	j() { sed -n "s/^devices\.$i\.$1 //p" /tmp/json.flat; }
	p() { sed -n "s/^$1{device=\"$name\"$2} //p" /tmp/prom.series; }
	for pair in size:thpswap_size_bytes live_slots:thpswap_live_slots \
		    swap.size:thpswap_swap_size_bytes swap.used:thpswap_swap_used_bytes \
		    swap.priority:thpswap_swap_priority clusters.total:thpswap_clusters_count; do
		[ "$(j ${pair%%:*})" = "$(p ${pair#*:})" ] || bad="$bad $name:${pair%%:*}=$(j ${pair%%:*})/$(p ${pair#*:})"
	done
	[ "$(j swap.active)" = true ] && [ "$(p thpswap_swap_active)" = 1 ] || bad="$bad $name:active"
	for s in free huge split small; do
		[ "$(j clusters.$s)" = "$(p thpswap_clusters ",state=\"$s\"")" ] || bad="$bad $name:clusters.$s"
	done
	for k in $(sed -n "s/^devices\.$i\.counters\.\([a-z_]*\) .*/\1/p" /tmp/json.flat); do
		case $k in
		bytes_*) m=thpswap_${k#bytes_}_bytes_total ;;
		*) m=thpswap_${k}_total ;;
		esac
		pv=$(p $m)
		if [ -z "$pv" ] && [ "$(j authoritative)" = false ] && [ "$(j counters.kernel_events)" = 0 ]; then
			# left out on a stock kernel: only the patched-kernel counters may be
			case $k in fallback_*|swapin_whole) continue ;; esac
		fi
		[ "$(j counters.$k)" = "$pv" ] || bad="$bad $name:$k=$(j counters.$k)/${pv:-missing}"
	done
done
for k in thp_swpout thp_swpout_fallback; do
	[ "$(sed -n "s/^global\.$k //p" /tmp/json.flat)" = "$(sed -n "s/^thpswap_vm_${k}_total //p" /tmp/prom.series)" ] || bad="$bad global:$k"
done
# thp_swpin* (thp_swpin_collapse_read and _handoff too), thp_swpout_pte_mapped and
# thp_split_reclaim: only where the kernel reports them (the patched
# kernel, whose cluster states are authoritative), and then equal.
for k in thp_swpin thp_swpin_fallback thp_swpin_declined thp_swpin_promoted thp_swpin_promote_fallback \
	thp_swpout_pte_mapped thp_split_reclaim thp_swpin_shared thp_swpin_collapse_read \
	thp_swpin_handoff; do
	pv=$(sed -n "s/^thpswap_vm_${k}_total //p" /tmp/prom.series)
	if [ "$(sed -n 's/^devices\.0\.authoritative //p' /tmp/json.flat)" = true ]; then
		[ "$(sed -n "s/^global\.$k //p" /tmp/json.flat)" = "$pv" ] || bad="$bad global:$k=${pv:-missing}"
	else
		[ -z "$pv" ] || bad="$bad global:$k-on-a-stock-kernel"
	fi
done
[ "$(sed -n 's/^thpswap_devices //p' /tmp/prom.series)" = 2 ] || bad="$bad devices"
nc=$(grep -c '^devices\.0\.counters\.' /tmp/json.flat)
if [ -z "$bad" ] && [ "$nc" -ge 10 ] && [ "$(sed -n 's/^devices\.0\.counters\.bytes_written //p' /tmp/json.flat)" -gt 0 ]; then
	ok "Prometheus values equal stats --json: sizes, swap, clusters, $nc counters per device, vm events"
else
	notok "Prometheus differs from stats --json:$bad"
fi

# --- a failure half way is undone ------------------------------------------------
state /tmp/s2
printf 'thpswap5 size=16M\nthpswap6 size=16T\n' > /tmp/etc/toobig.conf
expect 1 "setup where the second device cannot be created (16T): exit 1" thpswapctl setup --config /tmp/etc/toobig.conf
grep -q "toobig.conf:2: adding thpswap6" /tmp/err && grep -q "thpswap5: removed again" /tmp/err && same_state /tmp/s2 &&
	ok "the failing line named; thpswap5, created and swapped on first, is gone again" || { notok "undo after a failure"; show; }

# --- teardown -----------------------------------------------------------------------
expect 0 "teardown --config $C" thpswapctl teardown --config $C
if ! grep -q thpswap /proc/swaps && [ -z "$(ls /sys/block | grep '^thpswap')" ]; then
	ok "teardown: nothing in /proc/swaps, no thpswap device"
else
	notok "teardown left:"; sed 's/^/# /' /proc/swaps; ls /sys/block | sed 's/^/# /'
fi
state /tmp/s3
expect 0 "teardown again: exit 0" thpswapctl teardown --config $C
same_state /tmp/s3 && ok "teardown again changes nothing" || notok "second teardown changed something"
expect 1 "teardown with a malformed file: exit 1" thpswapctl teardown --config /tmp/etc/bad.conf
expect 0 "setup after teardown" thpswapctl setup --config $C
[ "$(sw thpswap0)" = "65532 100" ] && [ "$(sw thpswap2)" = "32764 7" ] && ok "back up after teardown" || notok "setup after teardown"
expect 0 "final teardown" thpswapctl teardown --config $C
[ ! -e /run/thpswap/devices ] && ok "teardown left no record in /run/thpswap" ||
	{ notok "record left after teardown"; sed 's/^/# /' /run/thpswap/devices; }

# --- the record: teardown undoes setup whatever the file says now ----------------
expect 0 "setup --config $C (record)" thpswapctl setup --config $C
if grep -q '^thpswap0 created swapon$' /run/thpswap/devices &&
   grep -q '^thpswap2 created swapon$' /run/thpswap/devices; then
	ok "setup recorded thpswap0 and thpswap2 as created and swapped on"
else
	notok "setup's record"; sed 's/^/# /' /run/thpswap/devices 2>/dev/null
fi
expect 0 "teardown with a malformed file, after setup: exit 0 (it reads the record)" \
	thpswapctl teardown --config /tmp/etc/bad.conf
if ! grep -q thpswap /proc/swaps && [ -z "$(ls /sys/block | grep '^thpswap')" ]; then
	ok "teardown with a malformed file removed what setup made"
else
	notok "teardown with a malformed file left:"; sed 's/^/# /' /proc/swaps
fi

# --- setup again with an edited file: thpswap2 goes, thpswap3 comes -----------------
expect 0 "setup --config $C" thpswapctl setup --config $C
uuid0=$(od -An -tx1 -j1036 -N16 /dev/thpswap0)
printf 'thpswap0 size=64M\nthpswap3 size=16M priority=3\n' > /tmp/etc/edited.conf
expect 0 "setup with thpswap2's line gone and thpswap3 added" thpswapctl setup --config /tmp/etc/edited.conf
if [ "$(sw thpswap3)" = "16380 3" ] && [ -z "$(sw thpswap2)" ] && [ ! -e /sys/block/thpswap2 ] &&
   [ "$(od -An -tx1 -j1036 -N16 /dev/thpswap0)" = "$uuid0" ] &&
   grep -q '^thpswap0: 64 MiB, swapped on already' /tmp/out &&
   grep -q '^thpswap2: swapped off and removed' /tmp/out; then
	ok "edited file applied: thpswap3 created, thpswap2 swapped off and removed, thpswap0 untouched"
else
	notok "edited file applied"; show; sed 's/^/# /' /proc/swaps
fi
expect 0 "teardown (edited file's record)" thpswapctl teardown --config $C
if ! grep -q thpswap /proc/swaps && [ -z "$(ls /sys/block | grep '^thpswap')" ]; then
	ok "teardown removed thpswap0 and thpswap3, though $C declares thpswap2, not thpswap3"
else
	notok "teardown after the edit left:"; sed 's/^/# /' /proc/swaps; ls /sys/block | sed 's/^/# /'
fi
expect 2 "--force applies to teardown only" thpswapctl setup --force --config $C

echo "1..$n"
[ "$failed" = 0 ]
