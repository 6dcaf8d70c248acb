#!/usr/bin/env python3
"""Turns a Makefile.pipeline results folder into report.md, summary-experiments.md and gnuplot
PNG plots. Reads only the timing records (timings/<exp>/<variant>-<case>.jsonl; the scale
experiment's timings/scale/<op>-<weak|strong>-<device>-<ranks>.jsonl), the measured
ceilings (timings/ceiling/), the check results (check/), the corpus's spy plots (plots/spy/,
with info/corpus-*.json for their shapes) and, for where the pipeline's own time went,
steps.tsv and the generation records (logs/gen/). Standard library only.
Usage: report.py RESULTS"""
import collections
import datetime
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys

# experiment -> (title, x label, x from record, rate kind): rate kind "copy" reports GB/s
# against the copy ceiling, "gemm" GFLOP/s against the vendor GEMM rate.
EXPERIMENTS = {
    "add": ("add: C = A + B, dense n x n (thesis: sequential, naive, shared, vectorised, cuBLAS)",
            "matrix side n", "case", "copy"),
    "mul": ("mul: dense GEMM C = AB, n x n (naive, tiled, register-blocked, tensor, vendor)",
            "matrix side n", "case", "gemm"),
    "lu": ("lu: PA = LU, dense n x n (hybrid, blocked, vendor getrf)", "matrix side n", "case",
           "gemm"),
    "transpose": ("transpose: dense n x n, out of place and in place (naive, tiled, in-place)",
                  "matrix side n", "case", "copy"),
    "spmv": ("spmv: y = Ax on the corpus, a density sweep and power-law rows "
             "(scalar, vector, adaptive, vendor)", "stored nonzeros of A", "nnz", "copy"),
    "jacobi": ("jacobi: 3D heated room, 100 iterations (naive, coalesced, norm)",
               "grid points a side N", "case", "copy"),
    "jacobi-tol": ("jacobi-tol: 3D heated room to a tolerance (change <= tol, checked every 40)",
                   "grid points a side N", "case", "copy"),
    "solve": ("solve: Ax = b by dense LU, UMFPACK, CG, BiCGSTAB, GMRES (Jacobi-preconditioned)",
              "unknowns n", "rows", "mixed"),
}
TERMINALS = ("pngcairo", "png")
# Distinct colours that read on white (gnuplot's own cycle has a pale yellow).
POINTS = (1, 2, 4, 6, 8, 10, 12, 3, 5, 7, 9, 11, 13)
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22", "#000080", "#800000", "#008080")


def load(path: pathlib.Path):
    lines = [l for l in path.read_text().splitlines() if l.strip()]
    return json.loads(lines[-1]) if lines else {"status": "n/a", "reason": "empty record"}


def devclass(rec) -> str:
    return "gpu" if "nvidia" in rec.get("device", "").lower() else "cpu"


def baseline(exp: str, variant: str, have: set) -> str:
    """The CPU reference a variant's speedup is taken over (see the report's notes)."""
    if exp.startswith("jacobi"):
        return "ref-stencil"
    if exp == "transpose" and variant.endswith("inplace") and "ref-inplace" in have:
        return "ref-inplace"
    if exp == "solve":
        method = variant.split("-")[0]
        return f"{method}-ref" if f"{method}-ref" in have else "lu-ref"
    return "ref"


def kind_of(exp: str, variant: str) -> str:
    k = EXPERIMENTS[exp][3]
    direct = variant.startswith("lu") or variant.startswith("umfpack")
    return ("gemm" if direct else "copy") if k == "mixed" else k


def fmt_time(s):
    if s is None:
        return "-"
    for unit, f in (("s", 1), ("ms", 1e3), ("us", 1e6)):
        if s * f >= 1 or unit == "us":
            return f"{s * f:.3g} {unit}"


def big(v):
    """4 significant digits without an exponent: 52,000 rather than 5.2e+04."""
    return f"{v:,.0f}" if v >= 1000 else f"{v:.4g}"


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}g}"


def xval(exp, case, rec):
    how = EXPERIMENTS[exp][2]
    inputs = rec.get("inputs") or [{}]
    if how == "nnz":
        return inputs[0].get("nnz")
    if how == "rows":
        return inputs[0].get("rows")
    try:
        return int(case)
    except ValueError:
        return None


