#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# swapin-async.sh: THP swap-out and swap-in on swap devices that finish
# their writes after the folio is unlocked (busybox ash, run as root by
# tests/vm/run with disks attached).  For each swap target, under each
# swapin_enabled policy (on a kernel that has the knob; once on one that
# has not), runs swapin_async_test with swap on that target alone, then
# checks that swapoff brings everything back and no slot leaked.  Flat TAP.
#
#   tests/vm/run [--kernel DIR] --disk 64M,nvme,write-bps=N \
#       --disk 64M,virtio,write-bps=N --disk 128M,nvme \
#       --add /usr/sbin/mkfs.ext4 --script tests/guest/swapin/swapin-async.sh \
#       -- nvme:0 virtio:1 file:2 [policy=always,auto] [THPSWAP_TEST_DIV=N]
#
# A target KIND:I:POLICIES (file:2:auto) runs under those policies only;
# THPSWAP_ONLY=CASE runs that case of swapin_async_test alone.
#
# Targets: nvme:I and virtio:I swap on the raw disk I (virtio-blk is marked
# non-rotational first, as the swap layer gives a rotational device no
# swap clusters and so no whole-THP swap-out); file:I makes ext4 on disk I
# and swaps to a file on it (no whole-THP swap-out: the swap layer keeps
# swap clusters for block devices).
set -eu
PATH=$PATH:$(dirname "$0")
. tap.sh

targets= policies=always,auto
for a; do
	case "$a" in
	nvme:[0-9]*|virtio:[0-9]*|file:[0-9]*) targets="$targets $a" ;;
	policy=*) policies=${a#policy=} ;;
	THPSWAP_*=*) export "$a" ;;
	*) bail "unknown argument '$a'" ;;
	esac
done
[ -n "$targets" ] || bail "no swap target (nvme:I, virtio:I, file:I)"
knob=/sys/kernel/mm/transparent_hugepage/swapin_enabled
[ -e $knob ] || policies=none

swap_all_free() {
	set -- $(awk '$1 == "SwapTotal:" { t = $2 } $1 == "SwapFree:" { f = $2 }
		END { print t, f }' /proc/meminfo)
	cached=$((2 * 64 * 4 * $(grep -c ^processor /proc/cpuinfo)))
	echo "SwapTotal $1 kB, SwapFree $2 kB, slot caches hold up to $cached kB"
	[ "$1" -gt 0 ] && [ $(($1 - $2)) -le "$cached" ]
}
no_kernel_warnings() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|KASAN:|circular locking dependency|inconsistent lock state|possible recursive locking|Bad page'
}
# swapoff, then swapon again and check that all of it is free: a slot
# leaked (or freed twice) shows there, or keeps swapoff from finishing.
swap_cycle_free() {
	swapoff "$1" && swapon "$1" && swap_all_free
}

# A memory cgroup of the test's own: swapin_async_test drops its swap
# cache with memory.reclaim before it reads from the device.
in_own_memcg() {
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/async &&
		echo $$ > /sys/fs/cgroup/async/cgroup.procs
}

echo "TAP version 13"
echo "# kernel $(uname -r); targets:$targets; policies $policies; THPSWAP_TEST_DIV=${THPSWAP_TEST_DIV:-1}"
cat /harness/disks | sed 's/^/# disk /'
step "in a memory cgroup of its own" in_own_memcg || bail "no memory cgroup"

for t in $targets; do
	# KIND:I or KIND:I:POLICIES (that target under those policies only)
	kind=${t%%:*} idx=${t#*:} tpol=$policies
	case "$idx" in *:*) tpol=${idx#*:} idx=${idx%%:*} ;; esac
	dev=$(harness-disk "$idx") || { not_ok "$t: disk $idx attached"; continue; }
	name=${dev#/dev/}
	swap=$dev
	unset THPSWAP_EXPECT_THP_SWPOUT
	case "$kind" in
	virtio)
		step "$t: $dev marked non-rotational" \
			sh -c "echo 0 > /sys/block/$name/queue/rotational" || continue
		export THPSWAP_EXPECT_THP_SWPOUT=1 ;;
	nvme)
		is "$t: $dev is non-rotational" "$(cat /sys/block/$name/queue/rotational)" 0
		export THPSWAP_EXPECT_THP_SWPOUT=1 ;;
	file)
		mkdir -p /mnt/$name
		# 1 KiB blocks: extents that do not start or end on a page
		# boundary lose pages in swapon, so the swap area ends before
		# the header says, inside a cluster (checked below).
		step "$t: ext4 with 1 KiB blocks on $dev" \
			mkfs.ext4 -q -F -b 1024 "$dev" || continue
		step "$t: mount $dev" mount -t ext4 "$dev" /mnt/$name || continue
		swap=/mnt/$name/swapfile
		# Written out, not fallocated: swapon refuses unwritten extents.
		step "$t: a 96 MiB swap file" \
			dd if=/dev/zero of=$swap bs=1M count=96 conv=fsync || continue
		chmod 600 $swap ;;
	esac
	step "$t: mkswap $swap" mkswap "$swap" || continue
	step "$t: swapon $swap" swapon "$swap" || continue
	if [ "$kind" = file ]; then
		# /proc/swaps counts the pages but the header's; 96 MiB
		# whole would be 98300 kB.
		kb=$(awk -v f="$swap" '$1 == f { print $3 }' /proc/swaps)
		echo "# $swap: ${kb:-?} kB of swap from 98300 kB in its header"
		step "$t: swapon left out pages past a cluster boundary" \
			test "${kb:-98300}" -lt 98300 -a "$(( ${kb:-0} / 4 % 512 ))" != 511
	fi
	export THPSWAP_SWAP=$swap
	[ -e $knob ] || tpol=none
	for p in $(echo "$tpol" | tr , ' '); do
		[ "$p" = none ] || echo "$p" > $knob
		# Whole swap-out, so whole swap-in at every fault.
		unset THPSWAP_EXPECT_THP_SWPIN
		[ "$p" != always ] || [ -z "${THPSWAP_EXPECT_THP_SWPOUT:-}" ] ||
			export THPSWAP_EXPECT_THP_SWPIN=1
		echo "# $t, swapin_enabled=$p: $(cat $knob 2>/dev/null || echo absent)"
		run_kselftest swapin_async_test || true
		echo "# vmstat: $(grep -E '^(thp_swpin|pswpin|pswpout|thp_swpout)' /proc/vmstat | tr '\n' ' ')"
		step "$t, $p: swapoff, swapon: no slot leaked" swap_cycle_free "$swap" || true
	done
	step "$t: swapoff $swap" swapoff "$swap" || true
	[ "$kind" != file ] || step "$t: umount" umount /mnt/$name || true
done
step "no kernel warnings" no_kernel_warnings || true
echo "# $failed of $n steps failed"
tap_end
