#!/bin/sh
# Harness self-test: make the kernel WARN, then exit 0.  The run must fail.
modprobe thpswap_harness_test warn=1 || exit 9
echo "harness-marker warned"
exit 0
