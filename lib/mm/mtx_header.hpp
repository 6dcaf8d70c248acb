// Internal: banner and size-line parsing shared by the reader and mmcheck.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mm/mtx.hpp"

namespace mm {

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Whitespace-separated tokens of one line (spaces, tabs, a trailing CR).
std::vector<std::string_view> split_tokens(std::string_view line);
// A token quoted and shortened for an error message.
std::string describe_token(std::string_view tok);
// A whole integer token (an optional '+', no trailing characters).
bool parse_int64(std::string_view tok, std::int64_t& out);

// Fills format, field and symmetry from line 1; throws InputError naming FILE.
void parse_banner(std::string_view line, const std::string& file, MtxHeader& h);
// Whether BYTES, the start of line 1 whose end has not arrived, already cannot begin a banner
// and hold all that parse_banner's message quotes of a line: parse_banner refuses them then
// with the message the whole line would get, so a stream that is no Matrix Market file (2 GB
// of zero bytes in a .gz) is refused at its first block.
bool banner_start_refused(std::string_view bytes);
// Fills rows, cols and nnz (stored count for arrays) from the size line.
void parse_size_line(std::string_view line, std::int64_t line_no, const std::string& file,
                     MtxHeader& h);

}  // namespace mm
