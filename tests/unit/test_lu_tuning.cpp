// LU's tuning: LuTuning's keys and parsing (host), the implementations that take no keys, and
// on a GPU what cuda-blocked (mmlu's and mmsolve --method lu's) reports from Runner::tuning()
// and, under --profile, Runner::profile().
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gpu.hpp"
#include "lu.hpp"
#include "mm/error.hpp"
#include "random_matrices.hpp"
#include "solve.hpp"
#include "tuning_helpers.hpp"

namespace mm {
namespace {

constexpr auto parse = test::parse_tuning<LuTuning>;
constexpr auto usage_error = test::tuning_usage_error<LuTuning>;

const std::vector<std::string> kKeys{
    "nb",       "leaf",     "cluster", "leaf_smem", "cluster_rows", "cluster_max_rows",
    "reg_rows", "exchange", "graph",   "trsm",      "pdl"};

TEST(LuTuning, KeysNameTheirValuesAndDefaults) {
  const TuneKeys& k = LuTuning::keys();
  std::vector<std::string> names;
  for (const auto& key : k.keys) names.push_back(key.name);
  EXPECT_EQ(names, kKeys);
  EXPECT_EQ(k.key("nb").allowed, "0..2048");
  EXPECT_EQ(k.key("nb").fallback,
            "0: 1024 from n = 24576, 512 from 12288, 256 from 8192, 128 from 2048, else 64");
  EXPECT_EQ(k.key("leaf").allowed, "cluster|grid");
  EXPECT_EQ(k.key("leaf").fallback, "cluster");
  EXPECT_EQ(k.key("cluster").allowed, "1|2|4|8|16");
  EXPECT_EQ(k.key("leaf_smem").allowed, "0..1048576");
  EXPECT_EQ(k.key("cluster_rows").fallback, "0: 64");
  EXPECT_EQ(k.key("cluster_max_rows").fallback, "0: 256");
  EXPECT_EQ(k.key("reg_rows").allowed, "auto|0..1048576");
  EXPECT_EQ(k.key("reg_rows").fallback, "auto: 1025");
  EXPECT_EQ(k.key("exchange").allowed, "push|sync");
  EXPECT_EQ(k.key("graph").allowed, "auto|on|off");
  EXPECT_EQ(k.key("trsm").allowed, "warp|cublas|inverse|split");
  EXPECT_EQ(k.key("trsm").fallback, "warp");
  EXPECT_EQ(k.key("pdl").allowed, "off|on");
  EXPECT_EQ(k.key("pdl").fallback, "on");
  // The sync exchange is a research leftover: its key is the one experimental.
  for (const auto& key : k.keys) {
    EXPECT_FALSE(key.meaning.empty()) << key.name;
    EXPECT_FALSE(key.fallback.empty()) << key.name;
    EXPECT_EQ(key.experimental, key.name == "exchange") << key.name;
  }
}

TEST(LuTuning, DefaultsAreTheCodesChoice) {
  const LuTuning t = parse({});
  EXPECT_EQ(t.nb, 0);
  EXPECT_EQ(t.leaf, LuTuning::Leaf::cluster);
  EXPECT_EQ(t.cluster, 0);
  EXPECT_EQ(t.leaf_smem, 0);
  EXPECT_EQ(t.cluster_rows, 0);
  EXPECT_EQ(t.cluster_max_rows, 0);
  EXPECT_EQ(t.reg_rows, -1);
  EXPECT_EQ(t.exchange, LuTuning::Exchange::push);
  EXPECT_EQ(t.graph, LuTuning::Graph::automatic);
  EXPECT_EQ(t.trsm, LuTuning::Trsm::warp);
  EXPECT_TRUE(t.pdl);
  EXPECT_EQ(t.to_json(), (nlohmann::json{{"nb", 0},
                                         {"leaf", "cluster"},
                                         {"cluster", 0},
                                         {"leaf_smem", 0},
                                         {"cluster_rows", 0},
                                         {"cluster_max_rows", 0},
                                         {"reg_rows", "auto"},
                                         {"exchange", "push"},
                                         {"graph", "auto"},
                                         {"trsm", "warp"},
                                         {"pdl", "on"}}));
}

TEST(LuTuning, FromTakesEachKey) {
  const LuTuning t = parse({"nb=96", "leaf=grid", "cluster=4", "leaf_smem=6144", "cluster_rows=1",
                            "cluster_max_rows=100000", "reg_rows=0", "exchange=sync", "graph=off",
                            "trsm=cublas", "pdl=off"});
  EXPECT_EQ(t.nb, 96);
  EXPECT_EQ(t.leaf, LuTuning::Leaf::grid);
  EXPECT_EQ(t.cluster, 4);
  EXPECT_EQ(t.leaf_smem, 6144);
  EXPECT_EQ(t.cluster_rows, 1);
  EXPECT_EQ(t.cluster_max_rows, 100000);
  EXPECT_EQ(t.reg_rows, 0);
  EXPECT_EQ(t.exchange, LuTuning::Exchange::sync);
  EXPECT_EQ(t.graph, LuTuning::Graph::off);
  EXPECT_EQ(t.trsm, LuTuning::Trsm::cublas);
  EXPECT_FALSE(t.pdl);
  EXPECT_EQ(t.to_json(), (nlohmann::json{{"nb", 96},
                                         {"leaf", "grid"},
                                         {"cluster", 4},
                                         {"leaf_smem", 6144},
                                         {"cluster_rows", 1},
                                         {"cluster_max_rows", 100000},
                                         {"reg_rows", 0},
                                         {"exchange", "sync"},
                                         {"graph", "off"},
                                         {"trsm", "cublas"},
                                         {"pdl", "off"}}));
  EXPECT_TRUE(parse({"pdl=on"}).pdl);
  EXPECT_EQ(parse({"trsm=inverse"}).trsm, LuTuning::Trsm::inverse);
  EXPECT_EQ(parse({"trsm=inverse"}).to_json().at("trsm"), "inverse");
  EXPECT_EQ(parse({"trsm=split"}).trsm, LuTuning::Trsm::split);
  EXPECT_EQ(parse({"graph=on"}).graph, LuTuning::Graph::on);
  EXPECT_EQ(parse({"graph=auto"}).graph, LuTuning::Graph::automatic);
  EXPECT_EQ(parse({"reg_rows=auto"}).reg_rows, -1);
  EXPECT_EQ(parse({"reg_rows=4097"}).reg_rows, 4097);
  EXPECT_EQ(parse({"nb=0"}).nb, 0);
  EXPECT_EQ(parse({"nb=2048"}).nb, 2048);
  EXPECT_EQ(parse({"cluster=16"}).cluster, 16);
  EXPECT_EQ(parse({"leaf=cluster"}).leaf, LuTuning::Leaf::cluster);
  EXPECT_EQ(parse({"exchange=push"}).exchange, LuTuning::Exchange::push);
  // Every declared key is read: a value for it changes its to_json() entry.
  const nlohmann::json none = parse({}).to_json();
  for (const auto& [key, value] : {std::pair{"nb", "128"},
                                   {"leaf", "grid"},
                                   {"cluster", "2"},
                                   {"leaf_smem", "1000"},
                                   {"cluster_rows", "64"},
                                   {"cluster_max_rows", "512"},
                                   {"reg_rows", "0"},
                                   {"exchange", "sync"},
                                   {"graph", "on"},
                                   {"trsm", "cublas"},
                                   {"pdl", "off"}})
    EXPECT_NE(parse({std::string(key) + "=" + value}).to_json().at(key), none.at(key)) << key;
}

TEST(LuTuning, BadValuesAreUsageErrorsNamingTheAllowedOnes) {
  EXPECT_EQ(usage_error({"leaf=foo"}), "--tune leaf=foo: leaf takes cluster|grid");
  EXPECT_EQ(usage_error({"leaf=Grid"}), "--tune leaf=Grid: leaf takes cluster|grid");
  EXPECT_EQ(usage_error({"nb=2049"}), "--tune nb=2049: nb takes 0..2048");
  EXPECT_EQ(usage_error({"nb=-1"}), "--tune nb=-1: nb takes 0..2048");
  EXPECT_EQ(usage_error({"nb=auto"}), "--tune nb=auto: nb takes 0..2048");
  EXPECT_EQ(usage_error({"cluster=3"}), "--tune cluster=3: cluster takes 1|2|4|8|16");
  EXPECT_EQ(usage_error({"cluster=0"}), "--tune cluster=0: cluster takes 1|2|4|8|16");
  EXPECT_EQ(usage_error({"leaf_smem=1048577"}),
            "--tune leaf_smem=1048577: leaf_smem takes 0..1048576");
  EXPECT_EQ(usage_error({"cluster_rows=x"}),
            "--tune cluster_rows=x: cluster_rows takes 0..1048576");
  EXPECT_EQ(usage_error({"reg_rows=-1"}), "--tune reg_rows=-1: reg_rows takes auto|0..1048576");
  EXPECT_EQ(usage_error({"reg_rows="}), "--tune reg_rows=: reg_rows takes auto|0..1048576");
  EXPECT_EQ(usage_error({"exchange=pull"}), "--tune exchange=pull: exchange takes push|sync");
  EXPECT_EQ(usage_error({"graph=yes"}), "--tune graph=yes: graph takes auto|on|off");
  EXPECT_EQ(usage_error({"pdl=yes"}), "--tune pdl=yes: pdl takes off|on");
}

TEST(LuTuning, UnknownKeysAndTheHelpText) {
  EXPECT_EQ(
      test::usage_error([] { TuneArgs({"nosuch=1"}).check_known("mmlu", {LuTuning::keys()}); }),
      "unknown --tune key 'nosuch' for mmlu; keys: nb, leaf, cluster, leaf_smem, "
      "cluster_rows, cluster_max_rows, reg_rows, exchange, graph, trsm, pdl (see mmlu --tune "
      "help)");
  const std::string help = tune_help("mmlu", {LuTuning::keys()});
  EXPECT_NE(help.find("\nlu: cuda-blocked"), std::string::npos) << help;
  EXPECT_NE(help.find("  leaf=cluster|grid   default cluster\n"), std::string::npos) << help;
  EXPECT_NE(help.find("  exchange=push|sync  default push  [experimental]\n"), std::string::npos)
      << help;
  EXPECT_EQ(help.find("[experimental]"), help.rfind("[experimental]")) << "one experimental key";
}

// The CPU implementations take no keys: {} as their tuning, no profile.
TEST(LuTuning, CpuImplementationsTakeNone) {
  const Dense<double> a = test::random_dense<double>(40, 40, 3);
  for (const auto& impl : lu_impls<double>()) {
    if (impl.device != Device::cpu) continue;
    Dense<double> lu(40, 40);
    std::vector<std::int64_t> ipiv(40);
    auto r = impl.make(LuProblem<double>{&a, &lu, &ipiv, parse({"leaf=grid"}), 1});
    const Measured m = measure(*r, 0, 1);
    EXPECT_EQ(m.tuning, nlohmann::json::object()) << impl.name;
    EXPECT_TRUE(m.profile.is_null()) << impl.name;
  }
}

// ---- on the GPU ------------------------------------------------------------------------------

template <class Make>
const Impl<Make>& named(const ImplList<Make>& list, const std::string& name) {
  for (const auto& i : list)
    if (i.name == name) return i;
  throw std::logic_error("no implementation " + name);
}

// mmlu's cuda-blocked on a random A of N under TUNING and PROFILE (a warm-up and two timed
// runs, as mmlu --warmup 1 --repeat 2): what it measured.
template <class T>
Measured blocked(std::int64_t n, const LuTuning& tuning, int profile = 0) {
  const Dense<T> a = test::random_dense<T>(n, n, 11);
  Dense<T> lu(n, n);
  std::vector<std::int64_t> ipiv(static_cast<std::size_t>(n));
  auto r = named(lu_impls<T>(), "cuda-blocked").make(LuProblem<T>{&a, &lu, &ipiv, tuning, profile});
  return measure(*r, 1, 2);
}

template <class T>
class LuTuningGpu : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(LuTuningGpu, Types);

// The defaults run reports every key, resolved: nb for n, the cluster found on this device (a
// power of two, 16 on the H100/H200), its shared memory, the rows, the register threshold (real
// types), the push exchange, the graph on up to n = 4096.
TYPED_TEST(LuTuningGpu, DefaultsReportEveryKeyResolved) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const Measured m = blocked<T>(300, {});
  const nlohmann::json& u = m.tuning;
  std::set<std::string> keys;
  for (const auto& [k, v] : u.items()) keys.insert(k);
  EXPECT_EQ(keys, std::set<std::string>(kKeys.begin(), kKeys.end())) << u.dump();
  EXPECT_EQ(u.at("nb"), 64);  // lu_cuda_default_nb below n = 2048
  EXPECT_EQ(u.at("leaf"), "cluster");
  const int cluster = u.at("cluster").get<int>();
  EXPECT_TRUE(cluster == 1 || cluster == 2 || cluster == 4 || cluster == 8 || cluster == 16)
      << u.dump();
  EXPECT_GT(u.at("leaf_smem").get<int>(), 0);
  EXPECT_EQ(u.at("cluster_rows"), 64);
  EXPECT_EQ(u.at("cluster_max_rows"), 256);
  EXPECT_EQ(u.at("reg_rows"), is_complex_v<T> ? 0 : 1025);
  EXPECT_EQ(u.at("exchange"), "push");
  EXPECT_EQ(u.at("graph"), "on");
  EXPECT_EQ(u.at("trsm"), is_complex_v<T> ? "cublas" : "warp");  // the small solve: real only
  EXPECT_EQ(u.at("pdl"), "on");
  EXPECT_TRUE(m.profile.is_null()) << m.profile.dump();
}

TEST(LuTuningGpu, GivenValuesAreReported) {
  MM_REQUIRE_GPU();
  nlohmann::json u =
      blocked<double>(300, parse({"nb=32", "reg_rows=0", "graph=off", "cluster=2",
                                  "cluster_rows=128", "cluster_max_rows=512", "leaf_smem=40000"}))
          .tuning;
  EXPECT_EQ(u.at("nb"), 32);
  EXPECT_EQ(u.at("reg_rows"), 0);
  EXPECT_EQ(u.at("graph"), "off");
  EXPECT_LE(u.at("cluster").get<int>(), 2);
  EXPECT_EQ(u.at("cluster_rows"), 128);
  EXPECT_EQ(u.at("cluster_max_rows"), 512);
  EXPECT_EQ(u.at("leaf_smem"), 40000);
  EXPECT_EQ(blocked<double>(4097, parse({"graph=on"})).tuning.at("graph"), "on");
  EXPECT_EQ(blocked<double>(4097, {}).tuning.at("graph"), "off");  // auto: up to 4096
  EXPECT_EQ(blocked<double>(300, parse({"exchange=sync"})).tuning.at("exchange"), "sync");
  EXPECT_EQ(blocked<double>(300, parse({"trsm=cublas"})).tuning.at("trsm"), "cublas");
  EXPECT_EQ(blocked<double>(300, parse({"pdl=off"})).tuning.at("pdl"), "off");
  EXPECT_EQ(blocked<double>(4097, {}).tuning.at("pdl"), "on");  // on the streams too
  // The grid leaf takes none of the cluster keys.
  u = blocked<double>(300, parse({"leaf=grid", "cluster=4"})).tuning;
  EXPECT_EQ(u,
            (nlohmann::json{
                {"nb", 64}, {"leaf", "grid"}, {"graph", "on"}, {"trsm", "warp"}, {"pdl", "on"}}));
}

// --profile: level 1 the spans of every run (warm-up included), the graph off; level 2 also the
// push leaf's clock (n = 300: every leaf a push leaf), or the register leaf's (reg_rows=1).
TEST(LuTuningGpu, ProfileLevels) {
  MM_REQUIRE_GPU();
  Measured m = blocked<double>(300, {}, 1);
  ASSERT_TRUE(m.profile.is_object()) << m.profile.dump();
  EXPECT_EQ(m.profile.at("level"), 1);
  EXPECT_EQ(m.profile.at("n"), 300);
  EXPECT_EQ(m.profile.at("nb"), 64);
  EXPECT_EQ(m.profile.at("runs"), 3);
  EXPECT_GT(m.profile.at("ms_per_run").at("leaf").get<double>(), 0);
  EXPECT_GT(m.profile.at("ms_per_run").at("update_trsm").get<double>(), 0);
  EXPECT_LT(m.profile.at("ms_per_run").at("update_trsm").get<double>(),
            m.profile.at("ms_per_run").at("rest_update").get<double>() +
                m.profile.at("ms_per_run").at("next_panel_update").get<double>());
  EXPECT_GT(m.profile.at("leaves_per_run").get<int>(), 0);
  ASSERT_FALSE(m.profile.at("leaf_us_per_column").empty());
  EXPECT_EQ(m.profile.at("leaf_us_per_column")[0].at("max_rows"), 1024);
  EXPECT_EQ(m.profile.at("leaf_us_per_column")[0].at("columns_per_run"), 300);
  // Each of the 5 panels (64 columns, the last 44) splits once into leaves of 32 columns:
  // one TRSM and one GEMM of rank 32 each.
  ASSERT_EQ(m.profile.at("panel_by_rank").size(), 1u) << m.profile.dump();
  EXPECT_EQ(m.profile.at("panel_by_rank")[0].at("max_rank"), 32);
  EXPECT_EQ(m.profile.at("panel_by_rank")[0].at("calls_per_run"), 5);
  EXPECT_GT(m.profile.at("panel_by_rank")[0].at("trsm_ms").get<double>(), 0);
  EXPECT_FALSE(m.profile.contains("push_leaf_clock"));
  EXPECT_EQ(m.tuning.at("graph"), "off");
  m = blocked<double>(300, {}, 2);
  EXPECT_EQ(m.profile.at("level"), 2);
  ASSERT_TRUE(m.profile.contains("push_leaf_clock")) << m.profile.dump();
  EXPECT_EQ(m.profile.at("push_leaf_clock").at("columns"), 3 * 300);
  EXPECT_GT(m.profile.at("push_leaf_clock").at("ns_per_column").at("update").get<double>(), 0);
  EXPECT_FALSE(m.profile.contains("register_leaf_clock")) << "300 rows: shared-memory leaves";
  // Every leaf on registers: their clock, by phase, and no push leaf's.
  m = blocked<double>(300, parse({"reg_rows=1"}), 2);
  ASSERT_TRUE(m.profile.contains("register_leaf_clock")) << m.profile.dump();
  EXPECT_FALSE(m.profile.contains("push_leaf_clock"));
  const nlohmann::json& rc = m.profile.at("register_leaf_clock");
  EXPECT_EQ(rc.at("columns"), 3 * 300);
  EXPECT_EQ(rc.at("leaves"), m.profile.at("leaves_per_run").get<int>() * 3);
  for (const char* phase : {"load", "columns", "store"})
    EXPECT_GT(rc.at("ns_per_column").at(phase).get<double>(), 0) << phase;
  // Their sum is inside the leaves' event spans (which add the launch's wait).
  const double in_kernel_us = (rc.at("ns_per_column").at("load").get<double>() +
                               rc.at("ns_per_column").at("columns").get<double>() +
                               rc.at("ns_per_column").at("store").get<double>()) /
                              1e3;
  EXPECT_LT(in_kernel_us, m.profile.at("leaf_us_per_column")[0].at("us_per_column").get<double>());
}

// The other GPU implementations take no keys.
TEST(LuTuningGpu, OtherCudaImplementationsTakeNone) {
  MM_REQUIRE_GPU();
  const Dense<double> a = test::random_dense<double>(100, 100, 5);
  for (const auto& impl : lu_impls<double>()) {
    if (impl.device != Device::cuda || impl.name == "cuda-blocked") continue;
    Dense<double> lu(100, 100);
    std::vector<std::int64_t> ipiv(100);
    auto r = impl.make(LuProblem<double>{&a, &lu, &ipiv, parse({"reg_rows=0"}), 1});
    const Measured m = measure(*r, 0, 1);
    EXPECT_EQ(m.tuning, nlohmann::json::object()) << impl.name;
    EXPECT_TRUE(m.profile.is_null()) << impl.name;
  }
}

// mmsolve --method lu: cuda-blocked takes the same keys and reports them, and its profile;
// cusolver takes none.
TEST(LuTuningGpu, SolveReportsTheFactorizationsTuning) {
  MM_REQUIRE_GPU();
  const Dense<double> a = test::random_dense<double>(300, 300, 8),
                      b = test::random_dense<double>(300, 2, 9);
  for (const char* name : {"cuda-blocked", "cusolver"}) {
    Dense<double> x(300, 2);
    SolveReport rep;
    SolveProblem<std::int32_t, double> p{SolveMethod::lu,
                                         &a,
                                         nullptr,
                                         &b,
                                         &x,
                                         IterOptions{},
                                         &rep,
                                         parse({"reg_rows=0", "leaf_smem=6144"}),
                                         1};
    auto r = named(solve_impls<std::int32_t, double>(SolveMethod::lu), name).make(p);
    const Measured m = measure(*r, 0, 2);
    if (std::string(name) == "cusolver") {
      EXPECT_EQ(m.tuning, nlohmann::json::object());
      EXPECT_TRUE(m.profile.is_null());
      continue;
    }
    EXPECT_EQ(m.tuning.at("reg_rows"), 0) << m.tuning.dump();
    EXPECT_EQ(m.tuning.at("leaf_smem"), 6144) << m.tuning.dump();
    EXPECT_EQ(m.tuning.at("nb"), 64) << m.tuning.dump();
    EXPECT_EQ(m.tuning.at("graph"), "off") << "--profile takes the graph off";
    ASSERT_TRUE(m.profile.is_object()) << m.profile.dump();
    EXPECT_EQ(m.profile.at("runs"), 2);
  }
}

}  // namespace
}  // namespace mm
