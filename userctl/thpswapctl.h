/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpswapctl: the command-line interface of thpswap.
 *
 * Data flows one way: a transport (nl.c: generic netlink, ioctl.c:
 * /dev/thpswap-control) turns uapi messages into the view structures
 * below; the commands (one file each) only ever see those, and format.c
 * renders them.  Nothing above the transports knows which one ran.
 */
#ifndef THPSWAPCTL_H
#define THPSWAPCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_OK		0
#define EXIT_FAIL	1	/* the operation failed */
#define EXIT_USAGE	2	/* bad command line */
#define EXIT_NODEV	3	/* no such device */
#define EXIT_NOMODULE	4	/* setup: no thpswap module for the running kernel */

#define TSW_CLUSTER_SIZE	(2ULL << 20)
#define TSW_NAME_LEN		32

/* Cluster states, in the uapi's order. */
enum tsw_state {
	TSW_FREE,
	TSW_HUGE,
	TSW_SPLIT,
	TSW_SMALL,
	TSW_NR_STATES,
};

extern const char *const tsw_state_name[TSW_NR_STATES];	/* "free", ... */
extern const char tsw_state_char[TSW_NR_STATES];		/* '.', 'H', ... */

/*
 * Device counters: what a reset zeroes.  Their names are the stable keys
 * of --json: only ever append (dump_dev() lists its columns explicitly).
 */
enum tsw_counter {
	TSW_C_THP_WRITES,
	TSW_C_THP_READS,
	TSW_C_PAGE_WRITES,
	TSW_C_PAGE_READS,
	TSW_C_BYTES_WRITTEN,
	TSW_C_BYTES_READ,
	TSW_C_DISCARDS,
	TSW_C_SLOT_FREES,
	TSW_C_REJECTED,
	/*
	 * From the kernel (the patches/ series), 0 on stock kernels: why THPs
	 * could not be swapped out whole on this device, the cluster
	 * notifications received, and the THPs swapped back in whole.
	 */
	TSW_C_FALLBACK_NO_CLUSTER,
	TSW_C_FALLBACK_MEMCG,
	TSW_C_FALLBACK_NOMEM,
	TSW_C_KERNEL_EVENTS,
	TSW_C_SWAPIN_WHOLE,
	TSW_NR_COUNTERS,
};

enum tsw_unit { TSW_U_COUNT, TSW_U_BYTES };

struct tsw_counter_def {
	const char *name;
	enum tsw_unit unit;
	const char *help;
	/*
	 * Only a kernel with the patches/ series fills it, and 0 would be
	 * misread as "none": stats shows it only if dev_kernel_reports().
	 * (kernel_events is not marked: its 0 on a stock kernel is the answer.)
	 */
	bool patched;
};

extern const struct tsw_counter_def tsw_counters[TSW_NR_COUNTERS];

/*
 * The system-wide vm events every device reports (struct tsw_dev's
 * thp_swp* fields), in the order of stats, --json and --prometheus.
 */
struct tsw_vm_event_def {
	const char *name;	/* as in /proc/vmstat */
	const char *help;
	size_t off;		/* of the uint64_t in struct tsw_dev */
	bool patched;		/* only a patched kernel has it */
};

#define TSW_NR_VM_EVENTS 12
extern const struct tsw_vm_event_def tsw_vm_events[TSW_NR_VM_EVENTS];

