// io.cpp: bounded reading.
#include "io.hpp"

#include <algorithm>

namespace ap {

std::string read_at_most(std::istream& in, std::size_t cap) {
  std::string out;
  char buf[1 << 16];
  while (out.size() <= cap && in) {
    const std::size_t want = std::min(sizeof buf, cap + 1 - out.size());
    in.read(buf, static_cast<std::streamsize>(want));
    out.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  return out;
}

}  // namespace ap
