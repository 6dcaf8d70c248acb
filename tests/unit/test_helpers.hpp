// Shared helpers for the unit tests: paths to the corpus and equality of MtxMatrix.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "mm/mtx.hpp"

namespace mm::test {

// The build's paths, overridable at run time (the GPU machine runs a copied tree).
inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
inline std::string source_dir() {
  return env_or("MM_ROOT", MM_SOURCE_DIR);
}
inline std::string bin_dir() {
  return env_or("MM_BIN", MM_BIN_DIR);
}
inline std::string corpus_dir() {
  return source_dir() + "/datasets/corpus";
}

inline std::vector<std::string> corpus_files() {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(corpus_dir()))
    if (e.path().extension() == ".mtx") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

// Bit-exact equality of doubles (NaN payloads included).
inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline void expect_same(const MtxMatrix& a, const MtxMatrix& b) {
  EXPECT_EQ(a.header.banner(), b.header.banner());
  EXPECT_EQ(a.header.rows, b.header.rows);
  EXPECT_EQ(a.header.cols, b.header.cols);
  EXPECT_EQ(a.header.nnz, b.header.nnz);
  EXPECT_EQ(a.header.comments, b.header.comments);
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.col, b.col);
  EXPECT_TRUE(same_bits(a.real, b.real));
  EXPECT_TRUE(same_bits(a.imag, b.imag));
  EXPECT_EQ(a.integer, b.integer);
}

}  // namespace mm::test
