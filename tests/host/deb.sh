#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deb end to end on the host: both packages build, lintian reports no
# error and no warning (and every override says why), dpkg -i puts each
# file where it belongs, DKMS builds the module for Debian's 6.1 headers,
# the unit passes systemd-analyze verify, the shipped configuration is
# inert, and a purge leaves nothing behind.  TAP.
#
# It installs on this machine, so it refuses (SKIP) when a thpswap package
# or a DKMS thpswap of the same version is there already: that would be
# someone's real installation.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib.sh"
abi=$(kabi)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
tmp=$(mktemp -d)
n=0 failed=0 installed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }
check() {	# check DESCRIPTION COMMAND...: ok if COMMAND succeeds, else its output
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$desc"; else notok "$desc"; printf '%s\n' "$out" | tail -n 30 | diag; fi
}

# dpkg ACTION...: dpkg, waiting while another apt/dpkg holds the lock (other
# sessions share this machine); any other failure is returned at once.
dpkg_locked() {
	local i out rc
	for i in $(seq 1 120); do
		out=$(DEBIAN_FRONTEND=noninteractive dpkg "$@" 2>&1) && { printf '%s\n' "$out"; return 0; }
		rc=$?
		printf '%s\n' "$out" | grep -q 'lock' || { printf '%s\n' "$out"; return "$rc"; }
		sleep 5
	done
	printf '%s\n' "$out"
	return "$rc"
}

