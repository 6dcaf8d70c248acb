#!/usr/bin/env python3
"""Summary table of a Makefile.pipeline run: one row per matrix from `mmcheck info --json`,
with the validate and residual checks. Standard library only. Usage: pipeline_table.py RESULTS"""
import json
import pathlib
import sys


def main(results: pathlib.Path) -> int:
    rows = []
    for info in sorted((results / "info").glob("*.json")):
        source, _, name = info.stem.partition("-")
        j = json.loads(info.read_text())
        valid = (results / "check" / f"{source}-{name}.ok").exists()
        res_ok = results / "check" / f"residual-{name}.ok"
        residual = "-"
        if source == "gen":
            log = results / "logs" / f"residual-{name}.log"
            residual = "ok" if res_ok.exists() else ("FAIL" if log.exists() else "-")
        banner = j["banner"].split()
        rl = j["row_length"]
        rows.append([
            f"{source}/{name}", " ".join(banner[2:]), f'{j["rows"]}x{j["cols"]}',
            str(j["nnz_stored"]), str(j["nnz_expanded"]), j["numeric_symmetry"],
            f'{rl["min"]}/{float(rl["mean"]):.1f}/{rl["max"]}', j["diagonal_dominance"],
            "ok" if valid else "FAIL", residual,
        ])
    head = ["matrix", "format field symmetry", "size", "stored", "expanded", "numeric sym",
            "row len min/mean/max", "diag dom", "validate", "residual"]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"
    print(f"# mmtools pipeline summary ({len(rows)} matrices)\n")
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    bad = [r[0] for r in rows if r[8] != "ok" or r[9] == "FAIL"]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} matrices passed every check" +
          (f"; failed: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "results")))
