// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of thpswapctl's parsing and formatting (userctl/util.c,
 * format.c), TAP on stdout.  Built and run by tests/unit/cli-parse.sh.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/thpswap.h>

#include "thpswapctl.h"

/* What main.c would define. */
const char *prog = "thpswapctl";
struct tsw_opts opt = { .color = COLOR_NEVER };
const struct tsw_transport *tp;

static int n, failed;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		failed++;
}

static void dev(const char *s, int want_err, uint32_t want)
{
	uint32_t idx = 12345;
	int err = parse_dev(s, &idx);

	if (want_err)
		ok(err != 0, "parse_dev rejects '%s'", s);
	else
		ok(!err && idx == want, "parse_dev '%s' = %u (got %d, %u)", s, want, err, idx);
}

static void size(const char *s, int want_err, uint64_t want)
{
	uint64_t v = 0;
	int err = parse_size(s, &v);

	if (want_err)
		ok(err != 0, "parse_size rejects '%s'", s);
	else
		ok(!err && v == want, "parse_size '%s' = %" PRIu64 " (got %" PRIu64 ")", s, want, v);
}

static void memmap_addr(const char *s, int want_err, uint64_t want)
{
	uint64_t v = 0;
	int err = parse_memmap_addr(s, &v);

	if (want_err)
		ok(err == want_err && (err != -EDOM || v == want),
		   "parse_memmap_addr rejects '%s' with %d (got %d, %" PRIu64 ")", s, want_err, err, v);
	else
		ok(!err && v == want, "parse_memmap_addr '%s' = %" PRIu64 " (got %d, %" PRIu64 ")",
		   s, want, err, v);
}

static void range(const char *s, int want_err, uint64_t a, uint64_t b, bool has_b)
{
	uint64_t x = 99, y = 99;
	bool h = !has_b;
	int err = parse_range(s, &x, &y, &h);

	if (want_err)
		ok(err != 0, "parse_range rejects '%s'", s);
	else
		ok(!err && x == a && (!has_b || y == b) && h == has_b,
		   "parse_range '%s' = [%" PRIu64 ", %" PRIu64 ")%s", s, a, b, has_b ? "" : " to end");
}

static void node(const char *s, int want_err, int want)
{
	int v = 12345;
	int err = parse_node(s, &v);

	if (want_err)
		ok(err != 0 && v == 12345, "parse_node rejects '%s'", s);
	else
		ok(!err && v == want, "parse_node '%s' = %d (got %d, %d)", s, want, err, v);
}

static void bytes(uint64_t v, const char *want)
{
	char buf[32];

	fmt_bytes(v, buf, sizeof(buf));
	ok(!strcmp(buf, want), "fmt_bytes %" PRIu64 " = '%s' (got '%s')", v, want, buf);
}

static void count(uint64_t v, const char *want)
{
	char buf[32];

	fmt_count(v, buf, sizeof(buf));
	ok(!strcmp(buf, want), "fmt_count %" PRIu64 " = '%s' (got '%s')", v, want, buf);
}

