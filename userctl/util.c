// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of command-line values, human units, error reporting with the
 * exit codes of thpswapctl(8), and the one mapping from the uapi's stats
 * to the device view that both transports use.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/thpswap.h>

#include "thpswapctl.h"

char tsw_errmsg[256];

void tsw_set_errmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tsw_errmsg, sizeof(tsw_errmsg), fmt, ap);
	va_end(ap);
}

/* Decimal digits only, no sign, no leading zero but "0" itself. */
static int parse_index(const char *s, uint32_t *index)
{
	uint64_t v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		/* No device can have it: refuse here, the same on both transports. */
		if (v >= THPSWAP_MAX_DEVICES)
			return -ERANGE;
	}
	*index = (uint32_t)v;
	return 0;
}

/*
 * DEV is an index (0), a name (thpswap0) or a path (/dev/thpswap0, or any
 * path whose last component is such a name).
 */
int parse_dev(const char *arg, uint32_t *index)
{
	const char *p = arg;
	const char *slash = strrchr(arg, '/');

	if (slash)
		p = slash + 1;
	if (!strncmp(p, "thpswap", 7))
		return parse_index(p + 7, index);
	if (slash)
		return -EINVAL;
	return parse_index(p, index);
}

static int parse_number(const char *arg, uint64_t *out, const char **end)
{
	const char *s = arg;
	int base = 10;
	uint64_t v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*out = v;
	*end = s;
	return 0;
}

/* A plain non-negative integer, decimal or 0x hex. */
int parse_u64(const char *arg, uint64_t *out)
{
	const char *end;
	int err = parse_number(arg, out, &end);

	if (err)
		return err;
	return *end ? -EINVAL : 0;
}

/*
 * A byte count: decimal or 0x hex, then an optional binary suffix
 * K, M, G, T (or KiB, MiB, ..., k, m, g, t; a trailing B is allowed).
 */
int parse_size(const char *arg, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *end, *u;
	uint64_t v;
	int shift = 0, err;

	err = parse_number(arg, &v, &end);
	if (err)
		return err;
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u)
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "ib") ||
		    !strcmp(end, "b"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

/*
 * The start of a memmap=SIZE!ADDR range: a byte address as parse_size()
 * reads it, which the module only takes as a non-zero multiple of 2 MiB
 * (one chunk is one cluster).  Checked here too, so that a value read
 * differently than meant ("0x1b" is 27, not 1 of anything) is refused
 * by name before anything is asked of the kernel.
 */
int parse_memmap_addr(const char *arg, uint64_t *out)
{
	uint64_t v;
	int err = parse_size(arg, &v);

	if (err)
		return err;
	*out = v;
	return !v || v % TSW_CLUSTER_SIZE ? -EDOM : 0;
}

/* A:B, A:, :B or A (a single cluster); [A, B), B = 0 means the end. */
int parse_range(const char *arg, uint64_t *first, uint64_t *last, bool *has_last)
{
	const char *colon = strchr(arg, ':');
	char a[32];
	size_t alen;

	*first = 0;
	*last = 0;
	*has_last = false;
	if (!colon) {
		if (parse_u64(arg, first))
			return -EINVAL;
		*last = *first + 1;
		*has_last = true;
		return 0;
	}
	alen = (size_t)(colon - arg);
	if (alen >= sizeof(a))
		return -EINVAL;
	memcpy(a, arg, alen);
	a[alen] = 0;
	if (alen && parse_u64(a, first))
		return -EINVAL;
	if (colon[1]) {
		if (parse_u64(colon + 1, last))
			return -EINVAL;
		*has_last = true;
		if (*last <= *first)
			return -EINVAL;
	}
	return 0;
}

/* Seconds, fractions allowed, 0.05 to 86400. */
int parse_interval(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0.05 && v <= 86400))
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * A NUMA node: decimal N or "nodeN" (as in /sys/devices/system/node), at
 * most TSW_MAX_NODE (x86_64's MAX_NUMNODES is at most 1024).  Whether the
 * node exists and has memory is the kernel's to say.
 */
int parse_node(const char *arg, int *node)
{
	const char *p = arg;
	long v = 0;

	if (!strncmp(p, "node", 4))
		p += 4;
	if (!*p || (p[0] == '0' && p[1]))
		return -EINVAL;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (*p - '0');
		if (v > TSW_MAX_NODE)
			return -EINVAL;
	}
	*node = (int)v;
	return 0;
}

