#!/usr/bin/env python3
"""Summarize a compare.sh results directory as Markdown.

Files are NAME.SERVER.REP.json (nasd-bench --json output); machine.txt
describes the machine. Prints medians per figure, the ratio nasd / Ganesha,
and the issue's targets, met or missed; with a baseline build's runs
(compare.sh --baseline, server "base"), also nasd / base for every figure.

usage: summarize.py RESULTS_DIR
"""
import glob
import json
import os
import statistics
import sys


def load(d):
    runs = {}
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        base = os.path.basename(path)[:-len(".json")]
        parts = base.rsplit(".", 2)
        if len(parts) != 3:
            continue
        name, server, _rep = parts
        try:
            with open(path) as f:
                runs.setdefault((name, server), []).append(json.load(f))
        except (OSError, ValueError) as e:
            print("warning: %s: %s" % (path, e), file=sys.stderr)
    return runs


def srv(r, key):
    s = r.get("server") or {}
    return s.get(key)


FIGURES = {
    "mib_s": ("MiB/s", lambda r: r["mib_s"], "high"),
    "iops": ("IOPS", lambda r: r["ops_s"], "high"),
    "ops_s": ("ops/s", lambda r: r["ops_s"], "high"),
    "cpu_gib": ("server CPU-s per GiB", lambda r: srv(r, "cpu_s_per_gib"),
                "low"),
    "cpu_kop": ("server CPU-s per 1000 ops",
                lambda r: srv(r, "cpu_s_per_kop"), "low"),
    "p99": ("p99 latency ms", lambda r: r["lat_us"]["p99"] / 1000.0, "low"),
    "p50": ("p50 latency ms", lambda r: r["lat_us"]["p50"] / 1000.0, "low"),
    "rss": ("server RSS peak MiB",
            lambda r: (srv(r, "rss_peak_kib") or 0) / 1024.0, "low"),
    "cg_peak": ("cgroup peak MiB",
                lambda r: r.get("cgroup_peak_bytes", 0) / 1048576.0, "low"),
}

