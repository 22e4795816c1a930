// SPDX-License-Identifier: GPL-2.0
/*
 * thpswap-harden: raw netlink and ioctl probes for tests/guest/hardening.sh,
 * where the CLI would hide what the kernel sent.  Exit 0 when the property
 * holds, 1 when it does not, 2 on a setup error.
 *
 *   phys INDEX [ADDR]  INFO ioctl and netlink DEV_GET of device INDEX: with
 *                      ADDR both must report it; without, neither may
 *                      report any address (ioctl 0, no attribute)
 *   listen-new         join the events group, print "joined", wait for one
 *                      DEV_NEW and print "dev_new index N phys none|0xADDR"
 *   dump-race INDEX    dump the clusters of device INDEX (512 MiB expected)
 *                      with a pattern of runs that needs several messages;
 *                      between the first message and the rest, remove it and
 *                      add it again with the same pattern: the dump must be
 *                      flagged NLM_F_DUMP_INTR
 *   readers N FILE...  N processes at once each read every FILE once;
 *                      prints the wall time in ms (fork, not exec: the
 *                      cost is the files', not busybox's)
 *   forge PID          send a DEV_NEW for "thpswap42" from user space to the
 *                      events socket of process PID (found in
 *                      /proc/net/netlink); exits 0 once delivered
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/thpswap.h>

#define BUFSZ 4096	/* small on purpose: dumps come in several parts */

static char buf[65536];
static char reply_buf[65536];	/* a doit's reply, kept past its ack */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("netlink socket");
	return fd;
}

struct msg {
	struct nlmsghdr nh;
	struct genlmsghdr g;
	char attrs[256];
};

static void put_attr(struct msg *m, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)m + NLMSG_ALIGN(m->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nh.nlmsg_len = NLMSG_ALIGN(m->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void msg_init(struct msg *m, uint16_t type, uint16_t flags, uint8_t cmd)
{
	memset(m, 0, sizeof(*m));
	m->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nh.nlmsg_type = type;
	m->nh.nlmsg_flags = flags;
	m->nh.nlmsg_seq = 1;
	m->g.cmd = cmd;
	m->g.version = 1;
}

static void nl_send(int fd, struct msg *m, uint32_t portid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = portid };

	if (sendto(fd, m, m->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("sendto");
}

/* Attribute @type of a genl message, or NULL. */
static struct nlattr *attr(struct nlmsghdr *nh, uint16_t type)
{
	int len = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

#define ATTR_DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))

/* Family id of "thpswap", and the id of its events group if @grp. */
static uint16_t resolve(int fd, uint32_t *grp)
{
	struct msg m;
	struct nlmsghdr *nh;
	struct nlattr *a, *g;
	uint16_t id = 0;
	int n, rem;

	msg_init(&m, GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY);
	put_attr(&m, CTRL_ATTR_FAMILY_NAME, THPSWAP_GENL_NAME, sizeof(THPSWAP_GENL_NAME));
	nl_send(fd, &m, 0);
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		die("recv family");
	nh = (struct nlmsghdr *)buf;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		fprintf(stderr, "no family %s\n", THPSWAP_GENL_NAME);
		exit(2);
	}
	a = attr(nh, CTRL_ATTR_FAMILY_ID);
	if (a)
		id = *(uint16_t *)ATTR_DATA(a);
	a = attr(nh, CTRL_ATTR_MCAST_GROUPS);
	if (grp && a) {
		/* A nest of nests, each with a name and an id. */
		g = ATTR_DATA(a);
		rem = a->nla_len - NLA_HDRLEN;
		while (rem >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN) {
			struct nlattr *x = ATTR_DATA(g);
			int xr = g->nla_len - NLA_HDRLEN;
			uint32_t gid = 0;
			int match = 0;

			while (xr >= NLA_HDRLEN && x->nla_len >= NLA_HDRLEN) {
				if (x->nla_type == CTRL_ATTR_MCAST_GRP_ID)
					gid = *(uint32_t *)ATTR_DATA(x);
				if (x->nla_type == CTRL_ATTR_MCAST_GRP_NAME &&
				    !strcmp(ATTR_DATA(x), THPSWAP_GENL_MCGRP_EVENTS))
					match = 1;
				xr -= NLA_ALIGN(x->nla_len);
				x = (struct nlattr *)((char *)x + NLA_ALIGN(x->nla_len));
			}
			if (match)
				*grp = gid;
			rem -= NLA_ALIGN(g->nla_len);
			g = (struct nlattr *)((char *)g + NLA_ALIGN(g->nla_len));
		}
	}
	if (!id) {
		fprintf(stderr, "family without an id\n");
		exit(2);
	}
	return id;
}

/* A doit request; returns 0 or the negative errno of the ack. */
static int request(int fd, struct msg *m, struct nlmsghdr **reply)
{
	struct nlmsghdr *nh;
	int n;

	m->nh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nl_send(fd, m, 0);
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			die("recv");
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			if (reply && nh->nlmsg_len <= sizeof(reply_buf)) {
				memcpy(reply_buf, nh, nh->nlmsg_len);
				*reply = (struct nlmsghdr *)reply_buf;
			}
		}
	}
}

static int cmd_phys(uint32_t index, const char *want)
{
	uint64_t expect = want ? strtoull(want, NULL, 0) : 0;
	struct thpswap_ioc_info info = { .size = sizeof(info), .index = index };
	struct nlmsghdr *reply = NULL;
	struct nlattr *a;
	struct msg m;
	int fd, cfd, err, bad = 0;

	cfd = open("/dev/" THPSWAP_CONTROL_NAME, O_RDONLY);
	if (cfd < 0 || ioctl(cfd, THPSWAP_IOC_INFO, &info))
		die("INFO ioctl");
	printf("ioctl: backing %u backing_phys 0x%" PRIx64 "\n", info.backing,
	       (uint64_t)info.backing_phys);
	if (info.backing != THPSWAP_BACKING_MEMMAP || info.backing_phys != expect)
		bad = 1;

	fd = nl_open();
	msg_init(&m, resolve(fd, NULL), 0, THPSWAP_CMD_DEV_GET);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	err = request(fd, &m, &reply);
	if (err || !reply) {
		fprintf(stderr, "DEV_GET: %s\n", strerror(-err));
		return 2;
	}
	a = attr(reply, THPSWAP_A_DEV_BACKING_PHYS);
	if (a)
		printf("netlink: BACKING_PHYS 0x%" PRIx64 "\n", *(uint64_t *)ATTR_DATA(a));
	else
		printf("netlink: no BACKING_PHYS\n");
	if (want ? !a || *(uint64_t *)ATTR_DATA(a) != expect : a != NULL)
		bad = 1;
	return bad;
}

static int cmd_listen_new(void)
{
	int fd = nl_open(), n;
	struct pollfd p = { .events = POLLIN };
	struct nlmsghdr *nh;
	struct nlattr *a, *ph;
	uint32_t grp = 0;
	uint16_t id;

	id = resolve(fd, &grp);
	if (!grp || setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		die("join events");
	printf("joined\n");
	fflush(stdout);
	p.fd = fd;
	while (poll(&p, 1, 120000) == 1) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			die("recv");
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type != id ||
			    ((struct genlmsghdr *)NLMSG_DATA(nh))->cmd != THPSWAP_CMD_DEV_NEW)
				continue;
			a = attr(nh, THPSWAP_A_DEV_INDEX);
			ph = attr(nh, THPSWAP_A_DEV_BACKING_PHYS);
			printf("dev_new index %u phys ", a ? *(uint32_t *)ATTR_DATA(a) : 9999);
			if (ph)
				printf("0x%" PRIx64 "\n", *(uint64_t *)ATTR_DATA(ph));
			else
				printf("none\n");
			return 0;
		}
	}
	fprintf(stderr, "no DEV_NEW within 120 s\n");
	return 1;
}

