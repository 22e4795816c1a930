#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make kernel-deb, up to the build: patches/ applies to linux-source-6.1
# and Debian's own config takes packaging/kernel-deb.config (the build
# itself takes hours and is not part of make check).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$top/packaging/kernel-deb" --config-only > "$out" 2>&1
rc=$?
cfg=$(tail -n1 "$out")
if [ $rc = 0 ]; then echo "ok 1 - kernel-deb configures Debian's config with patches/"; else
	echo "not ok 1 - kernel-deb configures Debian's config with patches/"; sed 's/^/# /' "$out"; fi
n=1 bad=$((rc != 0))
for opt in CONFIG_THP_SWAP=y CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_MEMCG=y \
	   CONFIG_LOCALVERSION='"-thpswap"' CONFIG_DEBUG_INFO_NONE=y CONFIG_BLK_DEV_PMEM=m; do
	n=$((n + 1))
	if [ $rc = 0 ] && grep -qxF "$opt" "$cfg"; then echo "ok $n - $opt"; else
		echo "not ok $n - $opt"; bad=$((bad + 1)); fi
done
echo "1..$n"
[ $bad = 0 ]
