#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# dkms add + build of this tree against Debian's 6.1 headers, under a
# throw-away version so a real installation is never touched.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib.sh"
abi=$(kabi)
ver=0.0.0-selftest$$
src=/usr/src/thpswap-$ver
cleanup() {
	dkms remove -m thpswap -v "$ver" --all >/dev/null 2>&1
	rm -rf "$src" "/var/lib/dkms/thpswap/$ver"
}
trap cleanup EXIT

echo "1..3"
mkdir -p "$src"
cp -r "$top/dkms.conf" "$top/Kbuild" "$top/module" "$top/uapi" "$src/"
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf"
if out=$(dkms add -m thpswap -v "$ver" 2>&1); then
	echo "ok 1 - dkms add"
else
	echo "not ok 1 - dkms add"; echo "$out" | sed 's/^/# /'
fi
if out=$(dkms build -m thpswap -v "$ver" -k "$abi" 2>&1); then
	echo "ok 2 - dkms build against $abi"
else
	echo "not ok 2 - dkms build against $abi"; echo "$out" | sed 's/^/# /'
	cat "/var/lib/dkms/thpswap/$ver/build/make.log" 2>/dev/null | tail -n 30 | sed 's/^/# /'
fi
ko=$(find "/var/lib/dkms/thpswap/$ver/$abi" -name 'thpswap.ko*' 2>/dev/null | head -n1)
if [ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$abi "; then
	echo "ok 3 - dkms built thpswap.ko for $abi"
else
	echo "not ok 3 - no thpswap.ko for $abi from dkms (found '${ko:-none}')"
fi
