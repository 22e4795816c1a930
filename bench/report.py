#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py: turn the guest logs of bench/run into a report.

    bench/report.py --out DIR --stamp NAME --reps N --cycles "256 1024"
                    [--config KEY=VALUE]... KERNEL=LOG...
    bench/report.py --replot DIR/NAME.json --out DIR --stamp NAME

Reads the "B kernel= rep= dev= wl= key=value..." records that
tests/guest/bench/bench-guest.sh printed in each VM (one log per kernel),
derives the metrics of every run, takes the median and the spread (min-max)
over the repetitions, and writes DIR/NAME.md (tables and targets),
DIR/NAME.json (configuration, every run, the summaries, the targets) and the
PNG plots DIR/NAME.png (MADV_PAGEOUT cycle) and DIR/NAME-pressure.png
(pressure workloads), drawn by gnuplot with bench/plot.gp.  --replot only
redraws the plots from an earlier report's JSON.

It also checks that the bench pipeline worked and prints one line per check,
"check ok DESCRIPTION" or "check fail DESCRIPTION", for bench/run to turn
into TAP; then "summary LINE" lines for the end of the run.  Exit status 0
when every check passed.  Targets not met are reported, never a failure.

Python 3 standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PAGE = 4096
MIB = 1 << 20
GIB = 1 << 30
THP = 2 * MIB

DEV_ORDER = ["thpswap", "thpswap-4k", "pmem", "brd", "zram"]
KERNEL_ORDER = ["stock", "patched", "6.12", "7.3", "min-6.12", "min-7.3"]
# Debian's newer kernels: no thpswap.ko (it is for 6.1), mTHP swap of their
# own; the comparison targets are against each of them.  min-X: Debian's
# source of X built with the patched kernel's config (build-newer min-X).
NEWER = ["6.12", "7.3", "min-6.12", "min-7.3"]
DEV_LABEL = {
    "thpswap": "thpswap",
    "thpswap-4k": "thpswap, swapin_enabled=never",
    "pmem": "pmem (nd_e820 + nd_pmem)",
    "brd": "brd",
    "zram": "zram (lzo-rle)",
}


# ---- parsing -----------------------------------------------------------------

def num(v):
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def parse_log(path, kernel):
    """Return {(dev, wl, rep): {record kind: {key: value}}}, the copy
    bandwidth readings {"write": [...], "read": [...]} and the VM's info."""
    runs, copy_bw, info = {}, {"write": [], "read": []}, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("B "):
                continue
            head, kind, kv = {}, None, {}
            for tok in line[2:].split():
                if "=" not in tok:
                    kind = tok
                    continue
                k, v = tok.split("=", 1)
                if len(head) < 4 and k in ("kernel", "rep", "dev", "wl"):
                    head[k] = v
                else:
                    kv[k] = num(v)
            if len(head) < 4 or head["kernel"] != kernel:
                continue
            dev, wl, rep = head["dev"], head["wl"], int(head["rep"])
            if wl == "copybw":
                copy_bw["write"].append(kv["copy_bw_mbps"])
                if "copy_read_bw_mbps" in kv:
                    copy_bw["read"].append(kv["copy_read_bw_mbps"])
                continue
            if wl == "info":
                info.update(kv)
                continue
            if kind is None:
                for k in ("cycle", "phase", "result", "status"):
                    if k in kv:
                        kind = k if k != "phase" else "phase_" + str(kv[k])
                        break
            if kind is None:
                kind = "other"
            runs.setdefault((dev, wl, rep), {})[kind] = kv
    return runs, copy_bw, info


# ---- metrics -------------------------------------------------------------------

def pos(v):
    """A counter value, or None when the source does not exist (-1)."""
    return None if v is None or (isinstance(v, (int, float)) and v < 0) else v


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def io_counts(c):
    """(writes, reads, source) from thpswap's counters, else diskstats."""
    if pos(c.get("dev_thp_writes")) is not None:
        return (c["dev_thp_writes"] + c["dev_page_writes"],
                c["dev_thp_reads"] + c["dev_page_reads"], "thpswap")
    if (c.get("dk_wr_ios") or 0) > 0 or (c.get("dk_rd_ios") or 0) > 0:
        return c["dk_wr_ios"], c["dk_rd_ios"], "diskstats"
    # 6.12+: brd and pmem count nothing in diskstats, but every swap-in
    # reads one folio in one I/O: the large ones from the per-size stats,
    # the rest one page each.
    if pos(c.get("mthp_swpin")) is not None and pos(c.get("mthp_swpin_kb")) is not None:
        return None, c["mthp_swpin"] + c["pswpin"] - c["mthp_swpin_kb"] // 4, "mthp stats"
    return None, None, None