/* One device, as both transports report it. */
struct tsw_dev {
	uint32_t index;
	char name[TSW_NAME_LEN];	/* "thpswapN" */
	uint64_t size;			/* bytes */
	bool memmap;			/* backed by a reserved physical range */
	uint64_t memmap_addr;
	int node;			/* NUMA node of the RAM, -1 none/unknown */
	uint64_t nr_clusters;
	uint64_t state_count[TSW_NR_STATES];
	uint64_t live_slots;		/* 4 KiB slots holding data */
	bool open;			/* the block device is open */
	bool swapon;			/* the kernel uses it as swap */
	bool authoritative;		/* states come from the mm hooks */
	uint32_t generation;		/* changes with every state transition */
	uint64_t counter[TSW_NR_COUNTERS];
	/* System-wide vm events, the same for every device. */
	uint64_t thp_swpout;
	uint64_t thp_swpout_fallback;
	uint64_t thp_swpin;		/* patched kernels only, else 0 */
	uint64_t thp_swpin_fallback;
	uint64_t thp_swpin_declined;	/* swapin_enabled=auto kernels, else 0 */
	uint64_t thp_swpin_promoted;
	uint64_t thp_swpin_promote_fallback;
	uint64_t thp_swpout_pte_mapped;	/* patches/0011 kernels, else 0 */
	uint64_t thp_split_reclaim;
	uint64_t thp_swpin_shared;	/* patches/0012 kernels, else 0 */
	uint64_t thp_swpin_collapse_read; /* patches/0013 kernels, else 0 */
	uint64_t thp_swpin_handoff;	/* patches/0014 kernels, else 0 */
	/* From /proc/swaps (swaps.c), not from the module. */
	bool swap_active;
	int swap_prio;
	uint64_t swap_size, swap_used;	/* bytes */
};

/* A run of clusters in one state: [start, start + count). */
struct tsw_run {
	uint64_t start;
	uint64_t count;
	uint8_t state;
};

struct tsw_runs {
	struct tsw_run *v;
	size_t n, cap;
};

/* Append a cluster range, merging with the previous run; 0 or -ENOMEM. */
int runs_push(struct tsw_runs *r, uint64_t start, uint64_t count, uint8_t state);
void runs_free(struct tsw_runs *r);

enum tsw_event_type {
	TSW_EV_DEV_ADD,
	TSW_EV_DEV_DEL,
	TSW_EV_CLUSTER,		/* clusters [first, first + count) went from -> to */
	TSW_EV_DROPPED,		/* the kernel dropped @count events */
	TSW_EV_OTHER,
};

struct tsw_event {
	enum tsw_event_type type;
	uint32_t index;
	uint64_t first, count;
	int from, to;		/* -1 when the kernel did not say */
};

struct tsw_add_req {
	uint64_t size;
	bool memmap;
	uint64_t memmap_addr;
	bool want_index;
	uint32_t index;
	bool want_node;
	int node;		/* with want_node: take the RAM from this node */
};

typedef void (*tsw_event_fn)(const struct tsw_event *ev, void *arg);

/*
 * A transport.  Every call returns 0 or a negative errno; on failure it
 * may leave the kernel's explanation in tsw_errmsg.
 */
struct tsw_transport {
	const char *name;
	int (*open)(void);
	void (*close)(void);
	/* Every device, sorted by index; *devs is malloc'ed. */
	int (*list)(struct tsw_dev **devs, size_t *n);
	int (*get)(uint32_t index, struct tsw_dev *dev);
	int (*add)(const struct tsw_add_req *req, uint32_t *index);
	int (*remove)(uint32_t index);
	int (*reset)(uint32_t index);
	/* Runs covering clusters [first, last) of the device. */
	int (*clusters)(uint32_t index, uint64_t first, uint64_t last,
			struct tsw_runs *runs);
	/* Events: subscribe returns a pollable fd; NULL when unsupported. */
	int (*events_subscribe)(void);
	int (*events_read)(tsw_event_fn fn, void *arg);
};

/* transport.c: the transport for this run (the test build replaces it). */
const struct tsw_transport *transport_select(bool use_ioctl);

/* The kernel's explanation of the last failure (extack), or "". */
extern char tsw_errmsg[256];
void tsw_set_errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Options, parsed once in main.c, before or after the command. */
enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

enum opt_bit {
	O_JSON		= 1 << 0,
	O_SIZE		= 1 << 1,
	O_MEMMAP	= 1 << 2,
	O_INDEX		= 1 << 3,
	O_RANGE		= 1 << 4,
	O_INTERVAL	= 1 << 5,
	O_COUNT		= 1 << 6,
	O_COLOR		= 1 << 7,
	O_WIDTH		= 1 << 8,
	O_PROMETHEUS	= 1 << 9,
	O_CONFIG	= 1 << 10,
	O_NODE		= 1 << 11,
	O_FORCE		= 1 << 12,
};

