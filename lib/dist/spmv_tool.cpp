// mmspmv under mpirun: read across the ranks, partition, halo plan, timed product, output.
#include "dist/spmv_tool.hpp"

#include <omp.h>

#include <iostream>
#include <memory>
#include <optional>

#include "dist/agree.hpp"
#include "dist/dist_csr.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/gpu.hpp"
#include "dist/options.hpp"
#include "dist/read.hpp"
#include "dist/report.hpp"
#include "dist/vector.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"
#include "mm/tool_io.hpp"

namespace mm::dist {

namespace {

// x, y0 and y where the ranks' product reads and writes them: the host vectors on CPU ranks,
// device copies on GPU ranks (x and y0 uploaded once; fetch() brings y back).
template <class T>
class Operands {
 public:
  Operands(const GpuRanks* gpu, const std::vector<T>& x, const std::vector<T>& y0,
           std::size_t rows) {
    if (!gpu) return;
    const auto ops = make_gpu_vector_ops<T>(*gpu, 0, {});
    dx_ = ops->vector(static_cast<std::int64_t>(x.size()));
    dx_->load(x.data());
    dy_ = ops->vector(static_cast<std::int64_t>(rows));
    if (!y0.empty()) {
      dy0_ = ops->vector(static_cast<std::int64_t>(y0.size()));
      dy0_->load(y0.data());
    }
  }
  const T* x(const std::vector<T>& host) const { return dx_ ? dx_->data() : host.data(); }
  const T* y0(const std::vector<T>& host) const { return dy0_ ? dy0_->data() : host.data(); }
  T* y(std::vector<T>& host) const { return dy_ ? dy_->data() : host.data(); }
  void fetch(std::vector<T>& y) const {
    if (dy_) dy_->store(y.data());
  }