def common(m, c, bw):
    """Metrics shared by all workloads, from a counters record c."""
    traffic = (c["pswpin"] + c["pswpout"]) * PAGE / GIB
    m["traffic_gib"] = traffic
    m["thp_swpout"] = c["thp_swpout"]
    m["thp_swpout_fallback"] = c["thp_swpout_fallback"]
    m["thp_swpin"] = pos(c.get("thp_swpin"))
    m["thp_swpin_fallback"] = pos(c.get("thp_swpin_fallback"))
    m["tlb_per_gib"] = ratio(pos(c.get("tlb")), traffic)
    m["cal_per_gib"] = ratio(pos(c.get("cal")), traffic)
    m["sys_s"] = pos(c.get("sys_s"))
    m["sys_s_per_gib"] = ratio(m["sys_s"], traffic)
    out_b, in_b = c["pswpout"] * PAGE, c["pswpin"] * PAGE
    w, r, src = io_counts(c)
    m["io_source"] = src
    m["io_out_per_gib"] = ratio(w, out_b / GIB) if w is not None else None
    m["io_in_per_gib"] = ratio(r, in_b / GIB) if r is not None else None
    m["io_in_per_2m"] = ratio(r, in_b / THP) if r is not None else None
    # The share of the swap-in that came back in large folios: whole THPs
    # (thp_swpin, the patched kernel) or mTHPs of any size (6.13+'s
    # per-size swpin stats, kB); the stock 6.1 4 KiB path has none; 6.12
    # does swap in mTHPs but counts them nowhere (None: not counted).
    large_kb = pos(c.get("mthp_swpin_kb"))
    if large_kb is None and pos(c.get("thp_swpin")) is not None:
        large_kb = c["thp_swpin"] * THP // 1024
    if large_kb is not None:
        m["in_large_pct"] = ratio(100.0 * large_kb * 1024, in_b)
    elif pos(c.get("mthp_swpout_kb")) is None:
        m["in_large_pct"] = 0.0 if in_b else None
    else:
        m["in_large_pct"] = None
    m["mthp_swpin_fallback"] = pos(c.get("mthp_swpin_fallback"))
    # Pages per major fault: what a swap-in fault brings back, where no
    # counter says (6.12 has no per-size swpin stat).
    m["in_per_fault"] = ratio(c["pswpin"], pos(c.get("pgmajfault")))


# A copy limit is sound when it had readings and they agree within this
# factor (max / min): readings taken while the host was busy come out low.
LIMIT_SPREAD = 2.0
# Figures that are refused (None, with KEY_unsound saying why) when their
# inputs are not sound.
UNSOUND_KEYS = ["out_beyond_s_per_gib", "in_beyond_s_per_gib", "out_limit", "in_limit"]


def copy_limit(readings):
    """(median MB/s or None, why it is not sound or None)."""
    vals = [v for v in readings if isinstance(v, (int, float))]
    if not vals:
        return None, "no reading of the module's copy bandwidth"
    med = statistics.median(vals)
    if min(vals) <= 0:
        return med, f"a copy bandwidth reading of {min(vals)} MB/s"
    if len(vals) > 1 and max(vals) / min(vals) > LIMIT_SPREAD:
        return med, (f"copy bandwidth readings {fmt(min(vals), 0)}-{fmt(max(vals), 0)} MB/s "
                     f"differ more than {LIMIT_SPREAD}x (busy host?)")
    return med, None


def beyond(m, key, wall_s, nbytes, limit, why):
    """Time beyond the copy, per GiB moved: wall - bytes / copy limit.
    Never a negative figure: that only says the limit was measured too
    low; the value is then None and m[key + "_unsound"] says why."""
    if why is None and not limit:
        why = "no copy limit"
    if why is None and not nbytes:
        why = "nothing moved"
    v = None
    if why is None:
        v = (wall_s - nbytes / (limit * 1e6)) / (nbytes / GIB)
        if v < 0:
            why = (f"negative ({v:.3f} s/GiB): the phase ran faster than the copy "
                   f"limit of {fmt(limit, 0)} MB/s allows, so the limit is not sound")
            v = None
    m[key] = v
    if why:
        m[key + "_unsound"] = why


def limit_share(m, key, mbps, limit, why):
    """The share of the copy limit a phase reached.  Above 1 the phase beat
    the copy it is made of: the limit was measured too low."""
    v = ratio(mbps, limit)
    if why is None and v is not None and v > 1:
        why = f"{v:.2f} of the copy limit of {fmt(limit, 0)} MB/s: the limit is not sound"
    m[key] = None if why else v
    if why:
        m[key + "_unsound"] = why


def cycle_metrics(rec, lim):
    """lim: {"write": MB/s, "read": MB/s, "write_why", "read_why": None or
    why that limit is not sound}.  Swap-out is measured against the write
    copy (one 2 MiB memcpy_flushcache per THP), swap-in against the read
    copy (4 KiB memcpy pieces, module/backing.c)."""
    cyc, cnt, setup = rec["cycle"], rec["counters"], rec["setup"]
    size = setup["size_mib"] * MIB
    out_b, in_b = cyc["pswpout"] * PAGE, cyc["pswpin"] * PAGE
    m = {"bytes": size, "out_s": cyc["out_s"], "in_s": cyc["in_s"],
         "wall_s": cyc["out_s"] + cyc["in_s"]}
    m["out_mbps"] = ratio(out_b / 1e6, cyc["out_s"])
    m["in_mbps"] = ratio(in_b / 1e6, cyc["in_s"])
    limit_share(m, "out_limit", m["out_mbps"], lim["write"], lim["write_why"])
    limit_share(m, "in_limit", m["in_mbps"], lim["read"], lim["read_why"])
    beyond(m, "out_beyond_s_per_gib", cyc["out_s"], out_b, lim["write"], lim["write_why"])
    beyond(m, "in_beyond_s_per_gib", cyc["in_s"], in_b, lim["read"], lim["read_why"])
    common(m, cnt, lim["write"])
    # Out and in are separate phases here: take them from thpswap-mem.
    m["thp_swpout"] = cyc["thp_swpout"]
    m["thp_swpout_fallback"] = cyc["thp_swpout_fallback"]
    m["retention_pct"] = 100.0 * cyc["anonhuge_kb_after"] * 1024 / size
    m["bad_words"] = cyc["bad_words"]
    return m


