// SPDX-License-Identifier: GPL-2.0
/*
 * thpswapctl setup / teardown [--config FILE]: the devices of
 * /etc/thpswap.conf, created and swapped on at boot by thpswap.service,
 * swapped off and removed when it stops.
 *
 * The file (thpswap.conf(5) in thpswapctl(8)), one device per line as in
 * /etc/fstab or /etc/crypttab, '#' to the end of a line is a comment:
 *
 *   thpswap0  size=4G priority=100 discard=no
 *   thpswap1  size=512M memmap=0x100000000
 *   thpswap2  size=8G node=1                (RAM of a far NUMA node)
 *   module    OPTION[=VALUE]...        (modprobe options, at most once)
 *
 * Rules this file keeps:
 * - The whole file is read and checked before anything changes; every bad
 *   line is reported as "FILE:LINE: message" and the exit status is 1.
 * - Devices that exist are compared with the file first: a size or backing
 *   that differs is an error, again before anything changes.
 * - Idempotent: a device that exists and is swapped on is left alone, one
 *   that exists and is not is (re)formatted and swapped on, a missing one
 *   is created with the index, size and backing of its line.
 * - If a step fails half way, what this run created or swapped on is
 *   undone, so a failed setup leaves the system as it found it.
 * - The module is loaded only when the file declares something, with
 *   num_devices=0: the devices come from the file, never from a default.
 *   teardown never loads it.  A module that is not installed for the
 *   running kernel (DKMS has not built it: no headers) is explained, and
 *   setup exits with EXIT_NOMODULE.
 * - What setup created and swapped on is recorded in state_path (under
 *   /run, so it lasts one boot).  teardown undoes that, whatever the file
 *   says by then; a later setup (systemctl reload) creates what the file
 *   adds and swaps off and removes what it no longer declares, after the
 *   new devices are up, and leaves the others alone.
 * - Nothing is swapped off while the swap it holds exceeds the memory
 *   available (teardown --force does it anyway): swapoff would have to
 *   push other memory out, or the OOM killer would.
 *
 * mkswap and swapon are done here (a swap header, swapon(2)), so nothing
 * but the kernel is needed at boot.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/thpswap.h>

#include "commands.h"
#include "thpswapctl.h"

/* In <linux/swap.h>, which is not uapi; the values are the kernel's ABI. */
#ifndef SWAP_FLAG_DISCARD_ONCE
#define SWAP_FLAG_DISCARD_ONCE	0x20000
#endif
#ifndef SWAP_FLAG_DISCARD_PAGES
#define SWAP_FLAG_DISCARD_PAGES	0x40000
#endif

#define CONF_MIN_SIZE	(2 * TSW_CLUSTER_SIZE)	/* the module's THPSWAP_MIN_SIZE */
#define CONF_PRIO_MAX	SWAP_FLAG_PRIO_MASK	/* 32767 */
#define CONF_PRIO_DEFAULT 100			/* as zram-tools and zram-generator */
#define MODOPTS_LEN	512

const char *conf_path = "/etc/thpswap.conf";
const char *sys_module_path = "/sys/module/thpswap";
const char *state_path = "/run/thpswap/devices";
const char *proc_meminfo_path = "/proc/meminfo";

enum conf_discard { D_NO, D_YES, D_ONCE, D_PAGES };
static const char *const discard_name[] = { "no", "yes", "once", "pages" };

struct conf_dev {
	int line;
	uint32_t index;
	char name[TSW_NAME_LEN];
	uint64_t size;
	bool memmap;
	uint64_t memmap_addr;
	bool want_node;
	int node;
	int prio;
	enum conf_discard discard;
	/* What this run did, to undo on failure. */
	bool created, swapped_on;
};

struct conf {
	struct conf_dev dev[THPSWAP_MAX_DEVICES];
	size_t n;
	char modopts[MODOPTS_LEN];	/* space-separated, "" if none */
	int modline;
	int errors;
};