void fmt_node(int node, char *buf, size_t len)
{
	if (node < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", node);
}

/* 0 B, 512 B, 4 KiB, 1.5 GiB: exact values lose no digits. */
void fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int u = 0;
	uint64_t div = 1;

	while (u < 6 && v >= div * 1024) {
		div *= 1024;
		u++;
	}
	if (v % div == 0)
		snprintf(buf, len, "%" PRIu64 " %s", v / div, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)v / (double)div, unit[u]);
}

/* 999, 1.2k, 12.3M: a count at a glance. */
void fmt_count(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "kMGTPE";
	double d = (double)v;
	int u = -1;

	if (v < 10000) {
		snprintf(buf, len, "%" PRIu64, v);
		return;
	}
	while (d >= 1000 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, "%.*f%c", d < 100 ? 1 : 0, d, unit[u]);
}

void dev_name(uint32_t index, char *buf, size_t len)
{
	snprintf(buf, len, "thpswap%" PRIu32, index);
}

int usage_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s --help')\n", prog);
	return EXIT_USAGE;
}

/*
 * "thpswapctl: WHAT: strerror: kernel's message"; the exit code says
 * whether the device is missing.
 */
int op_err(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	if (tsw_errmsg[0])
		fprintf(stderr, ": %s", tsw_errmsg);
	fputc('\n', stderr);
	tsw_errmsg[0] = 0;
	return (err == -ENODEV || err == -ENOENT || err == -ENXIO) ? EXIT_NODEV : EXIT_FAIL;
}

int tp_open(void)
{
	int err = tp->open();

	if (err && tsw_errmsg[0]) {
		fprintf(stderr, "%s: %s: %s\n", prog, tsw_errmsg, strerror(-err));
		tsw_errmsg[0] = 0;
		return EXIT_FAIL;
	}
	if (err) {
		op_err(err, "opening the %s transport", tp->name);
		return EXIT_FAIL;
	}
	return 0;
}

/* Resolve DEV and read it; an exit code on failure. */
int get_dev(const char *arg, struct tsw_dev *dev, uint32_t *index)
{
	char name[TSW_NAME_LEN];
	int err;

	if (parse_dev(arg, index))
		return usage_err("'%s' is not a device: use thpswapN, /dev/thpswapN or N", arg);
	err = tp->get(*index, dev);
	dev_name(*index, name, sizeof(name));
	if (err == -ENODEV || err == -ENOENT) {
		fprintf(stderr, "%s: %s: no such device%s%s\n", prog, name,
			tsw_errmsg[0] ? ": " : "", tsw_errmsg);
		tsw_errmsg[0] = 0;
		return EXIT_NODEV;
	}
	if (err)
		return op_err(err, "%s", name);
	swaps_fill(dev, 1);
	return 0;
}

/* One device (arg) or all of them (arg NULL); an exit code on failure. */
int get_devs(const char *arg, struct tsw_dev **devs, size_t *n)
{
	uint32_t index;
	int err;

	*devs = NULL;
	*n = 0;
	if (arg) {
		*devs = calloc(1, sizeof(**devs));
		if (!*devs)
			return op_err(-ENOMEM, "allocating");
		err = get_dev(arg, *devs, &index);
		if (err) {
			free(*devs);
			*devs = NULL;
			return err;
		}
		*n = 1;
		return 0;
	}
	err = tp->list(devs, n);
	if (err)
		return op_err(err, "listing devices");
	swaps_fill(*devs, *n);
	return 0;
}

/*
 * enum thpswap_stat -> struct tsw_dev.  The uapi only ever appends stats,
 * so an older module reports a prefix: what it lacks is never set here
 * and reads as 0; a newer one reports more, and those are ignored.
 */
