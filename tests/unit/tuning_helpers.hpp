// What the tuning tests share: the message of a UsageError, and an operation's tuning parsed
// from --tune's items.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mm/error.hpp"
#include "mm/tuning.hpp"

namespace mm::test {

// The message of the UsageError F throws; a failure when it throws none.
template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

// TUNING (JacobiTuning, LuTuning, ...) from --tune's ITEMS.
template <class Tuning>
Tuning parse_tuning(const std::vector<std::string>& items) {
  return Tuning::from(TuneArgs(items));
}

// The message of the UsageError that parse_tuning<TUNING>(ITEMS) throws.
template <class Tuning>
std::string tuning_usage_error(const std::vector<std::string>& items) {
  return usage_error([&] { parse_tuning<Tuning>(items); });
}

}  // namespace mm::test
