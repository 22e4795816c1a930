#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest flow for kernels with patches/0001: the device hears from the swap
# layer about its clusters, says its states are the kernel's, and the
# states follow a whole-THP swap cycle.  Flat TAP; non-zero on failure.
PATH=$PATH:$(dirname "$0")
. tap.sh
swapin_always
stat() { sed -n "s/^$1 //p" /sys/block/thpswap0/thpswap/stats; }

step "modprobe thpswap size=256M" modprobe thpswap size=256M
step "mkswap + swapon" sh -c 'mkswap /dev/thpswap0 >/dev/null && swapon /dev/thpswap0'
step "thpswapctl says the states are the kernel's" sh -c 'thpswapctl stats thpswap0 | grep -q "state source *swap layer"'
step "the swap header's cluster is small" test "$(stat clusters_small)" = 1
step "64 MiB of THPs out and back, verified" sh -c 'thpswap-mem --size 64 --quiet | grep -q "^result=ok bad_words=0"'
step "32 whole-THP writes" test "$(stat thp_writes)" = 32
step "32 THPs swapped in whole, as the swap layer told the device" test "$(stat swapin_whole)" = 32
# At least: 32 clusters taken whole, 32 huge flags cleared, 32 freed.
step "the swap layer reported on its clusters" test "$(stat kernel_events)" -ge 96
step "no fallback reported" test "$(stat fallback_no_cluster)$(stat fallback_memcg)$(stat fallback_nomem)" = 000
step "all clusters free again but the header's" sh -c '[ "$(sed -n "s/^clusters_free //p" /sys/block/thpswap0/thpswap/stats)" = 127 ]'
step "swapoff + rmmod" sh -c 'swapoff /dev/thpswap0 && rmmod thpswap'
tap_end
