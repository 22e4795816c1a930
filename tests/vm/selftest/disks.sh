#!/bin/sh
# Harness self-test for --disk: print what each disk turned out to be, for
# tests/check to compare with what it asked for.
i=0
while read -r idx kind serial; do
	dev=$(harness-disk "$idx") || exit 1
	name=${dev#/dev/}
	echo "harness-disk $idx kind=$kind dev=$name size=$(($(cat /sys/block/$name/size) / 2048))M rotational=$(cat /sys/block/$name/queue/rotational)"
	i=$((i + 1))
done < /harness/disks
echo "harness-disks $i"
