// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering of the views: the human tables (colour only on a tty), the
 * JSON objects and the tab-separated dump whose keys and columns
 * thpswapctl(8) documents, and the cluster map.
 *
 * Stability: JSON keys and dump columns are only ever appended.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thpswapctl.h"

const char *const tsw_state_name[TSW_NR_STATES] = {
	[TSW_FREE] = "free",
	[TSW_HUGE] = "huge",
	[TSW_SPLIT] = "split",
	[TSW_SMALL] = "small",
};

const char tsw_state_char[TSW_NR_STATES] = {
	[TSW_FREE] = '.',
	[TSW_HUGE] = 'H',
	[TSW_SPLIT] = 'S',
	[TSW_SMALL] = 's',
};

const struct tsw_counter_def tsw_counters[TSW_NR_COUNTERS] = {
	[TSW_C_THP_WRITES] = { "thp_writes", TSW_U_COUNT, "whole 2 MiB THPs written" },
	[TSW_C_THP_READS] = { "thp_reads", TSW_U_COUNT, "whole 2 MiB THPs read" },
	[TSW_C_PAGE_WRITES] = { "page_writes", TSW_U_COUNT, "4 KiB pages written" },
	[TSW_C_PAGE_READS] = { "page_reads", TSW_U_COUNT, "4 KiB pages read" },
	[TSW_C_BYTES_WRITTEN] = { "bytes_written", TSW_U_BYTES, "bytes written" },
	[TSW_C_BYTES_READ] = { "bytes_read", TSW_U_BYTES, "bytes read" },
	[TSW_C_DISCARDS] = { "discards", TSW_U_COUNT, "discard requests" },
	[TSW_C_SLOT_FREES] = { "slot_frees", TSW_U_COUNT, "swap slots freed" },
	[TSW_C_REJECTED] = { "rejected", TSW_U_COUNT, "out-of-range or misaligned I/O" },
	[TSW_C_FALLBACK_NO_CLUSTER] = { "fallback_no_cluster", TSW_U_COUNT,
					"THPs split before swap-out: no free cluster", true },
	[TSW_C_FALLBACK_MEMCG] = { "fallback_memcg", TSW_U_COUNT,
				   "THPs split before swap-out: memcg charge failed", true },
	[TSW_C_FALLBACK_NOMEM] = { "fallback_nomem", TSW_U_COUNT,
				   "THPs split before swap-out: no memory for the swap cache",
				   true },
	[TSW_C_KERNEL_EVENTS] = { "kernel_events", TSW_U_COUNT,
				  "cluster notifications from the kernel" },
	[TSW_C_SWAPIN_WHOLE] = { "swapin_whole", TSW_U_COUNT,
				 "THPs swapped in whole from this device", true },
};

const struct tsw_vm_event_def tsw_vm_events[TSW_NR_VM_EVENTS] = {
	{ "thp_swpout", "THPs swapped out whole",
	  offsetof(struct tsw_dev, thp_swpout), false },
	{ "thp_swpout_fallback", "THPs split before swap-out",
	  offsetof(struct tsw_dev, thp_swpout_fallback), false },
	{ "thp_swpin", "THPs swapped in whole",
	  offsetof(struct tsw_dev, thp_swpin), true },
	{ "thp_swpin_fallback", "THP swap-ins that fell back to 4 KiB pages",
	  offsetof(struct tsw_dev, thp_swpin_fallback), true },
	{ "thp_swpin_declined", "THP swap-ins declined as sparse (swapin_enabled=auto)",
	  offsetof(struct tsw_dev, thp_swpin_declined), true },
	{ "thp_swpin_promoted", "swapped-in ranges promoted to a THP",
	  offsetof(struct tsw_dev, thp_swpin_promoted), true },
	{ "thp_swpin_promote_fallback", "promotions that failed",
	  offsetof(struct tsw_dev, thp_swpin_promote_fallback), true },
	{ "thp_swpout_pte_mapped", "THPs swapped out whole with no PMD mapping them",
	  offsetof(struct tsw_dev, thp_swpout_pte_mapped), true },
	{ "thp_split_reclaim", "THPs split before swap-out: only partly mapped",
	  offsetof(struct tsw_dev, thp_split_reclaim), true },
	{ "thp_swpin_shared", "THPs mapped whole, shared with other processes",
	  offsetof(struct tsw_dev, thp_swpin_shared), true },
	{ "thp_swpin_collapse_read", "collapses that read the missing pages at once",
	  offsetof(struct tsw_dev, thp_swpin_collapse_read), true },
	{ "thp_swpin_handoff", "THPs mapped by another thread with its own",
	  offsetof(struct tsw_dev, thp_swpin_handoff), true },
};

