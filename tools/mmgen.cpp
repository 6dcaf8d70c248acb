// mmgen: writes generated Matrix Market files, deterministic for a seed, and rhs vectors.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "analysis/generate.hpp"
#include "analysis/generate_rhs.hpp"
#include "mm/cli.hpp"
#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/mtx.hpp"
#include "mm/timing.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"

namespace {

constexpr const char* kDescription =
    "Writes a generated matrix or vector. The same --seed gives byte-identical output on\n"
    "every run, machine and thread count. Kinds:\n"
    "  dense      uniform values in --lo..--hi (array format unless --format coordinate)\n"
    "  sparse     uniform random: --density D or --nnz-per-row K (default 10)\n"
    "  powerlaw   Pareto row lengths (--alpha, default 2.5) with mean --nnz-per-row\n"
    "  banded     every entry with |i-j| <= --bandwidth (default 1)\n"
    "  poisson2d  5-point Laplacian on an N x N grid (--n N): N^2 x N^2, 4 / -1\n"
    "  poisson3d  7-point Laplacian on an N^3 grid: N^3 x N^3, 6 / -1\n"
    "  spd        symmetric positive definite: random sparse symmetric, diagonal larger\n"
    "             than the row's absolute sum; lower triangle stored (dense with --format array)\n"
    "  diagdom    strictly diagonally dominant general matrix\n"
    "  identity   ones on the diagonal\n"
    "  vector     N x 1 array: --kind ones|random|range\n"
    "  rhs        mmgen rhs A.mtx: b = A * x_true for x_true --x ones|random|range;\n"
    "             writes b, and x_true with --x-out\n"
    "Sizes: --n N (square) or --rows R --cols C. Random values lie in [--lo, --hi): by\n"
    "default [0, 1), [-1, 1) for spd and diagdom; integer field: 1..9 (-9..9 for spd and\n"
    "diagdom), both ends included.";

constexpr const char* kExamples =
    "mmgen sparse --rows 1000000 --cols 1000000 --nnz-per-row 10 --seed 7 -o A.mtx\n"
    "mmgen poisson2d --n 100 -o P.mtx.gz\n"
    "mmgen spd --n 5000 --nnz-per-row 20 --field integer -o S.mtx\n"
    "mmgen dense --rows 300 --cols 200 --lo -1 --hi 1 | mmcheck -\n"
    "mmgen vector --n 1000 --kind random --seed 3 -o x.mtx\n"
    "mmgen rhs A.mtx --x random -o b.mtx --x-out x.mtx\n";

template <class T>
std::optional<T> optional_value(const mm::Cli& cli, const std::string& name) {
  if (!cli.has(name)) return std::nullopt;
  return cli.get<T>(name);
}

// Parsed here rather than by Boost, which wraps "-1" around to 2^64-1.
std::uint64_t seed_of(const mm::Cli& cli) {
  const auto s = cli.get<std::string>("seed");
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    throw mm::UsageError("--seed must be a whole number in 0 .. 2^64-1, not '" + s + "'");
  return v;
}

std::string describe(const mm::MtxHeader& h) {
  std::ostringstream s;
  s << h.rows << " x " << h.cols << ", " << h.nnz << " entries (" << to_string(h.format) << " "
    << to_string(h.field) << " " << to_string(h.symmetry) << ")";
  return s.str();
}

// The generator's plan, from the header it counted: a block of entries (about 2^20) and the
// writer's buffers; spd also its per-row sums (sparse: three numbers a row and a pass's block
// of 2^16 rows; dense: the diagonal). Checked before anything is generated.
void check_generator_plan(const mm::MtxHeader& h, const std::string& kind,
                          const mm::CommonOptions& c) {
  mm::ToolPlan plan;
  const bool coo = h.format == mm::Format::coordinate;
  const double value = h.field == mm::Field::pattern ? 0 : h.field == mm::Field::complex ? 16 : 8;
  const double entry = (coo ? 16 : 0) + value, nnz = static_cast<double>(h.nnz);
  const double rows = static_cast<double>(h.rows);
  plan.host.add("a block of entries", std::min(nnz, 1048576.0) * entry);
  if (!c.quiet)
    plan.host.add("write buffers", std::min(nnz, 65536.0 * mm::thread_count(c.threads)) * 96);
  if (kind == "spd" && coo) {
    const double per_row = rows > 0 ? nnz / rows : 0;
    plan.host.add("row sums", rows * 24 + std::min(rows, 65536.0) * per_row * 40);
  } else if (kind == "spd") {
    plan.host.add("the diagonal", rows * 8);
  }
  mm::check_plan(plan, c);
}

// mmgen rhs A.mtx: read A completely before any output is opened, so a bad A leaves
// nothing behind.
int run_rhs(const mm::Cli& cli, const std::string& input) {
  const auto& c = cli.common();
  for (const char* o : {"rows", "cols", "n", "density", "nnz-per-row", "alpha", "bandwidth",
                        "field", "symmetry", "format", "kind"})
    if (cli.has(o)) throw mm::UsageError(std::string("--") + o + " does not apply to rhs");
  const std::string x_out = cli.has("x-out") ? cli.get<std::string>("x-out") : "";
  if (!x_out.empty() && (x_out == c.output || (x_out == "-" && c.output.empty())))
    throw mm::UsageError("--x-out and -o name the same output '" + x_out + "'");
  const std::string x_kind = cli.get<std::string>("x");
  if ((cli.has("lo") || cli.has("hi")) && x_kind != "random")
    throw mm::UsageError("--lo/--hi apply only to --x random");

  mm::TimingRecord rec("mmgen");
  rec.impl("rhs");
  mm::Stopwatch w;
  mm::ReadOptions ropt{c.threads, std::size_t{1} << 20};
  // The plan, from A's header: A as read and as CSR (64-bit indices), x_true, A x_true, b and
  // x_true to write.
  ropt.on_header = [&](const mm::MtxHeader& h, long long bytes) {
    mm::ToolPlan plan;
    const mm::PlanInput in = mm::plan_read(plan.host, h, input, bytes, ropt);
    const bool complex = h.field == mm::Field::complex;
    const double v = complex ? 16 : 8, rows = static_cast<double>(h.rows),
                 cols = static_cast<double>(h.cols);
    mm::plan_csr(plan.host, in, 8, v);
    plan.host.add("x_true", cols * (8 + v));
    plan.host.add("A x_true", rows * v);
    mm::plan_output(plan.host, "b", rows, false, complex, mm::thread_count(c.threads));
    plan.host.add("x_true to write", x_out.empty() ? 0 : cols * 8);
    mm::check_plan(plan, c);
  };
  const mm::MtxMatrix a = mm::read_mtx(input, ropt);
  mm::warn_read("mmgen", input, a);
  rec.phase("read", w.seconds());
  std::error_code ec;
  const auto bytes = input == "-" ? std::uintmax_t(0) : std::filesystem::file_size(input, ec);
  rec.input(input, a.header.rows, a.header.cols, a.header.nnz,
            ec ? -1 : static_cast<std::int64_t>(bytes));
  w.restart();
  const mm::RhsResult r =
      mm::make_rhs(a, x_kind, seed_of(cli), optional_value<double>(cli, "lo").value_or(0.0),
                   optional_value<double>(cli, "hi").value_or(1.0));
  rec.phase("generate", w.seconds());
  w.restart();
  if (!c.quiet) {
    mm::OutputStream ob(c.output);
    std::optional<mm::OutputStream> ox;
    if (!x_out.empty()) ox.emplace(x_out);
    const mm::WriteOptions wo{mm::thread_count(c.threads)};
    mm::write_mtx(ob, r.b, wo);
    if (ox) mm::write_mtx(*ox, r.x, wo);
    ob.commit();
    if (ox) ox->commit();
  }
  rec.phase("write", w.seconds());
  if (c.verbose)
    std::cerr << "mmgen: rhs of " << input << " (" << describe(a.header) << "), x_true " << x_kind
              << ": b " << r.b.header.rows << " x 1 " << to_string(r.b.header.field) << "\n";
  rec.emit(c.timing);
  return 0;
}

int run_generate(const mm::Cli& cli, const std::string& kind) {
  const auto& c = cli.common();
  for (const char* o : {"x-out"})
    if (cli.has(o)) throw mm::UsageError(std::string("--") + o + " applies only to rhs");
  if (!cli.vm()["x"].defaulted()) throw mm::UsageError("--x applies only to rhs");
  mm::GenOptions g;
  g.kind = kind;
  g.seed = seed_of(cli);
  g.rows = optional_value<std::int64_t>(cli, "rows");
  g.cols = optional_value<std::int64_t>(cli, "cols");
  g.n = optional_value<std::int64_t>(cli, "n");
  g.density = optional_value<double>(cli, "density");
  g.nnz_per_row = optional_value<double>(cli, "nnz-per-row");
  g.alpha = optional_value<double>(cli, "alpha");
  g.bandwidth = optional_value<std::int64_t>(cli, "bandwidth");
  g.lo = optional_value<double>(cli, "lo");
  g.hi = optional_value<double>(cli, "hi");
  if (auto f = optional_value<std::string>(cli, "field")) g.field = mm::parse_field(*f, "--field");
  if (auto s = optional_value<std::string>(cli, "symmetry"))
    g.symmetry = mm::parse_symmetry(*s, "--symmetry");
  if (auto f = optional_value<std::string>(cli, "format"))
    g.format = mm::parse_format(*f, "--format");
  g.vector_kind = optional_value<std::string>(cli, "kind");

  mm::TimingRecord rec("mmgen");
  rec.impl(kind);
  const auto gen = mm::make_generator(g, c.threads);
  check_generator_plan(gen->header(), kind, c);
  mm::GenTimes t;
  if (c.quiet) {
    t = mm::generate_to(*gen, nullptr, c.threads);
  } else {
    mm::OutputStream out(c.output);
    t = mm::generate_to(*gen, &out, c.threads);
    mm::Stopwatch w;
    out.commit();
    t.write += w.seconds();
  }
  const mm::MtxHeader& h = gen->header();
  rec.phase("generate", t.generate).phase("write", t.write);
  rec.extra("output", {{"path", c.output}, {"rows", h.rows}, {"cols", h.cols}, {"nnz", h.nnz}});
  rec.extra("seed", g.seed);
  if (c.verbose)
    std::cerr << "mmgen: " << kind << " " << describe(h) << ", seed " << g.seed << "; generate "
              << t.generate << " s, write " << t.write << " s\n";
  rec.emit(c.timing);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mm::run_tool("mmgen", argc, argv, [](int argc, char** argv) {
    namespace po = mm::po;
    mm::Cli cli("mmgen", "KIND [options]  |  mmgen rhs A.mtx [options]", kDescription, kExamples);
    cli.positional("generator", 1).positional("input", 1);
    // clang-format off
    cli.options()
        ("seed", po::value<std::string>()->default_value("1"), "random seed, 0 .. 2^64-1")
        ("n", po::value<std::int64_t>(), "size: N x N (poisson: grid points per side; vector: length)")
        ("rows", po::value<std::int64_t>(), "rows")
        ("cols", po::value<std::int64_t>(), "columns (default: --rows)")
        ("density", po::value<double>(), "fraction of entries stored per row (sparse kinds)")
        ("nnz-per-row", po::value<double>(), "mean stored entries per row (default 10)")
        ("alpha", po::value<double>(), "powerlaw: Pareto exponent, > 1 (default 2.5)")
        ("bandwidth", po::value<std::int64_t>(), "banded: half bandwidth b (default 1)")
        ("lo", po::value<double>(), "smallest random value")
        ("hi", po::value<double>(), "largest random value")
        ("field", po::value<std::string>(), "real|integer|complex|pattern (default real)")
        ("symmetry", po::value<std::string>(), "general|symmetric (default general; spd: symmetric)")
        ("format", po::value<std::string>(), "coordinate|array (default: array for dense and vector)")
        ("kind", po::value<std::string>(), "vector: ones|random|range (default ones)")
        ("x", po::value<std::string>()->default_value("ones"), "rhs: x_true ones|random|range")
        ("x-out", po::value<std::string>(), "rhs: also write x_true to this path");
    // clang-format on
    if (!cli.parse(argc, argv)) return 0;
    const auto kinds = cli.positionals("generator");
    if (kinds.empty()) throw mm::UsageError("no KIND given (see mmgen --help)");
    const auto inputs = cli.positionals("input");
    if (kinds[0] == "rhs") {
      if (inputs.empty()) throw mm::UsageError("rhs needs the matrix: mmgen rhs A.mtx");
      return run_rhs(cli, inputs[0]);
    }
    if (!inputs.empty()) throw mm::UsageError("unexpected argument '" + inputs[0] + "'");
    return run_generate(cli, kinds[0]);
  });
}