SIDE_BY_SIDE = [
    ("seq-write", "seq-write 1 MiB, 4 jobs x 16",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("seq-read-back", "seq-read 1 MiB, 4 jobs x 16 (read back right after seq-write)",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("seq-read", "seq-read 1 MiB, 4 jobs x 16 (files in the page cache)",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("seq-read-cold", "seq-read 1 MiB, 4 jobs x 16 (files dropped from it, read once)",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("rand-read", "rand-read 4 KiB, 4 jobs x 16",
     ["iops", "cpu_kop", "p50", "p99", "rss"]),
    ("swbuild", "swbuild, 16 jobs x 2, max speed",
     ["ops_s", "cpu_kop", "p99", "rss"]),
    ("v41-seq-write", "NFSv4.1 seq-write 1 MiB, 4 jobs x 16",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("v41-seq-read", "NFSv4.1 seq-read 1 MiB, 4 jobs x 16 (page cache)",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("v41-rand-read", "NFSv4.1 rand-read 4 KiB, 4 jobs x 16",
     ["iops", "cpu_kop", "p50", "p99", "rss"]),
    ("v41-swbuild", "NFSv4.1 swbuild, 16 jobs x 2, max speed",
     ["ops_s", "cpu_kop", "p99", "rss"]),
    ("deep-write", "deep queues: seq-write 1 MiB, 64 jobs x 32",
     ["mib_s", "cpu_gib", "p50", "p99", "rss"]),
    ("deep-read", "deep queues: seq-read 1 MiB, 64 jobs x 32",
     ["mib_s", "cpu_gib", "p50", "p99", "rss"]),
    ("deep256-read", "deep queues: seq-read 1 MiB, 64 jobs x 256",
     ["mib_s", "cpu_gib", "p50", "p99", "rss"]),
]


def values(runs, name, server, fig):
    out = []
    for r in runs.get((name, server), []):
        try:
            v = FIGURES[fig][1](r)
        except (KeyError, TypeError):
            v = None
        if v is not None:
            out.append(v)
    return out


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    if a >= 100:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.4f" % v


def med(vals):
    return statistics.median(vals) if vals else None


def cell(vals):
    if not vals:
        return "missing"
    m = med(vals)
    if len(vals) == 1:
        return fmt(m)
    return "%s (%s-%s)" % (fmt(m), fmt(min(vals)), fmt(max(vals)))


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    runs = load(d)
    machine = {}
    try:
        with open(os.path.join(d, "machine.txt")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                machine[k] = v
    except OSError:
        pass

    out = []
    p = out.append
    p("# nasd vs NFS-Ganesha (nasd-bench, compare.sh)")
    p("")
    for k in ("date", "nproc", "cpu", "mem", "kernel", "fs", "disk",
              "ganesha", "libnfs", "nasd", "reps", "loadavg_start",
              "memavail_start",
              "loadavg_end"):
        if k in machine:
            p("- %s: %s" % (k, machine[k]))
    p("")
    p("Median of the repetitions (min-max in parentheses); ratio = "
      "nasd / Ganesha.")
    p("")
    p("| workload | figure | nasd | Ganesha | ratio |")
    p("|---|---|---|---|---|")
    med_of = {}
    for name, title, figs in SIDE_BY_SIDE:
        if not any(k[0] == name for k in runs):
            continue  # not run (compare.sh --workloads)
        for fig in figs:
            a = values(runs, name, "nasd", fig)
            b = values(runs, name, "ganesha", fig)
            med_of[(name, fig)] = (med(a), med(b))
            rt = ratio(med(a), med(b))
            p("| %s | %s | %s | %s | %s |" % (
                title, FIGURES[fig][0], cell(a), cell(b),
                "%.2f" % rt if rt is not None else "-"))

    base = any(k[1] == "base" for k in runs)
    if base:
        p("")
        p("This build against the baseline build (%s), same runs; ratio = "
          "nasd / base:" % machine.get("baseline", "?"))
        p("")
        p("| workload | figure | nasd | base | ratio |")
        p("|---|---|---|---|---|")
        for name, title, figs in SIDE_BY_SIDE + [
                ("swbuild-max", "swbuild find-max 16 x 4", [])]:
            for fig in figs:
                a = values(runs, name, "nasd", fig)
                b = values(runs, name, "base", fig)
                if not a and not b:
                    continue
                rt = ratio(med(a), med(b))
                p("| %s | %s | %s | %s | %s |" % (
                    title, FIGURES[fig][0], cell(a), cell(b),
                    "%.2f" % rt if rt is not None else "-"))

    # find-max: one run per server per repetition; medians across them.
    fm = {}
    for server in ("nasd", "ganesha", "base"):
        rs = [r.get("find_max") or {} for r in
              runs.get(("swbuild-max", server), [])]
        if rs:
            fm[server] = {k: [x[k] for x in rs if x.get(k) is not None]
                          for k in ("max_ops_s", "p99_us",
                                    "calibration_ops_s")}
    eq = runs.get(("swbuild-at-ganesha-max", "nasd")) or []
    eq_p99 = [e["lat_us"]["p99"] / 1000.0 for e in eq]
    eq_ok = all(e["ops_s"] >= 0.99 * e["requested_ops_s"] for e in eq)

    def fmv(server, key, scale=1.0):
        return [v / scale for v in (fm.get(server) or {}).get(key, [])]
    if fm:
        p("")
        p("swbuild find-max (16 jobs x 4; highest requested load with "
          "achieved >= 99 %; one search per server per repetition):")
        p("")
        p("| figure | nasd | Ganesha | ratio |")
        p("|---|---|---|---|")
        a, b = fmv("nasd", "max_ops_s"), fmv("ganesha", "max_ops_s")
        rt = ratio(med(a), med(b))
        p("| max sustained ops/s | %s | %s | %s |" % (
            cell(a), cell(b), "%.2f" % rt if rt is not None else "-"))
        p("| p99 ms at its max | %s | %s | - |" % (
            cell(fmv("nasd", "p99_us", 1000.0)),
            cell(fmv("ganesha", "p99_us", 1000.0))))
        p("| unthrottled ops/s (calibration) | %s | %s | - |" % (
            cell(fmv("nasd", "calibration_ops_s")),
            cell(fmv("ganesha", "calibration_ops_s"))))
        if "base" in fm:
            a, b = fmv("nasd", "max_ops_s"), fmv("base", "max_ops_s")
            rt = ratio(med(a), med(b))
            p("| max sustained ops/s, baseline build | %s | %s (base) | "
              "%s (nasd / base) |" % (
                  cell(a), cell(b),
                  "%.2f" % rt if rt is not None else "-"))
        if eq:
            gp = fmv("ganesha", "p99_us", 1000.0)
            rt = ratio(med(eq_p99), med(gp))
            p("| p99 ms at Ganesha's max load (nasd achieved %s ops/s) | "
              "%s | %s | %s |" % (
                  cell([e["ops_s"] for e in eq]), cell(eq_p99), cell(gp),
                  "%.2f" % rt if rt is not None else "-"))

    mem_cfgs = ("nasd-buffered", "nasd-direct", "nasd-auto", "ganesha",
                "base-direct")
    if any(("mem-write", c) in runs for c in mem_cfgs):
        p("")
        p("Memory pressure: server in a 512 MiB memory cgroup; 4 jobs x 16 "
          "in flight write then read 4 x %s:" % fmt_size(runs))
        p("")
        p("| server | write MiB/s | read MiB/s | CPU-s/GiB write | "
          "CPU-s/GiB read | cgroup peak MiB |")
        p("|---|---|---|---|---|---|")
        for c in mem_cfgs:
            if not any(("mem-" + ph, c) in runs for ph in ("write", "read")):
                continue
            peak = values(runs, "mem-write", c, "cg_peak") + \
                values(runs, "mem-read", c, "cg_peak")
            p("| %s | %s | %s | %s | %s | %s |" % (
                c, cell(values(runs, "mem-write", c, "mib_s")),
                cell(values(runs, "mem-read", c, "mib_s")),
                cell(values(runs, "mem-write", c, "cpu_gib")),
                cell(values(runs, "mem-read", c, "cpu_gib")),
                fmt(max(peak)) if peak else "missing"))
    if "memory_note" in machine:
        p("")
        p("Note: " + machine["memory_note"])

    # The targets.
    p("")
    p("Targets (issue 3):")
    p("")

    def target(label, ok, detail):
        if ok is None:
            p("- %s: not measured" % label)
        else:
            p("- %s: %s (%s)" % (label, "met" if ok else "MISSED", detail))

    for name in ("seq-write", "seq-read-back", "seq-read", "seq-read-cold"):
        a, b = med_of.get((name, "mib_s"), (None, None))
        rt = ratio(a, b)
        target("%s throughput >= Ganesha's" % name,
               None if rt is None else rt >= 1.0,
               "ratio %.2f" % rt if rt is not None else "")
        a, b = med_of.get((name, "cpu_gib"), (None, None))
        rt = ratio(a, b)
        target("%s server CPU per GiB <= 0.5 x Ganesha's" % name,
               None if rt is None else rt <= 0.5,
               "ratio %.2f" % rt if rt is not None else "")
    a, b = med_of.get(("rand-read", "iops"), (None, None))
    rt = ratio(a, b)
    target("rand-read IOPS >= 1.5 x Ganesha's",
           None if rt is None else rt >= 1.5,
           "ratio %.2f" % rt if rt is not None else "")
    if fm:
        rt = ratio(med(fmv("nasd", "max_ops_s")),
                   med(fmv("ganesha", "max_ops_s")))
        target("swbuild highest sustained load >= 2 x Ganesha's",
               None if rt is None else rt >= 2.0,
               "ratio of medians %.2f" % rt if rt is not None else "")
        gp = fmv("ganesha", "p99_us", 1000.0)
        if eq and gp:
            target("swbuild p99 at equal load no worse than Ganesha's",
                   med(eq_p99) <= med(gp) and eq_ok,
                   "medians: nasd %.2f ms vs %.2f ms%s" % (
                       med(eq_p99), med(gp),
                       "" if eq_ok else "; nasd fell short of the load"))
    else:
        target("swbuild highest sustained load >= 2 x Ganesha's", None, "")
    # issue 12 (NFSv4.1): against nasd's own NFSv3 and Ganesha's NFSv4.1
    for name, v3, fig in (("v41-seq-write", "seq-write", "mib_s"),
                          ("v41-seq-read", "seq-read", "mib_s"),
                          ("v41-rand-read", "rand-read", "iops")):
        a, b = med_of.get((name, fig), (None, None))
        a3 = med_of.get((v3, fig), (None, None))[0]
        rt = ratio(a, a3)
        target("%s >= 0.9 x nasd's NFSv3" % name,
               None if rt is None else rt >= 0.9,
               "ratio %.2f" % rt if rt is not None else "")
        rt = ratio(a, b)
        target("%s >= 1.5 x Ganesha's NFSv4.1" % name,
               None if rt is None else rt >= 1.5,
               "ratio %.2f" % rt if rt is not None else "")
        cfig = "cpu_kop" if fig == "iops" else "cpu_gib"
        a, b = med_of.get((name, cfig), (None, None))
        rt = ratio(a, b)
        target("%s server CPU <= 0.5 x Ganesha's" % name,
               None if rt is None else rt <= 0.5,
               "ratio %.2f" % rt if rt is not None else "")
    a, b = med_of.get(("v41-swbuild", "ops_s"), (None, None))
    rt = ratio(a, b)
    target("v41-swbuild ops/s >= 2 x Ganesha's NFSv4.1",
           None if rt is None else rt >= 2.0,
           "ratio %.2f" % rt if rt is not None else "")
    # issue 12 §3: deep queues, bounded memory, p99 no worse than Ganesha's
    for name in ("deep-write", "deep-read", "deep256-read"):
        rss = values(runs, name, "nasd", "rss")
        target("%s server RSS <= 256 MiB" % name,
               None if not rss else max(rss) <= 256,
               "peak %.0f MiB" % max(rss) if rss else "")
        a, b = med_of.get((name, "p99"), (None, None))
        target("%s p99 no worse than Ganesha's" % name,
               None if a is None or b is None else a <= b,
               "%.0f vs %.0f ms" % (a, b) if None not in (a, b) else "")

    def m(c, name, fig):
        return med(values(runs, name, c, fig))
    for cfg, mode in (("nasd-direct", "io=direct"), ("nasd-auto", "io=auto")):
        if ("mem-write", cfg) not in runs:
            continue
        dw, bw = m(cfg, "mem-write", "mib_s"), \
            m("nasd-buffered", "mem-write", "mib_s")
        dr, br = m(cfg, "mem-read", "mib_s"), \
            m("nasd-buffered", "mem-read", "mib_s")
        peak = values(runs, "mem-write", cfg, "cg_peak") + \
            values(runs, "mem-read", cfg, "cg_peak")
        pool = machine.get("nasd_pool_mib")
        if peak and pool:
            target("%s cgroup peak <= 128 MiB + buffer pool" % mode,
                   max(peak) <= 128 + float(pool),
                   "peak %.0f MiB against 128 + %s MiB (--max-memory)"
                   % (max(peak), pool))
        elif peak:
            target("%s cgroup peak <= 128 MiB + buffer pool" % mode, None,
                   "")
        if None not in (dw, bw, dr, br):
            target("%s throughput >= io=buffered's" % mode,
                   dw >= bw and dr >= br,
                   "write %.0f vs %.0f, read %.0f vs %.0f MiB/s"
                   % (dw, bw, dr, br))
        cdw, cbw = m(cfg, "mem-write", "cpu_gib"), \
            m("nasd-buffered", "mem-write", "cpu_gib")
        cdr, cbr = m(cfg, "mem-read", "cpu_gib"), \
            m("nasd-buffered", "mem-read", "cpu_gib")
        if None not in (cdw, cbw, cdr, cbr):
            target("%s CPU per GiB below io=buffered's" % mode,
                   cdw < cbw and cdr < cbr,
                   "write %.3f vs %.3f, read %.3f vs %.3f CPU-s/GiB"
                   % (cdw, cbw, cdr, cbr))
    grow(runs, p, target)
    print("\n".join(out))
    return 0


GROW = ("nasd-auto", "nasd-direct", "nasd-buffered")


def grow(runs, p, target):
    """The working set that grows past io=auto's budget (compare.sh
    grow_part): each configuration's repetition with the median MiB/s,
    second by second, and whether auto's switch cost throughput."""
    pick = {}
    for cfg in GROW:
        rs = sorted(runs.get(("grow-write", cfg), []),
                    key=lambda r: r["mib_s"])
        if rs:
            pick[cfg] = rs[len(rs) // 2]
    if not pick:
        return
    p("")
    p("Growing working set (issue 12 §1), MiB/s second by second (the "
      "repetition with the median throughput of each):")
    p("")
    p("| second | " + " | ".join(c for c in GROW if c in pick) + " |")
    p("|---|" + "---|" * len(pick))
    n = max(len(r.get("timeline_mib_s", [])) for r in pick.values())
    for i in range(n):
        row = []
        for c in GROW:
            if c not in pick:
                continue
            t = pick[c].get("timeline_mib_s", [])
            row.append("%.0f" % t[i] if i < len(t) else "")
        p("| %d | %s |" % (i + 1, " | ".join(row)))
    p("| whole run | " + " | ".join(
        "%.0f" % pick[c]["mib_s"] for c in GROW if c in pick) + " |")
    a = pick.get("nasd-auto")
    if a:
        sw = a.get("io_auto_switches")
        p("")
        p("io=auto switched %s time(s) in that run." %
          ("?" if sw is None else sw))
        t = a.get("timeline_mib_s", [])
        whole = [r["mib_s"] for c, r in pick.items() if c != "nasd-auto"]
        if len(t) >= 2 and whole:
            # no second after the first below half of the better fixed
            # mode's whole-run figure
            floor = max(whole) / 2
            target("grow: io=auto never below half of the better fixed "
                   "mode's throughput in any second",
                   min(t[1:]) >= floor,
                   "lowest second %.0f MiB/s, half of %.0f = %.0f"
                   % (min(t[1:]), max(whole), floor))


def fmt_size(runs):
    for (name, _c), rs in runs.items():
        if name.startswith("mem-") and rs:
            return "%d MiB" % (rs[0]["size"] >> 20)
    return "?"


if __name__ == "__main__":
    sys.exit(main())
