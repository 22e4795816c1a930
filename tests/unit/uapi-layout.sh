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
"$tmp/layout"
rc=$?
# 32-bit: the same numbers must come out (sizes and offsets are ABI).
if $CC -m32 $flags -o "$tmp/layout32" "$here/uapi_layout.c" 2> /dev/null; then
	if "$tmp/layout32" > "$tmp/out32"; then
		echo "# -m32: identical layout"
	else
		grep '^not ok' "$tmp/out32" | sed 's/^/# -m32: /'
		echo "# -m32 layout differs"
		rc=1
	fi
else
	echo "# -m32 not available on this host: 32-bit layout not checked"
fi
exit $rc