static void conf_err(struct conf *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conf_err(struct conf *c, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", conf_path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	c->errors++;
}

/* NAME or NAME=VALUE, NAME of [A-Za-z0-9_]: what modprobe passes on. */
static bool valid_modopt(const char *s)
{
	const char *p = s;

	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == s)
		return false;
	if (!*p)
		return true;
	if (*p != '=')
		return false;
	for (p++; *p; p++)
		if (!isgraph((unsigned char)*p) || *p == '"' || *p == '\'')
			return false;
	return true;
}

static void parse_module_line(struct conf *c, int line, char *save)
{
	char *tok;
	size_t len = 0;

	if (c->modline) {
		conf_err(c, line, "a second 'module' line (the first is line %d)", c->modline);
		return;
	}
	c->modline = line;
	while ((tok = strtok_r(NULL, " \t", &save))) {
		if (!valid_modopt(tok)) {
			conf_err(c, line, "bad module option '%s': want NAME or NAME=VALUE", tok);
			continue;
		}
		if (len + strlen(tok) + 2 > sizeof(c->modopts)) {
			conf_err(c, line, "module options longer than %zu characters",
				 sizeof(c->modopts) - 1);
			return;
		}
		len += (size_t)snprintf(c->modopts + len, sizeof(c->modopts) - len, "%s%s",
					len ? " " : "", tok);
	}
}

static void parse_device_line(struct conf *c, int line, const char *name, char *save)
{
	struct conf_dev *d;
	bool seen_size = false, seen_memmap = false, seen_prio = false, seen_discard = false;
	bool seen_node = false;
	uint32_t index;
	uint64_t v;
	size_t i;
	char *tok;
	int before = c->errors;

	/* thpswapN with N out of range gets its own message. */
	if (!strncmp(name, "thpswap", 7) && name[7] >= '0' && name[7] <= '9' &&
	    strspn(name + 7, "0123456789") == strlen(name + 7) &&
	    (strlen(name + 7) > 9 || strtoul(name + 7, NULL, 10) >= THPSWAP_MAX_DEVICES)) {
		conf_err(c, line, "%s: devices are thpswap0 to thpswap%d", name,
			 THPSWAP_MAX_DEVICES - 1);
		return;
	}
	if (strncmp(name, "thpswap", 7) || parse_dev(name, &index)) {
		conf_err(c, line, "'%s' is neither a device (thpswapN) nor 'module'", name);
		return;
	}
	if (index >= THPSWAP_MAX_DEVICES) {
		conf_err(c, line, "%s: devices are thpswap0 to thpswap%d", name,
			 THPSWAP_MAX_DEVICES - 1);
		return;
	}
	for (i = 0; i < c->n; i++) {
		if (c->dev[i].index == index) {
			conf_err(c, line, "%s is already declared on line %d", name, c->dev[i].line);
			return;
		}
	}
	d = &c->dev[c->n];
	memset(d, 0, sizeof(*d));
	d->line = line;
	d->index = index;
	dev_name(index, d->name, sizeof(d->name));
	d->prio = CONF_PRIO_DEFAULT;
	d->discard = D_NO;

	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *val = strchr(tok, '=');
		bool *seen;

		if (!val || val == tok || !val[1]) {
			conf_err(c, line, "'%s': want KEY=VALUE (size, memmap, node, priority, discard)",
				 tok);
			continue;
		}
		*val++ = 0;
		if (!strcmp(tok, "size"))
			seen = &seen_size;
		else if (!strcmp(tok, "memmap"))
			seen = &seen_memmap;
		else if (!strcmp(tok, "node"))
			seen = &seen_node;
		else if (!strcmp(tok, "priority"))
			seen = &seen_prio;
		else if (!strcmp(tok, "discard"))
			seen = &seen_discard;
		else {
			conf_err(c, line, "unknown key '%s' (size, memmap, node, priority, discard)", tok);
			continue;
		}
		if (*seen) {
			conf_err(c, line, "%s= given twice", tok);
			continue;
		}
		*seen = true;
		if (seen == &seen_size) {
			if (parse_size(val, &d->size) || d->size < CONF_MIN_SIZE ||
			    d->size % TSW_CLUSTER_SIZE)
				conf_err(c, line,
					 "bad size '%s': want a multiple of 2M, at least 4M (e.g. 4G)",
					 val);
		} else if (seen == &seen_memmap) {
			d->memmap = true;
			if (parse_memmap_addr(val, &d->memmap_addr))
				conf_err(c, line,
					 "bad memmap address '%s': want a 2M-aligned address (0xHEX)",
					 val);
		} else if (seen == &seen_node) {
			d->want_node = true;
			if (parse_node(val, &d->node))
				conf_err(c, line, "bad node '%s': want a NUMA node number, 0 to %d",
					 val, TSW_MAX_NODE);
		} else if (seen == &seen_prio) {
			if (parse_u64(val, &v) || v > CONF_PRIO_MAX)
				conf_err(c, line, "bad priority '%s': want 0 to %d", val,
					 CONF_PRIO_MAX);
			else
				d->prio = (int)v;
		} else {
			for (i = 0; i < 4; i++)
				if (!strcmp(val, discard_name[i]))
					break;
			if (i == 4)
				conf_err(c, line, "bad discard '%s': want no, yes, once or pages", val);
			else
				d->discard = (enum conf_discard)i;
		}
	}
	if (!seen_size)
		conf_err(c, line, "%s: size= is required", name);
	if (seen_memmap && seen_node)
		conf_err(c, line, "%s: memmap= and node= exclude each other (memmap= names the memory)",
			 name);
	if (c->errors != before)
		return;
	/* Two memmap devices must not share reserved memory. */
	for (i = 0; d->memmap && i < c->n; i++) {
		const struct conf_dev *o = &c->dev[i];

		if (o->memmap && d->memmap_addr < o->memmap_addr + o->size &&
		    o->memmap_addr < d->memmap_addr + d->size) {
			conf_err(c, line, "%s: memmap range overlaps %s's (line %d)", name,
				 o->name, o->line);
			return;
		}
	}
	c->n++;
}