purge() {
	dpkg_locked --purge thpswapctl thpswap-dkms
}
cleanup() {
	[ "$installed" = 1 ] && purge > /dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"

# --- build --------------------------------------------------------------------
if out=$("$top/packaging/deb" --all "$tmp" 2>&1) &&
   [ -f "$tmp/thpswap-dkms_${ver}_all.deb" ] && [ -f "$tmp/thpswapctl_${ver}_${arch}.deb" ]; then
	ok "make deb: thpswap-dkms_${ver}_all.deb and thpswapctl_${ver}_${arch}.deb (version of dkms.conf)"
else
	notok "make deb builds both packages"; printf '%s\n' "$out" | tail -n 30 | diag
	echo "1..$n"; exit 1
fi
dkms_deb=$tmp/thpswap-dkms_${ver}_all.deb ctl_deb=$tmp/thpswapctl_${ver}_${arch}.deb

# --- lintian --------------------------------------------------------------------
# Every tag at every level (overridden ones too) is printed; an error or a
# warning fails.  --debug names each check run on each package: proof that
# all three were looked at (lintian skips a .changes whose files are not
# all there without failing).
lintian --debug --pedantic -I --show-overrides --fail-on error,warning \
	"$tmp/thpswap_${ver}.dsc" "$dkms_deb" "$ctl_deb" > "$tmp/lintian" 2>&1
rc=$?
grep -E '^[EWIPONX]: ' "$tmp/lintian" | diag
seen=
for p in "source:thpswap_$ver" "binary:thpswap-dkms_${ver}_all" "binary:thpswapctl_${ver}_${arch}"; do
	grep -q "^Check .* for $p done" "$tmp/lintian" && seen+=" ${p%%_*}"
done
if [ "$rc" = 0 ] && ! grep -Eq '^(E|W): ' "$tmp/lintian" && [ "$(echo $seen)" = "source:thpswap binary:thpswap-dkms binary:thpswapctl" ]; then
	ok "lintian --pedantic on the source and both binaries: no error, no warning"
else
	notok "lintian (rc $rc; checked:${seen:- nothing}): errors or warnings above"
fi
bad=
for f in "$top"/debian/*lintian-overrides "$top"/debian/source/lintian-overrides; do
	[ -f "$f" ] || continue
	# Each override line follows a comment (its reason) or another override.
	bad+=$(awk '/^#/ { why = 1; next } /^[[:space:]]*$/ { why = 0; next }
		    { if (!why) print FILENAME ":" NR ": no reason given" }' "$f")
done
if [ -z "$bad" ]; then ok "every lintian override has its reason above it"; else notok "lintian overrides without a reason"; echo "$bad" | diag; fi

# --- install ----------------------------------------------------------------------
if dpkg-query -W -f='${Status}\n' thpswap-dkms thpswapctl 2>/dev/null | grep -q 'installed' ||
   dkms status -m thpswap -v "$ver" 2>/dev/null | grep -q . || [ -e "/usr/src/thpswap-$ver" ]; then
	for t in "dpkg -i" "file placement" "dkms status" "systemd-analyze verify" "shipped config" "purge"; do
		skip "$t" "thpswap $ver is installed on this machine already"
	done
	echo "1..$n"; exit 0
fi
installed=1
check "dpkg -i thpswap-dkms thpswapctl" dpkg_locked -i "$dkms_deb" "$ctl_deb"

missing=
for f in /usr/sbin/thpswapctl /usr/share/man/man8/thpswapctl.8.gz \
	 /usr/share/bash-completion/completions/thpswapctl /lib/systemd/system/thpswap.service \
	 /etc/thpswap.conf /usr/src/thpswap-$ver/dkms.conf /usr/src/thpswap-$ver/Kbuild \
	 /usr/src/thpswap-$ver/module/main.c /usr/src/thpswap-$ver/uapi/linux/thpswap.h; do
	[ -f "$f" ] || missing+=" $f"
done
[ -x /usr/sbin/thpswapctl ] && [ "$(/usr/sbin/thpswapctl --version 2>&1)" = "thpswapctl $ver" ] ||
	missing+=" (thpswapctl --version is not $ver)"
dpkg-query -W -f='${Conffiles}\n' thpswapctl | grep -q '^ /etc/thpswap.conf ' ||
	missing+=" (/etc/thpswap.conf not a conffile)"
grep -q "^PACKAGE_VERSION=\"$ver\"" "/usr/src/thpswap-$ver/dkms.conf" || missing+=" (dkms.conf version)"
if [ -z "$missing" ]; then
	ok "files in place: thpswapctl (--version $ver), man page, completion, unit, conffile /etc/thpswap.conf, /usr/src/thpswap-$ver"
else
	notok "files missing:$missing"
fi

st=$(dkms status -m thpswap -v "$ver" 2>&1)
ko=$(find "/lib/modules/$abi/updates/dkms" -name 'thpswap.ko*' 2>/dev/null | head -n1)
if printf '%s\n' "$st" | grep -q "^thpswap/$ver, $abi, x86_64: installed" &&
   [ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$abi "; then
	ok "dkms status: thpswap/$ver built and installed for $abi ($ko)"
else
	notok "dkms status shows thpswap/$ver installed for $abi"
	{ echo "$st"; echo "ko: ${ko:-none}"; tail -n 20 "/var/lib/dkms/thpswap/$ver/build/make.log" 2>/dev/null; } | diag
fi

if out=$(systemd-analyze verify /lib/systemd/system/thpswap.service 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify thpswap.service: nothing to report"
else
	notok "systemd-analyze verify thpswap.service"; printf '%s\n' "$out" | diag
fi

# As shipped, every line is a comment: installing sets nothing up.
if out=$(/usr/sbin/thpswapctl setup 2>&1) &&
   [ "$out" = "/etc/thpswap.conf declares no device: nothing to do" ]; then
	ok "installed thpswapctl setup with the shipped /etc/thpswap.conf: nothing to do"
else
	notok "installed thpswapctl setup with the shipped /etc/thpswap.conf"; printf '%s\n' "$out" | diag
fi

# --- purge --------------------------------------------------------------------------
out=$(purge 2>&1)
rc=$?
left=
for f in /usr/sbin/thpswapctl /etc/thpswap.conf /lib/systemd/system/thpswap.service "/usr/src/thpswap-$ver" \
	 "/var/lib/dkms/thpswap/$ver" "$ko"; do
	[ -n "$f" ] && [ -e "$f" ] && left+=" $f"
done
dkms status -m thpswap -v "$ver" 2>/dev/null | grep -q . && left+=" (dkms status)"
if [ "$rc" = 0 ] && [ -z "$left" ]; then
	installed=0
	ok "dpkg --purge: nothing left (files, conffile, DKMS tree, module)"
else
	notok "dpkg --purge (rc $rc) left:$left"; printf '%s\n' "$out" | tail -n 20 | diag
fi
echo "1..$n"
[ "$failed" = 0 ]
