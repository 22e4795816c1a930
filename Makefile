# SPDX-License-Identifier: GPL-2.0
#
# thpswap top-level Makefile.  The kernel module itself is described by
# Kbuild; this file drives it, the CLI, the tests and packaging.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# The kernel to build against: the running kernel's build directory when
# it has one, else the Debian 6.1 headers the test harness uses.
KABI = $(shell bash -c '. tests/vm/lib.sh && kabi')
ifeq ($(origin KDIR),undefined)
KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)
ifeq ($(KDIR),)
KDIR = /usr/src/linux-headers-$(KABI)
endif
endif

THPSWAP_CACHE ?= $(HOME)/.cache/thpswap
export THPSWAP_CACHE
KSRC ?= $(shell tests/vm/fetch-source)
GUEST_BUILD := $(CURDIR)/tests/guest/build

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

.PHONY: all module userctl guest-tools kmod-test sparse style check boot-test demo \
	bench bench-quick kernel-deb deb install dkms-install dkms-uninstall clean

all: module userctl

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userctl:
	$(MAKE) -C userctl

guest-tools:
	$(MAKE) -C tests/guest O=$(GUEST_BUILD) KSELFTEST_DIR=$(KSRC)/tools/testing/selftests
	$(MAKE) -C tests/guest/control O=$(GUEST_BUILD) KSELFTEST_DIR=$(KSRC)/tools/testing/selftests
	$(MAKE) -C tests/guest/swapin O=$(GUEST_BUILD) KSELFTEST_DIR=$(KSRC)/tools/testing/selftests
	$(MAKE) -C tests/guest/bench O=$(GUEST_BUILD)

kmod-test:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/vm/kmod modules

# Zero sparse warnings from our sources (C=2 rechecks every file), and a
# build that succeeded: make's own status, not tee's, decides.
sparse:
	@$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules > sparse.log 2>&1; rc=$$?; \
	cat sparse.log; \
	if [ $$rc != 0 ]; then \
		echo "sparse: the C=2 build failed (exit $$rc)"; rm -f sparse.log; exit 1; \
	fi; \
	if grep -E '(warning|error):' sparse.log | grep -v 'Skipping BTF'; then \
		echo "sparse: warnings above"; rm -f sparse.log; exit 1; \
	fi; rm -f sparse.log; echo "sparse: clean"

style:
	@echo "checkpatch --strict: module/ uapi/"
	$(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES -f \
		$(wildcard module/*.c module/*.h uapi/linux/*.h)

check:
	tests/check

# The .debs installed with apt in a bookworm system booted with systemd
# under QEMU, rebooted, reloaded, stopped with swap in use, removed and
# purged (tests/boot/run; the image is built once with mmdebstrap).
boot-test:
	tests/boot/run

# Installable linux-image/linux-headers packages of the patched kernel with
# Debian's config, for real machines (not in make check: hours on 2 cores).
DEB_DIR ?= .
kernel-deb:
	packaging/kernel-deb $(DEB_DIR)

# thpswap-dkms and thpswapctl .debs of this tree (debhelper, dh-dkms),
# versioned by dkms.conf.
deb:
	packaging/deb $(DEB_DIR)

demo:
	tests/demo

# Swap devices compared on the stock and the patched kernel, one VM each
# (bench/run --help): the full run writes bench/results/<date>.*; the quick
# one prints TAP, keeps its report in a temporary directory and fails only
# if the bench pipeline broke.
bench:
	bench/run
	bench/auto
	bench/latency
	bench/profile
	bench/programs
	bench/farnode
	bench/soak

bench-quick:
	bench/run --quick
	bench/auto --quick --no-stock
	bench/programs --quick
	bench/farnode --quick
	bench/soak --quick

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $$(modinfo -F vermagic thpswap.ko | cut -d' ' -f1)
	$(MAKE) -C userctl install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) SBINDIR=$(SBINDIR) MANDIR=$(MANDIR)

# Register this tree with DKMS so the module is rebuilt for every new
# 6.1 kernel (BUILD_EXCLUSIVE_KERNEL in dkms.conf keeps it to 6.1).
dkms-install:
	rm -rf $(DESTDIR)/usr/src/thpswap-$(VERSION)
	mkdir -p $(DESTDIR)/usr/src/thpswap-$(VERSION)
	cp -r dkms.conf Kbuild module uapi $(DESTDIR)/usr/src/thpswap-$(VERSION)/
	dkms add -m thpswap -v $(VERSION)
	dkms build -m thpswap -v $(VERSION)
	dkms install -m thpswap -v $(VERSION)

dkms-uninstall:
	dkms remove -m thpswap -v $(VERSION) --all
	rm -rf $(DESTDIR)/usr/src/thpswap-$(VERSION)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/vm/kmod clean
	$(MAKE) -C userctl clean
	rm -rf $(GUEST_BUILD)
