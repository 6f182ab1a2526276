// error.hpp: the one exception type the core throws for bad input or bad settings.
// Not for programming errors (those are asserts); every message says what is wrong and how to fix
// it.
#pragma once
#include <stdexcept>
#include <string>

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

}  // namespace ap
