# SPDX-License-Identifier: GPL-2.0
#
# bench-lib.sh: what the guest halves of the benches share (busybox ash).
# Sourced, after the script has put its own directory on PATH and set
#   REC      the head of every record, e.g. "B kernel=stock"
#   REC_KEY  the name of a record's second field (dev, mode)
# A record is "$REC rep=R $REC_KEY=X wl=W" and the key=value pairs of a
# workload's output line.

# busybox ash may prefer its own applets to PATH: name kmod's by path.
MODPROBE=/sbin/modprobe RMMOD=/sbin/rmmod
[ -x "$MODPROBE" ] || MODPROBE=modprobe
[ -x "$RMMOD" ] || RMMOD=rmmod
THP=/sys/kernel/mm/transparent_hugepage
NCPU=$(grep -c ^processor /proc/cpuinfo)
failed=0

fail() {
	echo "# FAIL: $*"
	failed=$((failed + 1))
}

# rec REP X WL < lines: prefix the key=value records, keep comments.
rec() {
	while IFS= read -r line; do
		case "$line" in
		"#"*|"") echo "$line" ;;
		*=*) echo "$REC rep=$1 $REC_KEY=$2 wl=$3 $line" ;;
		*) echo "# $line" ;;
		esac
	done
}

# run REP X WL CMD...: one workload, its output as records and its exit
# status as "status=RC"; a failure is counted.
run() {
	local r=$1 x=$2 w=$3 rc
	shift 3
	# The same starting point for every run: no THP allocation failing
	# for fragmentation left by the previous one.
	echo 1 > /proc/sys/vm/compact_memory
	echo "# rep $r $x $w: $*"
	"$@" > /tmp/wl.out 2> /tmp/wl.err
	rc=$?
	rec "$r" "$x" "$w" < /tmp/wl.out
	sed 's/^/# stderr: /' /tmp/wl.err
	echo "status=$rc" | rec "$r" "$x" "$w"
	[ "$rc" = 0 ] || fail "rep $r $x $w exited $rc"
}