/* Read and check the whole file; 0, or the number of errors reported. */
static int conf_read(struct conf *c)
{
	char buf[1024];
	int line = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen(conf_path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, conf_path, strerror(errno));
		return 1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *hash, *save = NULL, *first;
		size_t len = strlen(buf);

		line++;
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n' && !feof(f)) {
			int ch;

			conf_err(c, line, "line longer than %zu characters", sizeof(buf) - 2);
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		buf[strcspn(buf, "\r\n")] = 0;
		first = strtok_r(buf, " \t", &save);
		if (!first)
			continue;
		if (!strcmp(first, "module"))
			parse_module_line(c, line, save);
		else if (c->n == THPSWAP_MAX_DEVICES)
			conf_err(c, line, "more than %d devices", THPSWAP_MAX_DEVICES);
		else
			parse_device_line(c, line, first, save);
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: reading %s: %s\n", prog, conf_path, strerror(errno));
		c->errors++;
	}
	fclose(f);
	return c->errors;
}

static bool module_loaded(void)
{
	return !access(sys_module_path, F_OK);
}

/* modprobe thpswap num_devices=0 OPTIONS: the devices come from the file. */
static int load_module(const struct conf *c)
{
	char opts[MODOPTS_LEN], *argv[4 + MODOPTS_LEN / 2], *save = NULL, *tok;
	int argc = 0, status;
	pid_t pid;

	argv[argc++] = "modprobe";
	argv[argc++] = "thpswap";
	argv[argc++] = "num_devices=0";
	snprintf(opts, sizeof(opts), "%s", c->modopts);
	for (tok = strtok_r(opts, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return op_err(-errno, "starting modprobe");
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "%s: modprobe: %s\n", prog, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return op_err(-errno, "waiting for modprobe");
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !module_loaded()) {
		fprintf(stderr, "%s: modprobe thpswap failed%s\n", prog,
			c->modline ? " (see the module line of the configuration)" : "");
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * A swap header as mkswap(8) writes it (struct swap_header in the kernel's
 * include/linux/swap.h): version 1, the last usable page, no bad pages, a
 * random UUID, the device's name as the label, "SWAPSPACE2" at the end of
 * the first page.  Opened O_EXCL: the kernel refuses while it is in use.
 */
static int write_swap_header(const struct conf_dev *d, const char *path)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *page;
	uint32_t u32;
	ssize_t w;
	int fd, err = 0;

	if (psz < 4096)
		psz = 4096;
	page = calloc(1, (size_t)psz);
	if (!page)
		return -ENOMEM;
	u32 = 1;					/* version */
	memcpy(page + 1024, &u32, 4);
	u32 = (uint32_t)(d->size / (uint64_t)psz - 1);	/* last_page */
	memcpy(page + 1028, &u32, 4);
	/* nr_badpages at 1032 stays 0; the UUID at 1036, the label at 1052. */
	if (getrandom(page + 1036, 16, 0) != 16)
		memset(page + 1036, 0x5a, 16);
	page[1036 + 6] = (page[1036 + 6] & 0x0f) | 0x40;	/* v4 */
	page[1036 + 8] = (page[1036 + 8] & 0x3f) | 0x80;
	memcpy(page + 1052, d->name, strnlen(d->name, 15));
	memcpy(page + psz - 10, "SWAPSPACE2", 10);

	fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	w = pwrite(fd, page, (size_t)psz, 0);
	if (w != psz)
		err = w < 0 ? -errno : -EIO;
	else if (fsync(fd))
		err = -errno;
	close(fd);
out:
	free(page);
	return err;
}

static int swap_flags(const struct conf_dev *d)
{
	static const int discard[] = {
		[D_NO] = 0,
		[D_YES] = SWAP_FLAG_DISCARD,
		[D_ONCE] = SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE,
		[D_PAGES] = SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_PAGES,
	};

	return SWAP_FLAG_PREFER | ((d->prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK) |
	       discard[d->discard];
}

static const struct tsw_dev *find_dev(const struct tsw_dev *devs, size_t n, uint32_t index)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (devs[i].index == index)
			return &devs[i];
	return NULL;
}

/*
 * Remove a device that is no longer swap.  Right after swapoff, udev may
 * hold it open for a moment: swapoff closes a device that was open for
 * writing, which udev's inotify "watch" on block devices turns into a
 * change event and a probe.  So EBUSY is retried for up to two seconds
 * before it is reported.
 */
static int remove_dev(uint32_t index)
{
	int err, i;

	for (i = 0; i < 20; i++) {
		err = tp->remove(index);
		if (err != -EBUSY)
			break;
		usleep(100 * 1000);
	}
	return err;
}

/* Undo what this run did, newest first; errors are reported, not returned. */
static void roll_back(struct conf *c)
{
	char path[64];
	size_t i;
	int err;

	for (i = c->n; i-- > 0;) {
		struct conf_dev *d = &c->dev[i];

		snprintf(path, sizeof(path), "/dev/%s", d->name);
		if (d->swapped_on && swapoff(path))
			op_err(-errno, "undoing: swapoff %s", path);
		if (d->created) {
			err = remove_dev(d->index);
			if (err)
				op_err(err, "undoing: removing %s", d->name);
			else
				fprintf(stderr, "%s: %s: removed again\n", prog, d->name);
		}
	}
}

static int setup_dev(struct conf_dev *d, const struct tsw_dev *have)
{
	struct tsw_add_req req = { 0 };
	char path[64], size[32];
	uint32_t index;
	int err;

	snprintf(path, sizeof(path), "/dev/%s", d->name);
	fmt_bytes(d->size, size, sizeof(size));
	if (have && have->swap_active) {
		printf("%s: %s, swapped on already (priority %d): left as it is\n", d->name,
		       size, have->swap_prio);
		return 0;
	}
	if (!have) {
		req.size = d->size;
		req.memmap = d->memmap;
		req.memmap_addr = d->memmap_addr;
		req.want_node = d->want_node;
		req.node = d->node;
		req.want_index = true;
		req.index = d->index;
		err = tp->add(&req, &index);
		if (err && d->want_node)
			return op_err(err, "%s:%d: adding %s (%s on NUMA node %d)", conf_path,
				      d->line, d->name, size, d->node);
		if (err)
			return op_err(err, "%s:%d: adding %s (%s)", conf_path, d->line, d->name,
				      size);
		d->created = true;
	}
	err = write_swap_header(d, path);
	if (err)
		return op_err(err, "writing a swap header on %s", path);
	if (swapon(path, swap_flags(d)))
		return op_err(-errno, "swapon %s", path);
	d->swapped_on = true;
	printf("%s: %s, %s, swap priority %d, discard=%s\n", d->name, size,
	       d->created ? "created and swapped on" : "swapped on", d->prio,
	       discard_name[d->discard]);
	return 0;
}

/*
 * Whether modprobe can find thpswap for the running kernel: a line of
 * /lib/modules/RELEASE/modules.dep (or modules.builtin) for thpswap.ko,
 * compressed or not.  -1 when that cannot be told (no modules.dep): then
 * modprobe is left to say.
 */
static int module_installed(const char *release)
{
	static const char *const lists[] = { "modules.dep", "modules.builtin" };
	char path[512], line[1024];
	bool known = false;
	size_t i;

	for (i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/lib/modules/%s/%s", release, lists[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		known = true;
		while (fgets(line, sizeof(line), f)) {
			char *end = strchr(line, ':'), *base;

			if (end)
				*end = 0;
			line[strcspn(line, "\r\n")] = 0;
			base = strrchr(line, '/');
			base = base ? base + 1 : line;
			if (!strncmp(base, "thpswap.ko", 10) &&
			    (!base[10] || base[10] == '.')) {
				fclose(f);
				return 1;
			}
		}
		fclose(f);
	}
	return known ? 0 : -1;
}

/* The module is not there for this kernel: say why that usually is, and what to do. */
static int explain_no_module(const char *release)
{
	fprintf(stderr, "%s: the thpswap module is not installed for the running kernel (%s)\n",
		prog, release);
	if (access("/usr/sbin/dkms", X_OK)) {
		fprintf(stderr, "%s: install thpswap-dkms (or the module built from source: "
			"make install) and linux-headers-%s\n", prog, release);
		return EXIT_NOMODULE;
	}
	fprintf(stderr,
		"%s: DKMS builds it from thpswap-dkms once the headers of this kernel are there:\n"
		"%s:   apt install linux-headers-%s\n"
		"%s: 'dkms status thpswap' shows where it stands ('added': no headers, no build yet);\n"
		"%s: thpswap-dkms starts thpswap.service when the module is built\n",
		prog, prog, release, prog, prog);
	return EXIT_NOMODULE;
}

/*
 * The state file: one line per device that setup made or swapped on,
 * "thpswapN created|existing swapon|-", written whole and renamed into
 * place.  No file (or no line) means setup has set nothing up this boot.
 */
struct state_dev {
	uint32_t index;
	bool created, swapped_on;
};

struct state {
	struct state_dev dev[THPSWAP_MAX_DEVICES];
	size_t n;
	bool exists;
};

static struct state_dev *state_find(struct state *s, uint32_t index)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->dev[i].index == index)
			return &s->dev[i];
	return NULL;
}

