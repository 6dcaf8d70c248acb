#!/usr/bin/env python3
"""Predicted weak-scaling efficiency of distributed CG, SpMV and Jacobi on a 3D 7-point Poisson
grid (docs/scaling.md gives the model and where each constant comes from).

  scaling_model.py [--gpu h100|h200] [--rows-per-gpu M] [--gpus 1,2,4,8,64]

Each constant is an argument, so a measured value (a run's bandwidth, allreduce latency, halo
time) replaces the assumed one and the table is recomputed."""
import argparse
import math

BW = {"h100": 2.99e12, "h200": 4.21e12}  # cudaMemcpy device-to-device, read + write (B/s)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpu", choices=BW, default="h100")
    p.add_argument("--bw-fraction", type=float, default=0.85,
                   help="fraction of copy bandwidth the local kernels reach (measured spmv: 0.84-0.91)")
    p.add_argument("--rows-per-gpu", type=float, default=243**3, help="n^3 grid points a GPU")
    p.add_argument("--gpus", default="1,2,4,8,64")
    p.add_argument("--gpus-per-node", type=int, default=8)
    p.add_argument("--nvlink", type=float, default=450e9, help="B/s a direction between two GPUs")
    p.add_argument("--ib", type=float, default=25e9, help="B/s a direction a GPU across nodes (200 Gb/s)")
    p.add_argument("--link-latency", type=float, default=10e-6, help="s a message (launch + transport)")
    p.add_argument("--allreduce-node", type=float, default=15e-6, help="s a small allreduce in a node")
    p.add_argument("--allreduce-hop", type=float, default=8e-6, help="s more a doubling across nodes")
    # 40 us: measured on two H200s (NVLink, NCCL), the halo's launches, events and boundary
    # planes' sweeps that no interior work hides (docs/scaling.md; assumed 10 us before).
    p.add_argument("--exposed", type=float, default=40e-6, help="s of pack/unpack launches not overlapped")
    a = p.parse_args()

    bw = BW[a.gpu] * a.bw_fraction
    m = a.rows_per_gpu
    n = round(m ** (1 / 3))
    spmv_b, vec_b = 104, 128  # bytes a row: CSR 7 x (8 + 4) + 4 + x 8 + y 8; PCG vector updates
    t_spmv = m * spmv_b / bw
    t_vec = m * vec_b / bw
    print(f"# {a.gpu}: {bw / 1e12:.2f} TB/s effective, {m / 1e6:.1f} M rows a GPU (n = {n}), "
          f"SpMV {t_spmv * 1e3:.3f} ms, PCG vectors {t_vec * 1e3:.3f} ms")
    print("| GPUs | layout | halo bytes a direction | halo s | exposed s | allreduce s (x2 a CG it.) "
          "| E(spmv) | E(cg) | E(jacobi) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for P in map(int, a.gpus.split(",")):
        if P == 1:
            print("| 1 | - | 0 | 0 | 0 | 0 | 1.00 | 1.00 | 1.00 |")
            continue
        inter = P > a.gpus_per_node
        # Slabs in a node (an inner slab has two faces; with two GPUs each has one), boxes beyond.
        faces = 1 if P == 2 else 2 if P <= a.gpus_per_node else 6
        halo_bytes = faces * n * n * 8
        link = a.ib if inter else a.nvlink
        t_halo = a.link_latency + halo_bytes / link
        # The halo overlaps the diagonal-block product (nearly all of the SpMV); what it does not
        # hide shows, plus the pack/unpack launches.
        t_exp = max(0.0, t_halo - t_spmv) + a.exposed
        hops = math.log2(P / a.gpus_per_node) if inter else 0
        t_ar = a.allreduce_node + hops * a.allreduce_hop
        e_spmv = t_spmv / (t_spmv + t_exp)
        e_cg = (t_spmv + t_vec) / (t_spmv + t_vec + t_exp + 2 * t_ar)
        t_jac = m * 16 / bw  # one Jacobi sweep: read + write a value a point
        e_jac = t_jac / (t_jac + t_exp)  # the norm's allreduce every --check-every sweeps: omitted
        print(f"| {P} | {'boxes' if inter else 'slabs'} | {halo_bytes / 1e6:.2f} MB | "
              f"{t_halo * 1e6:.0f} us | {t_exp * 1e6:.0f} us | {2 * t_ar * 1e6:.0f} us | "
              f"{e_spmv:.3f} | {e_cg:.3f} | {e_jac:.3f} |")


if __name__ == "__main__":
    main()
