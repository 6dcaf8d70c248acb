// mmcheck: statistics, validation, checks (compare, residual, LU) and spy pictures of .mtx files.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "analysis/check.hpp"
#include "analysis/png.hpp"
#include "analysis/spy.hpp"
#include "mm/cli.hpp"
#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/mtx.hpp"
#include "mm/timing.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"

namespace {

constexpr const char* kDescription =
    "Inspects and checks Matrix Market files.\n"
    "  info A         sizes, stored/expanded nnz, numeric symmetry, row lengths, empty rows,\n"
    "                 diagonal dominance, bandwidth, value range, memory estimate (--json)\n"
    "  validate A...  read (exit 3 naming FILE:LINE when malformed); warnings on standard\n"
    "                 error for values on pattern entry lines (read and ignored, as SciPy\n"
    "                 and SuiteSparse do; refused with --strict), duplicates, explicit\n"
    "                 zeros, entries above the diagonal of symmetric kinds, non-finite values\n"
    "  compare A B    entrywise after expanding symmetry and summing duplicates (missing\n"
    "                 entries are 0); exit 1 unless every |a-b| <= atol + rtol*|b|\n"
    "  residual A x b\n"
    "                 max over columns of ||Ax-b||_2 / (||A||_F ||x||_2 + ||b||_2);\n"
    "                 exit 1 unless <= tol (x and b may have several columns)\n"
    "  lu A LU piv    ||PA-LU||_F / ||A||_F; LU is n x n with unit-lower L below the\n"
    "                 diagonal and U on and above it, piv an n x 1 'array integer' file of\n"
    "                 LAPACK ipiv (1-based; row i swapped with row piv[i], i = 1..n in order);\n"
    "                 exit 1 unless <= tol, exit 3 for bad pivots\n"
    "  spy A -o A.png the sparsity pattern as a grayscale PNG, --size pixels at most a side\n"
    "                 (caption with rows, cols and nnz included), rows:cols kept; a matrix\n"
    "                 smaller than that gets whole pixels per entry, a larger one a pixel per\n"
    "                 block shaded by --shade; symmetric kinds drawn with both triangles,\n"
    "                 array files by their nonzero values; a 0 x 0 matrix gives the caption";

constexpr const char* kExamples =
    "mmcheck info datasets/corpus/west0479.mtx\n"
    "gzip -dc A.mtx.gz | mmcheck info - --json\n"
    "mmcheck validate datasets/corpus/*.mtx\n"
    "mmcheck validate --strict A.mtx\n"
    "mmcheck compare C.mtx C_ref.mtx --rtol 1e-12 --atol 1e-300\n"
    "mmcheck residual A.mtx x.mtx b.mtx --tol 1e-12\n"
    "mmcheck lu A.mtx LU.mtx piv.mtx\n"
    "mmcheck spy datasets/corpus/bcsstk13.mtx -o bcsstk13.png\n"
    "mmgen powerlaw --n 100000 | mmcheck spy - --size 400 --shade fraction -o powerlaw.png";

struct Command {
  std::size_t min_files, max_files;
  std::vector<std::string> options;  // tool options that apply
};

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> c = {
      {"info", {1, 1, {"json"}}},
      {"validate", {1, SIZE_MAX, {"strict"}}},
      {"compare", {2, 2, {"json", "rtol", "atol"}}},
      {"residual", {3, 3, {"json", "tol"}}},
      {"lu", {3, 3, {"json", "tol"}}},
      {"spy", {1, 1, {"size", "shade"}}},
  };
  return c;
}

std::string display_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

std::int64_t file_bytes(const std::string& path) {
  std::error_code ec;
  const auto n = path == "-" ? 0 : std::filesystem::file_size(path, ec);
  return path == "-" || ec ? -1 : static_cast<std::int64_t>(n);
}

// --size and --shade; a PNG is not for a terminal: -o, or standard output redirected.
mm::spy::Options spy_options(const mm::Cli& cli) {
  mm::spy::Options o;
  if (cli.has("size")) o.size = cli.get<int>("size");
  if (o.size < mm::spy::kMinSize || o.size > mm::spy::kMaxSize)
    throw mm::UsageError("--size " + std::to_string(o.size) + ": expected " +
                         std::to_string(mm::spy::kMinSize) + ".." +
                         std::to_string(mm::spy::kMaxSize) + " pixels");
  const std::string shade = cli.has("shade") ? cli.get<std::string>("shade") : "log";
  if (shade != "log" && shade != "fraction")
    throw mm::UsageError("--shade '" + shade + "': expected log or fraction");
  o.shade = shade == "log" ? mm::spy::Shade::log : mm::spy::Shade::fraction;
  const auto& c = cli.common();
  if (!c.quiet && c.output == "-" && isatty(STDOUT_FILENO))
    throw mm::UsageError("spy writes a PNG image: give -o FILE.png or redirect standard output");
  return o;
}