/* A 4 KiB write at the start of every other cluster: SMALL, FREE, SMALL... */
static void pattern(uint32_t index)
{
	char path[64];
	void *page;
	uint64_t off;
	int fd;

	snprintf(path, sizeof(path), "/dev/thpswap%u", index);
	fd = open(path, O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&page, 4096, 4096))
		die(path);
	memset(page, 0x5a, 4096);
	for (off = 0; off < (512ULL << 20); off += 4ULL << 20)
		if (pwrite(fd, page, 4096, (off_t)off) != 4096)
			die("pwrite");
	close(fd);
	free(page);
}

/* Sends a CLUSTERS_GET dump request for @index on @fd. */
static void dump_start(int fd, uint16_t id, uint32_t index)
{
	struct msg m;

	msg_init(&m, id, NLM_F_REQUEST | NLM_F_DUMP, THPSWAP_CMD_CLUSTERS_GET);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	nl_send(fd, &m, 0);
}

/* Reads a dump to its end; counts parts and runs, notes DUMP_INTR. */
static int dump_finish(int fd, int *parts, int *runs, int *intr)
{
	struct nlmsghdr *nh;
	int n;

	*parts = *runs = *intr = 0;
	for (;;) {
		n = recv(fd, buf, BUFSZ, 0);
		if (n < 0)
			die("recv dump");
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_flags & NLM_F_DUMP_INTR)
				*intr = 1;
			if (nh->nlmsg_type == NLMSG_DONE)
				return *(int *)NLMSG_DATA(nh);
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			(*parts)++;
			{
				int len = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
				struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);

				while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
					if ((a->nla_type & NLA_TYPE_MASK) == THPSWAP_A_RUN)
						(*runs)++;
					len -= NLA_ALIGN(a->nla_len);
					a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
				}
			}
		}
	}
}

