#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# soak-guest.sh: the guest half of bench/soak (busybox ash, run as root by
# tests/vm/run, driven by bench/soak).  Sets up a thpswap device of
# SWAP_MIB (swapin_enabled left at its default), runs soak on it and tears
# it down.  Variables (VAR=VALUE arguments): SWAP_MIB, SECONDS_, THP_PROCS,
# SMALL_PROCS, PROC_MIB, LOW, HIGH, SEED.  The records are soak's (see
# soak.c); "K kernel= patched=0|1" comes first, "F status=RC" last.
set -u
SWAP_MIB=256 SECONDS_=180 THP_PROCS=2 SMALL_PROCS=2 PROC_MIB=96 LOW=50 HIGH=90 SEED=1
for arg in "$@"; do
	case "$arg" in
	SWAP_MIB=*|SECONDS_=*|THP_PROCS=*|SMALL_PROCS=*|PROC_MIB=*|LOW=*|HIGH=*|SEED=*)
		eval "${arg%%=*}=\"\${arg#*=}\"" ;;
	*) echo "# soak-guest.sh: unknown argument '$arg'"; exit 2 ;;
	esac
done
PATH=$PATH:$(dirname "$0")
THP=/sys/kernel/mm/transparent_hugepage

patched=0
[ -e $THP/swapin_enabled ] && patched=1
echo "K kernel=$(uname -r) patched=$patched"
/sbin/modprobe thpswap size="${SWAP_MIB}M" || { echo "F status=setup-failed"; exit 1; }
mkswap /dev/thpswap0 > /dev/null && swapon /dev/thpswap0 ||
	{ echo "F status=setup-failed"; exit 1; }
echo "# THP enabled: $(cat $THP/enabled); swapin_enabled: $(cat $THP/swapin_enabled 2>/dev/null || echo absent)"

soak --dev thpswap0 --seconds "$SECONDS_" --thp-procs "$THP_PROCS" \
	--small-procs "$SMALL_PROCS" --mib "$PROC_MIB" --low "$LOW" \
	--high "$HIGH" --seed "$SEED"
rc=$?
swapoff /dev/thpswap0 && /sbin/rmmod thpswap || rc=3
echo "F status=$rc"
exit $rc
