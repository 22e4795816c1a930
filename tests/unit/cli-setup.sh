#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of what thpswapctl setup/teardown and stats --prometheus do
# before they touch a kernel: the configuration file's checks (every bad
# line named, exit 1, the fake "kernel" untouched) and the Prometheus text
# (parsed strictly, every value equal to stats --json, kernel-reported
# counters present exactly when the kernel reports them).  Runs the real
# command code against tests/unit/cli/fake.c.  The guest side is
# userctl/tests/setup-guest.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"
		sed 's/^/# out: /' "$tmp/out" 2>/dev/null | head -20
		sed 's/^/# err: /' "$tmp/err" 2>/dev/null | head -20
	fi
}
run() { local want=$1; shift; "$B" "$@" > "$tmp/out" 2> "$tmp/err"; [ "$?" = "$want" ]; }

echo "TAP version 13"
srcs=$(make -s -C "$top/userctl" print-core-sources | tr ' ' '\n' | sed "s|^|$top/userctl/|")
B=$tmp/thpswapctl
# shellcheck disable=SC2086
${CC:-cc} -O2 -Wall -Wextra -Werror -std=gnu11 -I"$top/userctl" -I"$top/uapi" -o "$B" \
	$srcs "$top/tests/unit/cli/fake.c" > "$tmp/out" 2> "$tmp/err"
ok $? "thpswapctl builds with the fake transport"
[ -x "$B" ] || { echo "1..$n"; exit 1; }
export THPSWAPCTL_FAKE=$tmp/state
printf 'dev 0 67108864\n' > "$tmp/state"
cp "$tmp/state" "$tmp/state.0"

# --- the configuration file ----------------------------------------------------
cat > "$tmp/bad.conf" <<'EOF'
# line 1: a comment
thpswap0 size=64M priority=100 discard=no

thpswap1 size=3M
thpswap0 size=8M
zram0 size=1G
thpswap2 size=8M priority=40000 discard=maybe colour=red
thpswap3 priority=5
module num_devices=0 bad"opt
module
thpswap4 size=8M memmap=0x100000000
thpswap5 size=8M memmap=0x100200000
thpswap64 size=8M
thpswap6 size=8M size=16M
thpswap7 size=8M memmap=0x123
thpswap8 size
thpswap9 size=2M
thpswap10 size=8M node=one
thpswap11 size=8M memmap=0x200000000 node=1
EOF
run 1 setup --config "$tmp/bad.conf"
st=$?
want="$tmp/bad.conf:4: bad size '3M': want a multiple of 2M, at least 4M (e.g. 4G)
$tmp/bad.conf:5: thpswap0 is already declared on line 2
$tmp/bad.conf:6: 'zram0' is neither a device (thpswapN) nor 'module'
$tmp/bad.conf:7: bad priority '40000': want 0 to 32767
$tmp/bad.conf:7: bad discard 'maybe': want no, yes, once or pages
$tmp/bad.conf:7: unknown key 'colour' (size, memmap, node, priority, discard)
$tmp/bad.conf:8: thpswap3: size= is required
$tmp/bad.conf:9: bad module option 'bad\"opt': want NAME or NAME=VALUE
$tmp/bad.conf:10: a second 'module' line (the first is line 9)
$tmp/bad.conf:12: thpswap5: memmap range overlaps thpswap4's (line 11)
$tmp/bad.conf:13: thpswap64: devices are thpswap0 to thpswap63
$tmp/bad.conf:14: size= given twice
$tmp/bad.conf:15: bad memmap address '0x123': want a 2M-aligned address (0xHEX)
$tmp/bad.conf:16: 'size': want KEY=VALUE (size, memmap, node, priority, discard)
$tmp/bad.conf:16: thpswap8: size= is required
$tmp/bad.conf:17: bad size '2M': want a multiple of 2M, at least 4M (e.g. 4G)
$tmp/bad.conf:18: bad node 'one': want a NUMA node number, 0 to 1023
$tmp/bad.conf:19: thpswap11: memmap= and node= exclude each other (memmap= names the memory)"
[ "$st" = 0 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]
ok $? "setup: every bad line reported as FILE:LINE: message, exit 1"
if [ "$(cat "$tmp/err")" != "$want" ]; then diff <(echo "$want") "$tmp/err" | sed 's/^/# /'; fi
cmp -s "$tmp/state" "$tmp/state.0"
ok $? "setup with a bad file leaves the (fake) kernel untouched"
run 1 teardown --config "$tmp/bad.conf" && [ "$(grep -c "bad.conf:[0-9]*:" "$tmp/err")" = 18 ] &&
	cmp -s "$tmp/state" "$tmp/state.0"
ok $? "teardown checks the file the same way and changes nothing"
run 1 setup --config "$tmp/nonexistent.conf" && grep -q "nonexistent.conf: No such file or directory" "$tmp/err"
ok $? "setup with a missing file: exit 1, named"
printf '# only comments\n\n   # and blanks\nmodule\n' > "$tmp/empty.conf"
run 0 setup --config "$tmp/empty.conf" && grep -q "declares no device: nothing to do" "$tmp/out" &&
	cmp -s "$tmp/state" "$tmp/state.0"
