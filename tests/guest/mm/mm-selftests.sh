#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mm-selftests.sh: guest flow (busybox ash, root, tests/vm/run) running the
# kernel's own mm selftests (tools/testing/selftests/vm of linux-source-6.1,
# and cow from a newer tree; built by tests/guest/mm/Makefile and passed
# with --add) once per swap configuration, for tests/vm/mm-selftests,
# which compares the results of two kernels.
#
#   tests/vm/run --mem 3072 [--disk ...] --add PROG... \
#       --script tests/guest/mm/mm-selftests.sh -- \
#       THPSWAP_MM_CONFIGS="thpswap/always thpswap/auto nvme/always nvme/auto"
#
# A configuration is DEVICE[/POLICY]: DEVICE thpswap (modprobe thpswap,
# mkswap, swapon: swap in RAM, as the other suites) or nvme (the first NVMe
# disk, tests/vm/run --disk SIZE,nvme); POLICY, when given, is
# written to /sys/kernel/mm/transparent_hugepage/swapin_enabled (the
# patched kernel's knob; a configuration with a POLICY fails where the
# knob is missing).  The first configuration runs every test; the others
# run the tests that make and swap THPs ("thp" below), which is where the
# device and the swap-in policy can make a difference.
#
# Every test runs with swap on, under a timeout, and gives one line
#   ok N - CFG TEST # exit 0 (Ts)
#   ok N - CFG TEST # SKIP exit 4 (Ts)
#   not ok N - CFG TEST # exit RC (Ts)
# (kselftest: 0 pass, 4 skip, anything else a failure; 124 is the
# timeout), after the test's own output as "# [CFG TEST] ..." lines, and
# "# mmst-swap CFG TEST pswpout=.. pswpin=.. thp_swpout=.. thp_swpin=.."
# with the vmstat deltas of its run.  The host compares these; a failure
# here is not yet a regression (the stock kernel fails some too).
#
# Memory pressure: transhuge-stress runs in a memory cgroup whose
# memory.max is half its working set, for a bounded time, so that THPs are
# reclaimed to swap and faulted back all the time; khugepaged and cow swap
# out by MADV_PAGEOUT themselves (khugepaged's max_ptes_swap cases, cow's
# "swapped out" cases).  The other tests run without a limit: under one,
# their own checks (a THP is where it was put, a page stays resident)
# fail on every kernel.
set -u

CONFIGS=
for arg in "$@"; do
	case "$arg" in
	THPSWAP_MM_CONFIGS=*) CONFIGS=${arg#*=} ;;
	THPSWAP_*=*) export "$arg" ;;
	*) echo "Bail out! unknown argument '$arg'"; exit 2 ;;
	esac
done
[ -n "$CONFIGS" ] || { echo "Bail out! no THPSWAP_MM_CONFIGS"; exit 2; }
PATH=$PATH:$(dirname "$0")
MODPROBE=/sbin/modprobe
[ -x "$MODPROBE" ] || MODPROBE=modprobe

THP=/sys/kernel/mm/transparent_hugepage
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

work=/tmp/mmst
mkdir -p "$work/huge"
cd "$work" || exit 2
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/mmst /sys/fs/cgroup/mmst-t
# on-fault-limit runs as nobody (run_vmtests.sh: sudo -u nobody).
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >> /etc/group
grep -q '^root:' /etc/passwd || echo 'root:x:0:0:root:/root:/bin/sh' >> /etc/passwd

vmstat_get() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
COUNTERS="pswpout pswpin thp_swpout thp_swpin"
snap() { for c in $COUNTERS; do eval "s_$c=\$(vmstat_get $c)"; done; }
deltas() {
	for c in $COUNTERS; do
		eval "v=\$((\$(vmstat_get $c) - s_$c))"
		printf ' %s=%s' "$c" "$v"
	done
}

# t CLASS NAME TIMEOUT CMD...: run one test (CLASS thp: in every
# configuration; once: in the first only).
t() {
	class=$1 name=$2 to=$3
	shift 3
	[ "$class" = thp ] || [ "$first" = 1 ] || return 0
	echo "# mmst-class $cfg $name $class"
	if ! command -v "$1" > /dev/null; then
		ok "$cfg $name # SKIP exit 4 (0s) not built: $1"
		return 0
	fi
	snap
	t0=$(date +%s)
	case "$1" in
	stress) "$@" > "$work/out" 2>&1 < /dev/null ;;	# its own timeout
	*) timeout "$to" sh -c 'echo $$ > /sys/fs/cgroup/mmst-t/cgroup.procs && exec "$@"' \
		sh "$@" > "$work/out" 2>&1 < /dev/null ;;
	esac
	rc=$?
	leftovers >> "$work/out"
	secs=$(($(date +%s) - t0))
	# busybox timeout: SIGTERM, the child's status 143.
	[ "$rc" = 143 ] && rc=124
	awk -v p="# [$cfg $name] " '{ print p $0 }' "$work/out"
	echo "# mmst-swap $cfg $name$(deltas)"
	case "$rc" in
	0) ok "$cfg $name # exit 0 (${secs}s)" ;;
	4) ok "$cfg $name # SKIP exit 4 (${secs}s)" ;;
	*) not_ok "$cfg $name # exit $rc (${secs}s)" ;;
	esac
}

