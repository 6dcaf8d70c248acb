#!/usr/bin/env python3
"""Writes the Makefile fragment that Makefile.pipeline includes: the variants of every
experiment, discovered from each tool's --list-impls, and the resolved device.
Standard library only. Usage: pipeline_impls.py BIN DEVICE OUT.mk

A variant is one implementation in one mode of a tool; for each the fragment sets
IMPL_<exp>_<variant> (the --impl name), DEV_<exp>_<variant> (cpu|cuda, from the listing)
and OPT_<exp>_<variant> (extra options: --in-place, --method M). DEVICE picks the variants:
cpu: the CPU ones; cuda: the CUDA ones plus the serial references (ref*), which give the
speedup column; all: every one. auto becomes cuda when a GPU answers, else cpu. New
implementations join without edits, as long as the tool lists them."""
import pathlib
import re
import subprocess
import sys

SOLVE_METHODS = ("lu", "umfpack", "cg", "bicgstab", "gmres")


def listing(tool: pathlib.Path) -> list[tuple[str, str, str, str]]:
    """(section, name, device, description) for each implementation line of --list-impls."""
    out = subprocess.run([str(tool), "--list-impls"], check=True, capture_output=True,
                         text=True).stdout
    rows, section = [], ""
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(cpu|cuda)\s+(.*)$", line)
        if m:
            rows.append((section, m[1], m[2], m[3]))
        elif line.strip():
            section = line.strip().rstrip(":")
    return rows


def variants(bin_dir: pathlib.Path) -> dict[str, list[tuple[str, str, str, str]]]:
    """experiment -> [(variant, impl, device, options)] in listing order."""
    v: dict[str, list[tuple[str, str, str, str]]] = {}

    def tool(name):
        return listing(bin_dir / name)

    # mmadd tags each implementation with the operand kinds it takes: dense+dense here.
    v["add"] = [(n, n, d, "") for s, n, d, desc in tool("mmadd")
                if not desc.startswith("[") or "dense+dense" in desc.split("]")[0]]
    v["mul"] = [(n, n, d, "--mode gemm") for s, n, d, _ in tool("mmmul") if s.startswith("gemm")]
    v["lu"] = [(n, n, d, "") for s, n, d, _ in tool("mmlu")]
    tr = []
    for s, n, d, _ in tool("mmtranspose"):
        if s.startswith("dense, out of place"):
            tr.append((n, n, d, ""))
        elif s.startswith("dense, in place"):
            tr.append((n if "inplace" in n else n + "-inplace", n, d, "--in-place"))
    v["transpose"] = tr
    v["spmv"] = [(n, n, d, "") for s, n, d, _ in tool("mmspmv")]
    # The heated room takes the stencil implementations only; the tool marks them.
    jac = [(n, n, d, "") for s, n, d, desc in tool("mmjacobi") if desc.startswith("--poisson")]
    v["jacobi"] = jac
    v["jacobi-tol"] = jac
    sol = []
    for s, n, d, _ in tool("mmsolve"):
        m = re.match(r"--method (\w+)", s)
        if m and m[1] in SOLVE_METHODS:
            sol.append((m[1] if n == m[1] else f"{m[1]}-{n}", n, d, f"--method {m[1]}"))
    v["solve"] = sol
    return v


def gpu_answers(bin_dir: pathlib.Path) -> bool:
    """A one-iteration heated room on the GPU: needs no input file and no output."""
    try:
        r = subprocess.run([str(bin_dir / "mmjacobi"), "--poisson2d", "8", "--max-iter", "1",
                            "--device", "cuda", "-q"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def main(bin_dir: pathlib.Path, device: str, out: pathlib.Path) -> int:
    if device not in ("auto", "cpu", "cuda", "all"):
        print(f"pipeline_impls: DEVICE must be auto, cpu, cuda or all, not '{device}'",
              file=sys.stderr)
        return 2
    gpu = gpu_answers(bin_dir) if device != "cpu" else False
    if device == "auto":
        device = "cuda" if gpu else "cpu"
    elif not gpu and device in ("cuda", "all"):
        print(f"pipeline_impls: DEVICE={device} but no GPU answers "
              f"({bin_dir}/mmjacobi --device cuda fails); use DEVICE=cpu or auto",
              file=sys.stderr)
        return 4
    lines = [f"# Written by scripts/pipeline_impls.py from {bin_dir}/*/--list-impls.",
             f"DEVICE_RESOLVED := {device}"]
    for exp, vs in variants(bin_dir).items():
        keep = [x for x in vs if device == "all" or x[2] == device or x[1].startswith("ref")]
        lines.append(f"VARIANTS_{exp} := {' '.join(x[0] for x in keep)}")
        # The oracle of the checks runs whatever DEVICE says.
        refs = [x[0] for x in vs if x[1] in ("ref", "ref-stencil") and not x[3].startswith(
            "--in-place")]
        lines.append(f"REFVAR_{exp} := {refs[0] if refs else ''}")
        for var, impl, dev, opt in vs:
            lines += [f"IMPL_{exp}_{var} := {impl}", f"DEV_{exp}_{var} := {dev}",
                      f"OPT_{exp}_{var} := {opt}"]
    tmp = out.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(out)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])))