uint64_t tsw_vm_event(const struct tsw_dev *d, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)d + tsw_vm_events[i].off, sizeof(v));
	return v;
}

/* ---- colour ---------------------------------------------------------- */

bool use_color(FILE *f)
{
	const char *term;

	if (opt.color == COLOR_ALWAYS)
		return true;
	if (opt.color == COLOR_NEVER || getenv("NO_COLOR"))
		return false;
	term = getenv("TERM");
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(f));
}

static int stdout_color(void)
{
	static int on = -1;

	if (on < 0)
		on = use_color(stdout);
	return on;
}

const char *color_of(int state)
{
	static const char *const code[TSW_NR_STATES] = {
		[TSW_FREE] = "\033[2m",
		[TSW_HUGE] = "\033[1;32m",
		[TSW_SPLIT] = "\033[1;33m",
		[TSW_SMALL] = "\033[1;36m",
	};

	if (!stdout_color() || state < 0 || state >= TSW_NR_STATES)
		return "";
	return code[state];
}

const char *color_reset(void)
{
	return stdout_color() ? "\033[0m" : "";
}

const char *color_bold(void)
{
	return stdout_color() ? "\033[1m" : "";
}

static const char *state_str(int state)
{
	return state >= 0 && state < TSW_NR_STATES ? tsw_state_name[state] : "unknown";
}

/* ---- JSON ------------------------------------------------------------ */

void json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_begin(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}