ok $? "setup with no device line: exit 0, nothing done"
printf 'thpswap0\tsize=0x4000000   priority=0 discard=pages # tab, hex, comment\nthpswap63 size=4M discard=yes\nthpswap62 size=4M node=node1 # a far node\n' \
	> "$tmp/ok.conf"
run 2 setup --config "$tmp/ok.conf" --json && grep -q -- "--json does not apply to 'setup'" "$tmp/err"
ok $? "setup takes no --json (usage error)"
# Parsed as valid: teardown gets past the checks (and, with no thpswap
# module on the host, has nothing to remove).
if [ ! -e /sys/module/thpswap ]; then
	run 0 teardown --config "$tmp/ok.conf" && [ ! -s "$tmp/err" ] && grep -q "set up no device: nothing to tear down" "$tmp/out"
	ok $? "tabs, hex size, trailing comment, priority=0, discard=pages/yes, thpswap63: valid"
fi
run 2 stats --config "$tmp/ok.conf" && grep -q -- "--config does not apply to 'stats'" "$tmp/err"
ok $? "--config applies to setup and teardown only"

# --- Prometheus -------------------------------------------------------------------
cat > "$tmp/state" <<STATE
dev 0 268435456
counter 0 thp_writes 100
counter 0 thp_reads 3
counter 0 page_writes 12345
counter 0 bytes_written 209715200
counter 0 bytes_read 4096
counter 0 slot_frees 77
run 0 1 40 huge
run 0 41 2 split
global thp_swpout 120
global thp_swpout_fallback 7
global thp_swpin 9
global thp_swpin_declined 14
global thp_swpin_promoted 6
global thp_swpin_promote_fallback 1
global thp_swpout_pte_mapped 21
global thp_split_reclaim 2
global thp_swpin_shared 5
global thp_swpin_collapse_read 3
global thp_swpin_handoff 4
dev 2 67108864 100000000
node 0 1
swaps $tmp/swaps
STATE
printf 'Filename\tType\tSize\tUsed\tPriority\n/dev/thpswap0   partition\t262140\t81920\t100\n' > "$tmp/swaps"

# Parse the text format strictly; compare every sample with stats --json.
check_prom() {	# check_prom PATCHED(0|1)
	"$B" stats --prometheus > "$tmp/prom" 2> "$tmp/err" || return 1
	"$B" stats --json > "$tmp/json" 2>> "$tmp/err" || return 1
	python3 - "$tmp/prom" "$tmp/json" "$1" <<'PY'
import json, re, sys
text, j, patched = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3] == "1"
name_re = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')
sample_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9]+(?:\.[0-9]+)?)$')
label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"\\]*)"(,|$)')
types, helps, samples, order = {}, {}, {}, []
def die(m):
    print("# " + m); sys.exit(1)
for ln in text.splitlines():
    if ln.startswith("# HELP "):
        _, _, name, h = ln.split(" ", 3)
        if name in helps or not h: die("HELP: " + ln)
        helps[name] = h
    elif ln.startswith("# TYPE "):
        _, _, name, t = ln.split(" ")
        if name in types or t not in ("counter", "gauge") or not name_re.match(name): die("TYPE: " + ln)
        if t == "counter" and not name.endswith("_total"): die("counter name: " + ln)
        types[name] = t
    else:
        m = sample_re.match(ln)
        if not m: die("sample: " + ln)
        name, lab, val = m.group(1), m.group(2) or "", int(m.group(3))
        if name not in types or name not in helps: die("no TYPE/HELP before: " + ln)
        if order and order[-1] != name and name in order: die("family split: " + ln)
        order.append(name)
        labels = dict((k, v) for k, v, _ in label_re.findall(lab[1:-1])) if lab else {}
        key = (name, tuple(sorted(labels.items())))
        if key in samples: die("series twice: " + ln)
        samples[key] = val
def get(name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))))
def eq(want, name, **labels):
    got = get(name, **labels)
    if got != want: die("%s%s = %s, stats --json says %s" % (name, labels, got, want))
eq(len(j["devices"]), "thpswap_devices")
for d in j["devices"]:
    dev = d["name"]
    eq(d["size"], "thpswap_size_bytes", device=dev)
    node = {} if d.get("node") is None else {"node": str(d["node"])}
    eq(1, "thpswap_device_info", device=dev, backing=d["backing"], **node)
    eq(int(d["swap"]["active"]), "thpswap_swap_active", device=dev)
    for k, m in (("size", "thpswap_swap_size_bytes"), ("used", "thpswap_swap_used_bytes"),
                 ("priority", "thpswap_swap_priority")):
        eq(d["swap"][k] if d["swap"]["active"] else None, m, device=dev)
    eq(int(d["authoritative"]), "thpswap_authoritative", device=dev)
    eq(d["live_slots"], "thpswap_live_slots", device=dev)
    eq(d["clusters"]["total"], "thpswap_clusters_count", device=dev)
    for s in ("free", "huge", "split", "small"):
        eq(d["clusters"][s], "thpswap_clusters", device=dev, state=s)
    reports = d["authoritative"] or d["counters"]["kernel_events"] > 0
    for k, v in d["counters"].items():
        m = "thpswap_%s_bytes_total" % k[6:] if k.startswith("bytes_") else "thpswap_%s_total" % k
        only_patched = k.startswith("fallback_") or k == "swapin_whole"
        eq(v if reports or not only_patched else None, m, device=dev)
