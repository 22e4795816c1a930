# SPDX-License-Identifier: GPL-2.0
#
# tap.sh: what the guest flows share (busybox ash).  Sourced, after the
# flow has put its own directory on PATH:
#
#   PATH=$PATH:$(dirname "$0")
#   . tap.sh
#
# tests/vm/run installs it with the test programs.  Output is flat TAP:
# "ok N - description", diagnostics as "# " lines, "1..N" at the end.

# busybox ash may prefer its own applets to PATH: name kmod's tools by path.
MODPROBE=/sbin/modprobe RMMOD=/sbin/rmmod
[ -x "$MODPROBE" ] || MODPROBE=modprobe
[ -x "$RMMOD" ] || RMMOD=rmmod

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# step DESCRIPTION CMD...: run CMD, its output as diagnostics; report it.
# Returns CMD's status.
step() {
	desc=$1
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
	if [ "$rc" -eq 0 ]; then
		ok "$desc"
	else
		not_ok "$desc (exit $rc)"
	fi
	return "$rc"
}

# is DESCRIPTION GOT WANT: an equality, both values shown on failure.
is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "# got '$2', want '$3'"
	fi
}

# run_kselftest PROG [ARGS...]: a kselftest_harness program, streamed.
# Its "ok"/"not ok" lines become this flow's (renumbered, directives such
# as "# SKIP" kept), everything else "# " diagnostics, its own plan
# included.  Its failures are counted here (the loop reads a FIFO, not a
# pipe, so it runs in this shell).  If it exits non-zero without a "not ok"
# of its own, that is one failure more; a failing case is never counted
# twice.  Returns the program's exit status (callers under set -e: "|| true").
run_kselftest() {
	_fifo=/tmp/run_kselftest.$$
	rm -f "$_fifo"
	mkfifo "$_fifo" || { not_ok "$1: mkfifo"; return 1; }
	"$@" > "$_fifo" 2>&1 &
	_pid=$!
	_bad=0
	while IFS= read -r _line; do
		case "$_line" in
		"ok "*)
			_line=${_line#ok }
			n=$((n + 1))
			echo "ok $n ${_line#* }" ;;
		"not ok "*)
			_line=${_line#not ok }
			n=$((n + 1)) failed=$((failed + 1)) _bad=$((_bad + 1))
			echo "not ok $n ${_line#* }" ;;
		*) echo "# $_line" ;;
		esac
	done < "$_fifo"
	wait "$_pid" && _rc=0 || _rc=$?
	rm -f "$_fifo"
	if [ "$_rc" != 0 ] && [ "$_bad" = 0 ]; then
		not_ok "$1 exited $_rc"
	fi
	return "$_rc"
}

# tap_args ARG...: export the flow's THPSWAP_*=VALUE arguments
# (tests/vm/run ... --script FLOW -- THPSWAP_EXPECT_PATCHED=1); anything
# else bails out.
tap_args() {
	for _a; do
		case "$_a" in
		THPSWAP_*=*) export "$_a" ;;
		*) bail "unknown argument '$_a'" ;;
		esac
	done
}

# expect_patched: the host says this kernel carries patches/
# (THPSWAP_EXPECT_PATCHED=1, as tests/check does on the patched and debug
# kernels): a missing feature is then a failure, not a skip.
expect_patched() { [ "${THPSWAP_EXPECT_PATCHED:-0}" = 1 ]; }

# skip_unless_patched DESCRIPTION REASON: a skip, or a failure when the
# kernel is meant to have what is missing.
skip_unless_patched() {
	if expect_patched; then
		not_ok "$1 (THPSWAP_EXPECT_PATCHED=1, but $2)"
	else
		skip "$1" "$2"
	fi
}

bail() {
	echo "Bail out! $*"
	exit 1
}

# tap_end: the plan; the flow's exit status (0 only if nothing failed).
tap_end() {
	echo "1..$n"
	[ "$failed" = 0 ]
}

# swapin_always: on a kernel with whole-THP swap-in, swap THPs in whole at
# every fault (swapin_enabled=always) rather than by the default policy
# (auto, which takes the first THP of a sequential pass 4 KiB at a time and
# promotes it).  For the suites that count whole swap-ins to check the
# mechanism; tests/guest/swapin/swapin_auto_test checks the policy.
swapin_always() {
	knob=/sys/kernel/mm/transparent_hugepage/swapin_enabled
	[ ! -e $knob ] || echo always > $knob
}