def collect(results: pathlib.Path):
    runs = collections.defaultdict(dict)  # exp -> {(variant, case): record}
    failed = []
    for f in sorted((results / "timings").glob("*/*")):
        exp = f.parent.name
        if exp == "ceiling" or exp not in EXPERIMENTS:
            continue
        if f.name.endswith(".jsonl.failed"):
            failed.append((exp, f.name[:-len(".jsonl.failed")], f.read_text().strip()))
        elif f.suffix == ".jsonl":
            variant, _, case = f.stem.rpartition("-")
            runs[exp][(variant, case)] = load(f)
    ceil = collections.defaultdict(dict)  # device name -> {"copy": GB/s, "gemm": GFLOP/s}
    ceil_rows = []
    for f in sorted((results / "timings" / "ceiling").glob("*.jsonl")):
        rec = load(f)
        kind, _, dev = f.stem.partition("-")
        if rec.get("status") == "n/a":
            ceil_rows.append((kind, dev, "-", "not measured: " + rec.get("reason", "")))
            continue
        value = rec["gbps"] if kind == "copy" else rec["gflops"]
        ceil[rec["device"]][kind] = value
        ceil[rec["device"]][kind + " precision"] = rec.get("precision", "double")
        how = (f"transpose_bench, n = {rec.get('n', '?')}: {rec.get('formula', 'copy')}"
               if kind == "copy" else f"mmmul --impl {rec.get('impl')}, n = {rec['inputs'][0]['rows']}")
        unit = "GB/s" if kind == "copy" else "GFLOP/s"
        ceil_rows.append((kind, rec["device"], f"{big(value)} {unit}", how))
    checks = collections.defaultdict(lambda: {"ok": [], "n/a": [], "failed": []})
    for f in sorted((results / "check").glob("*/*")):
        exp = f.parent.name
        if f.name.endswith(".ok.failed"):
            checks[exp]["failed"].append(f"{f.name[:-10]}: {f.read_text().strip()}")
        elif f.suffix == ".ok":
            text = f.read_text().strip()
            checks[exp]["n/a" if text.startswith("n/a") else "ok"].append(f.stem)
    matrix_checks = len(list((results / "check").glob("*.ok")))
    return runs, failed, ceil, ceil_rows, checks, matrix_checks


def tf32(variant: str) -> bool:
    """A GEMM whose inputs are rounded to TF32 (named so: cuda-tf32, cublas-tf32)."""
    return variant.endswith("-tf32")


def peak_of(variant, case, rec, recs, ceil, kind):
    """The rate a row's "of peak" divides by: its device's measured ceiling, for a GEMM only in
    the ceiling's precision; a TF32 variant's is cublas-tf32 at the same case (its peer, which
    rounds alike), never a full-precision GEMM's."""
    if kind == "gemm" and tf32(variant):
        peer = recs.get(("cublas-tf32", case), {})
        return peer.get("gflops") if peer.get("device") == rec.get("device") else None
    dev = ceil.get(rec.get("device"), {})
    if kind == "gemm" and dev.get("gemm precision", "double") != rec.get("precision", "double"):
        return None
    return dev.get(kind)


def rows_of(exp, recs, ceil):
    """One row per (variant, case) that ran: the values the table and the plots show."""
    have = {v for v, _ in recs}
    rows = []
    for (variant, case), rec in recs.items():
        if rec.get("status") == "n/a":
            continue
        t = rec["phases"]["compute"]["median"]
        base = recs.get((baseline(exp, variant, have), case))
        tb = base["phases"]["compute"]["median"] if base and "phases" in base else None
        kind = kind_of(exp, variant)
        rate = rec.get("gbps") if kind == "copy" else rec.get("gflops")
        peak = peak_of(variant, case, rec, recs, ceil, kind)
        rows.append({
            "variant": variant, "case": case, "x": xval(exp, case, rec), "dev": devclass(rec),
            "device": rec.get("device", "?"), "t": t, "gflops": rec.get("gflops"),
            "gbps": rec.get("gbps"), "rate": rate, "kind": kind,
            "speedup": tb / t if tb and t > 0 else None,
            "peak": rate / peak if rate is not None and peak else None,
            "iters": rec.get("iterations"), "converged": rec.get("converged"),
        })
    order = lambda r: (r["x"] if r["x"] is not None else 0, r["case"], r["dev"] != "gpu",
                       r["variant"].startswith("ref") or "-ref" in r["variant"], r["variant"])
    return sorted(rows, key=order)


