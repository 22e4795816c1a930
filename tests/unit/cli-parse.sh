#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unit tests of thpswapctl's parsing and formatting (userctl/util.c,
# format.c): builds tests/unit/cli/test-parse.c against them and runs it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
if ! "$cc" -O2 -g -Wall -Wextra -Werror -std=gnu11 -I"$top/userctl" -I"$top/uapi" \
	-o "$tmp/test-parse" "$top/tests/unit/cli/test-parse.c" \
	"$top/userctl/util.c" "$top/userctl/format.c" "$top/userctl/swaps.c" 2> "$tmp/cc.log"; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - cli-parse: build"
	sed 's/^/# /' "$tmp/cc.log"
	exit 1
fi
"$tmp/test-parse"
