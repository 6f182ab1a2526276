// error.hpp: the one exception type the core throws for bad input or bad settings.
// Not for programming errors (those are asserts); every message says what is wrong and how to fix
// it.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ap {

// code: a stable machine-readable name the page translates ("too_many_tokens", ...).
// message: one English line for the CLI and for logs.
class Error : public std::runtime_error {
 public:
  Error(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// `s` made safe to quote inside a one-line message: control characters (C0, DEL, C1), line and
// paragraph separators and bytes that are not UTF-8 become \u001B or \xFF escapes, so a message
// never moves the cursor, retitles a terminal or stops at a NUL; the result is cut at a character
// boundary to at most `max_bytes` bytes plus "…".
std::string printable(std::string_view s, std::size_t max_bytes = 80);

}  // namespace ap
