// test_error.cpp: printable(), which makes untrusted text safe to quote in a one-line message.
#include <doctest/doctest.h>

#include <string>

#include "error.hpp"

TEST_CASE("printable: control characters are escaped, never passed to the terminal") {
  CHECK(ap::printable("\x1b]0;PWNED\a\x1b[31mRED") == "\\u001B]0;PWNED\\u0007\\u001B[31mRED");
  CHECK(ap::printable(std::string("a\0b", 3)) == "a\\u0000b");  // not cut at the NUL
  CHECK(ap::printable("a\nb\rc\td") == "a\\u000Ab\\u000Dc\\u0009d");
  CHECK(ap::printable("\x7f") == "\\u007F");
  CHECK(ap::printable("\xc2\x9b"
                      "31m") == "\\u009B31m");  // C1 CSI
  CHECK(ap::printable("a\xe2\x80\xa8"
                      "b") == "a\\u2028b");                   // line separator
  CHECK(ap::printable("\xff\xc0\xaf") == "\\xFF\\xC0\\xAF");  // not UTF-8
  CHECK(ap::printable("小猫吃鱼，它很开心 ok") == "小猫吃鱼，它很开心 ok");
}

TEST_CASE("printable: long text is cut at a character boundary with an ellipsis") {
  CHECK(ap::printable(std::string(10, 'a'), 10) == std::string(10, 'a'));
  CHECK(ap::printable(std::string(11, 'a'), 10) == std::string(10, 'a') + "…");
  CHECK(ap::printable(std::string(10 << 20, '1')).size() == 80 + std::string("…").size());
  // 小 is 3 bytes: 4 bytes hold one, never half of the second
  CHECK(ap::printable("小小", 4) == "小…");
  CHECK(ap::printable("\x1b\x1b", 7) == "\\u001B…");
}