static int state_read(struct state *s)
{
	char line[256], name[64], how[32], on[32];
	int lineno = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(state_path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return op_err(-errno, "reading %s", state_path);
	}
	s->exists = true;
	while (fgets(line, sizeof(line), f)) {
		uint32_t index;

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\n")] == 0)
			continue;
		if (sscanf(line, "%63s %31s %31s", name, how, on) != 3 ||
		    parse_dev(name, &index) || index >= THPSWAP_MAX_DEVICES ||
		    (strcmp(how, "created") && strcmp(how, "existing")) ||
		    (strcmp(on, "swapon") && strcmp(on, "-"))) {
			fprintf(stderr, "%s: %s:%d: not a line setup writes, ignored\n", prog,
				state_path, lineno);
			continue;
		}
		if (state_find(s, index) || s->n == THPSWAP_MAX_DEVICES)
			continue;
		s->dev[s->n].index = index;
		s->dev[s->n].created = !strcmp(how, "created");
		s->dev[s->n].swapped_on = !strcmp(on, "swapon");
		s->n++;
	}
	fclose(f);
	return 0;
}

static int state_write(const struct state *s)
{
	char tmp[512], dir[512], name[TSW_NAME_LEN], *slash;
	size_t i;
	FILE *f;

	if (!s->n) {
		if (unlink(state_path) && errno != ENOENT)
			return op_err(-errno, "removing %s", state_path);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", state_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return op_err(-errno, "creating %s", dir);
	}
	snprintf(tmp, sizeof(tmp), "%s.new", state_path);
	f = fopen(tmp, "w");
	if (!f)
		return op_err(-errno, "writing %s", tmp);
	fprintf(f, "# thpswapctl setup: what it created and swapped on; teardown undoes it\n");
	for (i = 0; i < s->n; i++) {
		dev_name(s->dev[i].index, name, sizeof(name));
		fprintf(f, "%s %s %s\n", name, s->dev[i].created ? "created" : "existing",
			s->dev[i].swapped_on ? "swapon" : "-");
	}
	if (fclose(f) || rename(tmp, state_path)) {
		int err = -errno;

		unlink(tmp);
		return op_err(err, "writing %s", state_path);
	}
	return 0;
}