/* Start a member: the separator, the indent and "key": when in an object. */
static void json_member(struct json *j, const char *key)
{
	if (j->depth && j->compact) {
		if (!j->first[j->depth])
			fputs(", ", j->f);
	} else if (j->depth) {
		fputs(j->first[j->depth] ? "\n" : ",\n", j->f);
		fprintf(j->f, "%*s", 2 * j->depth, "");
	}
	j->first[j->depth] = false;
	if (key) {
		json_escape(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_member(j, key);
	fputc(c, j->f);
	if (j->depth < 15)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth)
		j->depth--;
	if (!empty && !j->compact)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key) { json_open(j, key, '{'); }
void json_obj_close(struct json *j) { json_close(j, '}'); }
void json_arr_open(struct json *j, const char *key) { json_open(j, key, '['); }
void json_arr_close(struct json *j) { json_close(j, ']'); }

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_member(j, key);
	fprintf(j->f, "%.3f", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_str(struct json *j, const char *key, const char *v)
{
	json_member(j, key);
	json_escape(j->f, v);
}

void json_null(struct json *j, const char *key)
{
	json_member(j, key);
	fputs("null", j->f);
}

void json_devices(struct json *j, const struct tsw_dev *devs, size_t n)
{
	size_t i;

	json_arr_open(j, "devices");
	for (i = 0; i < n; i++)
		json_dev(j, NULL, &devs[i]);
	json_arr_close(j);
}

/* The device object of list, stats and watch; see JSON OUTPUT in thpswapctl(8). */
void json_dev(struct json *j, const char *key, const struct tsw_dev *d)
{
	int i;

	json_obj_open(j, key);
	json_str(j, "name", d->name);
	json_u64(j, "index", d->index);
	json_u64(j, "size", d->size);
	json_str(j, "backing", d->memmap ? "memmap" : "ram");
	/* 0: the kernel hides it from callers without CAP_SYS_ADMIN. */
	if (d->memmap && d->memmap_addr)
		json_u64(j, "memmap_addr", d->memmap_addr);
	else
		json_null(j, "memmap_addr");
	/* null: not bound to a node (or a module too old to say). */
	if (d->node >= 0)
		json_i64(j, "node", d->node);
	else
		json_null(j, "node");
	json_bool(j, "open", d->open);
	json_bool(j, "swapon", d->swapon);
	json_bool(j, "authoritative", d->authoritative);
	json_u64(j, "generation", d->generation);
	json_u64(j, "live_slots", d->live_slots);
	json_obj_open(j, "swap");
	json_bool(j, "active", d->swap_active);
	json_u64(j, "size", d->swap_size);
	json_u64(j, "used", d->swap_used);
	json_i64(j, "priority", d->swap_prio);
	json_obj_close(j);
	json_obj_open(j, "clusters");
	json_u64(j, "total", d->nr_clusters);
	for (i = 0; i < TSW_NR_STATES; i++)
		json_u64(j, tsw_state_name[i], d->state_count[i]);
	json_obj_close(j);
	json_obj_open(j, "counters");
	for (i = 0; i < TSW_NR_COUNTERS; i++)
		json_u64(j, tsw_counters[i].name, d->counter[i]);
	json_obj_close(j);
	json_obj_open(j, "global");
	for (i = 0; i < TSW_NR_VM_EVENTS; i++)
		json_u64(j, tsw_vm_events[i].name, tsw_vm_event(d, i));
	json_obj_close(j);
	json_obj_close(j);
}

void json_runs(struct json *j, const struct tsw_runs *r)
{
	size_t i;

	json_arr_open(j, "runs");
	for (i = 0; i < r->n; i++) {
		json_obj_open(j, NULL);
		json_u64(j, "first", r->v[i].start);
		json_u64(j, "count", r->v[i].count);
		json_str(j, "state", state_str(r->v[i].state));
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* ---- dump ------------------------------------------------------------ */

/*
 * One line per device; the columns are listed in DUMP FORMAT of
 * thpswapctl(8).  They are spelled out, not looped over tsw_counters[], so
 * that a new counter cannot move a column: append new ones at the end.
 */
void dump_dev(FILE *f, const struct tsw_dev *d)
{
	int i;

	fprintf(f, "%s\t%" PRIu32 "\t%" PRIu64 "\t%s\t", d->name, d->index, d->size,
		d->memmap ? "memmap" : "ram");
	if (d->memmap && d->memmap_addr)
		fprintf(f, "0x%" PRIx64, d->memmap_addr);
	else
		fputc('-', f);
	fprintf(f, "\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, d->swap_active ? 1 : 0,
		d->swap_size, d->swap_used, d->nr_clusters);
	for (i = 0; i < TSW_NR_STATES; i++)
		fprintf(f, "\t%" PRIu64, d->state_count[i]);
	fprintf(f, "\t%" PRIu64 "\t%d\t%d\t%d\t%" PRIu32, d->live_slots, d->open, d->swapon,
		d->authoritative, d->generation);
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64, d->thp_swpout, d->thp_swpout_fallback);
	for (i = TSW_C_THP_WRITES; i <= TSW_C_REJECTED; i++)
		fprintf(f, "\t%" PRIu64, d->counter[i]);
	/* 30-36: the stats of enum thpswap_stat 16-22, in its order */
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
		d->counter[TSW_C_FALLBACK_NO_CLUSTER], d->counter[TSW_C_FALLBACK_MEMCG],
		d->counter[TSW_C_FALLBACK_NOMEM], d->counter[TSW_C_KERNEL_EVENTS]);
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, d->thp_swpin, d->thp_swpin_fallback,
		d->counter[TSW_C_SWAPIN_WHOLE]);
	/* 37: the NUMA node of the RAM backing, -1 for none */
	fprintf(f, "\t%d", d->node);
	/* 38-40: the stats of enum thpswap_stat 23-25, in its order */
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, d->thp_swpin_declined,
		d->thp_swpin_promoted, d->thp_swpin_promote_fallback);
	/* 41-42: the stats of enum thpswap_stat 26-27, in its order */
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64, d->thp_swpout_pte_mapped,
		d->thp_split_reclaim);
	/* 43: stat 28 */
	fprintf(f, "\t%" PRIu64, d->thp_swpin_shared);
	/* 44: stat 29 */
	fprintf(f, "\t%" PRIu64, d->thp_swpin_collapse_read);
	/* 45: stat 30 */
	fprintf(f, "\t%" PRIu64, d->thp_swpin_handoff);
	fputc('\n', f);
}

