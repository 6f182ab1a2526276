// io.hpp: bounded reading for native tools. Not used by the page (it never reads files).
#pragma once
#include <cstddef>
#include <istream>
#include <string>

namespace ap {

// Reads `in` until its end or until it has more than `cap` bytes, whichever comes first: the
// result has at most cap + 1 bytes, so callers tell "too large" from "exactly the cap" without
// ever holding more. Endless inputs (/dev/zero) and huge files cost no more than the cap.
std::string read_at_most(std::istream& in, std::size_t cap);

}  // namespace ap
