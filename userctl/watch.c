// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl watch [DEV] [--interval S] [--count N]: the counters every
 * interval, and between refreshes the events of the "events" multicast
 * group as they arrive.  --count N stops after N refreshes; the first is
 * immediate.  With --json every refresh and every event is one JSON
 * object on one line.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "thpswapctl.h"

struct watch {
	bool filter;
	uint32_t index;
	struct tsw_dev *prev;
	size_t nprev;
	unsigned long refresh;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03ld", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ts.tv_nsec / 1000000);
}

static const char *ev_type_name(enum tsw_event_type t)
{
	switch (t) {
	case TSW_EV_DEV_ADD: return "add";
	case TSW_EV_DEV_DEL: return "remove";
	case TSW_EV_CLUSTER: return "cluster";
	case TSW_EV_DROPPED: return "dropped";
	default: return "other";
	}
}

static const char *st_name(int s)
{
	return s >= 0 && s < TSW_NR_STATES ? tsw_state_name[s] : "?";
}

static void print_event(const struct tsw_event *ev, void *arg)
{
	struct watch *w = arg;
	char ts[32], name[TSW_NAME_LEN];
	struct json j;

	if (w->filter && ev->type != TSW_EV_DROPPED && ev->index != w->index)
		return;
	dev_name(ev->index, name, sizeof(name));
	if (opt.json) {
		json_begin(&j, stdout);
		j.compact = true;
		json_obj_open(&j, NULL);
		json_str(&j, "type", "event");
		json_double(&j, "time", now());
		json_str(&j, "event", ev_type_name(ev->type));
		if (ev->type != TSW_EV_DROPPED) {
			json_str(&j, "device", name);
			json_u64(&j, "index", ev->index);
		}
		if (ev->type == TSW_EV_CLUSTER) {
			json_u64(&j, "first", ev->first);
			json_u64(&j, "count", ev->count);
			if (ev->from >= 0)
				json_str(&j, "from", st_name(ev->from));
			else
				json_null(&j, "from");
			json_str(&j, "to", st_name(ev->to));
		}
		if (ev->type == TSW_EV_DROPPED && ev->count)
			json_u64(&j, "count", ev->count);
		else if (ev->type == TSW_EV_DROPPED)
			json_null(&j, "count");	/* our socket overran: unknown */
		json_obj_close(&j);
		json_end(&j);
		fflush(stdout);
		return;
	}
	stamp(ts, sizeof(ts));
	switch (ev->type) {
	case TSW_EV_DEV_ADD:
		printf("%s %s added\n", ts, name);
		break;
	case TSW_EV_DEV_DEL:
		printf("%s %s removed\n", ts, name);
		break;
	case TSW_EV_CLUSTER:
		printf("%s %s cluster%s %" PRIu64, ts, name, ev->count > 1 ? "s" : "", ev->first);
		if (ev->count > 1)
			printf("-%" PRIu64, ev->first + ev->count - 1);
		if (ev->from >= 0)
			printf(" %s%s%s ->", color_of(ev->from), st_name(ev->from), color_reset());
		printf(" %s%s%s\n", color_of(ev->to), st_name(ev->to), color_reset());
		break;
	case TSW_EV_DROPPED:
		if (ev->count)
			printf("%s %s: %" PRIu64 " events dropped by the kernel\n", ts, name,
			       ev->count);
		else
			printf("%s events lost: the socket buffer overran\n", ts);
		break;
	default:
		printf("%s %s: unknown event\n", ts, name);
	}
	fflush(stdout);
}

static const struct tsw_dev *find_prev(const struct watch *w, uint32_t index)
{
	size_t i;

	for (i = 0; i < w->nprev; i++)
		if (w->prev[i].index == index)
			return &w->prev[i];
	return NULL;
}

