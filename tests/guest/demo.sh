#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of make demo: demo.sh LABEL.  Ends with one line
#   DEMO kernel=LABEL thp_swpout= thp_swpin= pswpin= reads= kept_pct= result=
set -e
label=${1:-?}
say() { printf '\n### %s\n' "$*"; }
vm() { sed -n "s/^$1 //p" /proc/vmstat; }

say "modprobe thpswap size=512M; mkswap; swapon"
modprobe thpswap size=512M
mkswap /dev/thpswap0 >/dev/null
swapon /dev/thpswap0
cat /proc/swaps
if [ -r /sys/kernel/mm/transparent_hugepage/swapin_enabled ]; then
	echo "swapin_enabled: $(cat /sys/kernel/mm/transparent_hugepage/swapin_enabled)"
fi

say "thpswapctl list, before"
thpswapctl list

say "256 MiB of THP-backed memory out with MADV_PAGEOUT, every word checked on the way back"
out0=$(vm thp_swpout) in0=$(vm thp_swpin) ps0=$(vm pswpin)
thpswap-mem --size 256 | tee /tmp/demo.out
out1=$(vm thp_swpout) in1=$(vm thp_swpin) ps1=$(vm pswpin)

say "thpswapctl stats thpswap0, after"
thpswapctl stats thpswap0
say "thpswapctl map thpswap0, after"
thpswapctl map thpswap0

before=$(sed -n 's/^setup .*anonhuge_kb=\([0-9]*\).*/\1/p' /tmp/demo.out)
after=$(sed -n 's/^cycle=.*anonhuge_kb_after=\([0-9]*\).*/\1/p' /tmp/demo.out | tail -n1)
reads=$(sed -n 's/^cycle=.* dev_thp_reads=\([0-9-]*\) dev_page_reads=\([0-9-]*\).*/\1 \2/p' \
	/tmp/demo.out | tail -n1 | awk '{ print $1 + $2 }')
result=$(sed -n 's/^result=\([a-z]*\).*/\1/p' /tmp/demo.out)
swapoff /dev/thpswap0
rmmod thpswap
swpin=n/a
[ -n "$in1" ] && swpin=$((in1 - in0))
echo "DEMO kernel=$label thp_swpout=$((out1 - out0)) thp_swpin=$swpin pswpin=$((ps1 - ps0)) reads=$reads kept_pct=$((after * 100 / before)) result=$result"