def pressure_metrics(rec, lim):
    tot, rd, pr = rec["phase_total"], rec["phase_read"], rec["pressure"]
    wr = rec["phase_write"]
    m = {"bytes": pr["bytes"], "wall_s": tot["wall_s"],
         "write_s": wr["wall_s"], "read_s": rd["wall_s"]}
    out_b, in_b = tot["pswpout"] * PAGE, tot["pswpin"] * PAGE
    m["out_mbps"] = ratio(out_b / 1e6, tot["wall_s"])
    m["in_mbps"] = ratio(in_b / 1e6, tot["wall_s"])
    limit_share(m, "out_limit", m["out_mbps"], lim["write"], lim["write_why"])
    limit_share(m, "in_limit", m["in_mbps"], lim["read"], lim["read_why"])
    m["read_app_mbps"] = ratio(pr["touched_bytes"] / 1e6, rd["wall_s"])
    m["in_amplification"] = ratio(rd["pswpin"] * PAGE, pr["touched_bytes"])
    common(m, tot, lim["write"])
    # Half the working set is swapped out at the end by design: count the
    # THP share of what is resident.
    m["retention_pct"] = ratio(100.0 * pr["anonhuge_kb"], pos(pr.get("rss_kb")))
    m["bad_words"] = pr["bad_words"]
    m["oom_kill"] = pos(pr.get("oom_kill"))
    return m


CYCLE_REQUIRED = ["out_mbps", "in_mbps", "out_limit", "in_limit",
                  "out_beyond_s_per_gib", "in_beyond_s_per_gib", "thp_swpout",
                  "thp_swpout_fallback", "retention_pct", "tlb_per_gib",
                  "cal_per_gib", "sys_s"]
PRESSURE_REQUIRED = ["wall_s", "out_mbps", "in_mbps", "read_app_mbps",
                     "thp_swpout", "thp_swpout_fallback", "retention_pct",
                     "tlb_per_gib", "cal_per_gib", "sys_s"]


def summarize(vals):
    vals = [v for v in vals if isinstance(v, (int, float))]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "n": len(vals)}


# ---- formatting ----------------------------------------------------------------

def fmt(v, digits=None):
    if v is None:
        return "–"
    if v == 0:
        return "0"
    a = abs(v)
    if digits is None:
        digits = 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 0.1 else 3
    return f"{v:.{digits}f}"


def cell(s, digits=None):
    """median (min–max), or the value alone when the spread is nil."""
    if s is None:
        return "–"
    med, lo, hi = (fmt(s[k], digits) for k in ("median", "min", "max"))
    return med if s["n"] == 1 or lo == hi else f"{med} ({lo}–{hi})"


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" if i < 2 else "--:" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


# ---- main -----------------------------------------------------------------------

DEV_COLOR = {"thpswap": "#1b9e77", "thpswap-4k": "#66a61e", "pmem": "#7570b3",
             "brd": "#d95f02", "zram": "#e7298a"}


