#!/bin/sh
# Harness self-test: print a marker with the arguments, exit with $1.
echo "harness-marker args=[$*] kernel=$(uname -r)"
exit "$1"