struct tsw_opts {
	unsigned int seen;		/* enum opt_bit */
	bool ioctl;
	bool json;
	enum color_mode color;
	uint64_t size;
	uint64_t memmap;
	uint32_t index;
	int node;
	uint64_t range_first, range_last;	/* [first, last); last 0 = end */
	bool range_has_last;
	double interval;
	unsigned long count;
	unsigned int width;
};

extern struct tsw_opts opt;
extern const char *prog;
extern const struct tsw_transport *tp;

/* util.c: parsing, units, errors. */
int parse_dev(const char *arg, uint32_t *index);
int parse_size(const char *arg, uint64_t *out);
/*
 * 0; -EINVAL or -ERANGE (not a size); -EDOM (not a non-zero 2 MiB
 * multiple: *@out holds the value read, for the message).
 */
int parse_memmap_addr(const char *arg, uint64_t *out);
int parse_u64(const char *arg, uint64_t *out);
int parse_range(const char *arg, uint64_t *first, uint64_t *last, bool *has_last);
int parse_interval(const char *arg, double *out);
/* A NUMA node number, 0 to TSW_MAX_NODE; 0 or -EINVAL. */
#define TSW_MAX_NODE	1023
int parse_node(const char *arg, int *node);
/* "-" for -1 (no node), else the number. */
void fmt_node(int node, char *buf, size_t len);
void fmt_bytes(uint64_t v, char *buf, size_t len);
void fmt_count(uint64_t v, char *buf, size_t len);
void dev_name(uint32_t index, char *buf, size_t len);
int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int op_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tp_open(void);
int get_dev(const char *arg, struct tsw_dev *dev, uint32_t *index);
int get_devs(const char *arg, struct tsw_dev **devs, size_t *n);
/*
 * Both transports: store value @v of stat @stat (enum thpswap_stat of the
 * uapi) in @d; stats this build does not know are ignored.  A stat the
 * kernel did not report is simply never set, and stays 0.
 */
void dev_set_stat(struct tsw_dev *d, unsigned int stat, uint64_t v);
/* The kernel reports fallback reasons and whole swap-ins for @d. */
bool dev_kernel_reports(const struct tsw_dev *d);

/* swaps.c: /proc/swaps. */
extern const char *proc_swaps_path;
void swaps_fill(struct tsw_dev *devs, size_t n);

/* setup.c: the configuration file (--config) and the module's sysfs directory. */
extern const char *conf_path;
extern const char *sys_module_path;

/* prometheus.c: stats --prometheus, for node_exporter's textfile collector. */
void prom_print(FILE *f, const struct tsw_dev *devs, size_t n);

/* format.c: colour, tables, JSON, map. */
bool use_color(FILE *f);
const char *color_of(int state);	/* "" without colour */
const char *color_reset(void);
const char *color_bold(void);

struct json {
	FILE *f;
	int depth;
	bool first[16];		/* no member yet at this depth */
	bool compact;		/* all on one line (watch) */
};
void json_begin(struct json *j, FILE *f);
void json_end(struct json *j);
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
/* tsw_vm_events[i]'s value in @d */
uint64_t tsw_vm_event(const struct tsw_dev *d, size_t i);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_str(struct json *j, const char *key, const char *v);
void json_null(struct json *j, const char *key);
void json_escape(FILE *f, const char *s);

void json_dev(struct json *j, const char *key, const struct tsw_dev *d);
/* The "devices" array of list, stats and watch. */
void json_devices(struct json *j, const struct tsw_dev *devs, size_t n);
void json_runs(struct json *j, const struct tsw_runs *r);
void dump_dev(FILE *f, const struct tsw_dev *d);
void print_list_table(FILE *f, const struct tsw_dev *devs, size_t n);
void print_stats(FILE *f, const struct tsw_dev *d);
void print_runs(FILE *f, const struct tsw_runs *r);

/* The map: one cell per @per_cell clusters, the majority state of each. */
struct tsw_map {
	uint64_t nr_clusters;
	uint64_t per_cell;
	size_t nr_cells;
	uint8_t *cell;		/* enum tsw_state per cell */
};
int map_build(struct tsw_map *m, const struct tsw_runs *r, uint64_t nr_clusters,
	      size_t max_cells);
void map_free(struct tsw_map *m);
void map_print(FILE *f, const struct tsw_map *m, unsigned int width, bool color);

#endif
