// Jacobi's tuning: JacobiTuning's keys and parsing, and the launch plans of the CUDA stencil
// sweeps (stencil_plan.hpp: host code, tested everywhere). The sweeps themselves under each
// tuning, on a GPU: test_jacobi_tuned_sweeps.cpp.
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <vector>

#include "cuda/stencil_plan.hpp"
#include "jacobi.hpp"
#include "mm/error.hpp"
#include "stencil_defaults.hpp"
#include "tuning_helpers.hpp"

namespace mm {
namespace {

using test::plain_ahead;
using test::plain_ahead_name;
constexpr auto parse = test::parse_tuning<JacobiTuning>;
constexpr auto usage_error = test::tuning_usage_error<JacobiTuning>;

TEST(JacobiTuning, KeysNameTheirValuesAndDefaults) {
  const TuneKeys& k = JacobiTuning::keys();
  // Each key in order: its name, allowed values and default.
  const struct {
    const char *name, *allowed, *fallback;
  } want[] = {
      {"warps", "8|16|32",
       "8; tma: the fewest whole rows of 16 or more; where memory is rich (H200) 8 (single: two "
       "rows of 6 warps or more), or 32 where those blocks march half a column or more and "
       "fill one wave, hold as many warps a multiprocessor, or replace one-row blocks of rows "
       "off the 128-byte lines"},
      {"chunks", "0..65535", "0: the wave-fill rule"},
      {"norm", "fused|plain", "fused"},
      {"ahead", "off|regs|tma",
       "16-byte vectors (N even in double, a multiple of 4 in single): tma; else by device: "
       "regs, off where memory is rich (H200)"},
      {"stages", "3..12", "3, 4 where one block fills a multiprocessor"},
      {"order", "up|alternate|zigzag",
       "alternate, up where the kernels marching down hold fewer blocks resident; zigzag (tma) "
       "where memory is rich (H200) and its chunks are of 64 planes or fewer"},
      {"split", "chunks|even",
       "even where it makes fewer steps than the chunks (chunks not given)"},
      {"l2", "normal|last",
       "last where memory is rich (H200), a grid is more than twice the L2 and the order is not "
       "zigzag, else normal"},
      {"launch", "stream|graph", "graph where the run has no tolerance, else stream"},
      {"plan", "rule|search", "rule"},
  };
  ASSERT_EQ(k.keys.size(), std::size(want));
  for (std::size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(k.keys[i].name, want[i].name) << i;
    EXPECT_EQ(k.keys[i].allowed, want[i].allowed) << want[i].name;
    EXPECT_EQ(k.keys[i].fallback, want[i].fallback) << want[i].name;
  }
  for (const auto& key : k.keys) {
    EXPECT_FALSE(key.meaning.empty()) << key.name;
    EXPECT_FALSE(key.experimental) << key.name;
  }
}

TEST(JacobiTuning, FromTakesEachKey) {
  const JacobiTuning none = parse({});
  EXPECT_EQ(none.warps, 0);
  EXPECT_EQ(none.chunks, 0);
  EXPECT_EQ(none.norm, 0);
  EXPECT_EQ(none.to_json(), nlohmann::json::object());
  const JacobiTuning t = parse({"warps=16", "chunks=5"});
  EXPECT_EQ(t.warps, 16);
  EXPECT_EQ(t.chunks, 5);
  EXPECT_EQ(t.to_json(), (nlohmann::json{{"warps", 16}, {"chunks", 5}}));
  EXPECT_EQ(parse({"warps=8"}).warps, 8);
  EXPECT_EQ(parse({"chunks=0"}).chunks, 0);
  EXPECT_EQ(parse({"chunks=65535"}).chunks, 65535);
  EXPECT_EQ(parse({"norm=fused"}).norm, 1);
  EXPECT_EQ(parse({"norm=plain"}).norm, 2);
  EXPECT_EQ(parse({"norm=plain"}).to_json(), (nlohmann::json{{"norm", "plain"}}));
  EXPECT_EQ(parse({"norm=fused"}).to_json(), (nlohmann::json{{"norm", "fused"}}));
  EXPECT_EQ(parse({"ahead=off"}).ahead, 1);
  EXPECT_EQ(parse({"ahead=regs"}).ahead, 2);
  EXPECT_EQ(parse({"ahead=regs"}).to_json(), (nlohmann::json{{"ahead", "regs"}}));
  EXPECT_EQ(parse({"ahead=tma"}).ahead, 3);
  EXPECT_EQ(parse({"ahead=tma"}).to_json(), (nlohmann::json{{"ahead", "tma"}}));
  EXPECT_EQ(usage_error({"ahead=on"}), "--tune ahead=on: ahead takes off|regs|tma");
  EXPECT_EQ(parse({"stages=4"}).stages, 4);
  EXPECT_EQ(parse({"stages=12"}).to_json(), (nlohmann::json{{"stages", 12}}));
  EXPECT_EQ(usage_error({"stages=2"}), "--tune stages=2: stages takes 3..12");
  EXPECT_EQ(parse({"split=chunks"}).split, 1);
  EXPECT_EQ(parse({"split=even"}).split, 2);
  EXPECT_EQ(parse({"split=even"}).to_json(), (nlohmann::json{{"split", "even"}}));
  EXPECT_EQ(parse({"split=chunks"}).to_json(), (nlohmann::json{{"split", "chunks"}}));
  EXPECT_EQ(usage_error({"split=odd"}), "--tune split=odd: split takes chunks|even");
  EXPECT_EQ(parse({"order=up"}).order, 1);
  EXPECT_EQ(parse({"order=alternate"}).order, 2);
  EXPECT_EQ(parse({"order=alternate"}).to_json(), (nlohmann::json{{"order", "alternate"}}));
  EXPECT_EQ(parse({"order=zigzag"}).order, 3);
  EXPECT_EQ(parse({"order=zigzag"}).to_json(), (nlohmann::json{{"order", "zigzag"}}));
  EXPECT_EQ(usage_error({"order=down"}), "--tune order=down: order takes up|alternate|zigzag");
  EXPECT_EQ(parse({"l2=normal"}).l2, 1);
  EXPECT_EQ(parse({"l2=last"}).l2, 2);
  EXPECT_EQ(parse({"l2=last"}).to_json(), (nlohmann::json{{"l2", "last"}}));
  EXPECT_EQ(parse({"l2=normal"}).to_json(), (nlohmann::json{{"l2", "normal"}}));
  EXPECT_EQ(usage_error({"l2=first"}), "--tune l2=first: l2 takes normal|last");
  EXPECT_EQ(parse({"launch=stream"}).launch, 1);
  EXPECT_EQ(parse({"launch=graph"}).launch, 2);
  EXPECT_EQ(parse({"launch=graph"}).to_json(), (nlohmann::json{{"launch", "graph"}}));
  EXPECT_EQ(parse({"launch=stream"}).to_json(), (nlohmann::json{{"launch", "stream"}}));
  EXPECT_EQ(usage_error({"launch=streams"}), "--tune launch=streams: launch takes stream|graph");
  EXPECT_EQ(parse({"plan=rule"}).plan, 1);
  EXPECT_EQ(parse({"plan=search"}).plan, 2);
  EXPECT_EQ(parse({"plan=search"}).to_json(), (nlohmann::json{{"plan", "search"}}));
  EXPECT_EQ(usage_error({"plan=best"}), "--tune plan=best: plan takes rule|search");
  // Every declared key is read: a value for it shows in to_json().
  for (const auto& [key, value] :
       {std::pair{"warps", "16"}, std::pair{"chunks", "3"}, std::pair{"norm", "plain"},
        std::pair{"ahead", "regs"}, std::pair{"stages", "8"}, std::pair{"order", "up"},
        std::pair{"split", "even"}, std::pair{"l2", "last"}, std::pair{"launch", "stream"},
        std::pair{"plan", "rule"}})
    EXPECT_TRUE(parse({std::string(key) + "=" + value}).to_json().contains(key)) << key;
}

TEST(JacobiTuning, BadValuesAreUsageErrorsNamingTheAllowedOnes) {
  EXPECT_EQ(usage_error({"warps=9"}), "--tune warps=9: warps takes 8|16|32");
  EXPECT_EQ(usage_error({"warps=0"}), "--tune warps=0: warps takes 8|16|32");
  EXPECT_EQ(usage_error({"chunks=-1"}), "--tune chunks=-1: chunks takes 0..65535");
  EXPECT_EQ(usage_error({"chunks=65536"}), "--tune chunks=65536: chunks takes 0..65535");
  EXPECT_EQ(usage_error({"chunks=four"}), "--tune chunks=four: chunks takes 0..65535");
  EXPECT_EQ(usage_error({"norm=exact"}), "--tune norm=exact: norm takes fused|plain");
}

// ---- the launch plans (host code) ------------------------------------------------------------

using stencil::Launch;

// An H200-like GPU: 132 multiprocessors, 6 blocks of 256 threads resident a multiprocessor
// (3 of 512, 12 of 128), 227 KB of shared memory a multiprocessor.
constexpr std::int64_t kSms = 132;
int per_sm(int threads, std::size_t shared) {
  const int by_threads = 1536 / threads;
  return shared ? std::min<int>(by_threads, static_cast<int>(227 * 1024 / shared)) : by_threads;
}

Launch march(int dim, std::int64_t n, int ry, bool col, JacobiTuning t, std::size_t bytes = 8) {
  const HeatedRoom room = heated_room(dim, n);
  return stencil::plan_march(room, stencil::march_vector(bytes, n), bytes, ry, col, t, kSms,
                             per_sm);
}

TEST(StencilPlan, VectorWidthDividesTheRow) {
  EXPECT_EQ(stencil::march_vector(8, 64), 2);
  EXPECT_EQ(stencil::march_vector(8, 65), 1);
  EXPECT_EQ(stencil::march_vector(4, 64), 4);
  EXPECT_EQ(stencil::march_vector(4, 66), 2);
  EXPECT_EQ(stencil::march_vector(4, 67), 1);
}

TEST(StencilPlan, WaveFillRuleAndRequestedChunks) {
  // N = 512 in double: 510 tiles on 792 slots; 1 and 2 chunks fill 64% of their waves,
  // 3 chunks 1530 / 1584 = 96.6%.
  EXPECT_EQ(stencil::march_chunks(510, 792, 510, 0), 3);
  EXPECT_EQ(stencil::march_chunks(792, 792, 510, 0), 1);  // one full wave
  EXPECT_EQ(stencil::march_chunks(510, 792, 2, 0), 1);    // at most 2: the better filling
  EXPECT_EQ(stencil::march_chunks(510, 792, 510, 7), 7);  // requested
  EXPECT_EQ(stencil::march_chunks(510, 792, 5, 7), 5);    // at most MOST
}

// plan=search's candidates: the tuning as given first (the rule's plan), then 3 and 4 stages by
// the rule's chunks and 1..8, each key given kept as given.
TEST(StencilPlan, SearchTriesTheRulesPlanFirstThenStagesByChunks) {
  const std::vector<JacobiTuning> all = stencil::plan_candidates({});
  ASSERT_EQ(all.size(), 1u + 2u * (1u + stencil::kSearchMostChunks));
  EXPECT_EQ(all[0].stages, 0);
  EXPECT_EQ(all[0].chunks, 0);
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_TRUE(all[i].stages == 3 || all[i].stages == 4) << i;
    EXPECT_GE(all[i].chunks, 0) << i;
    EXPECT_LE(all[i].chunks, stencil::kSearchMostChunks) << i;
    seen.insert({all[i].stages, all[i].chunks});
  }
  EXPECT_EQ(seen.size(), all.size() - 1);  // no candidate twice
  JacobiTuning given;
  given.stages = 5;
  given.warps = 16;
  given.plan = 2;
  const std::vector<JacobiTuning> some = stencil::plan_candidates(given);
  ASSERT_EQ(some.size(), 1u + 1u + stencil::kSearchMostChunks);
  for (const JacobiTuning& t : some) {
    EXPECT_EQ(t.stages, 5);
    EXPECT_EQ(t.warps, 16);
  }
  given.chunks = 3;
  const std::vector<JacobiTuning> one = stencil::plan_candidates(given);
  ASSERT_EQ(one.size(), 2u);  // the rule's and the same again: the runner drops the twin
  EXPECT_EQ(one[1].chunks, 3);
  EXPECT_EQ(one[1].stages, 5);
}

// Launches that run the same sweep are the same plan; any field of the shape apart is not.
TEST(StencilPlan, SamePlanComparesTheShape) {
  const Launch a = march(3, 256, 1, false, {}, 8);
  EXPECT_TRUE(stencil::same_plan(a, a));
  Launch b = a;
  b.chunk += 1;
  EXPECT_FALSE(stencil::same_plan(a, b));
  b = a;
  b.stages += 1;
  EXPECT_FALSE(stencil::same_plan(a, b));
  b = a;
  b.order = a.order == 1 ? 2 : 1;
  EXPECT_FALSE(stencil::same_plan(a, b));
  b = a;
  b.shared += 8;  // follows from the stages: not a field of its own
  EXPECT_TRUE(stencil::same_plan(a, b));
}

// The fastest plan is kept only where it beats the rule's (the first) by kSearchMargin.
TEST(StencilPlan, SearchKeepsTheRuleUnlessBeatenByTheMargin) {
  EXPECT_EQ(stencil::plan_chosen({1.0}), 0u);
  EXPECT_EQ(stencil::plan_chosen({1.0, 0.995, 1.2}), 0u);  // within the margin
  EXPECT_EQ(stencil::plan_chosen({1.0, 0.95, 0.90, 0.97}), 2u);
  EXPECT_EQ(stencil::plan_chosen({1.0, 1.1, 1.3}), 0u);
  EXPECT_EQ(stencil::plan_chosen({1.0, 0.8, 0.8}), 1u);  // the first of a tie
}

// The 3D marching sweeps' direction along z by default, as recorded.
const char* order_name() {
  return stencil::march_order({}) == 2 ? "alternate" : "up";
}
// The tuning of the loads without the copy engine (plain_ahead), given.
JacobiTuning plain(int warps = 0, int chunks = 0) {
  return {warps, chunks, 0, static_cast<int>(plain_ahead())};
}

// The tma sweep's L2 policy by default on this test's GPU, for N^3 values of BYTES bytes
// marching in ORDER.
const char* l2_name(std::int64_t n, std::size_t bytes, const char* order) {
  return stencil::march_l2({}, heated_room(3, n), bytes, gpu_memory_rich(), gpu_l2_bytes(),
                           std::string(order) == "zigzag") == 2
             ? "last"
             : "normal";
}

// The tma sweep's stage loads evicted last from L2 where memory is rich and a grid is more than
// kL2LastGridOverL2 times the L2 and the order is not zigzag, unless given; on the tma sweep only,
// and recorded.
TEST(StencilPlan, L2PolicyOfTheStagesByGridAndDevice) {
  using stencil::march_l2;
  constexpr std::int64_t kL2 = 50 << 20;                                  // an H200's 50 MiB
  EXPECT_EQ(march_l2({}, heated_room(3, 256), 8, true, kL2, false), 2);   // 134 MB
  EXPECT_EQ(march_l2({}, heated_room(3, 256), 8, true, kL2, true), 1);    // zigzag
  EXPECT_EQ(march_l2({}, heated_room(3, 256), 4, true, kL2, false), 1);   // 67 MB
  EXPECT_EQ(march_l2({}, heated_room(3, 768), 4, true, kL2, false), 2);   // 1.8 GB
  EXPECT_EQ(march_l2({}, heated_room(3, 768), 8, false, kL2, false), 1);  // the H100: not measured
  EXPECT_EQ(march_l2({}, heated_room(3, 768), 8, true, 0, false), 1);     // no L2 known
  JacobiTuning t;
  t.l2 = 2;
  EXPECT_EQ(march_l2(t, heated_room(3, 64), 8, false, kL2, true), 2);  // given
  t.l2 = 1;
  EXPECT_EQ(march_l2(t, heated_room(3, 768), 8, true, kL2, false), 1);
  t.ahead = 3;
  EXPECT_EQ(march(3, 512, 1, false, t).l2, 1);
  EXPECT_EQ(stencil::march_tuning(march(3, 512, 1, false, t), 3).l2, 1);
  t.l2 = 2;
  EXPECT_EQ(march(3, 64, 1, false, t).l2, 2);
  EXPECT_TRUE(stencil::march_l2_last(march(3, 64, 1, false, t)));
  const Launch d = march(3, 768, 1, false, {});
  EXPECT_EQ(d.l2, l2_name(768, 8, d.order == 3 ? "zigzag" : "up") == std::string("last") ? 2 : 1);
  // Not the other sweeps: no ring, no policy.
  EXPECT_EQ(march(3, 512, 1, false, plain()).l2, 0);
  EXPECT_EQ(march(3, 513, 1, false, {}).l2, 0);  // 8-byte vectors: no tma
  EXPECT_FALSE(stencil::march_l2_last(march(3, 513, 1, false, {})));
}

TEST(StencilPlan, MarchLoadsByTmaInDoubleElseAheadUnlessTold) {
  using stencil::Ahead;
  using stencil::march_ahead;
  EXPECT_EQ(march_ahead({}, 8, 2), Ahead::tma);
  EXPECT_EQ(march_ahead({}, 8, 1), plain_ahead());  // N odd: 8-byte vectors
  EXPECT_EQ(march_ahead({}, 4, 4), Ahead::tma);     // single, N a multiple of 4
  EXPECT_EQ(march_ahead({}, 4, 2), plain_ahead());  // single, N even: 8-byte vectors
  EXPECT_EQ(march_ahead({0, 0, 0, 1}, 8, 2), Ahead::off);
  EXPECT_EQ(march_ahead({0, 0, 0, 2}, 8, 2), Ahead::regs);
  EXPECT_EQ(march_ahead({0, 0, 0, 3}, 4, 4), Ahead::tma);
  EXPECT_EQ(march_ahead({0, 0, 0, 3}, 8, 1), plain_ahead());  // asked, but no 16-byte vectors
  // The record names it for the 3D sweep of one row a thread only.
  EXPECT_EQ(march(3, 64, 1, false, {}).ahead, 3);
  EXPECT_EQ(march(3, 65, 1, false, {}).ahead, static_cast<int>(plain_ahead()));
  EXPECT_EQ(march(3, 64, 1, false, {}, 4).ahead, 3);  // single, 16-byte vectors
  EXPECT_EQ(march(3, 66, 1, false, {}, 4).ahead, static_cast<int>(plain_ahead()));
  EXPECT_EQ(march(3, 64, 1, false, {0, 0, 0, 1}).ahead, 1);
  EXPECT_EQ(march(3, 64, 2, false, {}).ahead, 0);
  EXPECT_EQ(march(2, 64, 1, false, {}).ahead, 0);
}

// ahead=tma: a ring of stages of the block's rows, the row beside each end and 16 bytes of
// halo a side (clipped to the row), in dynamic shared memory that bounds the blocks resident.
TEST(StencilPlan, MarchByTmaSizesItsRing) {
  // N = 512 double, 8 warps over a whole row (no halo): 3 rows a stage, 3 stages (36 KB), 6
  // blocks a multiprocessor, 1530 blocks in 3 chunks on 1584 slots.
  Launch l = march(3, 512, 1, false, {8, 0, 0, 3});
  EXPECT_EQ(l.ahead, 3);
  EXPECT_EQ(l.threads, 256);
  EXPECT_EQ(l.stages, 3);
  EXPECT_EQ(l.stage_values, 3 * 512);
  EXPECT_EQ(l.shared, 3u * (3 * 512 * 8 + 8));
  EXPECT_EQ(l.chunks, 3);
  EXPECT_EQ(stencil::march_tuning(l, 3).to_json(),
            (nlohmann::json{{"warps", 8},
                            {"chunks", 3},
                            {"ahead", "tma"},
                            {"stages", 3},
                            {"order", order_name()},
                            {"l2", l2_name(512, 8, order_name())}}));
  EXPECT_EQ(march(3, 512, 1, false, {8, 0, 0, 3, 0, 2}).order, 2);  // given
  EXPECT_EQ(march(2, 512, 1, false, {0, 0, 0, 0, 0, 2}).order, 0);  // 3D only
  EXPECT_EQ(march(3, 512, 2, false, {0, 0, 0, 0, 0, 2}).order, 0);  // one row a thread only
  // 4 stages: 48 KB, 4 blocks a multiprocessor: 510 blocks in one chunk on 528 slots.
  EXPECT_EQ(march(3, 512, 1, false, {8, 0, 0, 3, 4}).chunks, 1);
  // The default block: the device's warps (tma_warps), whole rows of 8 warps: 16 (8 where
  // memory is rich); 3 stages where 2 or more blocks fit a multiprocessor, else 4.
  EXPECT_EQ(stencil::tma_warps(8), gpu_memory_rich() ? 8 : 16);
  EXPECT_EQ(stencil::tma_warps(12), gpu_memory_rich() ? 8 : 24);
  EXPECT_EQ(stencil::tma_warps(6), gpu_memory_rich() ? 8 : 18);
  EXPECT_EQ(stencil::tma_warps(1), gpu_memory_rich() ? 8 : 16);
  EXPECT_EQ(stencil::tma_warps(16), gpu_memory_rich() ? 8 : 16);
  // Single precision where memory is rich: rows of 6 warps or more (N >= 768) two a block.
  EXPECT_EQ(stencil::tma_warps(6, 4), gpu_memory_rich() ? 12 : 18);
  EXPECT_EQ(stencil::tma_warps(3, 4), gpu_memory_rich() ? 8 : 18);
  EXPECT_EQ(stencil::tma_warps(16, 4), gpu_memory_rich() ? 32 : 16);
  EXPECT_EQ(stencil::tma_stages(1), 4);
  EXPECT_EQ(stencil::tma_stages(2), 3);
  l = march(3, 256, 1, false, {});  // at 512 where memory is rich: march_tall_wins (below)
  EXPECT_EQ(l.threads, 32 * stencil::tma_warps(4));
  EXPECT_EQ(l.stage_values, (l.threads / 128 + 2) * 256);
  EXPECT_EQ(l.stages, 3);  // 3 blocks of 512 threads (this test's GPU), 6 of 256
  // 32 warps given: one block of 1024 threads a multiprocessor here, so 4 stages.
  EXPECT_EQ(march(3, 512, 1, false, {32, 0, 0, 3}).stages, 4);
  // N = 768 double: 12 warps over a whole row (up to 16 by TMA), so 16 warps take one row.
  l = march(3, 768, 1, false, {16, 0, 0, 3, 5});
  EXPECT_EQ(l.gx, 1);
  EXPECT_EQ(l.wx, 12);
  EXPECT_EQ(l.threads, 384);
  EXPECT_EQ(l.stages, 5);
  EXPECT_EQ(l.stage_values, 3 * 768);
  // 32 warps: two rows.
  EXPECT_EQ(march(3, 768, 1, false, {32, 0, 0, 3}).threads, 768);
  // N = 2050 double: 33 warps a row, in 3 blocks of 11 along x; each stage row 704 points
  // and 16 a side (the first block: 16 on its right only).
  l = march(3, 2050, 1, false, {16, 0, 0, 3});
  EXPECT_EQ(l.gx, 3);
  EXPECT_EQ(l.wx, 11);
  EXPECT_EQ(l.stage_values, 3 * (704 + 32));
  // Single precision, N = 256: 4 values a lane, 2 warps a whole row, 4 rows.
  l = march(3, 256, 1, false, {8, 0, 0, 3}, 4);
  EXPECT_EQ(l.wx, 2);
  EXPECT_EQ(l.stage_values, 6 * 256);
  EXPECT_EQ(l.shared, 3u * (6 * 256 * 4 + 8));
  // The other sweeps take no ring, and at most 16 warps.
  EXPECT_EQ(march(3, 512, 1, false, plain()).shared, 0u);
  EXPECT_EQ(march(3, 512, 1, false, plain(32)).threads, 512);
  EXPECT_EQ(march(3, 512, 2, false, {0, 0, 0, 3}).stages, 0);
}

// The tma sweep's default block where memory is rich: 32 warps where their blocks fill one wave
// of marches of at least half a column (march_tall_wins), else tma_warps's 8.
TEST(StencilPlan, TallBlocksWhereTheyFillOneWaveOfLongMarches) {
  Launch tall;
  tall.gx = 1, tall.gy = 128, tall.gz = tall.chunks = 1;
  EXPECT_TRUE(stencil::march_tall_wins(tall, 132));   // 128 of 132 slots: 97%
  EXPECT_FALSE(stencil::march_tall_wins(tall, 136));  // 94%
  EXPECT_FALSE(stencil::march_tall_wins(tall, 127));  // more than one wave
  tall.gy = 64, tall.gz = tall.chunks = 2;
  EXPECT_TRUE(stencil::march_tall_wins(tall, 132));  // two chunks a column
  tall.gy = 32, tall.gz = tall.chunks = 4;
  EXPECT_FALSE(stencil::march_tall_wins(tall, 132));  // short marches
  // This test's GPU (one block of 1024 threads a multiprocessor, 132 of them): at N = 512 the
  // 32-warp plan is one wave, 128 blocks (double: 4 rows a block, one chunk; single: 8 rows,
  // two chunks); at 256 it is 4 and 8 chunks a column, at 384 and 768 more than one wave.
  const bool rich = gpu_memory_rich();
  for (const std::size_t bytes : {std::size_t{8}, std::size_t{4}}) {
    Launch l = march(3, 512, 1, false, {}, bytes);
    EXPECT_EQ(l.threads, rich ? 1024 : 32 * stencil::tma_warps(l.wx)) << bytes;
    if (rich) {
      EXPECT_EQ(l.blocks(), 128) << bytes;
      EXPECT_EQ(l.chunks, bytes == 8 ? 1 : 2);
      EXPECT_EQ(l.stages, 4);                            // one block a multiprocessor
      EXPECT_EQ(stencil::march_tuning(l, 3).warps, 32);  // the record shows it
    }
    // Elsewhere the default block stays tma_warps's, in rows of wx warps (6 warps at 384, where
    // a row is 3 warps wide), where it holds more warps a multiprocessor (march_tall_holds).
    for (const std::int64_t n : {256, 384, 768}) {
      const Launch d = march(3, n, 1, false, {}, bytes);
      // At 768 in double this test's GPU holds two blocks of 24 warps, as many as four of 12.
      const bool tall = rich && n == 768 && bytes == 8;
      EXPECT_EQ(d.threads,
                tall ? 768 : 32 * d.wx * std::max(1, stencil::tma_warps(d.wx, bytes) / d.wx))
          << n << " " << bytes;
    }
    // Asked for, the warps stand; the sweeps without the copy engine keep their 8.
    EXPECT_EQ(march(3, 512, 1, false, {8, 0, 0, 3}, bytes).threads, 256);
    EXPECT_EQ(march(3, 512, 1, false, plain(), bytes).threads, 256);
  }
}

// march_tall_holds (plan_march asks it where memory is rich): 32-warp blocks (at most 2 chunks a
// column) also where they hold as many warps resident as the default's, or the default's are
// one row each of rows off the 128-byte lines. Slots as the H200's, N = 640 / 764 / 768 in
// double, 764 in single.
TEST(StencilPlan, TallBlocksWhereTheyHoldAsManyWarpsOrTheRowsAreOffTheLines) {
  Launch l, tall;
  l.wx = tall.wx = 10, l.threads = 320, tall.threads = 960;  // 640: 3 rows a tall block
  EXPECT_TRUE(stencil::march_tall_holds(l, 3 * kSms, tall, kSms, 640, 8));   // 30 warps each
  EXPECT_FALSE(stencil::march_tall_holds(l, 4 * kSms, tall, kSms, 640, 8));  // 40 against 30
  tall.chunks = 3;  // marches of a third of a column
  EXPECT_FALSE(stencil::march_tall_holds(l, 3 * kSms, tall, kSms, 640, 8));
  tall.chunks = 2;
  l.wx = tall.wx = 12, l.threads = 384, tall.threads = 768;  // 764 and 768: 2 rows a tall block
  EXPECT_FALSE(stencil::march_tall_holds(l, 3 * kSms, tall, kSms, 768, 8));  // rows of 48 lines
  EXPECT_TRUE(stencil::march_tall_holds(l, 3 * kSms, tall, kSms, 764, 8));   // 47.75 lines
  l.wx = tall.wx = 6, tall.threads = 960;  // single at 764: two rows of 6 warps already
  EXPECT_FALSE(stencil::march_tall_holds(l, 3 * kSms, tall, kSms, 764, 4));
}

// zigzag_wins (plan_march_rows asks it where memory is rich): a plan of zigzag's with chunks of
// kZigzagMostPlanes planes or fewer, more than one a column (one chunk meets none).
TEST(StencilPlan, ZigzagWhereItsChunksAreShort) {
  Launch z;
  z.order = 3, z.gx = 1, z.gy = 127;
  z.chunk = 51, z.gz = z.chunks = 5;  // N = 256 in double on the H200
  EXPECT_TRUE(stencil::zigzag_wins(z));
  z.chunk = 64, z.gz = z.chunks = 4;
  EXPECT_TRUE(stencil::zigzag_wins(z));
  z.chunk = 65, z.gz = z.chunks = 4;
  EXPECT_FALSE(stencil::zigzag_wins(z));
  z.chunk = 95;  // N = 384 in single
  EXPECT_FALSE(stencil::zigzag_wins(z));
  z.chunk = 30, z.gz = z.chunks = 1;
  EXPECT_FALSE(stencil::zigzag_wins(z));
  z.gz = z.chunks = 2, z.order = 2;  // planned as alternate
  EXPECT_FALSE(stencil::zigzag_wins(z));
}

TEST(StencilPlan, March3DDefaultsAndTuning) {
  // N = 512 double (without TMA): vectors of 2, 8 warps a row side by side, one row of y a
  // block.
  Launch l = march(3, 512, 1, false, plain());
  EXPECT_EQ(l.threads, 256);
  EXPECT_EQ(l.wx, 8);
  EXPECT_EQ(l.gx, 1);
  EXPECT_EQ(l.gy, 510);
  EXPECT_EQ(l.chunks, 3);
  EXPECT_EQ(l.chunk, 170);
  EXPECT_EQ(l.gz, 3);
  EXPECT_EQ(l.blocks(), 1530);
  EXPECT_EQ(
      stencil::march_tuning(l, 3).to_json(),
      (nlohmann::json{
          {"warps", 8}, {"chunks", 3}, {"ahead", plain_ahead_name()}, {"order", order_name()}}));
  // 16 warps: two rows of y a block, 3 blocks a multiprocessor.
  l = march(3, 512, 1, false, plain(16));
  EXPECT_EQ(l.threads, 512);
  EXPECT_EQ(l.gy, 255);
  EXPECT_EQ(l.chunks, 3);
  EXPECT_EQ(
      stencil::march_tuning(l, 3).to_json(),
      (nlohmann::json{
          {"warps", 16}, {"chunks", 3}, {"ahead", plain_ahead_name()}, {"order", order_name()}}));
  // Chunks asked for: 510 planes in 7 chunks of 73.
  l = march(3, 512, 1, false, plain(0, 7));
  EXPECT_EQ(l.chunk, 73);
  EXPECT_EQ(l.chunks, 7);
  EXPECT_EQ(l.gz, 7);
  EXPECT_EQ(l.threads, 256);
  // Fewer warps where the row's warps do not divide 8: N = 130 takes 3 along x, 2 along y.
  l = march(3, 130, 1, false, plain());
  EXPECT_EQ(l.wx, 3);
  EXPECT_EQ(l.threads, 6 * 32);
  EXPECT_EQ(stencil::march_tuning(l, 3).warps, 6);
  // march_col: one warp along x, the rest along y, 2 rows a thread.
  l = march(3, 512, 2, true, {16, 0});
  EXPECT_EQ(l.gx, 8);
  EXPECT_EQ(l.wx, 1);
  EXPECT_EQ(l.threads, 512);
  EXPECT_EQ(l.gy, 16);  // 510 rows / (16 warps * 2 rows)
}

TEST(StencilPlan, ChunksUsedAreWhatTheRoomAllows) {
  // N = 12: 10 planes. 4 chunks of 3; 7 asked, 5 of 2 (no empty chunk); 100 asked, 10 of 1.
  EXPECT_EQ(march(3, 12, 1, false, {0, 4}).chunks, 4);
  Launch l = march(3, 12, 1, false, {0, 7});
  EXPECT_EQ(l.chunk, 2);
  EXPECT_EQ(l.chunks, 5);
  EXPECT_EQ(stencil::march_tuning(l, 3).chunks, 5);
  l = march(3, 12, 1, false, {0, 100});
  EXPECT_EQ(l.chunk, 1);
  EXPECT_EQ(l.chunks, 10);
}

TEST(StencilPlan, March2DTakesChunksOnly) {
  // N = 8192 double: 4 warps a block, 32 blocks across a row; warps is not a 2D key.
  const Launch l = march(2, 8192, 1, false, {16, 9});
  EXPECT_EQ(l.threads, 128);
  EXPECT_EQ(l.gx, 32);
  EXPECT_EQ(l.gy, 9);
  EXPECT_EQ(l.gz, 1);
  EXPECT_EQ(l.chunk, 910);  // 8190 rows / 9
  EXPECT_EQ(stencil::march_tuning(l, 2).to_json(), (nlohmann::json{{"chunks", 9}}));
  // Single precision, N divisible by 4: vectors of 4.
  EXPECT_EQ(march(2, 8192, 1, false, {}, 4).gx, 16);
}

TEST(StencilPlan, RefusesWhatCannotLaunch) {
  EXPECT_THROW(march(3, 1000000, 1, false, {}), DeviceError);
  EXPECT_THROW(march(3, 64, 1, false, {9, 0}), std::invalid_argument);
}

TEST(StencilPlan, PlainSweeps) {
  Launch l = stencil::plan_naive(heated_room(3, 5));
  EXPECT_EQ(l.gx, 1);
  EXPECT_EQ(l.blocks(), 1);
  l = stencil::plan_naive(heated_room(2, 1002));
  EXPECT_EQ(l.gx, 3907);  // 10^6 points / 256
  // 3D N = 100: 4 x 13 tiles; 4 waves of 1056 blocks ask for 82 chunks: chunks of 2, 49 of them.
  l = stencil::plan_tiled(heated_room(3, 100), kSms);
  EXPECT_EQ(l.gx, 4);
  EXPECT_EQ(l.gy, 13);
  EXPECT_EQ(l.chunk, 2);
  EXPECT_EQ(l.gz, 49);
  l = stencil::plan_tiled(heated_room(2, 8192), kSms);
  EXPECT_EQ(l.gx, 256);
  EXPECT_EQ(l.gy, 1024);
  EXPECT_EQ(l.gz, 1);
}

}  // namespace
}  // namespace mm
