#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of tests/vm/mm-selftests-compare on made-up guest logs: alike
# runs pass; a failure, a skip or a sub-result that differs from stock's,
# a missing result, a test that did not swap, and a broken run each fail
# it; the same failure on both is a SKIP with its reason.
set -u
cmp=$(dirname "$0")/../vm/mm-selftests-compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

# log CFG... : a guest log, one configuration per argument; each runs
# cow, khugepaged-anon, transhuge-stress-memcg (thp) and, first only,
# mremap_test (once).  Variables change one thing: COW_RC (cow's exit),
# COW_SUB (its sub-result 2: "ok"/"not ok"/"skip"), MREMAP_RC, SWAP
# (pswpout of every test), THPIN (thp_swpin of cow), DROP (a test left out).
log() {
	local first=1 cfg
	echo "TAP version 13"
	for cfg; do
		echo "# mmst-config $cfg"
		echo "ok 1 - $cfg setup: swap on /dev/x"
		for t in cow khugepaged-anon transhuge-stress-memcg mremap_test; do
			[ "$t" = mremap_test ] && [ $first = 0 ] && continue
			[ "$t" = "${DROP:-}" ] && continue
			class=thp; [ "$t" = mremap_test ] && class=once
			echo "# mmst-class $cfg $t $class"
			rc=0
			if [ "$t" = cow ]; then
				rc=${COW_RC:-0}
				echo "# [$cfg cow] # [RUN] Basic COW ... with swapped-out THP (2048 kB)"
				echo "# [$cfg cow] ok 1 No leak from parent into child"
				echo "# [$cfg cow] # [RUN] Basic COW ... with THP (2048 kB)"
				case "${COW_SUB:-ok}" in
				skip) echo "# [$cfg cow] ok 2 # SKIP MADV_PAGEOUT did not work" ;;
				*) echo "# [$cfg cow] ${COW_SUB:-ok} 2 No leak from parent into child" ;;
				esac
			fi
			[ "$t" = mremap_test ] && rc=${MREMAP_RC:-0}
			[ "$rc" = 1 ] && echo "# [$cfg $t] mremap failed: Invalid argument"
			thpin=0; [ "$t" = cow ] && thpin=${THPIN:-3}
			echo "# mmst-swap $cfg $t pswpout=${SWAP:-10} pswpin=5 thp_swpout=1 thp_swpin=$thpin"
			case "$rc" in
			0) echo "ok 2 - $cfg $t # exit 0 (1s)" ;;
			4) echo "ok 2 - $cfg $t # SKIP exit 4 (1s)" ;;
			*) echo "not ok 2 - $cfg $t # exit $rc (1s)" ;;
			esac
		done
		echo "ok 3 - $cfg teardown: swapoff /dev/x"
		first=0
	done
	echo "1..3"
}

# expect pass|fail WHAT GREP [PATCHED_RC] -- with the environment of the
# patched log given as VAR=VALUE before the call, stock's from STOCK_ENV.
expect() {
	local want=$1 desc=$2 pat=$3 prc=${4:-0} got
	n=$((n + 1))
	# Stock: none of the variables given to expect, only STOCK_ENV.
	env -i PATH="$PATH" ${STOCK_ENV:-} bash -c "$(declare -f log); log thpswap nvme" > "$tmp/s"
	log thpswap/always nvme/always > "$tmp/p"
	if "$cmp" "$tmp/s" 0 "$tmp/p" "$prc" > "$tmp/out"; then got=pass; else got=fail; fi
	if [ "$got" = "$want" ] && grep -q -- "$pat" "$tmp/out" && grep -q '^1\.\.' "$tmp/out"; then
		echo "ok $n - mm-selftests-compare: $desc"
	else
		echo "not ok $n - mm-selftests-compare: $desc (wanted $want and '$pat', got $got)"
		sed 's/^/# /' "$tmp/out"
		bad=$((bad + 1))
	fi
}

echo "TAP version 13"
echo "1..10"
expect pass "alike runs pass" '^ok .* nvme/always cow: passes on both'
COW_RC=1 expect fail "a failure only on patched" '^not ok .*thpswap/always cow: stock pass'
MREMAP_RC=4 expect fail "a skip on patched where stock passes" '^not ok .*mremap_test: stock pass.*patched skip'
COW_SUB="not ok" expect fail "a sub-result that fails only on patched" 'No leak from parent into child: stock pass, patched fail'
COW_SUB=skip expect fail "a sub-result skipped only on patched" 'MADV_PAGEOUT did not work: stock absent, patched skip\|stock pass, patched absent'
DROP=khugepaged-anon expect fail "a result missing on patched" '^not ok .*khugepaged-anon: no result on patched'
SWAP=0 expect fail "a test meant to swap that did not" '^not ok .*cow did not swap'
THPIN=0 expect fail "no whole-THP swap-in under always" '^not ok .*no whole-THP swap-in'
expect fail "a kernel report in the patched run" '^not ok .*patched run: tests/vm/run exit 126' 126
STOCK_ENV="MREMAP_RC=1" MREMAP_RC=1 expect pass "the same failure on both is a SKIP with its reason" \
	'^ok .*mremap_test # SKIP fails on stock too (exit 1), alike on patched: mremap failed: Invalid argument'
[ "$bad" = 0 ]