/* ---- human tables ---------------------------------------------------- */

#define LIST_COLS 11

void print_list_table(FILE *f, const struct tsw_dev *devs, size_t n)
{
	static const char *const head[LIST_COLS] = {
		"DEVICE", "SIZE", "NODE", "SWAP USED", "HUGE", "SPLIT", "SMALL",
		"FREE", "THP OUT", "FALLBACK", "THP IN",
	};
	static const int state_col[TSW_NR_STATES] = {
		[TSW_HUGE] = 4, [TSW_SPLIT] = 5, [TSW_SMALL] = 6, [TSW_FREE] = 7,
	};
	char (*cell)[LIST_COLS][TSW_NAME_LEN] = calloc(n ? n : 1, sizeof(*cell));
	int width[LIST_COLS];
	size_t r;
	int c, s;

	if (!cell) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return;
	}
	for (c = 0; c < LIST_COLS; c++)
		width[c] = (int)strlen(head[c]);
	for (r = 0; r < n; r++) {
		const struct tsw_dev *d = &devs[r];

		snprintf(cell[r][0], TSW_NAME_LEN, "%s", d->name);
		fmt_bytes(d->size, cell[r][1], TSW_NAME_LEN);
		fmt_node(d->node, cell[r][2], TSW_NAME_LEN);
		if (d->swap_active)
			fmt_bytes(d->swap_used, cell[r][3], TSW_NAME_LEN);
		else
			snprintf(cell[r][3], TSW_NAME_LEN, "-");
		for (s = 0; s < TSW_NR_STATES; s++)
			snprintf(cell[r][state_col[s]], TSW_NAME_LEN, "%" PRIu64, d->state_count[s]);
		fmt_count(d->counter[TSW_C_THP_WRITES], cell[r][8], TSW_NAME_LEN);
		fmt_count(d->thp_swpout_fallback, cell[r][9], TSW_NAME_LEN);
		fmt_count(d->counter[TSW_C_THP_READS], cell[r][10], TSW_NAME_LEN);
		for (c = 0; c < LIST_COLS; c++)
			if ((int)strlen(cell[r][c]) > width[c])
				width[c] = (int)strlen(cell[r][c]);
	}
	fputs(color_bold(), f);
	for (c = 0; c < LIST_COLS; c++)
		fprintf(f, c ? "  %*s" : "%-*s", width[c], head[c]);
	fprintf(f, "%s\n", color_reset());
	for (r = 0; r < n; r++) {
		for (c = 0; c < LIST_COLS; c++) {
			const char *col = "";

			for (s = 0; s < TSW_NR_STATES; s++)
				if (state_col[s] == c && devs[r].state_count[s] && s != TSW_FREE)
					col = color_of(s);
			fprintf(f, c ? "  %s%*s%s" : "%s%-*s%s", col, width[c], cell[r][c],
				*col ? color_reset() : "");
		}
		fputc('\n', f);
	}
	free(cell);
}

static void print_kv(FILE *f, const char *key, const char *val, const char *help)
{
	fprintf(f, "  %-20s %12s  %s\n", key, val, help);
}

static void print_counter(FILE *f, const struct tsw_dev *d, int i)
{
	char a[32];

	if (tsw_counters[i].unit == TSW_U_BYTES)
		fmt_bytes(d->counter[i], a, sizeof(a));
	else
		fmt_count(d->counter[i], a, sizeof(a));
	print_kv(f, tsw_counters[i].name, a, tsw_counters[i].help);
}

