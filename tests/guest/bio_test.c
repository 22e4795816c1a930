// SPDX-License-Identifier: GPL-2.0
/*
 * The bio path of a thpswap device (not swapped on): O_DIRECT I/O of many
 * sizes and alignments, buffered writes at odd byte offsets, zero-out,
 * discard and I/O beyond the end, always against a reference copy kept in
 * memory.  Expects THPSWAP_DEV (default thpswap0) loaded and not in use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define MAX_DEV		(256 * MiB)
#define MAX_IO		(4 * MiB + 12 * KiB)

struct dev {
	char path[64];
	int fd_direct, fd_buffered;
	size_t size;
	unsigned char *ref;	/* what the device must hold */
	unsigned char *buf;	/* page-aligned I/O buffer, MAX_IO */
};

static unsigned long long rnd_state = 0x2545F4914F6CDD1DULL;

static unsigned long long rnd(void)
{
	/* xorshift64*: reproducible from run to run. */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545F4914F6CDD1DULL;
}

static void rnd_fill(unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		unsigned long long v = rnd();

		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = (unsigned char)rnd();
}

/* Compare the whole device with the reference through O_DIRECT reads. */
static long long compare_all(struct dev *d, size_t *first_bad)
{
	long long bad = 0;
	size_t off, i;

	for (off = 0; off < d->size; off += 4 * MiB) {
		size_t len = d->size - off < 4 * MiB ? d->size - off : 4 * MiB;

		if (pread(d->fd_direct, d->buf, len, off) != (ssize_t)len)
			return -1;
		if (!memcmp(d->buf, d->ref + off, len))
			continue;
		for (i = 0; i < len; i++) {
			if (d->buf[i] != d->ref[off + i]) {
				if (!bad)
					*first_bad = off + i;
				bad++;
			}
		}
	}
	return bad;
}

FIXTURE(bio) {
	struct dev d;
};

FIXTURE_SETUP(bio)
{
	unsigned long long size;
	size_t off;

	snprintf(self->d.path, sizeof(self->d.path), "/dev/%s", thpswap_dev_name());
	self->d.fd_direct = open(self->d.path, O_RDWR | O_DIRECT);
	ASSERT_LE(0, self->d.fd_direct) TH_LOG("open %s: %s", self->d.path, strerror(errno));
	self->d.fd_buffered = open(self->d.path, O_RDWR);
	ASSERT_LE(0, self->d.fd_buffered);
	ASSERT_EQ(0, ioctl(self->d.fd_direct, BLKGETSIZE64, &size));
	ASSERT_GE(MAX_DEV, size) TH_LOG("device of %llu bytes is too big for this test", size);
	self->d.size = size;
	/* Both buffers are used for O_DIRECT: 4 KiB logical blocks. */
	ASSERT_EQ(0, posix_memalign((void **)&self->d.ref, THP_SIZE, size));
	ASSERT_EQ(0, posix_memalign((void **)&self->d.buf, THP_SIZE, MAX_IO));

	/* Known content everywhere, written in 1 MiB direct writes. */
	rnd_fill(self->d.ref, size);
	for (off = 0; off < size; off += MiB)
		if (pwrite(self->d.fd_direct, self->d.ref + off, MiB, off) != (ssize_t)MiB)
			break;
	ASSERT_EQ(size, off) TH_LOG("direct write at %zu: %s", off, strerror(errno));
}

FIXTURE_TEARDOWN(bio)
{
	close(self->d.fd_direct);
	close(self->d.fd_buffered);
	free(self->d.ref);
	free(self->d.buf);
}

/* Direct I/O at 4 KiB-aligned offsets of 4 KiB .. 4 MiB, across chunks. */
TEST_F(bio, direct_random)
{
	struct dev *d = &self->d;
	size_t first_bad = 0;
	int i;

	for (i = 0; i < 400; i++) {
		size_t pages = d->size / PAGE_SZ;
		size_t off = (rnd() % pages) * PAGE_SZ;
		size_t len = (1 + rnd() % (MAX_IO / PAGE_SZ)) * PAGE_SZ;

		if (off + len > d->size)
			len = d->size - off;
		if (rnd() & 1) {
			rnd_fill(d->buf, len);
			ASSERT_EQ((ssize_t)len, pwrite(d->fd_direct, d->buf, len, off));
			memcpy(d->ref + off, d->buf, len);
		} else {
			ASSERT_EQ((ssize_t)len, pread(d->fd_direct, d->buf, len, off));
			ASSERT_EQ(0, memcmp(d->buf, d->ref + off, len))
				TH_LOG("read of %zu bytes at %zu differs", len, off);
		}
	}
	ASSERT_EQ(0, compare_all(d, &first_bad)) TH_LOG("first bad byte at %zu", first_bad);
}

