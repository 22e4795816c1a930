# SPDX-License-Identifier: GPL-2.0
#
# Rules shared by the guest test directories below tests/guest: their
# kselftest_harness programs, linked statically for the busybox initramfs
# of tests/vm/run, and their guest flows (shell scripts), installed into
# one output directory that tests/vm/run puts on the guest's PATH.
#
# A directory's Makefile sets PROGS (one .c each, using kselftest_harness.h
# and ../lib.c), SCRIPTS and HDRS, includes this file, then adds to CFLAGS
# and LDFLAGS (used in recipes only, so after the include is fine).
#
# O             output directory (default: ../build, beside the other guest
#               programs; a relative O is relative to the directory)
# KSELFTEST_DIR tools/testing/selftests of a Linux 6.1 source tree

O ?= ../build
CC ?= gcc
CFLAGS ?= -O2
CFLAGS += -Wall -Wextra -Werror
LDFLAGS += -static

KSELFTEST_DIR ?=

LIB := ../lib.c
HDRS += ../lib.h

all: $(addprefix $(O)/,$(PROGS) $(SCRIPTS))

$(O):
	mkdir -p $@

$(addprefix $(O)/,$(PROGS)): $(O)/%: %.c $(LIB) $(HDRS) | $(O)
	@test -n "$(KSELFTEST_DIR)" -a -f "$(KSELFTEST_DIR)/kselftest_harness.h" || \
		{ echo "KSELFTEST_DIR='$(KSELFTEST_DIR)' has no kselftest_harness.h" \
		       "(point it at <linux-6.1>/tools/testing/selftests)" >&2; exit 1; }
	$(CC) $(CFLAGS) -isystem $(KSELFTEST_DIR) $(LDFLAGS) -o $@ $< $(LIB)

$(O)/%.sh: %.sh | $(O)
	install -m 0755 $< $@

clean:
	rm -f $(addprefix $(O)/,$(PROGS) $(SCRIPTS))

.PHONY: all clean
