# SPDX-License-Identifier: GPL-2.0
#
# mthp.sh: a newer kernel's mTHP swap set up as its users would, for the
# guest halves of the benches (busybox ash; sourced after THP is set).
#
# mthp_setup: every hugepages-<size>kB/enabled = always, so a fault still
# takes 2 MiB first while a swap-in, which 6.12+ does only below PMD order
# (alloc_swap_folio()), takes the largest size whose swap entries allow it
# (1 MiB for a THP that went out whole) and falls back size by size;
# large-folio swap-in has no knob of its own beyond these.  zswap must be
# off (zswap.enabled=0 on the command line: with zswap ever on, 6.12+
# swaps in 4 KiB only).  Prints the sizes set, comma-separated, or "none"
# on a kernel without mTHP (6.1); returns 1 if a size cannot be set.
mthp_setup() {
	mthp_sizes=
	for d in $THP/hugepages-*kB; do
		[ -w "$d/enabled" ] || continue
		echo always > "$d/enabled" || return 1
		kb=${d##*/hugepages-}
		mthp_sizes="$mthp_sizes${mthp_sizes:+,}${kb%kB}"
	done
	echo "${mthp_sizes:-none}"
}

# zswap_state: Y, N, or none (no zswap in this kernel).
zswap_state() {
	cat /sys/module/zswap/parameters/enabled 2>/dev/null || echo none
}