static void print_refresh(struct watch *w, const struct tsw_dev *devs, size_t n)
{
	char ts[32], a[24], b[24], c[24];
	struct json j;
	size_t i;
	int s;

	if (opt.json) {
		json_begin(&j, stdout);
		j.compact = true;
		json_obj_open(&j, NULL);
		json_str(&j, "type", "refresh");
		json_double(&j, "time", now());
		json_u64(&j, "refresh", w->refresh);
		json_devices(&j, devs, n);
		json_obj_close(&j);
		json_end(&j);
		fflush(stdout);
		return;
	}
	stamp(ts, sizeof(ts));
	if (!n)
		printf("%s no thpswap devices\n", ts);
	for (i = 0; i < n; i++) {
		const struct tsw_dev *d = &devs[i];
		const struct tsw_dev *p = find_prev(w, d->index);
		uint64_t out = d->counter[TSW_C_THP_WRITES], in = d->counter[TSW_C_THP_READS];
		uint64_t fb = d->thp_swpout_fallback;

		printf("%s %s", ts, d->name);
		for (s = 1; s <= TSW_NR_STATES; s++) {
			int st = s % TSW_NR_STATES;	/* huge, split, small, free */

			printf(" %s%s %" PRIu64 "%s", color_of(st), tsw_state_name[st],
			       d->state_count[st], color_reset());
		}
		fmt_count(out, a, sizeof(a));
		fmt_count(in, b, sizeof(b));
		fmt_count(fb, c, sizeof(c));
		printf("  thp out %s", a);
		if (p)
			printf(" (+%" PRIu64 ")", out - p->counter[TSW_C_THP_WRITES]);
		printf(" in %s", b);
		if (p)
			printf(" (+%" PRIu64 ")", in - p->counter[TSW_C_THP_READS]);
		printf(" fallback %s", c);
		if (p)
			printf(" (+%" PRIu64 ")", fb - p->thp_swpout_fallback);
		putchar('\n');
	}
	fflush(stdout);
}

/* Print events until @until (CLOCK_MONOTONIC); 0 or an exit code. */
static int wait_events(struct watch *w, int fd, double until)
{
	for (;;) {
		double left = until - mono();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r, err;

		if (left <= 0)
			return 0;
		if (fd < 0) {
			struct timespec ts = {
				.tv_sec = (time_t)left,
				.tv_nsec = (long)((left - (double)(time_t)left) * 1e9),
			};

			nanosleep(&ts, NULL);
			continue;
		}
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			return op_err(-errno, "waiting for events");
		if (r <= 0)
			continue;
		err = tp->events_read(print_event, w);
		if (err && err != -EAGAIN && err != -EINTR && err != -ENOBUFS)
			return op_err(err, "reading events");
		if (err == -ENOBUFS) {
			struct tsw_event ev = { .type = TSW_EV_DROPPED, .count = 0 };

			print_event(&ev, w);
		}
	}
}

int cmd_watch(int argc, char **argv)
{
	struct watch w = { 0 };
	struct tsw_dev *devs;
	double next;
	size_t n;
	int fd = -1, ret;

	if (argc > 1) {
		struct tsw_dev d;

		ret = get_dev(argv[1], &d, &w.index);
		if (ret)
			return ret;
		w.filter = true;
	}
	if (tp->events_subscribe) {
		fd = tp->events_subscribe();
		if (fd < 0) {
			op_err(fd, "subscribing to events; showing counters only");
			fd = -1;
		} else {
			/*
			 * The group is joined: from here on no event is
			 * missed.  Said on stderr, so that a script that
			 * starts watch and then changes something can wait
			 * for this line instead of guessing with a sleep
			 * (thpswapctl(8), watch).  stderr is unbuffered.
			 */
			fprintf(stderr, "%s: listening for events\n", prog);
		}
	} else {
		fprintf(stderr, "%s: the %s transport has no events; showing counters only\n",
			prog, tp->name);
	}
	next = mono();
	for (w.refresh = 1; !opt.count || w.refresh <= opt.count; w.refresh++) {
		if (w.refresh > 1) {
			next += opt.interval;
			ret = wait_events(&w, fd, next);
			if (ret)
				break;
		}
		ret = get_devs(w.filter ? argv[1] : NULL, &devs, &n);
		if (ret)
			break;
		print_refresh(&w, devs, n);
		free(w.prev);
		w.prev = devs;
		w.nprev = n;
	}
	/* Events that arrived with the last refresh still belong to the picture. */
	if (!ret && fd >= 0)
		ret = wait_events(&w, fd, mono() + 0.05);
	free(w.prev);
	return ret;
}
