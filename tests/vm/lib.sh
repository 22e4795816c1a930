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

# Candidate version of a Debian package, for cache keys.
pkg_version() {
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | head -n1
}

# Download one Debian package into the cache (keyed by file name, which
# carries the version) and print its path.
fetch_deb() {
	local pkg=$1 ver deb tmp
	ver=$(pkg_version "$pkg")
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "package $pkg not known to apt"
	mkdir -p "$THPSWAP_CACHE/dl"
	deb=$(ls "$THPSWAP_CACHE/dl/${pkg}_${ver#*:}_"*.deb 2>/dev/null | head -n1)
	if [ -z "$deb" ]; then
		tmp=$(mktemp -d "$THPSWAP_CACHE/dl/.tmp.XXXXXX")
		note "downloading $pkg $ver"
		(cd "$tmp" && apt-get download -q "$pkg=$ver" >/dev/null 2>&1) ||
			{ rm -rf "$tmp"; die "apt-get download $pkg=$ver failed"; }
		mv "$tmp"/*.deb "$THPSWAP_CACHE/dl/" && rmdir "$tmp"
		deb=$(ls "$THPSWAP_CACHE/dl/${pkg}_${ver#*:}_"*.deb | head -n1)
	fi
	echo "$deb"
}