 private:
  std::unique_ptr<KrylovVector<T>> dx_, dy_, dy0_;
};

}  // namespace

int spmv_tool(const Cli& cli) {
  const Comm& comm = world();
  const CommonOptions& c = cli.common();
  const DistOptions o = agree(comm, [&] { return parse_options(cli); });
  const auto files = cli.positionals("files");
  const std::string xkind = cli.has("x") ? cli.get<std::string>("x") : "";
  const double beta = cli.get<double>("beta");
  // GPU ranks: each rank bound to its GPU before any other CUDA work, the transport set up.
  const std::shared_ptr<GpuRanks> gpu = o.gpu ? open_gpu_ranks(comm, o.comm) : nullptr;
  say_ranks(comm, c, "mmspmv", "", gpu.get());
  if (gpu && c.verbose) print_ranked(comm, "mmspmv: " + gpu->describe());

  TimingRecord rec("mmspmv");
  rec.precision(c.precision);
  // 1. Read: A across the ranks, x and y0 by rank 0 (their headers everywhere).
  // The rank's plan besides its share of A: x (its part and at most as much halo), y (and
  // y0); on rank 0 the x and y0 files read whole and y gathered for -o.
  const bool has_y0 = cli.has("y0");
  DistRead a =
      read_tool_matrix(comm, files[0], c, "mmspmv", [&](const MtxHeader& h, MemoryPlan& p) {
        const double ranks = comm.size(), v = h.field == Field::complex ? 16 : 8;
        const double rows = static_cast<double>(h.rows), cols = static_cast<double>(h.cols);
        p.add("x (this rank's part and halo)", 2 * cols / ranks * v);
        p.add(has_y0 ? "y, y0" : "y", rows / ranks * v * (has_y0 ? 2 : 1));
        if (!comm.root()) return;
        if (files.size() == 2) p.add("x as read by rank 0", 2 * cols * v);
        if (has_y0) p.add("y0 as read by rank 0", 2 * rows * v);
        if (!o.per_rank) p.add("y gathered on rank 0", rows * v);
      });
  std::optional<Input> xin, y0in;
  if (files.size() == 2) xin = load_on_root(comm, files[1], c, "mmspmv");
  if (cli.has("y0")) y0in = load_on_root(comm, cli.get<std::string>("y0"), c, "mmspmv");
  const double read_s =
      comm.allreduce(a.seconds + (xin ? xin->seconds : 0) + (y0in ? y0in->seconds : 0), Op::max);
  const MtxHeader h = a.header;
  if (c.verbose && comm.root())
    std::cerr << "mmspmv: read " << files[0] << ": " << h.banner().substr(15) << ", " << h.rows
              << " x " << h.cols << ", " << h.nnz << " stored entries, " << read_s << " s\n";
  rec.input(files[0], h.rows, h.cols, h.nnz, a.bytes);
  for (const auto* in : {&xin, &y0in})
    if (*in)
      rec.input((*in)->path, (*in)->m.header.rows, (*in)->m.header.cols, (*in)->m.header.nnz,
                (*in)->bytes);
  rec.phase("read", read_s);
  const bool complex = h.field == Field::complex ||
                       (xin && xin->m.header.field == Field::complex) ||
                       (y0in && y0in->m.header.field == Field::complex);

  return with_value_type(c.precision, complex, [&]<class T>() {
    return with_index_type(h.rows, h.cols, h.nnz * 2, [&]<class I>() {
      // 2. Partition (--partition rows|metis), entries routed to their owners, halo plan.
      Stopwatch w;
      Triplets<T> t = to_triplets<T>(a.part);
      a.part = MtxMatrix{};
      const RowOrder order = partition_rows(comm, h, t, o.partition, c, "mmspmv");
      const Partition& rows = order.rows;
      const Partition cols = column_partition(rows, h.rows, h.cols);
      t = route_to_owners(comm, rows, std::move(t));
      const DistCsr<I, T> m = build_dist_csr<I, T>(comm, h.rows, h.cols, rows, cols, t);
      t = Triplets<T>{};
      const double partition_s = comm.allreduce(w.seconds(), Op::max);

      // x and y0: this rank's blocks.
      const int me = comm.rank();
      const std::vector<T> x =
          xin ? scatter_vector<T>(comm, *xin, h.cols, "x", cols, order)
              : generated_slice<T>(xkind, cli.get<std::uint64_t>("seed"), cols, order, me);
      const std::vector<T> y0 =
          y0in ? scatter_vector<T>(comm, *y0in, h.rows, "y0", rows, order) : std::vector<T>{};
      if (c.verbose) print_ranked(comm, describe_rank("mmspmv", m, a));

      // GPU ranks: the blocks, x and y0 to the device.
      Stopwatch up;
      DistSpmv<I, T> op(comm, m, o.kernel, gpu.get());
      std::vector<T> y(static_cast<std::size_t>(m.local_rows()));
      const Operands<T> v(gpu.get(), x, y0, y.size());
      if (gpu) gpu->synchronize();
      const double h2d_s = comm.allreduce(up.seconds(), Op::max);

      // 3. The product, timed: every run starts together, each counts as its slowest rank.
      const T alpha = T(cli.get<double>("alpha")), b = T(beta);
      auto run = [&] {
        op.apply(v.x(x), v.y(y), alpha, b, y0.empty() ? nullptr : v.y0(y0));
        if (gpu) gpu->synchronize();
      };
      for (int i = 0; i < c.warmup; ++i) run();
      std::vector<double> times, exchange;
      for (int i = 0; i < c.repeat; ++i) {
        comm.barrier();
        Stopwatch t1;
        run();
        times.push_back(t1.seconds());
        exchange.push_back(op.exchange_seconds());
      }
      const PhaseStats compute = slowest(comm, times);
      const PhaseStats exch = slowest(comm, exchange);
      Stopwatch down;
      v.fetch(y);
      const double d2h_s = comm.allreduce(down.seconds(), Op::max);

      // The whole matrix's work, as the one-process tool counts it; the balance of the ranks.
      const std::int64_t nnz = comm.allreduce(m.local_nnz(), Op::sum);
      const std::int64_t max_nnz = comm.allreduce(m.local_nnz(), Op::max);
      const std::int64_t halo = comm.allreduce(m.plan.halo_size(), Op::sum);
      const double s = sizeof(T), i = sizeof(I);
      const double flops = (is_complex_v<T> ? 8.0 : 2.0) * static_cast<double>(nnz);
      const double bytes = static_cast<double>(nnz) * (s + i) +
                           static_cast<double>(h.rows + 1) * i + static_cast<double>(h.cols) * s +
                           static_cast<double>(h.rows) * s * (beta != 0 ? 2 : 1);
      if (c.verbose && comm.root())
        std::cerr << "mmspmv: " << to_string(o.kernel) << " on " << comm.size() << " ranks: median "
                  << compute.median << " s over " << compute.repeats << " runs (halo exchange "
                  << exch.median << " s outside the overlap)\n";

      // 4. Write: gathered to rank 0, or a file a rank.
      const double write_s = comm.allreduce(
          o.per_rank ? write_per_rank(comm, y, order, c) : write_gathered(comm, y, order, c),
          Op::max);

      rec.impl(to_string(o.kernel)).work(flops, bytes);
      if (gpu) rec.device(gpu->device_name());
      rec.phase("partition", partition_s).phase("exchange", exch.median);
      if (gpu) rec.phase("h2d", h2d_s).phase("d2h", d2h_s);
      rec.phase("compute", compute).phase("write", write_s);
      rec.extra("ranks", comm.size()).extra("transport", transport(comm, gpu.get()));
      record_order(rec, order);
      rec.extra(
          "load_imbalance",
          nnz > 0 ? static_cast<double>(max_nnz) * comm.size() / static_cast<double>(nnz) : 1.0);
      rec.extra("halo_values", halo);
      agree(comm, [&] {
        if (comm.root()) rec.emit(c.timing);
      });
      return 0;
    });
  });
}

}  // namespace mm::dist
