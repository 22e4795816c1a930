#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host unit test: the layout of uapi/linux/thpswap.h (tests/unit/uapi_layout.c),
# compiled with -Wpadded so implicit padding is an error, for the host and,
# when the toolchain can, for -m32 (the compat ioctl layout must match).
# Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
flags="-std=gnu11 -Wall -Wextra -Wpadded -Werror -I$root/uapi"

if ! $CC $flags -o "$tmp/layout" "$here/uapi_layout.c" 2> "$tmp/err"; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - uapi_layout compiles (-Wpadded: no implicit padding)"
	sed 's/^/# /' "$tmp/err"
	exit 1
fi
"$tmp/layout" > "$tmp/out"
rc=$?
grep -v '^1\.\.' "$tmp/out"
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tmp/out")
n=$(grep -c '^\(not \)\{0,1\}ok ' "$tmp/out")
if [ "$planned" != "$n" ]; then
	n=$((n + 1)) rc=1
	echo "not ok $n - uapi_layout planned '$planned', printed $((n - 1))"
fi
# 32-bit: the same numbers must come out (sizes and offsets are ABI).
# Checked at compile time (-DLAYOUT_STATIC): a 32-bit program cannot run
# on every host.  Needs gcc-multilib (tests/deps installs it).
n=$((n + 1))
if ! printf '#include <stdio.h>\n#include <linux/ioctl.h>\nint main(void) { return 0; }\n' |
	$CC -m32 -x c -c -o "$tmp/probe32.o" - 2> "$tmp/err32"; then
	echo "ok $n - -m32: identical layout # SKIP no -m32 toolchain (gcc-multilib): $(head -n 1 "$tmp/err32")"
elif $CC -m32 $flags -DLAYOUT_STATIC -c -o "$tmp/layout32.o" "$here/uapi_layout.c" 2> "$tmp/err32"; then
	echo "ok $n - -m32: identical layout"
else
	echo "not ok $n - -m32: identical layout"
	grep 'error' "$tmp/err32" | sed 's/^/# -m32: /'
	rc=1
fi
echo "1..$n"
exit $rc