// What COMMAND holds for its input number K beside the reader's storage. info and validate:
// in proportion to the entries, never to the dimensions (a hypersparse file is described in
// the memory its entries take); compare and residual: the expanded CSR and dense vectors; lu:
// A and LU dense; spy: the picture.
void plan_command(const std::string& command, const mm::PlanInput& in, std::size_t k,
                  const mm::spy::Options& spy, mm::MemoryPlan& plan) {
  const double v = in.h.field == mm::Field::complex ? 16 : 8;
  const double rows = static_cast<double>(in.h.rows);
  if (command == "info") {
    plan.add(in.name + " statistics",
             mm::coo_bytes(in.expanded, 8, v) + in.expanded * 8 + in.expanded * (8 + v));
  } else if (command == "validate") {
    plan.add(in.name + " entries sorted", in.entries * 8);
  } else if (command == "compare" || (command == "residual" && k == 0)) {
    mm::plan_csr(plan, in, 8, v);
  } else if (command == "residual") {
    mm::plan_dense(plan, in, v);
    if (k == 1) plan.add("a column of x and A x", 2 * rows * v);
  } else if (command == "lu" && k < 2) {
    mm::plan_dense(plan, in, v);
  } else if (command == "lu") {
    plan.add("pivots", rows * 8);
  } else if (command == "spy") {
    plan.add("the picture", static_cast<double>(spy.size) * spy.size * 9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return mm::run_tool("mmcheck", argc, argv, [](int argc, char** argv) {
    namespace check = mm::check;
    mm::Cli cli("mmcheck", "info|validate|compare|residual|lu|spy FILES... [options]", kDescription,
                kExamples);
    cli.options()("json", mm::po::bool_switch(), "one JSON object instead of 'key: value' lines")(
        "rtol", mm::po::value<double>(), "compare: relative tolerance (default 1e-9)")(
        "atol", mm::po::value<double>(), "compare: absolute tolerance (default 0)")(
        "tol", mm::po::value<double>(),
        "residual: bound on the relative residual (default 1e-10); lu: bound on "
        "||PA-LU||_F/||A||_F (default 100*n*eps)")(
        "strict", mm::po::bool_switch(),
        "validate: refuse a value on a pattern entry line (exit 3) instead of a warning")(
        "size", mm::po::value<int>(),
        "spy: the picture's longest side in pixels at most, 32..4096 (default 1000)")(
        "shade", mm::po::value<std::string>(),
        "spy: a pixel covering a block of entries: log (its entry count on a log scale up to "
        "the fullest block; default) or fraction (of its positions holding an entry)");
    cli.positional("command", 1);
    cli.positional("files", -1);
    if (!cli.parse(argc, argv)) return 0;
    const auto& common = cli.common();

    const auto cmd_args = cli.positionals("command");
    if (cmd_args.empty())
      throw mm::UsageError("missing command: info, validate, compare, residual, lu or spy");
    const std::string cmd = cmd_args[0];
    const auto it = commands().find(cmd);
    if (it == commands().end())
      throw mm::UsageError("unknown command '" + cmd +
                           "': expected info, validate, compare, residual, lu or spy");
    const Command& spec = it->second;
    const auto files = cli.positionals("files");
    if (files.size() < spec.min_files || files.size() > spec.max_files) {
      const std::string want = spec.max_files == SIZE_MAX
                                   ? "at least " + std::to_string(spec.min_files)
                                   : std::to_string(spec.min_files);
      throw mm::UsageError(cmd + " takes " + want + (spec.min_files == 1 ? " file" : " files") +
                           ", got " + std::to_string(files.size()) + " (see mmcheck --help)");
    }
    for (const char* opt : {"json", "rtol", "atol", "tol", "strict", "size", "shade"}) {
      const std::string o = opt;
      const bool given = o == "json" || o == "strict" ? cli.get<bool>(o) : cli.has(opt);
      if (given && std::find(spec.options.begin(), spec.options.end(), opt) == spec.options.end())
        throw mm::UsageError(std::string("--") + opt + " does not apply to mmcheck " + cmd);
    }
    const bool json = cli.get<bool>("json");
    const auto spy_opt = cmd == "spy" ? spy_options(cli) : mm::spy::Options{};

    mm::TimingRecord rec("mmcheck");
    rec.impl(cmd);
    mm::ReadOptions ropt;
    ropt.threads = mm::thread_count(common.threads);
    ropt.strict = cli.get<bool>("strict");
    std::vector<mm::MtxMatrix> in;
    mm::Stopwatch watch;
    double read_s = 0;
    mm::ToolPlan plan;
    auto read = [&](const std::string& path) {
      watch.restart();
      if (cmd == "validate") plan = mm::ToolPlan{};  // one file in memory at a time
      ropt.on_header = [&](const mm::MtxHeader& h, long long bytes) {
        const auto pi = mm::plan_read(plan.host, h, display_name(path), bytes, ropt);
        plan_command(cmd, pi, in.size(), spy_opt, plan.host);
        mm::check_plan(plan, common);
      };
      in.push_back(mm::read_mtx(path, ropt));
      read_s += watch.seconds();
      const auto& h = in.back().header;
      rec.input(path, h.rows, h.cols, h.nnz, file_bytes(path));
    };

    std::string report;
    int status = 0;
    double compute_s = 0;
    if (cmd == "validate") {
      // One file at a time: the first malformed one ends the run with exit 3.
      for (const auto& path : files) {
        read(path);
        watch.restart();
        const auto warnings = check::validate(in.back());
        compute_s += watch.seconds();
        const std::string name = display_name(path);
        for (const auto& w : warnings)
          std::cerr << "mmcheck: warning: " << name << ": " << w.message << "\n";
        const auto& h = in.back().header;
        report += name + ": valid (" + std::string(mm::to_string(h.format)) + " " +
                  std::string(mm::to_string(h.field)) + " " +
                  std::string(mm::to_string(h.symmetry)) + ", " + std::to_string(h.rows) + " x " +
                  std::to_string(h.cols) + ", " + std::to_string(h.nnz) + " stored entries, " +
                  std::to_string(warnings.size()) +
                  (warnings.size() == 1 ? " warning)\n" : " warnings)\n");
        in.clear();  // keep one matrix in memory at a time
      }
    } else {
      for (const auto& path : files) {
        read(path);
        mm::warn_read("mmcheck", path, in.back());
      }
      watch.restart();
      nlohmann::json j;
      if (cmd == "info") {
        const auto r = check::info(in[0]);
        j = check::to_json(r);
        j["file"] = display_name(files[0]);
        report = json ? "" : "file: " + display_name(files[0]) + "\n" + check::to_text(r);
      } else if (cmd == "compare") {
        check::CompareOptions o;
        if (cli.has("rtol")) o.rtol = cli.get<double>("rtol");
        if (cli.has("atol")) o.atol = cli.get<double>("atol");
        if (!(o.rtol >= 0) || !(o.atol >= 0))
          throw mm::UsageError("--rtol and --atol must be >= 0");
        const auto r = check::compare(in[0], in[1], o);
        j = check::to_json(r);
        report = check::to_text(r);
        status = r.pass ? 0 : 1;
      } else if (cmd == "residual") {
        const double tol = cli.has("tol") ? cli.get<double>("tol") : check::default_residual_tol;
        const auto r = check::residual(in[0], in[1], in[2], tol);
        j = check::to_json(r);
        report = check::to_text(r);
        status = r.pass ? 0 : 1;
      } else if (cmd == "spy") {
        report = mm::encode_png(mm::spy::draw(in[0], spy_opt).image);
      } else {  // lu
        const std::int64_t n = in[0].header.rows;
        if (!in[0].header.is_square())
          throw mm::InputError(display_name(files[0]), 0,
                               "lu: A must be square, not " + std::to_string(n) + " x " +
                                   std::to_string(in[0].header.cols));
        const auto ipiv = check::read_pivots(in[2], n, display_name(files[2]));
        const double tol = cli.has("tol") ? cli.get<double>("tol") : check::default_lu_tol(n);
        const auto r = check::lu_check(in[0], in[1], ipiv, tol, ropt.threads);
        j = check::to_json(r);
        report = check::to_text(r);
        status = r.pass ? 0 : 1;
      }
      compute_s = watch.seconds();
      if (json) report = j.dump() + "\n";  // one line: fits JSON-lines pipelines
    }
    rec.phase("read", read_s).phase("compute", compute_s);
    if (common.verbose)
      std::cerr << "mmcheck: " << cmd << ": read " << read_s << " s, compute " << compute_s
                << " s\n";

    watch.restart();
    if (!common.quiet) {
      mm::OutputStream out(common.output);
      out.write(report);
      out.commit();
    }
    rec.phase("write", watch.seconds());
    rec.extra("exit_status", status);
    rec.emit(common.timing);
    return status;
  });
}
