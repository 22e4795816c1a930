# SPDX-License-Identifier: GPL-2.0
# Shared by the harness scripts: where the cache lives and which Debian 6.1
# kernel ABI we test against.  Sourced, never executed.

THPSWAP_CACHE=${THPSWAP_CACHE:-$HOME/.cache/thpswap}
HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$HARNESS_DIR/../.." && pwd)

die() { echo "${0##*/}: $*" >&2; exit 2; }
note() { echo "${0##*/}: $*" >&2; }

# The kernel ABI (6.1.0-N-amd64): THPSWAP_KABI, else the one Debian's
# linux-headers-amd64 metapackage points at.  Only 6.1 is accepted.
kabi() {
	local abi=${THPSWAP_KABI:-}
	if [ -z "$abi" ]; then
		abi=$(apt-cache depends linux-headers-amd64 2>/dev/null |
		      sed -n 's/.*Depends: linux-headers-\(6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n1)
	fi
	case "$abi" in
	6.1.*-amd64) echo "$abi" ;;
	*) die "cannot find Debian's 6.1 kernel ABI (apt-get update run? set THPSWAP_KABI=6.1.0-N-amd64)" ;;
	esac
}

# Candidate version of a Debian package, for cache keys.  NAPT=1: from the
# harness's own apt sources (napt) instead of the host's.
pkg_version() {
	local apt=
	[ "${NAPT:-0}" = 1 ] && apt=napt
	$apt apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | head -n1
}

# Download one Debian package into the cache (keyed by file name, which
# carries the version) and print its path.  NAPT=1: from the harness's own
# apt sources (napt) instead of the host's.
fetch_deb() {
	local pkg=$1 ver deb tmp apt=
	[ "${NAPT:-0}" = 1 ] && apt=napt
	ver=$(pkg_version "$pkg")
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "package $pkg not known to apt"
	mkdir -p "$THPSWAP_CACHE/dl"
	deb=$(ls "$THPSWAP_CACHE/dl/${pkg}_${ver#*:}_"*.deb 2>/dev/null | head -n1)
	if [ -z "$deb" ]; then
		tmp=$(mktemp -d "$THPSWAP_CACHE/dl/.tmp.XXXXXX")
		note "downloading $pkg $ver"
		(cd "$tmp" && $apt apt-get download -q "$pkg=$ver" >/dev/null 2>&1) ||
			{ rm -rf "$tmp"; die "apt-get download $pkg=$ver failed"; }
		mv "$tmp"/*.deb "$THPSWAP_CACHE/dl/" && rmdir "$tmp"
		deb=$(ls "$THPSWAP_CACHE/dl/${pkg}_${ver#*:}_"*.deb | head -n1)
	fi
	echo "$deb"
}

# Debian's newer kernels, for comparison (tests/vm/fetch-kernel 6.12|7.3):
# the backports suite each series comes from.  Looked up with an apt of the
# harness's own (sources list, lists and package cache under
# $THPSWAP_CACHE/apt), so the host's apt configuration is never touched.
newer_suite() {
	case "$1" in
	6.12) echo bookworm-backports ;;
	7.3) echo trixie-backports ;;
	*) return 1 ;;
	esac
}
NEWER_SERIES="6.12 7.3"

# napt COMMAND ARGS...: apt-get or apt-cache on the harness's own sources.
napt() {
	local a=$THPSWAP_CACHE/apt cmd=$1
	shift
	"$cmd" -q -o Dir::Etc::SourceList="$a/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State="$a/state" \
		-o Dir::State::status=/dev/null -o Dir::Cache="$a/cache" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o APT::Architecture=amd64 -o Debug::NoLocking=1 "$@"
}

# napt_update: write the sources list and refresh the lists, at most once
# a day.  A failed refresh keeps the lists already there (offline reruns).
napt_update() {
	local a=$THPSWAP_CACHE/apt s list stamp
	mkdir -p "$a/state/lists/partial" "$a/cache/archives/partial"
	list=$(for s in $NEWER_SERIES; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $(newer_suite "$s") main"
	done)
	[ "$(cat "$a/sources.list" 2>/dev/null)" = "$list" ] ||
		{ echo "$list" > "$a/sources.list"; rm -f "$a/updated"; }
	stamp=$a/updated
	if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
		if napt apt-get update > "$a/update.log" 2>&1; then
			touch "$stamp"
		else
			note "apt-get update on $(newer_suite 6.12)/$(newer_suite 7.3) failed (see $a/update.log); using the lists cached"
		fi
	fi
}