for k, v in j["global"].items():
    only_patched = k.startswith("thp_swpin") or k in ("thp_swpout_pte_mapped", "thp_split_reclaim")
    eq(v if patched or not only_patched else None, "thpswap_vm_%s_total" % k)
print("# %d series, %d families" % (len(samples), len(types)))
PY
}
check_prom 0 > "$tmp/out" 2>&1
ok $? "stats --prometheus (stock kernel): parses, every value equals stats --json, no thp_swpin or fallback_* series"
cat "$tmp/out" | grep '^#' | head -3
! grep -q 'swapin_whole\|thpswap_fallback_\|thp_swpin\|thp_swpout_pte_mapped\|thp_split_reclaim' "$tmp/prom"
ok $? "stock kernel: the counters only a patched kernel fills are left out, not 0"
grep -q '^thpswap_device_info{device="thpswap0",backing="ram",node="1"} 1$' "$tmp/prom" &&
	grep -q '^thpswap_device_info{device="thpswap2",backing="memmap"} 1$' "$tmp/prom"
ok $? "thpswap_device_info: node label for RAM on a node, none for memmap"
printf 'authoritative 0\ncounter 0 swapin_whole 5\ncounter 0 fallback_memcg 2\ncounter 0 kernel_events 40\n' >> "$tmp/state"
check_prom 1 > "$tmp/out" 2>&1
ok $? "stats --prometheus (patched kernel): thpswap0's fallback_*, swapin_whole and thp_swpin* present and equal, thpswap2's absent"
grep -q '^thpswap_swapin_whole_total{device="thpswap0"} 5$' "$tmp/prom" &&
	! grep -q 'swapin_whole_total{device="thpswap2"}' "$tmp/prom" &&
	grep -q '^thpswap_vm_thp_swpin_total 9$' "$tmp/prom"
ok $? "patched: swapin_whole 5 for thpswap0, none for thpswap2; thp_swpin 9"
grep -q '^thpswap_vm_thp_swpin_declined_total 14$' "$tmp/prom" &&
	grep -q '^thpswap_vm_thp_swpin_promoted_total 6$' "$tmp/prom" &&
	grep -q '^thpswap_vm_thp_swpin_promote_fallback_total 1$' "$tmp/prom" &&
	[ "$(grep -c '^# TYPE thpswap_vm_thp_swpin_[a-z_]*_total counter$' "$tmp/prom")" = 7 ]
ok $? "patched: thp_swpin_declined 14, thp_swpin_promoted 6, thp_swpin_promote_fallback 1, counters"
grep -q '^thpswap_vm_thp_swpout_pte_mapped_total 21$' "$tmp/prom" &&
	grep -q '^thpswap_vm_thp_split_reclaim_total 2$' "$tmp/prom" &&
	grep -q '^# TYPE thpswap_vm_thp_split_reclaim_total counter$' "$tmp/prom"
ok $? "patched: thp_swpout_pte_mapped 21, thp_split_reclaim 2, counters"
grep -q '^thpswap_vm_thp_swpin_shared_total 5$' "$tmp/prom" &&
	grep -q '^# TYPE thpswap_vm_thp_swpin_shared_total counter$' "$tmp/prom"
ok $? "patched: thp_swpin_shared 5, a counter"
grep -q '^thpswap_vm_thp_swpin_collapse_read_total 3$' "$tmp/prom" &&
	grep -q '^# TYPE thpswap_vm_thp_swpin_collapse_read_total counter$' "$tmp/prom"
ok $? "patched: thp_swpin_collapse_read 3, a counter"
grep -q '^thpswap_vm_thp_swpin_handoff_total 4$' "$tmp/prom" &&
	grep -q '^# TYPE thpswap_vm_thp_swpin_handoff_total counter$' "$tmp/prom"
ok $? "patched: thp_swpin_handoff 4, a counter"
run 2 stats --prometheus --json && grep -q "choose one" "$tmp/err"
ok $? "stats --prometheus --json: usage error"
printf '' > "$tmp/state"
run 0 stats --prometheus && [ "$(cat "$tmp/out")" = "# HELP thpswap_devices thpswap devices
# TYPE thpswap_devices gauge
thpswap_devices 0" ]
ok $? "no device: only thpswap_devices 0"
echo "1..$n"