# leftovers: end what a test left running (a child the timeout did not
# reach, a process still holding memory or hugetlb reservations that the
# next test would count), and say so in its output.
leftovers() {
	for g in mmst-t mmst; do
		p=$(cat /sys/fs/cgroup/$g/cgroup.procs)
		[ -n "$p" ] || continue
		for q in $p; do
			echo "left running after the test: pid $q $(cat /proc/$q/comm 2>/dev/null)"
		done
		echo 1 > /sys/fs/cgroup/$g/cgroup.kill
		i=0
		while [ -n "$(cat /sys/fs/cgroup/$g/cgroup.procs)" ] && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
}

# stress SECONDS MiB: transhuge-stress in the cgroup with memory.max at
# half of MiB, stopped after SECONDS; it never ends by itself, so being
# stopped (124) is its pass, anything else its failure.
stress() {
	echo "$(($2 / 2))M" > /sys/fs/cgroup/mmst/memory.max || return 1
	echo "memory.max $(cat /sys/fs/cgroup/mmst/memory.max), transhuge-stress $2 MiB for ${1}s"
	timeout "$1" sh -c 'echo $$ > /sys/fs/cgroup/mmst/cgroup.procs &&
		exec transhuge-stress "$0"' "$2"
	r=$?
	[ "$r" = 143 ] || [ "$r" = 124 ] && return 0
	echo "transhuge-stress ended by itself (status $r) before ${1}s"
	return 1
}

swap_device() {
	case "$1" in
	thpswap)
		if [ ! -b /dev/thpswap0 ]; then
			$MODPROBE thpswap size=1G || return 1
		fi
		echo /dev/thpswap0 ;;
	nvme)
		# tests/vm/run --disk SIZE,nvme: the only disk, found (and
		# waited for) by the harness.
		harness-disk 0 || {
			echo "no NVMe disk (tests/vm/run --disk SIZE,nvme)" >&2
			return 1
		} ;;
	*) echo "unknown device '$1'" >&2; return 1 ;;
	esac
}

# hugetlb_reserve N: N huge pages in the pool, waited for (bounded) until
# all are free and none reserved, as the hugetlb tests assume.  (Once, on
# stock, hugepage-mmap's mmap of 128 pages failed with ENOMEM right after
# the pool was filled; the meminfo lines are there to tell why next time.)
hugetlb_reserve() {
	echo 3 > /proc/sys/vm/drop_caches
	echo "$1" > /proc/sys/vm/nr_hugepages
	i=0
	while [ $i -lt 50 ] &&
	      ! awk -v n="$1" '$1 == "HugePages_Free:" { f = $2 } $1 == "HugePages_Rsvd:" { r = $2 }
			END { exit !(f == n && r == 0) }' /proc/meminfo; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "# nr_hugepages=$(cat /proc/sys/vm/nr_hugepages) (asked $1):" \
		$(grep -E '^HugePages_(Total|Free|Rsvd|Surp)' /proc/meminfo | tr -s ' ')
}