static void state_drop(struct state *s, uint32_t index)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->dev[i].index == index) {
			s->dev[i] = s->dev[--s->n];
			return;
		}
	}
}

/* MemAvailable of /proc/meminfo in bytes; false if it cannot be read. */
static bool mem_available(uint64_t *bytes)
{
	char line[256];
	uint64_t kb;
	bool found = false;
	FILE *f = fopen(proc_meminfo_path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1) {
			*bytes = kb * 1024;
			found = true;
			break;
		}
	fclose(f);
	return found;
}

/*
 * Can the swap in use on these devices come back into memory?  swapoff
 * reads every page in; more than MemAvailable means pushing other memory
 * out, or the OOM killer.  Each device that would be swapped off is
 * named with what it holds.  0 if it fits (or force), else EXIT_FAIL.
 */
static int check_swapoff_fits(const struct tsw_dev *const *devs, size_t n, bool force,
			      const char *what)
{
	uint64_t used = 0, avail;
	char u[32], a[32];
	size_t i;

	for (i = 0; i < n; i++)
		used += devs[i]->swap_used;
	if (!used || !mem_available(&avail) || used <= avail)
		return 0;
	fmt_bytes(used, u, sizeof(u));
	fmt_bytes(avail, a, sizeof(a));
	if (force) {
		fprintf(stderr, "%s: --force: swapping off %s in use with %s available\n", prog,
			u, a);
		return 0;
	}
	for (i = 0; i < n; i++) {
		char d[32];

		if (!devs[i]->swap_used)
			continue;
		fmt_bytes(devs[i]->swap_used, d, sizeof(d));
		fprintf(stderr, "%s: %s holds %s of swapped-out memory\n", prog, devs[i]->name, d);
	}
	fprintf(stderr,
		"%s: refusing to %s: the swap in use (%s) is more than the memory available (%s);\n"
		"%s: swapoff would push other memory out or the OOM killer would end processes.\n"
		"%s: Free memory (stop what uses it) or add other swap and retry, or force it:\n"
		"%s:   thpswapctl teardown --force\n",
		prog, what, u, a, prog, prog, prog);
	return EXIT_FAIL;
}