void print_stats(FILE *f, const struct tsw_dev *d)
{
	char a[32], b[32];
	int i;

	fmt_bytes(d->size, a, sizeof(a));
	fprintf(f, "%s%s%s: %s, ", color_bold(), d->name, color_reset(), a);
	if (d->memmap && d->memmap_addr)
		fprintf(f, "memmap at 0x%" PRIx64 ", ", d->memmap_addr);
	else if (d->memmap)
		fputs("memmap (address shown to root only), ", f);
	else if (d->node >= 0)
		fprintf(f, "RAM on node %d, ", d->node);
	else
		fputs("RAM, ", f);
	if (d->swap_active) {
		fmt_bytes(d->swap_used, a, sizeof(a));
		fmt_bytes(d->swap_size, b, sizeof(b));
		fprintf(f, "swap on, %s of %s used, priority %d\n", a, b, d->swap_prio);
	} else {
		fputs("swap off\n", f);
	}
	fprintf(f, "  %-20s %12" PRIu64 "  ", "clusters", d->nr_clusters);
	for (i = 0; i < TSW_NR_STATES; i++)
		fprintf(f, "%s%s%" PRIu64 " %s%s", i ? ", " : "", color_of(i),
			d->state_count[i], tsw_state_name[i], color_reset());
	fputc('\n', f);
	fmt_bytes(d->live_slots * 4096, b, sizeof(b));
	snprintf(a, sizeof(a), "%" PRIu64, d->live_slots);
	fprintf(f, "  %-20s %12s  4 KiB slots holding data (%s)\n", "live_slots", a, b);
	fprintf(f, "  %-20s %12s  %s%s\n", "state source", d->authoritative ? "swap layer" : "I/O",
		d->authoritative ? "cluster states reported by the kernel's mm hooks"
				 : "cluster states inferred from I/O (stock kernel)",
		d->open ? "; device open" : "");
	for (i = 0; i < TSW_NR_COUNTERS; i++)
		if (!tsw_counters[i].patched)
			print_counter(f, d, i);
	/*
	 * A stock kernel sends no cluster notifications: its 0 would claim
	 * "no fallback" where the truth is "not known".
	 */
	if (!dev_kernel_reports(d)) {
		print_kv(f, "fallback reasons", "not reported",
			 "by the kernel, nor swapin_whole (stock kernel: states inferred from I/O)");
		return;
	}
	for (i = 0; i < TSW_NR_COUNTERS; i++)
		if (tsw_counters[i].patched)
			print_counter(f, d, i);
}

void print_runs(FILE *f, const struct tsw_runs *r)
{
	char range[48], size[24];
	size_t i;

	fprintf(f, "%s%-23s %10s %10s  %s%s\n", color_bold(), "CLUSTERS", "COUNT", "SIZE",
		"STATE", color_reset());
	for (i = 0; i < r->n; i++) {
		const struct tsw_run *run = &r->v[i];

		if (run->count == 1)
			snprintf(range, sizeof(range), "%" PRIu64, run->start);
		else
			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, run->start,
				 run->start + run->count - 1);
		fmt_bytes(run->count * TSW_CLUSTER_SIZE, size, sizeof(size));
		fprintf(f, "%-23s %10" PRIu64 " %10s  %s%s%s\n", range, run->count, size,
			color_of(run->state), state_str(run->state), color_reset());
	}
}

/* ---- runs ------------------------------------------------------------ */

int runs_push(struct tsw_runs *r, uint64_t start, uint64_t count, uint8_t state)
{
	struct tsw_run *last = r->n ? &r->v[r->n - 1] : NULL;

	if (!count)
		return 0;
	if (last && last->state == state && last->start + last->count == start) {
		last->count += count;
		return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct tsw_run *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].start = start;
	r->v[r->n].count = count;
	r->v[r->n].state = state;
	r->n++;
	return 0;
}