def draw_plots(report, out, stamp, script):
    """Draw NAME.png and NAME-pressure.png from a report; [(ok, check)]."""
    summary, config = report["summary"], report["config"]
    # (JSON keys are sorted: put kernels and workloads back in bench order.)
    kernels = sorted(report["kernels"], key=lambda k: (
        KERNEL_ORDER.index(k) if k in KERNEL_ORDER else len(KERNEL_ORDER), k))
    # (Reports made before these keys existed: take them from the summary.)
    wls = [wl for k in summary.values() for d in k.values() for wl in d]
    wls = sorted(set(wls), key=wls.index)
    cycles = report.get("cycles") or sorted(
        int(wl[6:]) for wl in wls if wl.startswith("cycle-"))
    pr_wls = report.get("pressure_workloads") or sorted(
        (wl for wl in wls if not wl.startswith("cycle-")),
        key=lambda wl: (["seq", "rand", "mt"].index(wl.split("-")[0])
                        if wl.split("-")[0] in ("seq", "rand", "mt") else 3,
                        int("".join(c for c in wl if c.isdigit()) or 0)))
    big = f"cycle-{max(cycles)}"
    os.makedirs(out, exist_ok=True)

    def devs(k):
        d = config.get(f"devices_{k}", "").split() or list(summary.get(k, {}))
        return [x for x in DEV_ORDER if x in d] + [x for x in d if x not in DEV_ORDER]

    def triple(x):
        return [x["median"], x["min"], x["max"]] if x else [float("nan")] * 3

    res, plots = [], []
    with tempfile.TemporaryDirectory() as tmp:
        # Cycle: a pair of bars (out, in) per kernel/device.
        dat = os.path.join(tmp, "cycle.dat")
        with open(dat, "w") as f:
            f.write('"device" "swap-out" - - "swap-in" - -\n')
            for k in kernels:
                for dev in devs(k):
                    s = summary.get(k, {}).get(dev, {}).get(big) or {}
                    vals = triple(s.get("out_mbps")) + triple(s.get("in_mbps"))
                    f.write(f'"{k}\\n{dev}" ' + " ".join(f"{v:.2f}" for v in vals) + "\n")
        limits = ", ".join(f"{k} {fmt(report['kernels'][k]['copy_bw_mbps']['median'], 0)}"
                           for k in kernels if report["kernels"][k]["copy_bw_mbps"])
        plots.append((stamp + ".png", dat, 2, "#7570b3 #1b9e77", "0.9 0.9", 0,
                      f"MADV_PAGEOUT cycle, {max(cycles)} MiB: swap MB/s, "
                      f"median and min-max (in-kernel copy limit: {limits} MB/s)", "MB/s"))
        # Pressure: wall time per workload, a bar per kernel/device; the
        # colour is the device's, pale for the stock kernel.
        dat2 = os.path.join(tmp, "pressure.dat")
        # Bars with no data at all would stop gnuplot: leave them out.
        cols = [(k, dev) for k in kernels for dev in devs(k)
                if any(summary.get(k, {}).get(dev, {}).get(wl) for wl in pr_wls)]
        with open(dat2, "w") as f:
            f.write('"workload" ' + " ".join(f'"{k} {dev}" - -' for k, dev in cols) + "\n")
            for wl in pr_wls:
                vals = []
                for k, dev in cols:
                    vals += triple(summary.get(k, {}).get(dev, {}).get(wl, {}).get("wall_s"))
                f.write(f'"{wl}" ' + " ".join(f"{v:.3f}" for v in vals) + "\n")
        plots.append((stamp + "-pressure.png", dat2, len(cols),
                      " ".join(DEV_COLOR.get(d, "#666666") for _, d in cols),
                      " ".join("0.35" if k == "stock" else "0.95" for k, _ in cols), 1,
                      f"Under memory.max = {config.get('pr_max_mib', '?')} MiB: wall time "
                      "(s, log scale, lower is better), median and min-max; "
                      "pale: stock kernel", "seconds"))
        for name, dat, n, colors, dens, logy, title, ylabel in plots:
            png = os.path.join(out, name)
            if os.path.exists(png):
                os.unlink(png)
            r = subprocess.run(["gnuplot", "-e",
                                f"data='{dat}'; out='{png}'; n={n}; cols='{colors}'; "
                                f"dens='{dens}'; logy={logy}; ttl='{title}'; ylab='{ylabel}'",
                                script], capture_output=True, text=True)
            ok = r.returncode == 0 and os.path.exists(png) and os.path.getsize(png) > 0
            res.append((ok, f"plot {name} drawn"
                        + ("" if ok else f": gnuplot: {r.stderr.strip()[:200]}")))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--stamp", required=True)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--cycles", default="", help="cycle sizes, MiB")
    ap.add_argument("--config", action="append", default=[])
    ap.add_argument("--plot", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "plot.gp"))
    ap.add_argument("--replot", metavar="JSON",
                    help="only redraw the plots of an earlier report")
    ap.add_argument("logs", nargs="*", help="KERNEL=LOG")
    a = ap.parse_args()
    if a.replot:
        with open(a.replot) as f:
            res = draw_plots(json.load(f), a.out, a.stamp, a.plot)
        for ok, d in res:
            print(f"check {'ok' if ok else 'fail'} {d}")
        return 0 if all(ok for ok, _ in res) else 1
    if not a.logs:
        ap.error("no KERNEL=LOG given")

    checks = []

    def check(ok, desc):
        checks.append((bool(ok), desc))

    config = dict(c.split("=", 1) for c in a.config)
    cycles = [int(x) for x in a.cycles.split()]
    kernels, data = [], {}
    for kl in a.logs:
        k, path = kl.split("=", 1)
        kernels.append(k)
        runs, bw, info = (parse_log(path, k) if os.path.exists(path)
                          else ({}, {"write": [], "read": []}, {}))
        data[k] = {"runs": runs, "copy_bw": bw, "info": info}

    # Workloads and devices each kernel's VM was to run.
    def expected(k):
        ncpu = int(data[k]["info"].get("ncpu", 2))
        wls = [f"cycle-{c}" for c in cycles]
        if config.get("steady", "1") == "1":
            wls += [f"cycle-{c}-steady" for c in cycles]
        wls += [f"seq-{ncpu}p", f"seq-{2 * ncpu}p", f"rand-{ncpu}p",
                f"mt-{2 * ncpu}t"]
        devs = config.get(f"devices_{k}", "thpswap pmem brd zram").split()
        return devs, wls

    report = {"stamp": a.stamp, "config": config, "kernels": {},
              "runs": [], "summary": {}, "targets": []}
    summary = {}
    bad_runs = []
    for k in kernels:
        d = data[k]
        bw_s = summarize(d["copy_bw"]["write"])
        rbw_s = summarize(d["copy_bw"]["read"])
        lim = {}
        lim["write"], lim["write_why"] = copy_limit(d["copy_bw"]["write"])
        lim["read"], lim["read_why"] = copy_limit(d["copy_bw"]["read"])
        if k not in NEWER:
            check(lim["write"], f"{k}: copy_bw_mbps measured ({len(d['copy_bw']['write'])} readings)")
            check(lim["read"], f"{k}: copy_read_bw_mbps measured ({len(d['copy_bw']['read'])} readings)")
        else:
            # No thpswap here: the limits are the patched kernel's, the
            # closest copy measurement in this run (another VM, so the
            # beyond-copy figures compare configs as well).
            lim["write_why"] = lim["read_why"] = f"no thpswap.ko on {k}: no copy limit"
        report["kernels"][k] = {"info": d["info"], "copy_bw_mbps": bw_s,
                                "copy_bw_readings": d["copy_bw"]["write"],
                                "copy_read_bw_mbps": rbw_s,
                                "copy_read_bw_readings": d["copy_bw"]["read"],
                                "copy_bw_unsound": lim["write_why"],
                                "copy_read_bw_unsound": lim["read_why"]}
        d["limits"] = lim
        devs, wls = expected(k)
        for dev in devs:
            missing = []
            for wl in wls:
                per_rep = []
                for rep in range(1, a.reps + 1):
                    rec = d["runs"].get((dev, wl, rep))
                    st = rec and rec.get("status", {}).get("status")
                    if not rec or st != 0:
                        missing.append(f"{wl} rep {rep}" +
                                       (f" (exit {st})" if rec and st is not None else
                                        " (no result)"))
                        if not rec:
                            continue
                    try:
                        m = (cycle_metrics if wl.startswith("cycle-")
                             else pressure_metrics)(rec, lim)
                    except (KeyError, TypeError, ZeroDivisionError) as e:
                        missing.append(f"{wl} rep {rep} (record incomplete: {e})")
                        continue
                    if m.get("bad_words"):
                        bad_runs.append(f"{k} {dev} {wl} rep {rep}: {m['bad_words']} bad words")
                    if m.get("oom_kill"):
                        missing.append(f"{wl} rep {rep} (oom_kill {m['oom_kill']})")
                    m.update(kernel=k, dev=dev, wl=wl, rep=rep)
                    report["runs"].append(m)
                    per_rep.append(m)
                if per_rep:
                    keys = [x for x in per_rep[0]
                            if isinstance(per_rep[0][x], (int, float))
                            and x != "rep"]
                    s = {x: summarize([r.get(x) for r in per_rep]) for x in keys}
                    s["io_source"] = per_rep[0].get("io_source")
                    # One unsound repetition makes the summary unsound.
                    for x in UNSOUND_KEYS:
                        why = [r[x + "_unsound"] for r in per_rep if r.get(x + "_unsound")]
                        if why:
                            s[x] = None
                            s[x + "_unsound"] = why[0]
                    summary.setdefault(k, {}).setdefault(dev, {})[wl] = s
            check(not missing,
                  f"{k}: {dev}: {len(wls)} workloads x {a.reps} repetitions ran"
                  + (": missing " + ", ".join(missing[:6]) +
                     (" ..." if len(missing) > 6 else "") if missing else ""))
    check(not bad_runs, "every word read back was correct (thpswap-mem and swapbench bad_words = 0)"
          + ("; " + "; ".join(bad_runs[:4]) if bad_runs else ""))

    # Required fields of the JSON summaries.
    absent = []
    for k in kernels:
        devs, wls = expected(k)
        for dev in devs:
            for wl in wls:
                s = summary.get(k, {}).get(dev, {}).get(wl)
                if s is None:
                    absent.append(f"{k}/{dev}/{wl}")
                    continue
                req = CYCLE_REQUIRED if wl.startswith("cycle-") else PRESSURE_REQUIRED
                if k == "patched":
                    req = req + ["thp_swpin"]
                if k in NEWER:
                    req = req + ["in_per_fault"]
                if dev.startswith("thpswap"):
                    req = req + ["io_in_per_gib", "io_out_per_gib"]
                # (a figure refused as unsound is reported as such, not absent)
                absent += [f"{k}/{dev}/{wl}.{x}" for x in req
                           if s.get(x) is None and not s.get(x + "_unsound")]
    check(not absent, "every JSON summary has its fields"
          + (": missing " + ", ".join(absent[:6]) if absent else ""))
    report["summary"] = summary

    # ---- targets (ratios of medians inside one run) ----
    def med(k, dev, wl, key):
        s = summary.get(k, {}).get(dev, {}).get(wl, {}).get(key)
        return s["median"] if s else None

    def unsound(k, dev, wl, key):
        """Why the figure is not sound, or None."""
        s = summary.get(k, {}).get(dev, {}).get(wl, {})
        return s.get(key + "_unsound")

    targets = []

    def target(name, value, need, op, note="", why=None):
        """A target; "not measured" (met None, why given) when an input
        is missing or not sound.  A figure below zero is never sound here:
        every target is a ratio of times or rates."""
        if why is None and value is not None and value < 0:
            why = f"negative value {value:.3f}"
        if why is None and value is None:
            why = "an input is missing"
        met = None if why else (value >= need if op == ">=" else value <= need)
        targets.append({"target": name, "value": None if why else value, "need": need,
                        "op": op, "met": met, "note": note, "not_measured": why})

    def why_of(*pairs):
        return next((w for w in pairs if w), None)

    big = f"cycle-{max(cycles)}"
    for k in [x for x in kernels if x not in NEWER]:
        o = med(k, "thpswap", big, "out_mbps")
        target(f"{k}: swap-out thpswap / pmem", ratio(o, med(k, "pmem", big, "out_mbps")), 1.0, ">=")
        target(f"{k}: swap-out thpswap / brd", ratio(o, med(k, "brd", big, "out_mbps")), 3.0, ">=")
        target(f"{k}: swap-out thpswap / zram", ratio(o, med(k, "zram", big, "out_mbps")), 3.0, ">=")
        target(f"{k}: swap-out thpswap / in-kernel copy limit", med(k, "thpswap", big, "out_limit"), 0.5, ">=",
               why=unsound(k, "thpswap", big, "out_limit"))
    # Steady state: every device written once before the timed cycles
    # (brd and zram allocate on first write; thpswap and pmem never do).
    steady = big + "-steady"
    for k in [x for x in kernels if x not in NEWER]:
        if not summary.get(k, {}).get("brd", {}).get(steady):
            continue
        target(f"{k}: swap-out thpswap / brd, steady state",
               ratio(med(k, "thpswap", steady, "out_mbps"), med(k, "brd", steady, "out_mbps")),
               1.0, ">=", "same VM, same kernel")
        if k == "patched":
            target("patched: whole-THP swap-in thpswap / brd, steady state",
                   ratio(med(k, "thpswap", steady, "in_mbps"), med(k, "brd", steady, "in_mbps")),
                   1.2, ">=", "same VM, same kernel; both swap in whole THPs")
    if "patched" in kernels:
        pin = med("patched", "thpswap", big, "in_mbps")
        pbe = med("patched", "thpswap", big, "in_beyond_s_per_gib")
        if "stock" in kernels:
            target("swap-in patched thpswap / stock thpswap (4 KiB path)",
                   ratio(pin, med("stock", "thpswap", big, "in_mbps")), 2.5, ">=",
                   "two VMs, different kernel configs")
            target("swap-in time beyond the copy, patched / stock 4 KiB path",
                   ratio(pbe, med("stock", "thpswap", big, "in_beyond_s_per_gib")), 0.2, "<=",
                   "two VMs, different kernel configs",
                   why_of(unsound("patched", "thpswap", big, "in_beyond_s_per_gib"),
                          unsound("stock", "thpswap", big, "in_beyond_s_per_gib")))
        if summary.get("patched", {}).get("thpswap-4k"):
            target("swap-in patched thpswap / patched swapin_enabled=never (4 KiB path)",
                   ratio(pin, med("patched", "thpswap-4k", big, "in_mbps")), 2.5, ">=",
                   "same VM, same kernel")
            target("swap-in time beyond the copy, patched / swapin_enabled=never",
                   ratio(pbe, med("patched", "thpswap-4k", big, "in_beyond_s_per_gib")), 0.2, "<=",
                   "same VM, same kernel",
                   why_of(unsound("patched", "thpswap", big, "in_beyond_s_per_gib"),
                          unsound("patched", "thpswap-4k", big, "in_beyond_s_per_gib")))
        target("THP retention after the cycle, patched thpswap (%)",
               med("patched", "thpswap", big, "retention_pct"), 95.0, ">=")
        target("swap-in I/Os per 2 MiB, patched thpswap",
               med("patched", "thpswap", big, "io_in_per_2m"), 1.0, "<=")
    # Against Debian's newer kernels: the best of their devices (pmem, brd,
    # zram) per workload.  Dense work: patched thpswap >= 1.5x its swap-in
    # (cycle) or its readers' throughput (seq, mt); sparse: its readers no
    # more than 1.1x slower.
    def best(k, wl, key):
        vals = [(med(k, d, wl, key), d) for d in expected(k)[0]]
        vals = [v for v in vals if v[0] is not None]
        return max(vals) if vals else (None, None)

    if "patched" in kernels:
        ncpu = int(data["patched"]["info"].get("ncpu", 2))
        for k in [x for x in NEWER if x in kernels]:
            cfgs = ("two VMs, the same config" if k.startswith("min-")
                    else "two VMs, different kernel configs")
            v, d = best(k, big, "in_mbps")
            target(f"swap-in, {big}: patched thpswap / best {k} ({d})",
                   ratio(med("patched", "thpswap", big, "in_mbps"), v), 1.5, ">=",
                   cfgs)
            for wl in (f"seq-{ncpu}p", f"seq-{2 * ncpu}p", f"mt-{2 * ncpu}t"):
                v, d = best(k, wl, "read_app_mbps")
                target(f"readers' MB/s, {wl}: patched thpswap / best {k} ({d})",
                       ratio(med("patched", "thpswap", wl, "read_app_mbps"), v), 1.5, ">=",
                       cfgs)
            wl = f"rand-{ncpu}p"
            v, d = best(k, wl, "read_app_mbps")
            target(f"readers' MB/s, {wl}: best {k} ({d}) / patched thpswap",
                   ratio(v, med("patched", "thpswap", wl, "read_app_mbps")), 1.1, "<=",
                   "no worse than 1.1x; " + cfgs)
    if "stock" in kernels:
        target("THP retention after the cycle, stock thpswap (%)",
               med("stock", "thpswap", big, "retention_pct"), 0.0, "<=",
               "the stock kernel splits every THP on swap-in")
    report["targets"] = targets

    # ---- markdown ----
    md = [f"# thpswap bench {a.stamp}", ""]
    kinfo = []
    for k in kernels:
        i = data[k]["info"]
        rk = report["kernels"][k]
        kinfo.append(f"- **{k}**: {i.get('kver', '?')}, {i.get('ncpu', '?')} vCPUs, "
                     f"{int(i.get('mem_kb', 0)) // 1024} MiB usable; in-kernel copy limits: "
                     f"write (copy_bw_mbps, {len(data[k]['copy_bw']['write'])} readings) "
                     f"{cell(rk['copy_bw_mbps'], 0)} MB/s, read (copy_read_bw_mbps, "
                     f"{len(data[k]['copy_bw']['read'])} readings) {cell(rk['copy_read_bw_mbps'], 0)} MB/s"
                     + "".join(f"; {w}" for w in (rk["copy_bw_unsound"], rk["copy_read_bw_unsound"]) if w))
    md += [f"One VM per kernel (QEMU TCG, `--mem {config.get('mem', '?')}"
           f" --append memmap={config.get('swap_mib', '?')}M!4G`), every device and"
           f" workload {a.reps}× with the device order reversed on every other"
           f" repetition; one swap device of {config.get('swap_mib', '?')} MiB at a time."
           " Cells: median (min–max) over the repetitions. TCG figures are only"
           " comparable inside one run: compare ratios.", ""] + kinfo + [""]
    md += ["## Targets", "",
           f"Ratios of medians, MADV_PAGEOUT cycle of {max(cycles)} MiB. "
           "Reported, not tuned for: not met is a finding, not a failure.", ""]
    rows = []
    for t in targets:
        v = "–" if t["value"] is None else fmt(t["value"])
        st = "not measured" if t["met"] is None else "met" if t["met"] else "**not met**"
        note = "; ".join(x for x in (t["note"], t["not_measured"]) if x)
        rows.append([t["target"], v, f"{t['op']} {fmt(t['need'])}", st, note])
    md += md_table(["target", "measured", "need", "", "note"], rows) + [""]

    def row_keys(k):
        devs, _ = expected(k)
        return [d for d in DEV_ORDER if d in devs] + [d for d in devs if d not in DEV_ORDER]

    cycle_wls = [w for w in expected(kernels[0])[1] if w.startswith("cycle-")] if kernels else []
    for wl in cycle_wls:
        c = wl.split("-")[1]
        state = ("steady state: the whole device written once before (brd and zram "
                 "have allocated their memory)" if wl.endswith("-steady")
                 else "fresh device (brd and zram allocate on first write)")
        md += [f"## MADV_PAGEOUT cycle, {c} MiB, {state.split(':')[0].split(' (')[0]}", "",
               f"`thpswap-mem --size {c} --cycles 1`: MADV_PAGEOUT of {c} MiB of "
               f"MADV_HUGEPAGE memory (out), then one read per 4 KiB page (in); {state}.", ""]
        rows = []
        for k in kernels:
            for dev in row_keys(k):
                s = summary.get(k, {}).get(dev, {}).get(wl)
                if not s:
                    rows.append([k, dev] + ["missing"] + [""] * 16)
                    continue
                g = s.get
                rows.append([k, dev, cell(g("out_mbps")), cell(g("in_mbps")),
                             cell(g("out_limit"), 2), cell(g("in_limit"), 2),
                             cell(g("out_beyond_s_per_gib")), cell(g("in_beyond_s_per_gib")),
                             cell(g("io_out_per_gib")), cell(g("io_in_per_2m")),
                             cell(g("thp_swpout"), 0), cell(g("thp_swpout_fallback"), 0),
                             cell(g("thp_swpin"), 0), cell(g("in_large_pct"), 1),
                             cell(g("in_per_fault"), 0), cell(g("retention_pct"), 1),
                             cell(g("tlb_per_gib"), 0), cell(g("cal_per_gib"), 0),
                             cell(g("sys_s_per_gib"))])
        md += md_table(["kernel", "device", "out MB/s", "in MB/s", "out/limit",
                        "in/limit", "out beyond copy s/GiB", "in beyond copy s/GiB",
                        "I/Os out /GiB", "I/Os in /2 MiB", "thp_swpout",
                        "thp_swpout_fallback", "thp_swpin", "in large folios %",
                        "pages in /major fault", "THP kept %", "TLB /GiB", "CAL /GiB",
                        "sys s/GiB"], rows) + [""]

    pr_wls = [w for w in expected(kernels[0])[1] if not w.startswith("cycle-")] if kernels else []
    desc = {"seq": "processes write their memory in order, then read it back in order (swap-w-seq)",
            "rand": "processes write in order, then read back "
                    f"{config.get('rand_pct', '?')} % of the 4 KiB pages in random order (swap-w-rand)",
            "mt": "one process, one thread per slice, write then read in order (TLB shootdowns)"}
    md += ["## Under memory pressure", "",
           f"A cgroup v2 with memory.max = {config.get('pr_max_mib', '?')} MiB holding "
           f"{config.get('pr_total_mib', '?')} MiB of MADV_HUGEPAGE memory in total. "
           "MB/s: pswpout / pswpin over the whole run's wall time; read MB/s: what the "
           "readers got; in amplification: bytes swapped in during the read phase per byte read.", ""]
    for wl in pr_wls:
        kind = wl.split("-")[0]
        md += [f"### {wl}: {desc.get(kind, '')}", ""]
        rows = []
        for k in kernels:
            for dev in row_keys(k):
                s = summary.get(k, {}).get(dev, {}).get(wl)
                if not s:
                    rows.append([k, dev] + ["missing"] + [""] * 13)
                    continue
                g = s.get
                rows.append([k, dev, cell(g("wall_s")), cell(g("out_mbps")),
                             cell(g("in_mbps")), cell(g("read_app_mbps")),
                             cell(g("in_amplification")), cell(g("io_out_per_gib")),
                             cell(g("io_in_per_gib")), cell(g("thp_swpout"), 0),
                             cell(g("thp_swpout_fallback"), 0), cell(g("thp_swpin"), 0),
                             cell(g("in_large_pct"), 1),
                             cell(g("retention_pct"), 1), cell(g("tlb_per_gib"), 0),
                             cell(g("cal_per_gib"), 0), cell(g("sys_s"))])
        md += md_table(["kernel", "device", "wall s", "out MB/s", "in MB/s",
                        "read MB/s", "in amplification", "I/Os out /GiB",
                        "I/Os in /GiB", "thp_swpout", "thp_swpout_fallback",
                        "thp_swpin", "in large folios %", "THP kept %", "TLB /GiB",
                        "CAL /GiB", "sys s"], rows) + [""]

    md += ["## How the figures are made", "",
           "- **limit**: the module's own measurement in the same VM of the copy each "
           "direction really does: out against `/sys/block/thpswap0/thpswap/copy_bw_mbps` "
           "(one memcpy_flushcache of 2 MiB into its backing, as a THP swap-out), in against "
           "`copy_read_bw_mbps` (a 2 MiB read in the 4 KiB memcpy pieces of the read path); "
           "median of all readings of that VM (3 at boot, 3 per thpswap setup). Readings "
           f"taken while the host is busy come out low: readings more than {LIMIT_SPREAD}× "
           "apart make the limit unsound.",
           "- **out / in MB/s** (cycle): pswpout / pswpin × 4 KiB over the MADV_PAGEOUT / "
           "touch phase as thpswap-mem timed it. **beyond copy**: that phase's wall time "
           "minus bytes / limit, per GiB moved. A negative figure (the phase beat the "
           "limit, so the limit was measured too low) or an unsound limit is not shown "
           "(–), and a target built on it is **not measured**, never met.",
           "- **I/Os**: thpswap's own counters (`/sys/block/thpswapN/thpswap/stats`, "
           "thp_* + page_*); for the others /proc/diskstats, which in 6.1 counts nothing "
           "for rw_page calls and for brd's bios (–: not counted); on 6.12 and 7.3, where "
           "brd and pmem count nothing there either, swap-in reads are one per folio: the "
           "large folios of `hugepages-<size>kB/stats/swpin` plus one per 4 KiB page.",
           "- **thp_swpin**: /proc/vmstat, patched kernel only. **THP kept**: "
           "AnonHugePages (PMD-mapped THPs) of the working set after it was read back, as "
           "a share of the working set (cycle) or of its resident part, Rss (under "
           "pressure). **in large folios**: the share of pswpin that came back in folios "
           "larger than 4 KiB: thp_swpin × 2 MiB on the patched kernel, the sum over "
           "`hugepages-<size>kB/stats/swpin` × size on 7.3 (PTE-mapped mTHPs, "
           "which AnonHugePages does not count); 6.12 swaps mTHPs in but has no such "
           "stat (–), its **pages in /major fault** (pswpin / pgmajfault) shows their "
           "size instead.",
           "- **min-6.12, min-7.3**: Debian's linux-source of that series, unpatched, "
           "built with the patched kernel's config (tests/vm/build-newer min-7.3), set up "
           "as 6.12 and 7.3 below: the like-for-like comparison.",
           "- **6.12, 7.3**: Debian's linux-image from bookworm-backports and "
           "trixie-backports, Debian's full config, booted as they are; every "
           "`hugepages-<size>kB/enabled` set to always (a fault still takes 2 MiB first; a "
           "swap-in takes the largest size below 2 MiB its swap entries allow), zswap off "
           "(`zswap.enabled=0`), zram with its default compressor where lzo-rle is gone. "
           "No thpswap.ko there (it needs rw_page, gone after 6.2), so no copy limit: their "
           "beyond-copy figures are not shown.",
           "- **TLB / CAL /GiB**: /proc/interrupts TLB shootdowns and function-call IPIs "
           "per GiB of swap traffic (in + out). **sys**: /proc/stat system + irq + softirq, "
           "all CPUs (for the cycle it includes the fill's page faults).",
           "- thpswap, swapin_enabled=never: the patched kernel with "
           "`/sys/kernel/mm/transparent_hugepage/swapin_enabled` = never, i.e. its 4 KiB "
           "swap-in path, the same-kernel baseline; the stock kernel is Debian's full "
           "config, the patched one a minimal config, so cross-kernel ratios also "
           "compare configs.", ""]

    os.makedirs(a.out, exist_ok=True)
    md_path = os.path.join(a.out, a.stamp + ".md")

    report["cycles"] = cycles
    report["pressure_workloads"] = pr_wls
    for ok, d in draw_plots(report, a.out, a.stamp, a.plot):
        check(ok, d)

    md += ["## Plots", "", f"![cycle]({a.stamp}.png)", "",
           f"![pressure]({a.stamp}-pressure.png)", ""]
    with open(md_path, "w") as f:
        f.write("\n".join(md))
    report["checks"] = [{"ok": ok, "check": d} for ok, d in checks]
    with open(os.path.join(a.out, a.stamp + ".json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
        f.write("\n")
    # Read back what was written: the JSON must be the report, and the
    # markdown must have every target and every cycle size.
    try:
        with open(os.path.join(a.out, a.stamp + ".json")) as f:
            back = json.load(f)
        json_ok = back == json.loads(json.dumps(report, sort_keys=True))
    except (OSError, ValueError):
        json_ok = False
    with open(md_path) as f:
        md_back = f.read()
    md_ok = (all(f"| {t['target']} |" in md_back for t in targets) and
             all(f"## MADV_PAGEOUT cycle, {c} MiB" in md_back for c in cycles))
    # (A run of the newer kernels alone has no target: nothing to compare.)
    need_targets = any(k not in NEWER for k in kernels)
    check(json_ok and md_ok and (targets or not need_targets),
          f"report {a.stamp}.md and .json written and read back"
          + ("" if json_ok else ": the JSON read back is not the report")
          + ("" if md_ok else ": the markdown lacks a target or a cycle table")
          + ("" if targets or not need_targets else ": no targets"))

    for ok, d in checks:
        print(f"check {'ok' if ok else 'fail'} {d}")
    # The summary: the targets and the cycle table.
    print(f"summary results: {os.path.abspath(md_path)}")
    for t in targets:
        v = "–" if t["value"] is None else fmt(t["value"])
        st = "NOT MEASURED" if t["met"] is None else "met" if t["met"] else "NOT MET"
        print(f"summary {st:8} {t['target']}: {v} (need {t['op']} {fmt(t['need'])})"
              + (f": {t['not_measured']}" if t["not_measured"] else ""))
    for k in kernels:
        for dev in row_keys(k):
            s = summary.get(k, {}).get(dev, {}).get(big)
            if s:
                print(f"summary {big} {k:8} {dev:11} out {cell(s.get('out_mbps')):>22} MB/s"
                      f"  in {cell(s.get('in_mbps')):>22} MB/s"
                      f"  THP kept {cell(s.get('retention_pct'), 1)} %")
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
