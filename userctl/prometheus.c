// SPDX-License-Identifier: GPL-2.0
/*
 * stats --prometheus: the devices' counters and the THP swap vm events in
 * the Prometheus text exposition format (version 0.0.4), for
 * node_exporter's textfile collector.  The values are those of
 * stats --json, from the same struct tsw_dev.
 *
 * Naming follows Prometheus practice: thpswap_ prefix, base units
 * (bytes), counters end in _total, one family per quantity with a
 * "device" label.  A counter only a patched kernel fills (the ones
 * tsw_counters[] marks "patched", and thp_swpin*) is left out for a
 * device whose kernel does not report it, rather than exported as a 0
 * that would read as "none happened".
 */
#include <inttypes.h>
#include <string.h>

#include "thpswapctl.h"

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample(FILE *f, const char *name, const struct tsw_dev *d, uint64_t v)
{
	fprintf(f, "%s{device=\"%s\"} %" PRIu64 "\n", name, d->name, v);
}

/* "bytes_written" -> "thpswap_written_bytes_total", "thp_writes" -> "thpswap_thp_writes_total". */
static void counter_metric(const struct tsw_counter_def *c, char *buf, size_t len)
{
	if (c->unit == TSW_U_BYTES && !strncmp(c->name, "bytes_", 6))
		snprintf(buf, len, "thpswap_%s_bytes_total", c->name + 6);
	else
		snprintf(buf, len, "thpswap_%s_total", c->name);
}

void prom_print(FILE *f, const struct tsw_dev *devs, size_t n)
{
	bool any_reports = false;
	char name[96];
	size_t i, k;
	int s;

	for (i = 0; i < n; i++)
		any_reports |= dev_kernel_reports(&devs[i]);

	family(f, "thpswap_devices", "gauge", "thpswap devices");
	fprintf(f, "thpswap_devices %zu\n", n);
	if (!n)
		return;

	family(f, "thpswap_device_info", "gauge",
	       "A device, its backing (ram or memmap) and the NUMA node of its RAM");
	for (i = 0; i < n; i++) {
		fprintf(f, "thpswap_device_info{device=\"%s\",backing=\"%s\"", devs[i].name,
			devs[i].memmap ? "memmap" : "ram");
		if (devs[i].node >= 0)
			fprintf(f, ",node=\"%d\"", devs[i].node);
		fputs("} 1\n", f);
	}
	family(f, "thpswap_size_bytes", "gauge", "Device size");
	for (i = 0; i < n; i++)
		sample(f, "thpswap_size_bytes", &devs[i], devs[i].size);
	family(f, "thpswap_swap_active", "gauge", "1 if the device is in /proc/swaps");
	for (i = 0; i < n; i++)
		sample(f, "thpswap_swap_active", &devs[i], devs[i].swap_active);
	/* Size, use and priority exist only while swapped on. */
	family(f, "thpswap_swap_size_bytes", "gauge", "Swap space on the device (/proc/swaps)");
	for (i = 0; i < n; i++)
		if (devs[i].swap_active)
			sample(f, "thpswap_swap_size_bytes", &devs[i], devs[i].swap_size);
	family(f, "thpswap_swap_used_bytes", "gauge", "Swap space in use (/proc/swaps)");
	for (i = 0; i < n; i++)
		if (devs[i].swap_active)
			sample(f, "thpswap_swap_used_bytes", &devs[i], devs[i].swap_used);
	family(f, "thpswap_swap_priority", "gauge", "Swap priority (/proc/swaps)");
	for (i = 0; i < n; i++)
		if (devs[i].swap_active)
			fprintf(f, "thpswap_swap_priority{device=\"%s\"} %d\n", devs[i].name,
				devs[i].swap_prio);
	family(f, "thpswap_authoritative", "gauge",
	       "1 if cluster states come from the swap layer (patched kernel)");
	for (i = 0; i < n; i++)
		sample(f, "thpswap_authoritative", &devs[i], devs[i].authoritative);
	family(f, "thpswap_live_slots", "gauge", "4 KiB swap slots holding data");
	for (i = 0; i < n; i++)
		sample(f, "thpswap_live_slots", &devs[i], devs[i].live_slots);
	family(f, "thpswap_clusters_count", "gauge", "2 MiB swap clusters of the device");
	for (i = 0; i < n; i++)
		sample(f, "thpswap_clusters_count", &devs[i], devs[i].nr_clusters);
	family(f, "thpswap_clusters", "gauge", "2 MiB swap clusters in each state");
	for (i = 0; i < n; i++)
		for (s = 0; s < TSW_NR_STATES; s++)
			fprintf(f, "thpswap_clusters{device=\"%s\",state=\"%s\"} %" PRIu64 "\n",
				devs[i].name, tsw_state_name[s], devs[i].state_count[s]);

	for (k = 0; k < TSW_NR_COUNTERS; k++) {
		const struct tsw_counter_def *c = &tsw_counters[k];

		if (c->patched && !any_reports)
			continue;
		counter_metric(c, name, sizeof(name));
		family(f, name, "counter", c->help);
		for (i = 0; i < n; i++)
			if (!c->patched || dev_kernel_reports(&devs[i]))
				sample(f, name, &devs[i], devs[i].counter[k]);
	}

	/* System-wide: the same for every device, taken from the last read. */
	for (k = 0; k < TSW_NR_VM_EVENTS; k++) {
		const struct tsw_vm_event_def *e = &tsw_vm_events[k];
		char help[160];

		if (e->patched && !any_reports)
			continue;
		snprintf(name, sizeof(name), "thpswap_vm_%s_total", e->name);
		snprintf(help, sizeof(help), "%s (vm event %s)", e->help, e->name);
		family(f, name, "counter", help);
		fprintf(f, "%s %" PRIu64 "\n", name, tsw_vm_event(&devs[n - 1], k));
	}
}
