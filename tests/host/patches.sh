#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# patches/ is a format-patch series that applies, in order and without
# fuzz, to Debian's linux-source-6.1, and that checkpatch --strict passes.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$("$top/tests/vm/fetch-source") || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
series=("$top"/patches/*.patch)
n=0 bad=0
t() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=$((bad + 1)); fi; }

if [ ${#series[@]} -eq 0 ]; then
	echo "1..0 # SKIP patches/ is empty"
	exit 0
fi
# A scratch tree holding just the files the series touches.
for f in $(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${series[@]}" | sort -u); do
	[ -f "$src/$f" ] || continue
	mkdir -p "$tmp/tree/$(dirname "$f")"
	cp "$src/$f" "$tmp/tree/$f"
done
for p in "${series[@]}"; do
	name=${p##*/}
	grep -q '^Signed-off-by: ' "$p"
	t $? "$name has a Signed-off-by"
	(cd "$tmp/tree" && git apply --check "$p" 2>"$tmp/err" && git apply "$p" 2>>"$tmp/err")
	rc=$?
	t $rc "$name applies to linux-source-6.1 on top of the ones before it"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/err"
	"$src/scripts/checkpatch.pl" --strict --no-tree -q --ignore UNKNOWN_COMMIT_ID "$p" > "$tmp/cp" 2>&1
	rc=$?
	t $rc "$name passes checkpatch --strict"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/cp" | head -20
done
echo "1..$n"
[ $bad = 0 ]