/* Render into memory. */
static char *capture(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void do_json(FILE *f, void *arg)
{
	struct json j;

	(void)arg;
	json_begin(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, "s", "a\"b\\c\n\t\x01");
	json_arr_open(&j, "empty");
	json_arr_close(&j);
	json_arr_open(&j, "a");
	json_u64(&j, NULL, 1);
	json_u64(&j, NULL, 18446744073709551615ULL);
	json_arr_close(&j);
	json_null(&j, "n");
	json_bool(&j, "t", true);
	json_i64(&j, "neg", -2);
	json_obj_close(&j);
	json_end(&j);
}

static void do_compact(FILE *f, void *arg)
{
	struct json j;

	(void)arg;
	json_begin(&j, f);
	j.compact = true;
	json_obj_open(&j, NULL);
	json_u64(&j, "a", 1);
	json_obj_open(&j, "b");
	json_bool(&j, "c", false);
	json_obj_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

static void do_dump(FILE *f, void *arg)
{
	dump_dev(f, arg);
}

static void do_map(FILE *f, void *arg)
{
	map_print(f, arg, 8, false);
}

int main(void)
{
	struct tsw_runs r = { 0 };
	struct tsw_map m;
	struct tsw_dev d;
	char *s;
	int tabs;

	printf("TAP version 13\n");

	dev("0", 0, 0);
	dev("17", 0, 17);
	dev("thpswap0", 0, 0);
	dev("thpswap12", 0, 12);
	dev("/dev/thpswap3", 0, 3);
	dev("/some/where/thpswap4", 0, 4);
	dev("63", 0, 63);
	/* No device can have these: refused before any transport sees them. */
	dev("64", 1, 0);
	dev("thpswap64", 1, 0);
	dev("4294967295", 1, 0);
	dev("4294967296", 1, 0);
	dev("", 1, 0);
	dev("thpswap", 1, 0);
	dev("thpswap-1", 1, 0);
	dev("thpswap01", 1, 0);
	dev("-1", 1, 0);
	dev("zram0", 1, 0);
	dev("/dev/sda", 1, 0);
	dev("/dev/3", 1, 0);
	dev("0x1", 1, 0);
	dev("1 ", 1, 0);

	size("4096", 0, 4096);
	size("4K", 0, 4096);
	size("4k", 0, 4096);
	size("256M", 0, 256ULL << 20);
	size("256MiB", 0, 256ULL << 20);
	size("1G", 0, 1ULL << 30);
	size("1GB", 0, 1ULL << 30);
	size("2T", 0, 2ULL << 40);
	size("0x100000000", 0, 1ULL << 32);
	size("0", 0, 0);
	size("", 1, 0);
	size("M", 1, 0);
	size("-1M", 1, 0);
	size("1.5G", 1, 0);
	size("12Q", 1, 0);
	size("1MM", 1, 0);
	size("1 M", 1, 0);
	size("16777216T", 1, 0);
	size("18446744073709551616", 1, 0);
	size("18446744073709551615", 0, UINT64_MAX);

	/* "0x1b" is 27 bytes, not a unit: refused, naming what it was read as. */
	memmap_addr("0x1b", -EDOM, 27);
	memmap_addr("0x1B", -EDOM, 27);
	memmap_addr("27", -EDOM, 27);
	memmap_addr("0", -EDOM, 0);
	memmap_addr("1M", -EDOM, 1ULL << 20);
	memmap_addr("0x100001000", -EDOM, 0x100001000ULL);
	memmap_addr("0x100000000", 0, 1ULL << 32);
	memmap_addr("4G", 0, 1ULL << 32);
	memmap_addr("2M", 0, 2ULL << 20);
	memmap_addr("0x1bG", 0, 27ULL << 30);
	memmap_addr("0x1g", 0, 1ULL << 30);
	memmap_addr("4X", -EINVAL, 0);
	memmap_addr("", -EINVAL, 0);
	memmap_addr("16777216T", -ERANGE, 0);

	range("3:9", 0, 3, 9, true);
	range("3:", 0, 3, 0, false);
	range(":9", 0, 0, 9, true);
	range("5", 0, 5, 6, true);
	range("9:3", 1, 0, 0, false);
	range("3:3", 1, 0, 0, false);
	range("a:b", 1, 0, 0, false);
	range("", 1, 0, 0, false);
	range("1:2:3", 1, 0, 0, false);

	{
		double v;

		ok(!parse_interval("0.5", &v) && v == 0.5, "parse_interval 0.5");
		ok(parse_interval("0", &v) != 0, "parse_interval rejects 0");
		ok(parse_interval("1s", &v) != 0, "parse_interval rejects 1s");
		ok(parse_interval("nan", &v) != 0, "parse_interval rejects nan");
	}

	bytes(0, "0 B");
	bytes(512, "512 B");
	bytes(4096, "4 KiB");
	bytes(256ULL << 20, "256 MiB");
	bytes(3ULL << 29, "1.5 GiB");
	bytes(64ULL << 30, "64 GiB");
	bytes(1023, "1023 B");
	bytes(1025, "1.0 KiB");
	count(0, "0");
	count(9999, "9999");
	count(12345, "12.3k");
	count(123456, "123k");
	count(65536ULL * 1000, "65.5M");

	s = capture(do_json, NULL);
	ok(!strcmp(s, "{\n  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001\",\n  \"empty\": [],\n"
		      "  \"a\": [\n    1,\n    18446744073709551615\n  ],\n  \"n\": null,\n"
		      "  \"t\": true,\n  \"neg\": -2\n}\n"),
	   "JSON: escapes, nesting, empty array, commas");
	if (failed)
		printf("# got:\n%s", s);
	free(s);
	s = capture(do_compact, NULL);
	ok(!strcmp(s, "{\"a\": 1, \"b\": {\"c\": false}}\n"), "compact JSON on one line");
	free(s);

	ok(!runs_push(&r, 0, 1, TSW_SMALL) && !runs_push(&r, 1, 2, TSW_HUGE) &&
	   !runs_push(&r, 3, 3, TSW_HUGE) && !runs_push(&r, 6, 0, TSW_SPLIT) &&
	   !runs_push(&r, 6, 2, TSW_SPLIT) && r.n == 3 && r.v[1].count == 5,
	   "runs_push merges adjacent runs of one state, drops empty ones");

	ok(!map_build(&m, &r, 16, 64) && m.per_cell == 1 && m.nr_cells == 16 &&
	   m.cell[0] == TSW_SMALL && m.cell[1] == TSW_HUGE && m.cell[6] == TSW_SPLIT &&
	   m.cell[8] == TSW_FREE, "map: one cell per cluster, uncovered clusters free");
	s = capture(do_map, &m);
	ok(strstr(s, "       0 sHHHHHSS\n       8 ........\n") != NULL,
	   "map print: rows of 8 with cluster offsets");
	ok(strstr(s, "one cell = one 2 MiB cluster") != NULL, "map legend: cell size");
	ok(strstr(s, "H huge") && strstr(s, ". free") && strstr(s, "S split") &&
	   strstr(s, "s small"), "map legend names every state");
	ok(!strchr(s, '\033'), "map without colour has no escapes");
	free(s);
	map_free(&m);

	ok(!map_build(&m, &r, 16, 4) && m.per_cell == 4 && m.nr_cells == 4 &&
	   m.cell[0] == TSW_HUGE && m.cell[1] == TSW_SPLIT && m.cell[2] == TSW_FREE,
	   "map: groups of 4 show the majority state (a tie: the rarer)");
	s = capture(do_map, &m);
	ok(strstr(s, "one cell = 4 clusters (8 MiB)") != NULL, "map legend: group size");
	free(s);
	map_free(&m);

	runs_free(&r);
	runs_push(&r, 0, 2, TSW_SPLIT);
	runs_push(&r, 2, 2, TSW_HUGE);
	ok(!map_build(&m, &r, 4, 1) && m.nr_cells == 1 && m.cell[0] == TSW_SPLIT,
	   "map: a tie goes to the rarer state (split over huge)");
	map_free(&m);
	ok(!map_build(&m, &r, 100000, 2048) && m.per_cell == 49 && m.nr_cells == 2041,
	   "map: a 195 GiB device fits 2048 cells");
	map_free(&m);
	runs_free(&r);

	/* --node: a number the kernel then checks; nothing else. */
	node("0", 0, 0);
	node("1", 0, 1);
	node("17", 0, 17);
	node("node1", 0, 1);
	node("1023", 0, 1023);
	node("1024", 1, 0);
	node("99999999999999999999", 1, 0);
	node("-1", 1, 0);
	node("", 1, 0);
	node("node", 1, 0);
	node("01", 1, 0);
	node("1a", 1, 0);
	node("0x1", 1, 0);
	node(" 1", 1, 0);
	node("1 ", 1, 0);
	node("+1", 1, 0);
	{
		char b[8];

		fmt_node(-1, b, sizeof(b));
		ok(!strcmp(b, "-"), "fmt_node -1 = '-' (got '%s')", b);
		fmt_node(3, b, sizeof(b));
		ok(!strcmp(b, "3"), "fmt_node 3 = '3' (got '%s')", b);
	}

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "thpswap0");
	d.size = 256ULL << 20;
	d.nr_clusters = 128;
	d.node = -1;
	s = capture(do_dump, &d);
	tabs = 0;
	for (char *p = s; *p; p++)
		tabs += *p == '\t';
	ok(tabs == 44 && s[strlen(s) - 1] == '\n' && !strncmp(s, "thpswap0\t0\t268435456\tram\t-\t", 26),
	   "dump: 45 tab-separated columns, RAM backing as '-'");
	ok(strlen(s) > 20 && !strcmp(s + strlen(s) - 20, "\t-1\t0\t0\t0\t0\t0\t0\t0\t0\n"),
	   "dump: column 37 is the node, -1 for none, then columns 38-45");
	free(s);
	d.memmap = true;
	d.memmap_addr = 1ULL << 32;
	s = capture(do_dump, &d);
	ok(strstr(s, "\tmemmap\t0x100000000\t") != NULL, "dump: memmap address in hex");
	free(s);

	/* Every uapi stat lands in its own place; stat i gets the value 1000 + i. */
	memset(&d, 0, sizeof(d));
	for (unsigned int i = 0; i < __THPSWAP_STAT_CNT + 3; i++)
		dev_set_stat(&d, i, 1000 + i);
	ok(d.counter[TSW_C_THP_WRITES] == 1000 && d.counter[TSW_C_REJECTED] == 1008 &&
	   d.thp_swpout == 1009 && d.thp_swpout_fallback == 1010 &&
	   d.state_count[TSW_FREE] == 1011 && d.state_count[TSW_SMALL] == 1014 &&
	   d.live_slots == 1015, "dev_set_stat: stats 0-15 as before");
	ok(d.counter[TSW_C_FALLBACK_NO_CLUSTER] == 1016 && d.counter[TSW_C_FALLBACK_MEMCG] == 1017 &&
	   d.counter[TSW_C_FALLBACK_NOMEM] == 1018 && d.counter[TSW_C_KERNEL_EVENTS] == 1019 &&
	   d.thp_swpin == 1020 && d.thp_swpin_fallback == 1021 &&
	   d.counter[TSW_C_SWAPIN_WHOLE] == 1022,
	   "dev_set_stat: fallback reasons, kernel_events, thp_swpin(_fallback), swapin_whole");
	ok(d.thp_swpin_declined == 1023 && d.thp_swpin_promoted == 1024 &&
	   d.thp_swpin_promote_fallback == 1025,
	   "dev_set_stat: thp_swpin_declined, thp_swpin_promoted, thp_swpin_promote_fallback");
	ok(d.thp_swpout_pte_mapped == 1026 && d.thp_split_reclaim == 1027,
	   "dev_set_stat: thp_swpout_pte_mapped, thp_split_reclaim");
	ok(d.thp_swpin_shared == 1028, "dev_set_stat: thp_swpin_shared");
	ok(d.thp_swpin_collapse_read == 1029, "dev_set_stat: thp_swpin_collapse_read");
	ok(d.thp_swpin_handoff == 1030, "dev_set_stat: thp_swpin_handoff");
	{
		uint64_t sum = 0;
		unsigned int i;

		for (i = 0; i < TSW_NR_COUNTERS; i++)
			sum += d.counter[i];
		for (i = 0; i < TSW_NR_STATES; i++)
			sum += d.state_count[i];
		sum += d.live_slots + d.thp_swpout + d.thp_swpout_fallback + d.thp_swpin +
		       d.thp_swpin_fallback + d.thp_swpin_declined + d.thp_swpin_promoted +
		       d.thp_swpin_promote_fallback + d.thp_swpout_pte_mapped + d.thp_split_reclaim +
		       d.thp_swpin_shared + d.thp_swpin_collapse_read + d.thp_swpin_handoff;
		/* 1000 + 1001 + ... + 1030: each stat once, the unknown ones nowhere */
		ok(sum == 31 * 1000 + 30 * 31 / 2, "dev_set_stat: each stat stored once, unknown ones ignored");
	}
	s = capture(do_dump, &d);
	ok(strstr(s, "\t1008\t1016\t1017\t1018\t1019\t1020\t1021\t1022\t") != NULL,
	   "dump: columns 29-36 are rejected, then stats 16-22 in uapi order");
	ok(strlen(s) > 41 && !strcmp(s + strlen(s) - 41, "\t1023\t1024\t1025\t1026\t1027\t1028\t1029\t1030\n"),
	   "dump: columns 38-45 are stats 23-30 in uapi order, after the node");
	free(s);
	memset(&d, 0, sizeof(d));
	ok(!dev_kernel_reports(&d), "a stock kernel reports no fallback reasons");
	d.counter[TSW_C_KERNEL_EVENTS] = 1;
	ok(dev_kernel_reports(&d), "kernel events: it does");
	d.counter[TSW_C_KERNEL_EVENTS] = 0;
	d.authoritative = true;
	ok(dev_kernel_reports(&d), "authoritative: it does");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
