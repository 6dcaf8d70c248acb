// Reader limits: lines up to 1 MiB read and longer ones refused wherever they fall, header
// comments bounded, and a first line refused from its first bytes with the whole line's message.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/mtx.hpp"
#include "mm/mtx_header.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

// The error of parsing TEXT, or "" when it is accepted.
std::string error_of(const std::string& text, const ReadOptions& opt = {}) {
  try {
    parse_mtx(text, "t", opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A line of exactly N bytes before its '\n': HEAD padded with FILL.
std::string line_of(std::size_t n, const std::string& head, char fill = ' ') {
  std::string s = head;
  s.resize(n, fill);
  return s;
}

const std::vector<std::pair<int, std::size_t>> kOptions = {
    {1, 1}, {1, 4096}, {2, 7}, {2, std::size_t{1} << 20}, {3, std::size_t{3} << 20}};

TEST(MtxLimits, LinesOfOneMiBRead) {
  const std::size_t n = kMaxLineBytes;
  const std::string text = kBanner + line_of(n, "% header comment") + "\n" + line_of(n, " 3 3 3") +
                           "\n" + line_of(n, "% body comment", 'c') + "\n" +
                           line_of(n - 1, "1 1 1.5") + "\r\n" + "2 2 2\n" +
                           line_of(n, "3 3 -4");  // no final newline
  for (const auto& [threads, chunk] : kOptions) {
    SCOPED_TRACE("threads=" + std::to_string(threads) + " chunk=" + std::to_string(chunk));
    const MtxMatrix m = parse_mtx(text, "t", ReadOptions{threads, chunk});
    ASSERT_EQ(m.header.comments.size(), 1u);
    EXPECT_EQ(m.header.comments[0].size(), n - 1);
    EXPECT_EQ(m.row, (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(m.real, (std::vector<double>{1.5, 2, -4}));
  }
}

TEST(MtxLimits, LongerLinesRefusedWhereverTheyFall) {
  const std::size_t over = kMaxLineBytes + 1;
  const std::string size = "3 3 2\n", entry = "1 1 1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {line_of(over, kBanner.substr(0, kBanner.size() - 1)) + "\n" + size, "t:1:"},
      {kBanner + line_of(over, "%", 'c') + "\n" + size + entry + entry, "t:2:"},
      {kBanner + line_of(over, "3 3 2") + "\n" + entry + entry, "t:2:"},
      {kBanner + size + entry + line_of(over, "%", 'c') + "\n" + entry, "t:4:"},
      {kBanner + size + entry + line_of(over, "2 2 2") + "\n", "t:4:"},
      {kBanner + size + entry + line_of(over, "2 2 2"), "t:4:"},  // the last, without '\n'
      {kBanner + size + entry + std::string(3 * over, '\0'), "t:4:"},
      {kBanner + std::string(over, 'x'), "t:2:"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (const auto& [threads, chunk] : kOptions)
      EXPECT_EQ(error_of(cases[i].first, ReadOptions{threads, chunk}),
                cases[i].second + std::string(" line longer than 1 MiB"))
          << "case " << i << " threads=" << threads << " chunk=" << chunk;
}

// The first error by line wins, as for any other error: a bad entry before a long line, and a
// long line before a bad entry.
TEST(MtxLimits, FirstErrorByLine) {
  const std::string lng = line_of(kMaxLineBytes + 1, "% ") + "\n";
  const std::string head = kBanner + "3 3 2\n";
  for (const auto& [threads, chunk] : kOptions) {
    const ReadOptions o{threads, chunk};
    EXPECT_EQ(error_of(head + "4 1 1\n" + lng + "1 1 1\n", o),
              "t:3: row index 4 out of range 1..3");
    EXPECT_EQ(error_of(head + "1 1 1\n" + lng + "4 1 1\n", o), "t:4: line longer than 1 MiB");
    EXPECT_EQ(error_of(head + "1 1 1\n2 2 2\n3 3 3\n" + lng, o),
              "t:5: more entries than the 2 the size line declares");
  }
}

TEST(MtxLimits, FilesAndGzipFilesAlike) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("mm_limits_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string text = kBanner + "2 2 1\n1 1 1\n" + std::string(kMaxLineBytes + 1, '7');
  for (const std::string name : {"long.mtx", "long.mtx.gz"}) {
    const std::string path = (dir / name).string();
    OutputStream out(path);  // compressed for .gz
    out.write(text);
    out.commit();
    for (const auto& [threads, chunk] : kOptions) {
      try {
        read_mtx(path, ReadOptions{threads, chunk});
        ADD_FAILURE() << path << " accepted";
      } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), path + ":4: line longer than 1 MiB");
      }
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(MtxLimits, HeaderCommentsBounded) {
  std::string lines;
  for (std::size_t i = 0; i < kMaxHeaderCommentLines; ++i) lines += "%\n";
  const MtxMatrix m =
      parse_mtx("%%MatrixMarket matrix coordinate real general\n" + lines + "\n1 1 0\n", "t");
  EXPECT_EQ(m.header.comments.size(), kMaxHeaderCommentLines);
  EXPECT_EQ(error_of(kBanner + lines + "% one more\n1 1 0\n"),
            "t:1048578: more than 1048576 comment lines before the size line");

  // 64 lines of 1 MiB less the '%' fit in 64 MiB; the 65th does not.
  const std::string big = line_of(kMaxLineBytes, "%", 'c') + "\n";
  std::string text = kBanner;
  for (int i = 0; i < 64; ++i) text += big;
  EXPECT_EQ(error_of(text + "1 1 0\n"), "");
  EXPECT_EQ(error_of(text + big + "1 1 0\n"),
            "t:66: more than 64 MiB of comments before the size line");
}

// What the reader decides from a first line's start is what the whole line gets.
TEST(MtxLimits, BannerJudgedFromItsStartAsFromTheWholeLine) {
  const std::vector<std::string> starts = {"",
                                           " ",
                                           "\t \r",
                                           "%",
                                           "%%",
                                           "%%Matrix",
                                           "%%MatrixMarket",
                                           "%%matrixMARKET",
                                           "  %%MatrixMarket",
                                           "%%MatrixMarketX",
                                           "%%MatrixMarket_",
                                           "%MatrixMarket",
                                           "%% MatrixMarket",
                                           "x",
                                           "1 1 1",
                                           std::string(1, '\0'),
                                           "\xef\xbb\xbf%%MatrixMarket",
                                           "%%MatrixMarke",
                                           "%%MatrixMarket\r"};
  const std::vector<std::string> tails = {"",
                                          " matrix coordinate real general",
                                          "\tmatrix array complex hermitian",
                                          " matrix coordinate real general extra",
                                          " junk",
                                          std::string(60, 'y'),
                                          std::string(60, ' ') + "z",
                                          std::string(70, '\0')};
  auto banner_error = [](const std::string& line) {
    MtxHeader h;
    try {
      parse_banner(line, "t", h);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  int early = 0;
  for (const auto& s : starts)
    for (const auto& t : tails) {
      const std::string line = s + t;
      const std::string whole = banner_error(line);
      for (std::size_t n = 0; n <= line.size(); ++n) {
        if (!banner_start_refused(std::string_view(line).substr(0, n))) continue;
        ++early;
        EXPECT_NE(whole, "") << "refused early, accepted whole: '" << line << "'";
        EXPECT_EQ(banner_error(line.substr(0, n)), whole) << "'" << line << "' at " << n;
      }
    }
  EXPECT_GT(early, 1000);  // the cases do exercise it
  EXPECT_FALSE(banner_start_refused(line_of(200, "%%MatrixMarket matrix coordinate")));
  EXPECT_FALSE(banner_start_refused(std::string(200, ' ')));

  // Through the reader: a first line longer than the first read block, and an endless one.
  const std::string want = banner_error(std::string(300000, 'q'));
  ASSERT_NE(want, "");
  EXPECT_EQ(error_of(std::string(300000, 'q') + "\n3 3 0\n"), want);
  try {
    read_mtx("/dev/zero");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/dev/zero:1: " + banner_error(std::string(41, '\0')).substr(5));
  }
}

}  // namespace
}  // namespace mm
