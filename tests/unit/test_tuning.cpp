// Tuning as data: the typed value parsers, the --tune list and its key check, `--tune help`,
// --tune and --profile on the shared command line, and the record's "tuning" and "profile".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "impl.hpp"
#include "mm/cli.hpp"
#include "mm/error.hpp"
#include "mm/tuning.hpp"
#include "tuning_helpers.hpp"

namespace mm {
namespace {

const TuneKey kWarps{"warps", "8|16", "warps a block", "8"};
const TuneKey kChunks{"chunks", "0..65535", "chunks of planes", "0: the rule"};
const TuneKey kLeaf{"leaf", "auto|reg|grid", "the panel leaf", "auto", true};
const TuneKey kGraph{"graph", "on|off", "capture in a CUDA graph", "on"};

using test::usage_error;

TEST(Tuning, IntInRange) {
  EXPECT_EQ(tune_int(kChunks, "0", 0, 65535), 0);
  EXPECT_EQ(tune_int(kChunks, "17", 0, 65535), 17);
  EXPECT_EQ(tune_int(kChunks, "65535", 0, 65535), 65535);
  for (const char* bad : {"", "-1", "65536", "x", "3x", " 3", "3 ", "+3", "1e3", "99999999999"})
    EXPECT_EQ(usage_error([&] { tune_int(kChunks, bad, 0, 65535); }),
              "--tune chunks=" + std::string(bad) + ": chunks takes 0..65535")
        << "'" << bad << "'";
}

TEST(Tuning, IntAmongChoices) {
  EXPECT_EQ(tune_int_of(kWarps, "8", {8, 16}), 8);
  EXPECT_EQ(tune_int_of(kWarps, "16", {8, 16}), 16);
  for (const char* bad : {"9", "0", "32", "", "eight", "16.0"})
    EXPECT_EQ(usage_error([&] {
                tune_int_of(kWarps, bad, {8, 16});
              }),
              "--tune warps=" + std::string(bad) + ": warps takes 8|16");
}

TEST(Tuning, ChoiceAndOnOff) {
  EXPECT_EQ(tune_choice(kLeaf, "auto", {"auto", "reg", "grid"}), 0u);
  EXPECT_EQ(tune_choice(kLeaf, "grid", {"auto", "reg", "grid"}), 2u);
  EXPECT_EQ(usage_error([&] {
              tune_choice(kLeaf, "Reg", {"auto", "reg", "grid"});
            }),
            "--tune leaf=Reg: leaf takes auto|reg|grid");
  EXPECT_TRUE(tune_on_off(kGraph, "on"));
  EXPECT_FALSE(tune_on_off(kGraph, "off"));
  for (const char* bad : {"1", "0", "yes", "ON", ""})
    EXPECT_EQ(usage_error([&] { tune_on_off(kGraph, bad); }),
              "--tune graph=" + std::string(bad) + ": graph takes on|off");
}

TEST(Tuning, ArgsParseKeyValuePairs) {
  const TuneArgs a({"warps=16", "chunks=", "leaf=a=b"});
  EXPECT_FALSE(a.help());
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a.get(kWarps), "16");
  EXPECT_EQ(a.get(kChunks), "");   // given empty: the key's parser refuses it
  EXPECT_EQ(a.get(kLeaf), "a=b");  // the first '=' ends the key
  EXPECT_FALSE(a.get(kGraph).has_value());
  ASSERT_EQ(a.items().size(), 3u);
  EXPECT_EQ(a.items()[0].first, "warps");
  EXPECT_TRUE(TuneArgs().empty());
  EXPECT_TRUE(TuneArgs({"help"}).help());
  EXPECT_TRUE(TuneArgs({"warps=8", "help"}).help());
}

TEST(Tuning, ArgsRefuseMalformedItems) {
  EXPECT_EQ(usage_error([] { TuneArgs({"warps"}); }),
            "--tune takes KEY=VALUE (or help), not 'warps'");
  EXPECT_EQ(usage_error([] { TuneArgs({"=8"}); }), "--tune takes KEY=VALUE (or help), not '=8'");
  EXPECT_EQ(usage_error([] {
              TuneArgs({"warps=8", "chunks=1", "warps=16"});
            }),
            "--tune warps given twice");
}

TEST(Tuning, UnknownKeysAreRefusedNamingTheKnownOnes) {
  const TuneKeys op{"jacobi stencil", "cuda-norm*", {kWarps, kChunks}};
  const TuneKeys other{"lu", "", {kLeaf, kGraph}};
  TuneArgs({"warps=8", "chunks=3"}).check_known("mmjacobi", {op});
  TuneArgs({"warps=8", "leaf=reg"}).check_known("mmsolve", {op, other});
  TuneArgs().check_known("mmspmv", {});
  EXPECT_EQ(
      usage_error([&] {
        TuneArgs({"warps=8", "foo=1"}).check_known("mmjacobi", {op});
      }),
      "unknown --tune key 'foo' for mmjacobi; keys: warps, chunks (see mmjacobi --tune help)");
  EXPECT_EQ(
      usage_error([&] { TuneArgs({"leaf=reg"}).check_known("mmjacobi", {op}); }),
      "unknown --tune key 'leaf' for mmjacobi; keys: warps, chunks (see mmjacobi --tune help)");
  EXPECT_EQ(usage_error([&] {
              TuneArgs({"foo=1"}).check_known("mmsolve", {op, other});
            }),
            "unknown --tune key 'foo' for mmsolve; keys: warps, chunks, leaf, graph (see mmsolve "
            "--tune help)");
  EXPECT_EQ(usage_error([] { TuneArgs({"warps=8"}).check_known("mmspmv", {}); }),
            "unknown --tune key 'warps': mmspmv has no tuning keys");
}

TEST(Tuning, KeyLookupIsAProgrammingErrorWhenUndeclared) {
  const TuneKeys op{"jacobi stencil", "", {kWarps, kChunks}};
  EXPECT_EQ(&op.key("chunks"), &op.keys[1]);
  EXPECT_THROW(op.key("leaf"), std::logic_error);
}

TEST(Tuning, HelpListsEveryKeyByOperation) {
  const TuneKeys op{"jacobi stencil", "cuda-norm*", {kWarps, kChunks}};
  const TuneKeys other{"lu", "", {kLeaf}};
  const std::string h = tune_help("mmsolve", {op, other});
  EXPECT_NE(h.find("Tuning keys of mmsolve: --tune KEY=VALUE"), std::string::npos) << h;
  EXPECT_NE(h.find("\njacobi stencil: cuda-norm*\n  warps=8|16          default 8\n      warps a "
                   "block\n  chunks=0..65535     default 0: the rule\n      chunks of planes\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("\nlu\n  leaf=auto|reg|grid  default auto  [experimental]\n      the panel "
                   "leaf\n"),
            std::string::npos)
      << h;
  EXPECT_EQ(tune_help("mmspmv", {}), "mmspmv has no tuning keys.\n");
}

TEST(Tuning, HelpWrapsLongMeanings) {
  TuneKey k = kWarps;
  k.meaning = std::string(60, 'a') + " " + std::string(30, 'b') + " c";
  const std::string h = tune_help("t", {{"op", "", {k}}});
  EXPECT_NE(h.find("\n      " + std::string(60, 'a') + "\n      " + std::string(30, 'b') + " c\n"),
            std::string::npos)
      << h;
}

// ---- the shared command line --------------------------------------------------------------

struct Parsed {
  bool go = false;
  CommonOptions common;
  TuneArgs tune;
};

Parsed parse(std::vector<std::string> args, std::vector<TuneKeys> ops, bool profiling = false) {
  Cli cli("mmtest", "A", "a test", "mmtest A");
  cli.compute().tuning(std::move(ops)).positional("A", -1);
  if (profiling) cli.profiling();
  args.insert(args.begin(), "mmtest");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  Parsed p;
  p.go = cli.parse(static_cast<int>(argv.size()), argv.data());
  p.common = cli.common();
  p.tune = cli.tune();
  return p;
}

TEST(TuningCli, TuneIsRepeatableAndChecked) {
  const TuneKeys op{"jacobi stencil", "", {kWarps, kChunks}};
  const Parsed p = parse({"A.mtx", "--tune", "warps=16", "--tune=chunks=3"}, {op});
  EXPECT_TRUE(p.go);
  EXPECT_EQ(p.common.tune, (std::vector<std::string>{"warps=16", "chunks=3"}));
  EXPECT_EQ(p.tune.get(kWarps), "16");
  EXPECT_EQ(p.tune.get(kChunks), "3");
  EXPECT_TRUE(parse({"A.mtx"}, {op}).tune.empty());
  EXPECT_EQ(usage_error([&] {
              parse({"A.mtx", "--tune", "nosuch=1"}, {op});
            }),
            "unknown --tune key 'nosuch' for mmtest; keys: warps, chunks (see mmtest --tune help)");
  EXPECT_EQ(usage_error([&] {
              parse({"--tune", "warps"}, {op});
            }),
            "--tune takes KEY=VALUE (or help), not 'warps'");
  EXPECT_EQ(usage_error([&] {
              parse({"--tune", "warps=8"}, {});
            }),
            "unknown --tune key 'warps': mmtest has no tuning keys");
}

TEST(TuningCli, TuneHelpPrintsAndStops) {
  const TuneKeys op{"jacobi stencil", "", {kWarps, kChunks}};
  testing::internal::CaptureStdout();
  const Parsed p = parse({"--tune", "help"}, {op});
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(p.go);
  EXPECT_EQ(out, tune_help("mmtest", {op}));
}

TEST(TuningCli, ProfileLevels) {
  EXPECT_EQ(parse({"A.mtx"}, {}, true).common.profile, 0);
  // --profile alone is level 1 and leaves the next word to the positionals.
  const Parsed p = parse({"--profile", "A.mtx"}, {}, true);
  EXPECT_EQ(p.common.profile, 1);
  EXPECT_EQ(parse({"A.mtx", "--profile"}, {}, true).common.profile, 1);
  EXPECT_EQ(parse({"A.mtx", "--profile=2"}, {}, true).common.profile, 2);
  EXPECT_EQ(parse({"A.mtx", "--profile=0"}, {}, true).common.profile, 0);
  EXPECT_EQ(usage_error([] {
              parse({"A.mtx", "--profile=3"}, {}, true);
            }),
            "--profile takes 1 or 2 (--profile alone: 1), not 3");
  EXPECT_EQ(usage_error([] {
              parse({"A.mtx", "--profile"}, {});
            }),
            "--profile: mmtest has nothing to profile");
}

// ---- the record -------------------------------------------------------------------------------

class FakeRunner final : public Runner {
 public:
  FakeRunner(nlohmann::json tuning, nlohmann::json profile)
      : tuning_(std::move(tuning)), profile_(std::move(profile)) {}
  void run() override { ++runs; }
  nlohmann::json tuning() const override { return tuning_; }
  nlohmann::json profile() const override { return profile_; }
  int runs = 0;