echo "TAP version 13"
echo "# kernel $(uname -r), configurations: $CONFIGS"
first=1
for cfg in $CONFIGS; do
	dev=${cfg%%/*} policy=
	case "$cfg" in */*) policy=${cfg#*/} ;; esac
	echo "# mmst-config $cfg"
	blk=$(swap_device "$dev" 2> "$work/err")
	if [ -z "$blk" ]; then
		ok "$cfg setup # SKIP $(cat "$work/err")"
		continue
	fi
	if ! { mkswap "$blk" > /dev/null && swapon "$blk"; }; then
		not_ok "$cfg setup: mkswap/swapon $blk"
		continue
	fi
	if [ -n "$policy" ]; then
		if ! echo "$policy" > "$THP/swapin_enabled"; then
			not_ok "$cfg setup: swapin_enabled=$policy"
			swapoff "$blk"
			continue
		fi
		grep -q "\[$policy\]" "$THP/swapin_enabled" || {
			not_ok "$cfg setup: swapin_enabled reads $(cat "$THP/swapin_enabled")"
			swapoff "$blk"; continue; }
	fi
	echo always > "$THP/enabled"
	echo madvise > "$THP/defrag"
	ok "$cfg setup: swap on $blk${policy:+, swapin_enabled=$policy}"
	echo "# $(grep -E 'SwapTotal|SwapFree|MemFree' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"

	# The THP and swap tests, in every configuration.
	t thp khugepaged-anon 300 khugepaged all:anon
	t thp khugepaged-shmem 300 khugepaged all:shmem
	t thp split_huge_page_test 120 split_huge_page_test
	t thp cow 400 cow
	t thp madv_populate 120 madv_populate
	t thp ksm-merge 120 ksm_tests -M -p 10
	# ksm_tests -U waits for one full KSM scan after writing to the merged
	# pages, but a scan already past them when the counter ticks does not
	# see the writes: it fails 3-4 runs in 20 on stock and patched alike,
	# with or without swap.  Up to 5 attempts; a real regression fails all.
	t thp ksm-unmerge 120 sh -c 'for i in 1 2 3 4 5; do
		ksm_tests -U && { echo "passed on attempt $i of 5"; exit 0; }
	done; exit 1'
	t thp ksm-zero-pages 120 ksm_tests -Z -p 10 -z 0
	t thp ksm-use-zero-pages 120 ksm_tests -Z -p 10 -z 1
	t thp transhuge-stress-memcg 60 stress 10 256

	# Once per boot: the rest.  userfaultfd at a fifth of run_vmtests.sh's
	# sizes (20 MiB took 80 s a run under TCG); the bounce count, which
	# picks the modes, as there.
	t once soft-dirty 120 soft-dirty
	t once mremap_test 120 mremap_test
	t once userfaultfd-anon 200 userfaultfd anon 4 16
	t once userfaultfd-shmem 200 userfaultfd shmem 4 16
	t once compaction_test 120 compaction_test
	t once map_fixed_noreplace 60 map_fixed_noreplace
	t once map_populate 60 map_populate
	t once mlock-random-test 60 mlock-random-test
	t once mlock2-tests 60 mlock2-tests
	t once mrelease_test 120 mrelease_test
	t once mremap_dontunmap 60 mremap_dontunmap
	t once on-fault-limit 60 su nobody -s /bin/sh -c on-fault-limit
	t once memfd_secret 60 memfd_secret
	t once gup_test-get 60 gup_test -u
	t once gup_test-pin 60 gup_test -a
	t once gup_test-dump 60 gup_test -ct -F 0x1 0 19 0x1000
	t once migration 120 migration
	t once ksm-numa-merge-across 60 ksm_tests -N -m 1
	t once protection_keys_64 120 protection_keys_64
	t once virtual_address_range 120 virtual_address_range
	t once va_128TBswitch 60 va_128TBswitch
	if [ "$first" = 1 ]; then
		# hugetlbfs: 256 MiB of 2 MiB pages, as run_vmtests.sh asks.
		hugetlb_reserve 128
		mount -t hugetlbfs none "$work/huge"
		shmmax=$(cat /proc/sys/kernel/shmmax) shmall=$(cat /proc/sys/kernel/shmall)
		echo 268435456 > /proc/sys/kernel/shmmax
		echo 4194304 > /proc/sys/kernel/shmall
	fi
	t once hugepage-mmap 60 hugepage-mmap
	t once hugepage-shm 60 hugepage-shm
	t once map_hugetlb 60 map_hugetlb
	t once hugepage-mremap 60 hugepage-mremap "$work/huge/huge_mremap"
	t once hugepage-vmemmap 60 hugepage-vmemmap
	t once hugetlb-madvise 60 hugetlb-madvise "$work/huge/madvise-test"
	t once userfaultfd-hugetlb 200 userfaultfd hugetlb 16 16
	t once userfaultfd-hugetlb_shared 200 userfaultfd hugetlb_shared 16 16 "$work/huge/uffd-test"
	t once thuge-gen 60 thuge-gen
	if [ "$first" = 1 ]; then
		rm -f "$work"/huge/*
		umount "$work/huge"
		echo "$shmmax" > /proc/sys/kernel/shmmax
		echo "$shmall" > /proc/sys/kernel/shmall
		hugetlb_reserve 0
	fi

	echo "# $(grep -E 'SwapTotal|SwapFree|MemFree' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	if swapoff "$blk"; then
		ok "$cfg teardown: swapoff $blk"
	else
		not_ok "$cfg teardown: swapoff $blk"
	fi
	first=0
done

echo "# vmstat: $(grep -E '^(pswpin|pswpout|thp_swpin|thp_swpin_fallback|thp_swpout|thp_swpout_fallback|thp_split_page)' /proc/vmstat | tr '\n' ' ')"
echo "1..$n"
[ "$failed" = 0 ]