void dev_set_stat(struct tsw_dev *d, unsigned int stat, uint64_t v)
{
	switch (stat) {
	case THPSWAP_STAT_THP_WRITES:
		d->counter[TSW_C_THP_WRITES] = v;
		break;
	case THPSWAP_STAT_THP_READS:
		d->counter[TSW_C_THP_READS] = v;
		break;
	case THPSWAP_STAT_PAGE_WRITES:
		d->counter[TSW_C_PAGE_WRITES] = v;
		break;
	case THPSWAP_STAT_PAGE_READS:
		d->counter[TSW_C_PAGE_READS] = v;
		break;
	case THPSWAP_STAT_BYTES_WRITTEN:
		d->counter[TSW_C_BYTES_WRITTEN] = v;
		break;
	case THPSWAP_STAT_BYTES_READ:
		d->counter[TSW_C_BYTES_READ] = v;
		break;
	case THPSWAP_STAT_DISCARDS:
		d->counter[TSW_C_DISCARDS] = v;
		break;
	case THPSWAP_STAT_SLOT_FREES:
		d->counter[TSW_C_SLOT_FREES] = v;
		break;
	case THPSWAP_STAT_REJECTED:
		d->counter[TSW_C_REJECTED] = v;
		break;
	case THPSWAP_STAT_THP_SWPOUT:
		d->thp_swpout = v;
		break;
	case THPSWAP_STAT_THP_SWPOUT_FALLBACK:
		d->thp_swpout_fallback = v;
		break;
	case THPSWAP_STAT_CLUSTERS_FREE:
		d->state_count[TSW_FREE] = v;
		break;
	case THPSWAP_STAT_CLUSTERS_HUGE:
		d->state_count[TSW_HUGE] = v;
		break;
	case THPSWAP_STAT_CLUSTERS_SPLIT:
		d->state_count[TSW_SPLIT] = v;
		break;
	case THPSWAP_STAT_CLUSTERS_SMALL:
		d->state_count[TSW_SMALL] = v;
		break;
	case THPSWAP_STAT_LIVE_SLOTS:
		d->live_slots = v;
		break;
	case THPSWAP_STAT_FALLBACK_NO_CLUSTER:
		d->counter[TSW_C_FALLBACK_NO_CLUSTER] = v;
		break;
	case THPSWAP_STAT_FALLBACK_MEMCG:
		d->counter[TSW_C_FALLBACK_MEMCG] = v;
		break;
	case THPSWAP_STAT_FALLBACK_NOMEM:
		d->counter[TSW_C_FALLBACK_NOMEM] = v;
		break;
	case THPSWAP_STAT_KERNEL_EVENTS:
		d->counter[TSW_C_KERNEL_EVENTS] = v;
		break;
	case THPSWAP_STAT_THP_SWPIN:
		d->thp_swpin = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_FALLBACK:
		d->thp_swpin_fallback = v;
		break;
	case THPSWAP_STAT_SWAPIN_WHOLE:
		d->counter[TSW_C_SWAPIN_WHOLE] = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_DECLINED:
		d->thp_swpin_declined = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_PROMOTED:
		d->thp_swpin_promoted = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_PROMOTE_FALLBACK:
		d->thp_swpin_promote_fallback = v;
		break;
	case THPSWAP_STAT_THP_SWPOUT_PTE_MAPPED:
		d->thp_swpout_pte_mapped = v;
		break;
	case THPSWAP_STAT_THP_SPLIT_RECLAIM:
		d->thp_split_reclaim = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_SHARED:
		d->thp_swpin_shared = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_COLLAPSE_READ:
		d->thp_swpin_collapse_read = v;
		break;
	case THPSWAP_STAT_THP_SWPIN_HANDOFF:
		d->thp_swpin_handoff = v;
		break;
	default:	/* newer than this build */
		break;
	}
}

/*
 * The fallback reasons and whole swap-ins come from the kernel's cluster
 * notifications: a kernel that sends none (stock) leaves them at 0, which
 * would read as "no fallback" rather than "not known".
 */
bool dev_kernel_reports(const struct tsw_dev *d)
{
	return d->authoritative || d->counter[TSW_C_KERNEL_EVENTS];
}