/* swapoff if @swapoff_it and it is on, then remove if @remove_it; 0 or EXIT_FAIL. */
static int take_down(const struct tsw_dev *have, bool swapoff_it, bool remove_it)
{
	char path[64];
	bool off = false;
	int err;

	snprintf(path, sizeof(path), "/dev/%s", have->name);
	if (swapoff_it && have->swap_active) {
		if (swapoff(path))
			return op_err(-errno, "swapoff %s", path);
		off = true;
	}
	if (remove_it) {
		err = remove_dev(have->index);
		if (err)
			return op_err(err, "removing %s", have->name);
	}
	if (off || remove_it)
		printf("%s: %s%s\n", have->name, off ? "swapped off" : "",
		       remove_it ? (off ? " and removed" : "removed") : "");
	return 0;
}

int cmd_setup(int argc, char **argv)
{
	const struct tsw_dev *gone[THPSWAP_MAX_DEVICES];
	struct tsw_dev *devs = NULL;
	struct state *st = NULL;
	struct utsname un;
	struct conf *c;
	size_t n = 0, i, ngone = 0;
	int ret;

	(void)argc;
	(void)argv;
	c = malloc(sizeof(*c));
	st = malloc(sizeof(*st));
	if (!c || !st) {
		free(c);
		free(st);
		return op_err(-ENOMEM, "allocating");
	}
	if (conf_read(c)) {
		ret = EXIT_FAIL;
		goto out;
	}
	ret = state_read(st);
	if (ret)
		goto out;
	/* The module went away since (rmmod): so did every device it had. */
	if (st->n && !module_loaded())
		st->n = 0;
	if (!c->n && !st->n) {
		printf("%s declares no device: nothing to do\n", conf_path);
		ret = state_write(st);
		goto out;
	}
	if (c->n && !module_loaded()) {
		if (uname(&un) == 0 && module_installed(un.release) == 0) {
			ret = explain_no_module(un.release);
			goto out;
		}
		ret = load_module(c);
		if (ret)
			goto out;
	} else if (c->modline) {
		fprintf(stderr, "%s: %s:%d: thpswap is loaded already: its options stay as they are\n",
			prog, conf_path, c->modline);
	}
	ret = tp_open();
	if (ret)
		goto out;
	ret = get_devs(NULL, &devs, &n);
	if (ret)
		goto close;
	/* Everything that exists must be what the file says, before any change. */
	for (i = 0; i < c->n; i++) {
		const struct conf_dev *d = &c->dev[i];
		const struct tsw_dev *have = find_dev(devs, n, d->index);
		char want[32], got[32];

		if (!have)
			continue;
		fmt_bytes(d->size, want, sizeof(want));
		fmt_bytes(have->size, got, sizeof(got));
		if (have->size != d->size || have->memmap != d->memmap ||
		    (d->memmap && have->memmap_addr != d->memmap_addr)) {
			fprintf(stderr,
				"%s: %s:%d: %s exists with %s of %s, the file says %s of %s: "
				"run 'thpswapctl teardown' (or remove it) first\n",
				prog, conf_path, d->line, d->name, got,
				have->memmap ? "reserved memory" : "RAM", want,
				d->memmap ? "reserved memory" : "RAM");
			ret = EXIT_FAIL;
		} else if (d->want_node && have->node != d->node) {
			char hn[16];

			fmt_node(have->node, hn, sizeof(hn));
			fprintf(stderr,
				"%s: %s:%d: %s exists on NUMA node %s, the file says node %d: "
				"run 'thpswapctl teardown' (or remove it) first\n",
				prog, conf_path, d->line, d->name, hn, d->node);
			ret = EXIT_FAIL;
		}
	}
	if (ret)
		goto close;
	/* What an earlier setup made that the file no longer declares goes, if it can. */
	for (i = 0; i < st->n; i++) {
		const struct tsw_dev *have = find_dev(devs, n, st->dev[i].index);
		size_t j;
		bool declared = false;

		for (j = 0; j < c->n; j++)
			declared |= c->dev[j].index == st->dev[i].index;
		if (declared)
			continue;
		if (!have) {
			state_drop(st, st->dev[i--].index);
			continue;
		}
		if (st->dev[i].swapped_on && have->swap_active)
			gone[ngone++] = have;
	}
	ret = check_swapoff_fits(gone, ngone, false, "apply the file");
	if (ret)
		goto close;
	for (i = 0; i < c->n; i++) {
		ret = setup_dev(&c->dev[i], find_dev(devs, n, c->dev[i].index));
		if (ret) {
			roll_back(c);
			break;
		}
	}
	if (!ret) {
		for (i = 0; i < c->n; i++) {
			const struct conf_dev *d = &c->dev[i];
			struct state_dev *sd = state_find(st, d->index);

			if (!sd && st->n < THPSWAP_MAX_DEVICES) {
				sd = &st->dev[st->n++];
				memset(sd, 0, sizeof(*sd));
				sd->index = d->index;
			}
			if (!sd)
				continue;
			sd->created |= d->created;
			sd->swapped_on |= d->swapped_on;
		}
		/* Then the ones the file dropped, oldest record first. */
		for (i = 0; i < st->n;) {
			const struct tsw_dev *have = find_dev(devs, n, st->dev[i].index);
			size_t j;
			bool declared = false;

			for (j = 0; j < c->n; j++)
				declared |= c->dev[j].index == st->dev[i].index;
			if (declared || !have) {
				i++;
				continue;
			}
			if (take_down(have, st->dev[i].swapped_on, st->dev[i].created)) {
				ret = EXIT_FAIL;
				i++;
				continue;
			}
			state_drop(st, st->dev[i].index);
		}
	}
	if (state_write(st))
		ret = EXIT_FAIL;
close:
	tp->close();
out:
	free(devs);
	free(st);
	free(c);
	if (ret == EXIT_NOMODULE)
		return ret;
	return ret ? EXIT_FAIL : EXIT_OK;
}

