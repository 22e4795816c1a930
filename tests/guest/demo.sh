#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of make demo.
set -e
say() { printf '\n### %s\n' "$*"; }

say "modprobe thpswap size=512M; mkswap; swapon"
modprobe thpswap size=512M
mkswap /dev/thpswap0 >/dev/null
swapon /dev/thpswap0
cat /proc/swaps

say "thpswapctl list, before"
thpswapctl list
say "thpswapctl map thpswap0, before"
thpswapctl map thpswap0

say "256 MiB of THP-backed memory out with MADV_PAGEOUT, every word checked on the way back"
thpswap-mem --size 256

say "thpswapctl list, after"
thpswapctl list
say "thpswapctl stats thpswap0, after"
thpswapctl stats thpswap0
say "thpswapctl map thpswap0, after"
thpswapctl map thpswap0

say "/proc/vmstat"
grep -E '^(pswpin|pswpout|thp_swpout|thp_swpout_fallback|thp_split_pmd) ' /proc/vmstat

swapoff /dev/thpswap0
rmmod thpswap
say "done"