def table(exp, rows):
    iterative = exp in ("solve", "jacobi-tol")
    head = ["case" if exp in ("spmv", "solve") else "size", "variant", "device", "median time",
            "GFLOP/s", "GB/s", "vs ref", "of peak"]
    head += ["iterations", "converged"] if iterative else []
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i < 3 else "---:"
                                                        for i in range(len(head))) + "|"]
    for r in rows:
        cells = [r["case"], r["variant"], r["dev"], fmt_time(r["t"]), fmt(r["gflops"]),
                 fmt(r["gbps"]), "-" if r["speedup"] is None else f"{r['speedup']:.3g}x",
                 "-" if r["peak"] is None else f"{100 * r['peak']:.0f}%"]
        if iterative:
            conv = r["converged"]
            cells += [str(r["iters"] or "-"), "-" if conv is None else ("yes" if conv else "NO")]
        out.append("| " + " | ".join(cells) + " |")
    return out


def not_applicable(recs):
    by = collections.defaultdict(list)
    for (variant, case), rec in sorted(recs.items()):
        if rec.get("status") == "n/a":
            # "mmspmv: /path/A.mtx: needs ...": the tool and the file differ per case.
            reason = re.sub(r"^\S+: (?:\S*/\S*: )?", "", rec.get("reason", ""))
            by[(variant, reason)].append(case)
    return [f"- `{v}` on {len(c)} case(s) ({', '.join(c[:6])}{', ...' if len(c) > 6 else ''}): "
            f"{reason}" for (v, reason), c in by.items()]


def spy_gallery(results: pathlib.Path, rows):
    """The corpus's spy plots (plots/spy/<name>.png, by mmcheck spy), each beside that
    matrix's spmv numbers: the fastest variant on each device class, by median time."""
    pngs = sorted((results / "plots" / "spy").glob("*.png"))
    if not pngs:
        return []
    devs = [d for d in ("gpu", "cpu") if any(r["dev"] == d for r in rows)] or ["cpu"]
    out = ["", "Sparsity patterns of the corpus (`mmcheck spy`, darker: more entries) beside "
           "their spmv numbers (the fastest variant per device class; *not timed*: left out by "
           "SPMV_SKIP or the run's selection):", "",
           "| matrix | pattern | rows x cols | stored nnz | "
           + " | ".join(f"fastest on {d}" for d in devs) + " |",
           "|---|---|---:|---:|" + "---|" * len(devs)]
    for png in pngs:
        name = png.stem
        case = name.replace("-", "_")  # the case name Makefile.pipeline gives the file
        info_file = results / "info" / f"corpus-{name}.json"
        info = json.loads(info_file.read_text()) if info_file.exists() else {}
        shape = f"{info['rows']} x {info['cols']}" if "rows" in info else "-"
        nnz = f"{info['nnz_stored']:,}" if "nnz_stored" in info else "-"
        cells = []
        for d in devs:
            mine = [r for r in rows if r["case"] == case and r["dev"] == d]
            b = min(mine, key=lambda r: r["t"]) if mine else None
            cells.append(f"{b['variant']}: {fmt_time(b['t'])}, {fmt(b['gbps'])} GB/s" if b else
                         "not timed")
        out.append(f"| {name} | ![{name}](plots/spy/{name}.png) | {shape} | {nnz} | "
                   + " | ".join(cells) + " |")
    return out


def gp_quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def log_range(values, pad=1.35):
    """[low, high] around positive VALUES with a margin, for an explicit log axis range
    (gnuplot's log autoscale jumps to whole decades and leaves most of the plot empty)."""
    v = [x for x in values if x and x > 0]
    return f"[{min(v) / pad:.6g}:{max(v) * pad:.6g}]" if v else "[*:*]"


