#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# farnode-guest.sh: the guest half of bench/farnode (busybox ash, run as
# root by tests/vm/run --far-node, driven by bench/farnode).  A process on
# node 0 holds TOTAL_MIB of THP memory in a cgroup with memory.max =
# MAX_MIB, so TOTAL - MAX is swapped out, to each set-up in turn:
#   far    thpswap, SWAP_MIB of RAM on node 1 (the far, CPU-less node)
#   near   thpswap, SWAP_MIB of RAM on node 0 (what "modprobe thpswap
#          size=..." on a one-node machine amounts to)
#   zram   zram (lzo-rle), allocating as it stores, on the writer's node
# Every page is half random, half zero (numa-thp --half-zero, ~2:1 for
# zram).  Variables (VAR=VALUE arguments): SETUPS, REPS, TOTAL_MIB,
# MAX_MIB, SWAP_MIB.
#
# Records, one line each:
#   F setup= rep= base0_kb= base1_kb= dev0_kb= dev1_kb= <fill phase of
#     numa-thp> ... touch_t_s= touch_anonhuge_kb= touch_thp_swpout=
#     result= bad_words=
# base*: node MemUsed before the device existed; dev*: after it was set
# up and swapped on; the numa-thp fields are its "fill" record (node
# MemUsed with the cgroup full), the touch_* ones its "touch" record.
# "F setup=S rep=R status=RC" ends each run.  Anything else is a comment.
set -u
SETUPS="far near zram"
REPS=3
TOTAL_MIB=384
MAX_MIB=192
SWAP_MIB=384
for arg in "$@"; do
	case "$arg" in
	SETUPS=*|REPS=*|TOTAL_MIB=*|MAX_MIB=*|SWAP_MIB=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# farnode-guest.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
MODPROBE=/sbin/modprobe RMMOD=/sbin/rmmod
CG=/sys/fs/cgroup/farnode
fail=0

node_kb() { awk -v f="$2:" '$3 == f { print $4 }' "/sys/devices/system/node/node$1/meminfo"; }
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# The devices: thpswap on either node here, zram as every bench sets it up
# (devices.sh: setup DEV sets blk and swaps on, teardown DEV BLK).
THP=/sys/kernel/mm/transparent_hugepage
. devices.sh
node_setup() {	# node_setup NAME: create and swap on; sets blk
	case "$1" in
	far|near)
		n=1
		[ "$1" = near ] && n=0
		$MODPROBE thpswap size="${SWAP_MIB}M" node=$n || return 1
		blk=/dev/thpswap0
		mkswap "$blk" > /dev/null && swapon "$blk" ;;
	zram) setup zram ;;
	*) echo "# unknown setup '$1'"; return 1 ;;
	esac
}
node_teardown() {
	case "$1" in
	far|near) swapoff "$blk" && $RMMOD thpswap ;;
	*) teardown "$1" "$blk" ;;
	esac
}

grep -q memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
	mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
echo "# far node: setups '$SETUPS' x $REPS, ${TOTAL_MIB} MiB in memory.max ${MAX_MIB} MiB, swap ${SWAP_MIB} MiB"
echo "# node0 $(node_kb 0 MemTotal) kB, node1 $(node_kb 1 MemTotal) kB, cpus node1 '$(cat /sys/devices/system/node/node1/cpulist)'"

rep=1
while [ "$rep" -le "$REPS" ]; do
	for s in $SETUPS; do
		settle
		b0=$(node_kb 0 MemUsed) b1=$(node_kb 1 MemUsed)
		if ! node_setup "$s"; then
			echo "F setup=$s rep=$rep status=setup-failed"
			fail=$((fail + 1))
			continue
		fi
		d0=$(node_kb 0 MemUsed) d1=$(node_kb 1 MemUsed)
		mkdir -p "$CG"
		echo "${MAX_MIB}M" > "$CG/memory.max"
		out=$(sh -c "echo \$\$ > $CG/cgroup.procs && exec numa-thp --size $TOTAL_MIB --half-zero") &&
			rc=0 || rc=$?
		printf '%s\n' "$out" | sed 's/^/# /'
		fill=$(printf '%s\n' "$out" | sed -n 's/^phase=fill //p')
		touch=$(printf '%s\n' "$out" | sed -n 's/^phase=touch //p')
		res=$(printf '%s\n' "$out" | sed -n 's/^result=//p')
		echo "F setup=$s rep=$rep base0_kb=$b0 base1_kb=$b1 dev0_kb=$d0 dev1_kb=$d1 $fill" \
		     "touch_t_s=$(echo "$touch" | tr ' ' '\n' | sed -n 's/^t_s=//p')" \
		     "touch_anonhuge_kb=$(echo "$touch" | tr ' ' '\n' | sed -n 's/^anonhuge_kb=//p')" \
		     "touch_thp_swpout=$(echo "$touch" | tr ' ' '\n' | sed -n 's/^thp_swpout=//p')" \
		     "result=${res%% *} ${res#* }"
		rmdir "$CG"
		node_teardown "$s"
		echo "F setup=$s rep=$rep status=$rc"
		[ "$rc" = 0 ] || fail=$((fail + 1))
	done
	rep=$((rep + 1))
done
exit $((fail > 0))