 private:
  nlohmann::json tuning_, profile_;
};

class PlainRunner final : public Runner {
 public:
  void run() override {}
};

TEST(TuningRecord, MeasureRecordsTheTuningUsedAndTheProfile) {
  FakeRunner r({{"warps", 16}, {"chunks", 7}}, {{"level", 1}, {"panel_s", 0.5}});
  const Measured m = measure(r, 1, 3);
  EXPECT_EQ(r.runs, 4);
  TimingRecord rec("mmtest");
  record_measured(rec, m);
  const nlohmann::json j = rec.json();
  EXPECT_EQ(j.at("tuning"), (nlohmann::json{{"warps", 16}, {"chunks", 7}}));
  EXPECT_EQ(j.at("profile"), (nlohmann::json{{"level", 1}, {"panel_s", 0.5}}));
}

TEST(TuningRecord, EveryRecordHasTuningEvenWithoutKeys) {
  PlainRunner r;
  TimingRecord rec("mmtest");
  record_measured(rec, measure(r, 0, 1));
  const nlohmann::json j = rec.json();
  ASSERT_TRUE(j.contains("tuning"));
  EXPECT_TRUE(j.at("tuning").is_object());
  EXPECT_TRUE(j.at("tuning").empty());
  EXPECT_FALSE(j.contains("profile"));
}

TEST(TuningRecord, UnusedKeysAreWarnedAbout) {
  const TuneArgs a({"warps=16", "chunks=3"});
  testing::internal::CaptureStderr();
  warn_unused_tuning("mmjacobi", a, {{"chunks", 3}}, "cuda-norm");
  warn_unused_tuning("mmjacobi", TuneArgs(), nlohmann::json::object(), "cpu");
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "mmjacobi: warning: --tune warps=16 not used by cuda-norm\n");
}

}  // namespace
}  // namespace mm