def plot_cmd(terminal, output, parts):
    """Terminal, key and plot lines for one PNG: the key sits below the plot, as many columns
    as its longest label allows, the canvas grown by its rows so the plot keeps its height."""
    labels = [re.search(r"title '((?:[^']|'')*)'$", p)[1] for p in parts]
    cols = max(1, min(3, int(1150 // (max(map(len, labels)) * 7.5 + 90))))
    rows = -(-len(parts) // cols)
    font = "font 'Sans,11'" if terminal == "pngcairo" else ""
    return [f"set terminal {terminal} size 1200,{560 + 21 * rows} {font}", f"set output '{output}'",
            "set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 "
            f"maxcols {cols} maxrows {rows}", f"set bmargin {4.5 + 1.3 * rows:.1f}",
            "plot " + ", \\\n  ".join(parts)]


def plots(exp, rows, ceil, pdir: pathlib.Path, terminal):
    """Writes <exp>.dat and <exp>.gp and, with gnuplot, the PNGs; returns their names."""
    first_dev = {r["variant"]: r["dev"] for r in reversed(rows)}
    variants = sorted(first_dev, key=lambda v: (first_dev[v] != "gpu", v.startswith("ref"), v))
    pts = {v: sorted((r for r in rows if r["variant"] == v and r["x"]), key=lambda r: r["x"])
           for v in variants}
    dat = []
    for v in variants:
        dat.append(f"# {v}: x time rate speedup")
        for r in pts[v]:
            dat.append(f"{r['x']} {r['t']} {r['rate'] or 'NaN'} {r['speedup'] or 'NaN'}")
        dat += ["", ""]
    (pdir / f"{exp}.dat").write_text("\n".join(dat))
    title, xlabel, _, _ = EXPERIMENTS[exp]
    style = "points" if exp in ("spmv", "solve") else "linespoints"
    kinds = {r["kind"] for r in rows}
    unit = "GFLOP/s" if kinds == {"gemm"} else ("GB/s" if kinds == {"copy"} else
                                                "GFLOP/s (dense LU) or GB/s (others)")
    allpts = [r for v in variants for r in pts[v]]

    def series(col, skip=()):
        parts = []
        for i, v in enumerate(variants):
            if v in skip or not pts[v]:
                continue
            dev = first_dev[v]
            unit_v = "GFLOP/s" if pts[v][0]["kind"] == "gemm" else "GB/s"
            label = f"{v} ({dev}, {unit_v})" if len(kinds) > 1 and col == 3 else f"{v} ({dev})"
            parts.append(f"'{exp}.dat' index {i} using 1:{col} with {style} lw 2 ps 1.4 "
                         f"lc rgb '{COLORS[i % len(COLORS)]}' pt {POINTS[i % len(POINTS)]} "
                         f"dt {1 if dev == 'gpu' else 2} title {gp_quote(label)}")
        return parts

    term = terminal or "pngcairo"
    lines = ["set logscale xy", "set grid xtics ytics lc rgb '#d0d0d0'",
             "set format y '%g'", "set format x '%g'", "set datafile missing 'NaN'",
             f"set xlabel {gp_quote(xlabel + ' (log)')}",
             f"set xrange {log_range([r['x'] for r in allpts], 1.2)}"]
    xs = sorted({r["x"] for r in allpts})
    if EXPERIMENTS[exp][2] == "case" and len(xs) <= 12:  # tics at the measured sizes
        lines.append("set xtics (" + ", ".join(str(x) for x in xs) + ")")
    short = title.split(" (")[0].split(":")[0]
    names = [f"{exp}-time.png"]
    lines += [f"set title {gp_quote(short + ': median compute time per variant')}",
              "set ylabel 'median compute time (s, log)'",
              f"set yrange {log_range([r['t'] for r in allpts])}"]
    lines += plot_cmd(term, f"{exp}-time.png", series(2))
    base = {"ref", "ref-stencil", "ref-inplace"} | {v for v in variants if v.endswith("-ref")}
    sp = series(4, skip=base)
    speedups = [r["speedup"] for r in allpts if r["variant"] not in base] + [1]
    if sp and len(speedups) > 1:
        title_sp = short + ": speedup over the serial CPU reference (same size)"
        lines += [f"set title {gp_quote(title_sp)}",
                  "set ylabel 'speedup over ref (x, log)'", f"set yrange {log_range(speedups)}"]
        lines += plot_cmd(term, f"{exp}-speedup.png",
                          sp + ["1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'"])
        names.append(f"{exp}-speedup.png")
    ceilings, cvals = [], []
    for dev in sorted({r["device"] for r in rows}):
        for kind in sorted(kinds):
            if kind in ceil.get(dev, {}):
                v = ceil[dev][kind]
                what = "copy bandwidth" if kind == "copy" else "vendor GEMM"
                u = "GB/s" if kind == "copy" else "GFLOP/s"
                where = "gpu" if "nvidia" in dev.lower() else "cpu"
                label = f"measured {what}, {where}: {big(v)} {u}"
                color = "#000000" if "nvidia" in dev.lower() else "#808080"
                ceilings.append(f"{v} with lines lw 3 dt {4 if kind == 'copy' else 5} "
                                f"lc rgb '{color}' title {gp_quote(label)}")
                cvals.append(v)
    lines += [f"set title {gp_quote(short + ': achieved rate against the measured ceilings')}",
              f"set ylabel {gp_quote(unit + ', log')}",
              f"set yrange {log_range([r['rate'] for r in allpts] + cvals)}"]
    lines += plot_cmd(term, f"{exp}-rate.png", series(3) + ceilings)
    names.append(f"{exp}-rate.png")
    (pdir / f"{exp}.gp").write_text("\n".join(lines) + "\n")
    if terminal:
        r = subprocess.run(["gnuplot", f"{exp}.gp"], cwd=pdir, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"report.py: gnuplot {exp}.gp: {r.stderr.strip()}", file=sys.stderr)
    return names


def find_terminal():
    if not shutil.which("gnuplot"):
        return None
    r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    listed = r.stdout + r.stderr
    return next((t for t in TERMINALS if f" {t} " in listed or f"\n{t} " in listed), None)


def best_of(rows, need_speedup=False):
    """The fastest non-reference variant at the largest case that has one (with a speedup
    over ref, when NEED_SPEEDUP: ref is capped below the largest sizes); TF32 GEMMs only where
    nothing else ran."""
    cand = [r for r in rows if r["x"] is not None and not r["variant"].startswith("ref")
            and "-ref" not in r["variant"] and (r["speedup"] or not need_speedup)]
    cand = [r for r in cand if not tf32(r["variant"])] or cand  # not ranked against full GEMMs
    if not cand:
        return None
    top = max(r["x"] for r in cand)
    return min((r for r in cand if r["x"] == top), key=lambda r: r["t"])


def time_spent(results: pathlib.Path):
    """Where the pipeline's wall time went, per kind of step (steps.tsv: seconds each step's
    command ran and waited for the locks; the tool's own record: total, read + convert and
    the timed compute), and the generated inputs (mmgen's records, the files' sizes)."""
    rows = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0, 0.0])
    tsv = results / "steps.tsv"
    for line in (tsv.read_text().splitlines() if tsv.exists() else []):
        target, ran, waited = line.split("\t")
        # RESULTS/KIND/EXP/FILE as make named it (KIND: timings or check); read from this
        # results folder, wherever it is now (a report redrawn on another machine).
        path = results.joinpath(*pathlib.Path(target).parts[-3:])
        kind = path.parent.parent.name
        key = f"{path.parent.name} ({'timed' if kind == 'timings' else 'checks'})"
        r = rows[key]
        r[0] += 1
        r[1] += float(ran)
        r[2] += float(waited)
        rec = load(path) if kind == "timings" and path.exists() else {}
        ph = rec.get("phases", {})
        r[3] += ph.get("total", 0)
        r[4] += ph.get("read", 0) + ph.get("convert", 0)
        c = ph.get("compute", {})
        r[5] += c.get("median", 0) * c.get("repeats", 0) if isinstance(c, dict) else 0
    gens = [load(f) for f in sorted((results / "logs" / "gen").glob("*.jsonl"))]
    if not rows and not gens:
        return []
    out = ["", "## Where the time went", "",
           "Seconds summed over the steps (under `make -j` generation overlaps the timed runs, "
           "which take turns): *ran* is each step's command, *waited* its wait for the locks, "
           "*tool total* the tool's own span (the rest of *ran* is process start, device "
           "set-up and exit), *read + convert* the input parsing inside it, *timed* the "
           "median compute times the repeats.", "",
           "| steps | count | ran s | waited s | tool total s | read + convert s | timed s |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    sums = [sum(r[i] for r in rows.values()) for i in range(6)]
    for key, (n, ran, waited, total, rc, timed) in sorted(rows.items()) + [("all", sums)]:
        out.append(f"| {key} | {n} | {ran:.1f} | {waited:.1f} | {total:.1f} | {rc:.1f} | "
                   f"{timed:.1f} |")
    if gens:
        size, found = 0, 0
        for g in gens:
            f = pathlib.Path(g.get("output", {}).get("path", ""))
            if f.is_file():
                size, found = size + f.stat().st_size, found + 1
        secs = sum(g.get("phases", {}).get("total", 0) for g in gens)
        disk = (f"{size / 1e9:.2f} GB on disk now" if found else
                "the files are not on this machine")
        out += ["", f"Generated inputs: {len(gens)} files, {secs:.1f} s in mmgen, {disk}."]
    return out


# ---- scale: weak and strong scaling over MPI ranks ---------------------------------------------
SCALE_OPS = {"spmv": "spmv (mmspmv)", "cg": "cg (mmsolve --method cg --precond jacobi)",
             "jacobi": "jacobi (mmjacobi --poisson3d)"}


def scale_rows(results: pathlib.Path, ceil):
    """One row per scale run that ran: (op, mode, device, ranks) with its time, rate (GB/s by
    the tool's formula), parallel efficiency E = rate(R) / (R rate(1)) against the one-rank run
    of the same series, and the bound the measured copy bandwidth B puts on it, min(1, B /
    (R rate(1))): R ranks of one machine share its memory bandwidth. Also the n/a runs."""
    runs, nas = {}, collections.defaultdict(list)
    for f in sorted((results / "timings" / "scale").glob("*.jsonl")):
        parts = f.stem.split("-")
        if len(parts) != 4 or not parts[3].isdigit():
            continue
        op, mode, dev, ranks = parts[0], parts[1], parts[2], int(parts[3])
        rec = load(f)
        if rec.get("status") == "n/a":
            nas[(op, dev, rec.get("reason", ""))].append(f"{mode} {ranks}")
        elif "phases" in rec:
            runs[(op, mode, dev, ranks)] = rec
    rows = []
    for (op, mode, dev, ranks), rec in runs.items():
        t = rec["phases"]["compute"]["median"]
        rate = rec.get("gbps")
        one = runs.get((op, mode, dev, 1))
        rate1 = one.get("gbps") if one else None
        eff = rate / (ranks * rate1) if rate and rate1 else None
        copy = ceil.get(rec.get("device"), {}).get("copy")
        bound = min(1.0, copy / (ranks * rate1)) if copy and rate1 else None
        inp = (rec.get("inputs") or [{}])[0]
        grid = rec.get("grid")
        size = (f"{grid['n']}^3 = {big(grid['n'] ** 3)} points" if grid else
                f"{big(inp['rows'])} rows" if "rows" in inp else "-")
        ph = rec["phases"]
        rows.append({"op": op, "mode": mode, "dev": dev, "ranks": ranks, "size": size, "t": t,
                     "rate": rate, "eff": eff, "bound": bound,
                     "exchange": ph.get("exchange"), "allreduce": ph.get("allreduce"),
                     "imbalance": rec.get("load_imbalance"), "iters": rec.get("iterations"),
                     "transport": rec.get("transport", "-")})
    order = list(SCALE_OPS)
    rows.sort(key=lambda r: (order.index(r["op"]) if r["op"] in order else 9, r["mode"] != "weak",
                             r["dev"], r["ranks"]))
    return rows, nas


def scale_plot(rows, pdir: pathlib.Path, terminal):
    """plots/scale-efficiency.png: E against the ranks, a line per (op, mode, device)."""
    series = sorted({(r["op"], r["mode"], r["dev"]) for r in rows if r["eff"] is not None},
                    key=lambda k: (list(SCALE_OPS).index(k[0]) if k[0] in SCALE_OPS else 9, k))
    if not series:
        return []
    dat, parts = [], []
    for i, key in enumerate(series):
        pts = sorted((r for r in rows if (r["op"], r["mode"], r["dev"]) == key),
                     key=lambda r: r["ranks"])
        dat.append(f"# {' '.join(key)}: ranks efficiency")
        dat += [f"{r['ranks']} {r['eff'] if r['eff'] is not None else 'NaN'}" for r in pts] + ["", ""]
        op, mode, dev = key
        parts.append(f"'scale.dat' index {i} using 1:2 with linespoints lw 2 ps 1.4 "
                     f"lc rgb '{COLORS[list(SCALE_OPS).index(op) % len(COLORS)] if op in SCALE_OPS else '#000000'}' "
                     f"pt {POINTS[i % len(POINTS)]} dt {1 if mode == 'strong' else 2} "
                     f"title {gp_quote(f'{op} {mode} ({dev})')}")
    (pdir / "scale.dat").write_text("\n".join(dat))
    ranks = sorted({r["ranks"] for r in rows})
    effs = [r["eff"] for r in rows if r["eff"] is not None]
    lines = ["set grid xtics ytics lc rgb '#d0d0d0'", "set datafile missing 'NaN'",
             "set logscale x 2", "set format x '%g'",
             f"set xrange [{min(ranks) / 1.2:.6g}:{max(ranks) * 1.2:.6g}]",
             "set xtics (" + ", ".join(str(x) for x in ranks) + ")",
             "set xlabel 'MPI ranks (log)'", "set ylabel 'parallel efficiency rate(R) / (R rate(1))'",
             f"set yrange [0:{max(1.2, max(effs) * 1.1):.3g}]",
             "set title 'scale: parallel efficiency (solid strong, dashed weak scaling)'"]
    lines += plot_cmd(terminal or "pngcairo", "scale-efficiency.png",
                      parts + ["1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ideal = 1'"])
    (pdir / "scale.gp").write_text("\n".join(lines) + "\n")
    if terminal:
        r = subprocess.run(["gnuplot", "scale.gp"], cwd=pdir, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"report.py: gnuplot scale.gp: {r.stderr.strip()}", file=sys.stderr)
    return ["scale-efficiency.png"]


def scale_section(results: pathlib.Path, ceil, pdir: pathlib.Path, terminal):
    """The report's scale section and the summary's line about it (empty: nothing ran)."""
    rows, nas = scale_rows(results, ceil)
    if not rows and not nas:
        return [], []
    out = ["", "## scale: weak and strong scaling over MPI ranks (spmv, cg, jacobi)", "",
           "Each run `mpirun -np R` of the tool (`make -f Makefile.pipeline scale`; RANKS, "
           "SCALE_THREADS threads a rank). *strong*: one problem for every R; *weak*: R times the "
           "one-rank problem (poisson2d rows for spmv and cg, grid points for jacobi). *rate*: "
           "GB/s by the tool's formula at the median compute time (each run the slowest rank's); "
           "*E* = rate(R) / (R rate(1)), the parallel efficiency against the one-rank run of the "
           "same series; *bound* = min(1, B / (R rate(1))), B the measured copy bandwidth of the "
           "device: the model that R ranks of one machine share its memory bandwidth (meaningful "
           "where the problem does not fit in cache, SCALE=full); *E / bound* how close to that "
           "model. *exchange* (halo, outside the overlap) and *allreduce* are the slowest rank's "
           "seconds a run; *imbalance* max/mean work a rank.", ""]
    names = scale_plot(rows, pdir, terminal) if rows else []
    out += [f"![{n}](plots/{n})" for n in names] + [""] if terminal and names else []
    out += ["| operation | scaling | device | ranks | problem | median time | GB/s | E | bound | "
            "E / bound | exchange | allreduce | imbalance |",
            "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        vs = r["eff"] / r["bound"] if r["eff"] is not None and r["bound"] else None
        out.append(f"| {r['op']} | {r['mode']} | {r['dev']} | {r['ranks']} | {r['size']} | "
                   f"{fmt_time(r['t'])} | {fmt(r['rate'])} | {fmt(r['eff'], 2)} | "
                   f"{fmt(r['bound'], 2)} | {fmt(vs, 2)} | {fmt_time(r['exchange'])} | "
                   f"{fmt_time(r['allreduce'])} | {fmt(r['imbalance'], 3)} |")
    if nas:
        out += ["", "Not run here (n/a):"]
        out += [f"- `{op}` ({dev}; {', '.join(runs)}): {why}" for (op, dev, why), runs in
                sorted(nas.items())]
    top = max((r["ranks"] for r in rows), default=None)
    cells = [f"{r['op']} {r['mode']} {fmt(r['eff'], 2)}" for r in rows
             if r["ranks"] == top and r["ranks"] > 1 and r["eff"] is not None]
    na_ops = sorted({op for op, _, _ in nas})
    line = (f"scale: parallel efficiency at {top} ranks ({rows[0]['dev'] if rows else '-'}): "
            f"{', '.join(cells) or '-'}" + (f"; n/a: {', '.join(na_ops)}" if na_ops else ""))
    return out, [line]


def main(results: pathlib.Path) -> int:
    runs, failed, ceil, ceil_rows, checks, matrix_checks = collect(results)
    pdir = results / "plots"
    pdir.mkdir(parents=True, exist_ok=True)
    terminal = find_terminal()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    versions = {r.get("version") for recs in runs.values() for r in recs.values() if "version" in r}
    devices = sorted({r.get("device") for recs in runs.values() for r in recs.values()
                      if "device" in r})
    md = ["# mmtools experiments", "",
          f"{now}; mmtools {', '.join(sorted(versions)) or '?'}; "
          f"devices: {'; '.join(devices) or '-'}.",
          "Written by `scripts/report.py` from the timing records under `timings/` "
          "(`make -f Makefile.pipeline report`).", "",
          "How to read: *median time* is the median `compute` phase over the repeats (after one "
          "warm-up; GPU: kernel time by CUDA events, transfers apart); GFLOP/s and GB/s come from "
          "each tool's own work formula (`--help`); *vs ref* is the serial CPU reference's median "
          "over this one's (`ref`; `ref-stencil` for jacobi; `ref-inplace` for in-place "
          "transposes; `<method>-ref`, else `lu-ref`, for solve); *of peak* is GB/s over the "
          "measured copy bandwidth (add, transpose, spmv, jacobi, iterative solves) or GFLOP/s "
          "over the measured vendor GEMM rate (mul, lu, dense and UMFPACK solves) of the same "
          "device and precision (a TF32 GEMM, `*-tf32`: over `cublas-tf32` at the same size, "
          "never over a full-precision GEMM); above 100% means the data fit a cache the ceiling's did not, or a busy "
          "machine during the ceiling's run. "
          "Plots: time and rate on log axes; dashed lines are CPU variants, solid GPU ones.", "",
          "## Measured ceilings", "", "| ceiling | device | value | how |", "|---|---|---:|---|"]
    md += [f"| {k} | {d} | {v} | {how} |" for k, d, v, how in ceil_rows] or ["| - | - | - | - |"]
    summary = ["| experiment | cases | variants | best at the largest case | median time | rate |"
               " of peak | vs ref, largest case with ref | n/a | failed |",
               "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    body = []
    for exp in EXPERIMENTS:
        recs = runs.get(exp, {})
        if not recs:
            continue
        rows = rows_of(exp, recs, ceil)
        nas = not_applicable(recs)
        nfail = sum(1 for e, *_ in failed if e == exp)
        b = best_of(rows)
        unit = "GB/s" if b and b["kind"] == "copy" else "GFLOP/s"
        if b:
            peak = "-" if b["peak"] is None else f"{100 * b['peak']:.0f}%"
            bs = best_of(rows, need_speedup=True)
            speed = "-" if bs is None else f"{bs['speedup']:.3g}x ({bs['variant']} at {bs['case']})"
            best = (f"{b['variant']} ({b['dev']}) at {b['case']} | {fmt_time(b['t'])} | "
                    f"{fmt(b['rate'])} {unit} | {peak} | {speed}")
        else:
            best = "- | - | - | - | -"
        n_na = sum(1 for r in recs.values() if r.get("status") == "n/a")
        summary.append(f"| {exp} | {len({r['case'] for r in rows})} | "
                       f"{len({r['variant'] for r in rows})} | {best} | {n_na} | {nfail} |")
        names = plots(exp, rows, ceil, pdir, terminal) if rows else []
        body += ["", f"## {EXPERIMENTS[exp][0]}", ""]
        body += [f"![{n}](plots/{n})" for n in names] + [""] if terminal else []
        body += table(exp, rows)
        if exp == "spmv":
            body += spy_gallery(results, rows)
        if nas:
            body += ["", "Not applicable (the tool refused the input, exit 3):"] + nas
    scale_md, scale_line = scale_section(results, ceil, pdir, terminal)
    body += scale_md
    md += ["", "## Summary", ""] + summary + ([""] + scale_line if scale_line else []) + body
    spy = [] if runs.get("spmv") else spy_gallery(results, [])
    if spy:  # no spmv section to show them in
        md += ["", "## Corpus sparsity patterns"] + spy
    md += ["", "## Checks", "",
           "Each variant run once with output at a small size and checked by `mmcheck` "
           "(`compare` against the reference's output; `lu` and `residual` for lu and solve); "
           f"the main job's matrices: {matrix_checks} validate/residual checks passed "
           "(see `summary.md`).", "", "| experiment | ok | n/a | failed |", "|---|---:|---:|---:|"]
    for exp, c in sorted(checks.items()):
        md.append(f"| {exp} | {len(c['ok'])} | {len(c['n/a'])} | {len(c['failed'])} |")
    bad = [f"- check {e}: {x}" for e, c in sorted(checks.items()) for x in c["failed"]]
    bad += [f"- timing {e} {name}: {why}" for e, name, why in failed]
    md += ["", "## Failures", ""] + (bad or ["None."])
    md += time_spent(results)
    if not terminal:
        md += ["", "(No gnuplot with a png terminal here: `plots/*.gp` and `*.dat` are written; "
               "`make -f Makefile.pipeline report` on a machine with gnuplot draws them.)"]
    (results / "report.md").write_text("\n".join(md) + "\n")
    nchk = {k: sum(len(c[k]) for c in checks.values()) for k in ("ok", "n/a", "failed")}
    ceilings = ", ".join(f"{k} {'gpu' if 'nvidia' in d.lower() else 'cpu'} {v}"
                         for k, d, v, _ in ceil_rows)
    (results / "summary-experiments.md").write_text("\n".join(
        ["# mmtools experiments: summary (full tables and plots: report.md)", ""] + summary +
        ([""] + scale_line if scale_line else []) + ["", f"checks: {nchk['ok']} ok, {nchk['n/a']} n/a, {nchk['failed']} failed; "
         f"timing runs failed: {len(failed)}; ceilings: {ceilings}"]) + "\n")
    print(f"report.py: {results / 'report.md'}, {sum(len(r) for r in runs.values())} records, "
          f"plots {'drawn' if terminal else 'not drawn (no gnuplot)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "results")))