static int cmd_dump_race(uint32_t index)
{
	int dfd = nl_open(), cfd = nl_open(), parts, runs, intr, err;
	uint64_t size = 512ULL << 20;
	uint16_t id = resolve(cfd, NULL);
	struct msg m;

	/* The old device: its own pattern, and a quiet dump first. */
	msg_init(&m, id, 0, THPSWAP_CMD_DEV_DEL);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	request(cfd, &m, NULL);
	msg_init(&m, id, 0, THPSWAP_CMD_DEV_ADD);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	put_attr(&m, THPSWAP_A_DEV_SIZE, &size, 8);
	err = request(cfd, &m, NULL);
	if (err) {
		fprintf(stderr, "DEV_ADD: %s\n", strerror(-err));
		return 2;
	}
	pattern(index);
	dump_start(dfd, id, index);
	err = dump_finish(dfd, &parts, &runs, &intr);
	printf("quiet dump: err %d, %d parts, %d runs, intr %d\n", err, parts, runs, intr);
	if (err || parts < 2 || runs != 256 || intr) {
		fprintf(stderr, "the quiet dump must span several parts, unflagged\n");
		return 2;
	}

	/* The race: the first part is built when the request is sent. */
	dump_start(dfd, id, index);
	msg_init(&m, id, 0, THPSWAP_CMD_DEV_DEL);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	err = request(cfd, &m, NULL);
	msg_init(&m, id, 0, THPSWAP_CMD_DEV_ADD);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	put_attr(&m, THPSWAP_A_DEV_SIZE, &size, 8);
	err = err ?: request(cfd, &m, NULL);
	if (err) {
		fprintf(stderr, "remove/re-add: %s\n", strerror(-err));
		return 2;
	}
	/* Same writes, so the same cluster generation as the old device. */
	pattern(index);
	err = dump_finish(dfd, &parts, &runs, &intr);
	printf("racing dump: err %d, %d parts, %d runs, intr %d\n", err, parts, runs, intr);
	return intr ? 0 : 1;
}

/* Port id of the netlink socket of process @pid that joined a group. */
static uint32_t find_listener(long pid)
{
	unsigned long eth, groups;
	unsigned int portid;
	char line[256];
	int tries;
	FILE *f;

	for (tries = 0; tries < 200000; tries++) {
		f = fopen("/proc/net/netlink", "r");
		if (!f)
			die("/proc/net/netlink");
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%*s %lu %u %lx", &eth, &portid, &groups) != 3)
				continue;
			if (eth == NETLINK_GENERIC && groups &&
			    (portid & 0x3fffff) == (unsigned long)pid) {
				fclose(f);
				return portid;
			}
		}
		fclose(f);
	}
	fprintf(stderr, "no listening socket of pid %ld\n", pid);
	exit(2);
}

static int cmd_forge(long pid)
{
	int fd = nl_open();
	uint16_t id = resolve(fd, NULL);
	uint32_t portid = find_listener(pid), index = 42;
	struct msg m;

	msg_init(&m, id, 0, THPSWAP_CMD_DEV_NEW);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 4);
	put_attr(&m, THPSWAP_A_DEV_NAME, "thpswap42", 10);
	nl_send(fd, &m, portid);
	/* And one with a truncated index: must not be read past its end. */
	msg_init(&m, id, 0, THPSWAP_CMD_DEV_NEW);
	put_attr(&m, THPSWAP_A_DEV_INDEX, &index, 1);
	nl_send(fd, &m, portid);
	printf("forged 2 DEV_NEW to port %u\n", portid);
	return 0;
}

static long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmd_readers(int n, char **files, int nfiles)
{
	long t0 = ms_now();
	int i, f, fd, status, bad = 0;
	char b[4096];

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		for (f = 0; f < nfiles; f++) {
			fd = open(files[f], O_RDONLY);
			if (fd < 0 || read(fd, b, sizeof(b)) <= 0)
				_exit(1);
			close(fd);
		}
		_exit(0);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	printf("%d readers x %d files: %ld ms, %d failed\n", n, nfiles, ms_now() - t0, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "readers"))
		return cmd_readers(atoi(argv[2]), argv + 3, argc - 3);
	if (argc >= 3 && !strcmp(argv[1], "phys"))
		return cmd_phys((uint32_t)atoi(argv[2]), argc > 3 ? argv[3] : NULL);
	if (argc == 2 && !strcmp(argv[1], "listen-new"))
		return cmd_listen_new();
	if (argc == 3 && !strcmp(argv[1], "dump-race"))
		return cmd_dump_race((uint32_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "forge"))
		return cmd_forge(atol(argv[2]));
	fprintf(stderr, "usage: thpswap-harden phys INDEX [ADDR] | listen-new | dump-race INDEX | readers N FILE... | forge PID\n");
	return 2;
}