int cmd_teardown(int argc, char **argv)
{
	const struct tsw_dev *off[THPSWAP_MAX_DEVICES];
	struct tsw_dev *devs = NULL;
	struct state *st;
	struct conf *c = NULL;
	size_t n = 0, i, noff = 0;
	int ret = 0;

	(void)argc;
	(void)argv;
	st = malloc(sizeof(*st));
	if (!st)
		return op_err(-ENOMEM, "allocating");
	ret = state_read(st);
	if (ret)
		goto out;
	if (!st->exists) {
		/*
		 * No record: set up by a thpswapctl that kept none (before
		 * 0.1.1), or not at all this boot.  The file's devices are
		 * taken as setup's, as that version did.
		 */
		c = malloc(sizeof(*c));
		if (!c) {
			ret = op_err(-ENOMEM, "allocating");
			goto out;
		}
		if (conf_read(c)) {
			ret = EXIT_FAIL;
			goto out;
		}
		for (i = 0; i < c->n; i++) {
			st->dev[st->n].index = c->dev[i].index;
			st->dev[st->n].created = true;
			st->dev[st->n].swapped_on = true;
			st->n++;
		}
	}
	/* Not loaded: nothing of ours exists, and loading it is not ours to do. */
	if (!st->n || !module_loaded()) {
		printf("thpswapctl setup set up no device: nothing to tear down\n");
		st->n = 0;
		ret = st->exists ? state_write(st) : 0;
		goto out;
	}
	ret = tp_open();
	if (ret)
		goto out;
	ret = get_devs(NULL, &devs, &n);
	if (ret)
		goto close;
	for (i = 0; i < st->n; i++) {
		const struct tsw_dev *have = find_dev(devs, n, st->dev[i].index);

		if (have && st->dev[i].swapped_on && have->swap_active)
			off[noff++] = have;
	}
	ret = check_swapoff_fits(off, noff, opt.seen & O_FORCE, "tear down");
	if (ret)
		goto close;
	/* Newest first, as roll_back() does. */
	for (i = st->n; i-- > 0;) {
		const struct tsw_dev *have = find_dev(devs, n, st->dev[i].index);

		if (have && take_down(have, st->dev[i].swapped_on, st->dev[i].created)) {
			ret = EXIT_FAIL;
			continue;
		}
		state_drop(st, st->dev[i].index);
	}
	if (st->exists && state_write(st))
		ret = EXIT_FAIL;
close:
	tp->close();
out:
	free(devs);
	free(c);
	free(st);
	return ret ? EXIT_FAIL : EXIT_OK;
}
