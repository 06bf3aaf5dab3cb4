#!/usr/bin/env python3
"""Summarize the SMB part of a compare.sh results directory as Markdown.

Files are smb-SIGN-WORKLOAD.SERVER.REP.json (SIGN on or off, SERVER nasd
or samba; nasd-bench --json output). Prints the median of every figure per
signing mode with the ratio nasd / Samba, and the issue's SMB targets.

usage: summarize_smb.py RESULTS_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import FIGURES, cell, load, med, ratio, values  # noqa: E402

WORKLOADS = [
    ("seq-write", "seq-write 1 MiB, 4 conns x 16",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("seq-read", "seq-read 1 MiB, 4 conns x 16 (page cache warm)",
     ["mib_s", "cpu_gib", "p99", "rss"]),
    ("rand-read", "rand-read 4 KiB, 4 conns x 16",
     ["iops", "cpu_kop", "p50", "p99", "rss"]),
    ("swbuild", "swbuild, 16 conns x 2, max speed",
     ["ops_s", "cpu_kop", "p50", "p99", "rss"]),
]


def signing_of(runs, name, server):
    s = {r.get("signing") for r in runs.get((name, server), [])}
    if not s:
        return "?"
    return "/".join("on" if x else "off" for x in sorted(s, key=str))


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
    p("# nasd vs Samba over SMB 3.1.1 (nasd-bench, compare.sh)")
    p("")
    for k in ("date", "nproc", "cpu", "mem", "kernel", "fs", "samba",
              "nasd", "reps", "loadavg_start", "memavail_start",
              "loadavg_end"):
        if k in machine:
            p("- %s: %s" % (k, machine[k]))
    p("")
    p("Median of the repetitions (min-max in parentheses); ratio = "
      "nasd / Samba. Samba's CPU and RSS: the smbd parent and all its "
      "children summed.")
    meds = {}
    for sign in ("on", "off"):
        if not any(k[0].startswith("smb-%s-" % sign) for k in runs):
            continue
        p("")
        p("Signing %s (session signing as negotiated: nasd %s, Samba %s):"
          % (sign, signing_of(runs, "smb-%s-seq-write" % sign, "nasd"),
             signing_of(runs, "smb-%s-seq-write" % sign, "samba")))
        p("")
        p("| workload | figure | nasd | Samba | ratio |")
        p("|---|---|---|---|---|")
        for wl, title, figs in WORKLOADS:
            name = "smb-%s-%s" % (sign, wl)
            for fig in figs:
                a = values(runs, name, "nasd", fig)
                b = values(runs, name, "samba", fig)
                meds[(sign, wl, fig)] = (med(a), med(b))
                rt = ratio(med(a), med(b))
                p("| %s | %s | %s | %s | %s |" % (
                    title, FIGURES[fig][0], cell(a), cell(b),
                    "%.2f" % rt if rt is not None else "-"))

    p("")
    p("Targets (issue 10), per signing mode:")
    p("")

    def target(label, ok, detail):
        if ok is None:
            p("- %s: not measured" % label)
        else:
            p("- %s: %s (%s)" % (label, "met" if ok else "MISSED", detail))

    for sign in ("on", "off"):
        if not any(k[0] == sign for k in meds):
            continue
        for wl, fig in (("seq-write", "mib_s"), ("seq-read", "mib_s"),
                        ("rand-read", "iops")):
            rt = ratio(*meds[(sign, wl, fig)])
            target("signing %s: %s throughput >= 1.5 x Samba's" % (sign, wl),
                   None if rt is None else rt >= 1.5,
                   "ratio %.2f" % rt if rt is not None else "")
        for wl in ("seq-write", "seq-read"):
            rt = ratio(*meds[(sign, wl, "cpu_gib")])
            target("signing %s: %s server CPU per GiB <= 0.5 x Samba's"
                   % (sign, wl), None if rt is None else rt <= 0.5,
                   "ratio %.2f" % rt if rt is not None else "")
        rt = ratio(*meds[(sign, "swbuild", "ops_s")])
        pa, pb = meds[(sign, "swbuild", "p99")]
        target("signing %s: swbuild ops/s >= 2 x Samba's, p99 no worse"
               % sign,
               None if rt is None or pa is None or pb is None
               else rt >= 2.0 and pa <= pb,
               "ratio %.2f, p99 %.2f vs %.2f ms" % (rt, pa, pb)
               if None not in (rt, pa, pb) else "")
        ra, rb = meds[(sign, "swbuild", "rss")]
        target("signing %s: nasd RSS < 64 MiB with 16 connections" % sign,
               None if ra is None else ra < 64,
               "swbuild peak %.1f MiB; Samba %s MiB" % (
                   ra, "%.1f" % rb if rb is not None else "-")
               if ra is not None else "")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