void runs_free(struct tsw_runs *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---- map ------------------------------------------------------------- */

int map_build(struct tsw_map *m, const struct tsw_runs *r, uint64_t nr_clusters,
	      size_t max_cells)
{
	/* On a tie the rarer, more telling state wins. */
	static const int rank[TSW_NR_STATES] = { TSW_SPLIT, TSW_SMALL, TSW_HUGE, TSW_FREE };
	uint64_t (*cnt)[TSW_NR_STATES];
	size_t i, c;

	memset(m, 0, sizeof(*m));
	if (!max_cells)
		max_cells = 1;
	m->nr_clusters = nr_clusters;
	m->per_cell = nr_clusters ? (nr_clusters + max_cells - 1) / max_cells : 1;
	m->nr_cells = (size_t)((nr_clusters + m->per_cell - 1) / m->per_cell);
	m->cell = calloc(m->nr_cells ? m->nr_cells : 1, 1);
	cnt = calloc(m->nr_cells ? m->nr_cells : 1, sizeof(*cnt));
	if (!m->cell || !cnt) {
		free(cnt);
		map_free(m);
		return -1;
	}
	/* Clusters no run covers count as free. */
	for (c = 0; c < m->nr_cells; c++) {
		uint64_t lo = c * m->per_cell, hi = lo + m->per_cell;

		cnt[c][TSW_FREE] = (hi > nr_clusters ? nr_clusters : hi) - lo;
	}
	for (i = 0; i < r->n; i++) {
		uint64_t s = r->v[i].start, e = s + r->v[i].count;
		int st = r->v[i].state < TSW_NR_STATES ? r->v[i].state : TSW_SMALL;

		if (e > nr_clusters)
			e = nr_clusters;
		while (s < e) {
			uint64_t cell = s / m->per_cell;
			uint64_t cell_end = (cell + 1) * m->per_cell;
			uint64_t n = (e < cell_end ? e : cell_end) - s;

			cnt[cell][TSW_FREE] -= n;
			cnt[cell][st] += n;
			s += n;
		}
	}
	for (c = 0; c < m->nr_cells; c++) {
		int best = rank[0], k;

		for (k = 1; k < TSW_NR_STATES; k++)
			if (cnt[c][rank[k]] > cnt[c][best])
				best = rank[k];
		m->cell[c] = (uint8_t)best;
	}
	free(cnt);
	return 0;
}

void map_free(struct tsw_map *m)
{
	free(m->cell);
	m->cell = NULL;
}

void map_print(FILE *f, const struct tsw_map *m, unsigned int width, bool color)
{
	static const char *const code[TSW_NR_STATES] = {
		"\033[2m", "\033[1;32m", "\033[1;33m", "\033[1;36m",
	};
	int prev = -1;
	size_t c;
	int s;

	if (!width)
		width = 64;
	for (c = 0; c < m->nr_cells; c++) {
		int st = m->cell[c];

		if (c % width == 0) {
			if (c) {
				if (color && prev >= 0)
					fputs("\033[0m", f);
				fputc('\n', f);
				prev = -1;
			}
			fprintf(f, "%8" PRIu64 " ", (uint64_t)c * m->per_cell);
		}
		if (color && st != prev)
			fputs(code[st], f);
		prev = st;
		fputc(tsw_state_char[st], f);
	}
	if (color && prev >= 0)
		fputs("\033[0m", f);
	if (m->nr_cells)
		fputc('\n', f);
	fputs("legend:", f);
	for (s = 0; s < TSW_NR_STATES; s++) {
		int st = (s + 1) % TSW_NR_STATES;	/* huge, split, small, free */

		fprintf(f, "  %s%c%s %s", color ? code[st] : "", tsw_state_char[st],
			color ? "\033[0m" : "", tsw_state_name[st]);
	}
	if (m->per_cell == 1) {
		fputs("; one cell = one 2 MiB cluster\n", f);
	} else {
		char sz[24];

		fmt_bytes(m->per_cell * TSW_CLUSTER_SIZE, sz, sizeof(sz));
		fprintf(f, "; one cell = %" PRIu64 " clusters (%s), showing their most common state\n",
			m->per_cell, sz);
	}
}