/* A write straddling a 2 MiB chunk boundary lands on both sides. */
TEST_F(bio, chunk_boundary)
{
	struct dev *d = &self->d;
	size_t off = THP_SIZE - 8 * KiB, first_bad = 0;

	rnd_fill(d->buf, 16 * KiB);
	ASSERT_EQ((ssize_t)(16 * KiB), pwrite(d->fd_direct, d->buf, 16 * KiB, off));
	memcpy(d->ref + off, d->buf, 16 * KiB);
	ASSERT_EQ(0, compare_all(d, &first_bad)) TH_LOG("first bad byte at %zu", first_bad);
}

/* Buffered writes of odd sizes at odd byte offsets, then read direct. */
TEST_F(bio, buffered_odd)
{
	struct dev *d = &self->d;
	size_t first_bad = 0;
	int i;

	for (i = 0; i < 200; i++) {
		size_t len = 1 + rnd() % (3 * PAGE_SZ + 123);
		size_t off = rnd() % (d->size - len);

		rnd_fill(d->buf, len);
		ASSERT_EQ((ssize_t)len, pwrite(d->fd_buffered, d->buf, len, off));
		memcpy(d->ref + off, d->buf, len);
	}
	ASSERT_EQ(0, fsync(d->fd_buffered));
	ASSERT_EQ(0, ioctl(d->fd_buffered, BLKFLSBUF, 0));
	ASSERT_EQ(0, compare_all(d, &first_bad)) TH_LOG("first bad byte at %zu", first_bad);
}

/* BLKZEROOUT reads back as zeroes; its neighbours are untouched. */
TEST_F(bio, zeroout)
{
	struct dev *d = &self->d;
	unsigned long long range[2] = { 3 * MiB - 4 * KiB, 2 * MiB + 8 * KiB };
	size_t first_bad = 0;

	ASSERT_EQ(0, ioctl(d->fd_direct, BLKZEROOUT, range)) TH_LOG("%s", strerror(errno));
	memset(d->ref + range[0], 0, range[1]);
	ASSERT_EQ(0, compare_all(d, &first_bad)) TH_LOG("first bad byte at %zu", first_bad);
}

/*
 * BLKDISCARD of two whole clusters is counted and frees exactly those two
 * clusters; everything else reads back unchanged.  (Discarded space is not
 * promised to read as zeroes, like pmem: the device leaves it as it was.)
 */
TEST_F(bio, discard)
{
	struct dev *d = &self->d;
	const char *dev = thpswap_dev_name();
	unsigned long long range[2] = { 4 * MiB, 4 * MiB };
	long long before = dev_stat(dev, "discards");
	long long free_before = dev_cluster(dev, "free");
	size_t first_bad = 0, off;
	long long bad;

	ASSERT_LE(0, before);
	ASSERT_LE(0, free_before);
	ASSERT_EQ(0, ioctl(d->fd_direct, BLKDISCARD, range)) TH_LOG("%s", strerror(errno));
	ASSERT_LT(before, dev_stat(dev, "discards"));
	ASSERT_EQ(free_before + 2, dev_cluster(dev, "free"));
	/* Compare all but the discarded range. */
	for (off = range[0]; off < range[0] + range[1]; off += MiB)
		ASSERT_EQ((ssize_t)MiB, pread(d->fd_direct, d->ref + off, MiB, off));
	bad = compare_all(d, &first_bad);
	ASSERT_EQ(0, bad) TH_LOG("first bad byte at %zu", first_bad);
}

/* Beyond the end: reads return nothing, writes fail, nothing changes. */
TEST_F(bio, beyond_end)
{
	struct dev *d = &self->d;
	size_t first_bad = 0;

	ASSERT_EQ(0, pread(d->fd_direct, d->buf, PAGE_SZ, d->size));
	ASSERT_EQ((ssize_t)PAGE_SZ, pread(d->fd_direct, d->buf, 2 * PAGE_SZ, d->size - PAGE_SZ));
	errno = 0;
	ASSERT_EQ(-1, pwrite(d->fd_direct, d->buf, PAGE_SZ, d->size));
	ASSERT_EQ(ENOSPC, errno);
	errno = 0;
	ASSERT_EQ(-1, pwrite(d->fd_buffered, d->buf, 1, d->size + 4096));
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_EQ(0, compare_all(d, &first_bad)) TH_LOG("first bad byte at %zu", first_bad);
}

/* The device counts what it moved. */
TEST_F(bio, byte_counters)
{
	struct dev *d = &self->d;
	const char *dev = thpswap_dev_name();
	long long w0 = dev_stat(dev, "bytes_written"), r0 = dev_stat(dev, "bytes_read");

	ASSERT_LE(0, w0);
	ASSERT_EQ((ssize_t)(3 * MiB), pwrite(d->fd_direct, d->ref + MiB, 3 * MiB, MiB));
	ASSERT_EQ((ssize_t)(2 * MiB), pread(d->fd_direct, d->buf, 2 * MiB, 0));
	ASSERT_EQ(w0 + (long long)(3 * MiB), dev_stat(dev, "bytes_written"));
	ASSERT_EQ(r0 + (long long)(2 * MiB), dev_stat(dev, "bytes_read"));
}

TEST_HARNESS_MAIN
