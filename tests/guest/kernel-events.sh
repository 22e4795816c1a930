#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow for kernels with patches/0001: the device hears from the swap
# layer about its clusters, says its states are the kernel's, and the
# states follow a whole-THP swap cycle.  Flat TAP; non-zero on failure.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {
	desc=$1; shift
	if out=$("$@" 2>&1); then ok "$desc"; else notok "$desc"; echo "$out" | sed 's/^/# /' | head -20; fi
}
stat() { sed -n "s/^$1 //p" /sys/block/thpswap0/thpswap/stats; }

check "modprobe thpswap size=256M" modprobe thpswap size=256M
check "mkswap + swapon" sh -c 'mkswap /dev/thpswap0 >/dev/null && swapon /dev/thpswap0'
check "thpswapctl says the states are the kernel's" sh -c 'thpswapctl stats thpswap0 | grep -q "state source *swap layer"'
check "the swap header's cluster is small" test "$(stat clusters_small)" = 1
check "64 MiB of THPs out and back, verified" sh -c 'thpswap-mem --size 64 --quiet | grep -q "^result=ok bad_words=0"'
check "32 whole-THP writes" test "$(stat thp_writes)" = 32
# At least: 32 clusters taken whole, 32 huge flags cleared, 32 freed.
check "the swap layer reported on its clusters" test "$(stat kernel_events)" -ge 96
check "no fallback reported" test "$(stat fallback_no_cluster)$(stat fallback_memcg)$(stat fallback_nomem)" = 000
check "all clusters free again but the header's" sh -c '[ "$(sed -n "s/^clusters_free //p" /sys/block/thpswap0/thpswap/stats)" = 127 ]'
check "swapoff + rmmod" sh -c 'swapoff /dev/thpswap0 && rmmod thpswap'
echo "1..$n"
[ "$failed" = 0 ]
