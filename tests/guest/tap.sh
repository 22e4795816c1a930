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

bail() {
	echo "Bail out! $*"
	exit 1
}

# tap_end: the plan; the flow's exit status (0 only if nothing failed).
tap_end() {
	echo "1..$n"
	[ "$failed" = 0 ]
}
