// json_reader.cpp: a recursive-descent JSON parser with a depth, a value count and a length limit.
#include "json_reader.hpp"

#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_set>

#include "error.hpp"
#include "utf8.hpp"

namespace ap::json {

namespace {
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::null:
      return "null";
    case Kind::boolean:
      return "a boolean";
    case Kind::number:
      return "a number";
    case Kind::string:
      return "a string";
    case Kind::array:
      return "an array";
    case Kind::object:
      return "an object";
  }
  return "?";
}

[[noreturn]] void wrong_kind(std::string_view what, const char* want, Kind got) {
  throw Error("json_type", std::string(what) + " must be " + want + ", not " + kind_name(got));
}
}  // namespace

bool Value::as_bool(std::string_view what) const {
  if (kind_ != Kind::boolean) wrong_kind(what, "true or false", kind_);
  return boolean_;
}

double Value::as_number(std::string_view what) const {
  if (kind_ != Kind::number) wrong_kind(what, "a number", kind_);
  return number_;
}

std::int64_t Value::as_int(std::string_view what, std::int64_t lo, std::int64_t hi) const {
  const double v = as_number(what);
  if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) || v != std::floor(v))
    throw Error("json_type", std::string(what) + " must be a whole number from " +
                                 std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
                                 printable(text_, 40));
  return static_cast<std::int64_t>(v);
}

const std::string& Value::as_string(std::string_view what) const {
  if (kind_ != Kind::string) wrong_kind(what, "a string", kind_);
  return text_;
}

const std::vector<Value>& Value::items(std::string_view what) const {
  if (kind_ != Kind::array) wrong_kind(what, "an array", kind_);
  return children_;
}

const std::vector<std::string>& Value::keys(std::string_view what) const {
  if (kind_ != Kind::object) wrong_kind(what, "an object", kind_);
  return keys_;
}

const std::vector<Value>& Value::values(std::string_view what) const {
  if (kind_ != Kind::object) wrong_kind(what, "an object", kind_);
  return children_;
}

const Value* Value::find(std::string_view key) const {
  if (kind_ != Kind::object) return nullptr;
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return &children_[i];
  return nullptr;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view file, const Limits& limits)
      : s_(text), file_(file), limits_(limits) {}

  Value document() {
    if (s_.size() > limits_.max_bytes)
      throw Error("json_too_large", std::string(file_) + " is " + std::to_string(s_.size()) +
                                        " bytes; the most this reader takes is " +
                                        std::to_string(limits_.max_bytes));
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    skip_space();
    Value v;
    value(v, 0);
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  std::string_view s_;
  std::string_view file_;
  Limits limits_;
  std::size_t pos_ = 0;
  std::size_t values_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) {
        ++col;
      }
    }
    throw Error("json_invalid", std::string(file_) + " is not valid JSON: line " +
                                    std::to_string(line) + ", column " + std::to_string(col) +
                                    ": " + why);
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void skip_space() {
    while (!at_end()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        ++pos_;
      else
        break;
    }
  }

  void expect_word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) fail("expected a value");
    pos_ += w.size();
  }

  void count_value() {
    if (++values_ > limits_.max_values)
      throw Error("json_too_large", std::string(file_) + " holds more than " +
                                        std::to_string(limits_.max_values) +
                                        " JSON values, more than this reader takes");
  }

  void value(Value& v, std::size_t depth) {
    count_value();
    if (at_end()) fail("the file ends where a value should be");
    const char c = s_[pos_];
    switch (c) {
      case '{':
        object(v, depth + 1);
        return;
      case '[':
        array(v, depth + 1);
        return;
      case '"':
        v.kind_ = Kind::string;
        string(v.text_);
        return;
      case 't':
        expect_word("true");
        v.kind_ = Kind::boolean;
        v.boolean_ = true;
        return;
      case 'f':
        expect_word("false");
        v.kind_ = Kind::boolean;
        v.boolean_ = false;
        return;
      case 'n':
        expect_word("null");
        v.kind_ = Kind::null;
        return;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          number(v);
          return;
        }
        fail("expected a value");
    }
  }

  void check_depth(std::size_t depth) {
    if (depth > limits_.max_depth)
      throw Error("json_too_large", std::string(file_) + " nests arrays and objects more than " +
                                        std::to_string(limits_.max_depth) + " deep");
  }

  void object(Value& v, std::size_t depth) {
    check_depth(depth);
    v.kind_ = Kind::object;
    ++pos_;  // '{'
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    std::unordered_set<std::string_view> seen;
    for (;;) {
      skip_space();
      if (peek() != '"') fail("expected a member name in double quotes");
      std::string key;
      string(key);
      v.keys_.push_back(std::move(key));
      skip_space();
      if (peek() != ':') fail("expected ':' after a member name");
      ++pos_;
      skip_space();
      v.children_.emplace_back();
      value(v.children_.back(), depth);
      skip_space();
      const char c = peek();
      ++pos_;
      if (c == '}') break;
      if (c != ',') {
        --pos_;
        fail("expected ',' or '}' in an object");
      }
    }
    // duplicate keys: ambiguous (readers disagree on which wins), so refused
    seen.reserve(v.keys_.size());
    for (const auto& k : v.keys_)
      if (!seen.insert(k).second)
        fail("the member name \"" + printable(k, 40) + "\" appears twice in one object");
  }

  void array(Value& v, std::size_t depth) {
    check_depth(depth);
    v.kind_ = Kind::array;
    ++pos_;  // '['
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_space();
      v.children_.emplace_back();
      value(v.children_.back(), depth);
      skip_space();
      const char c = peek();
      ++pos_;
      if (c == ']') break;
      if (c != ',') {
        --pos_;
        fail("expected ',' or ']' in an array");
      }
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("a \\u escape needs four hex digits");
    unsigned u = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[pos_++];
      u <<= 4;
      if (c >= '0' && c <= '9')
        u |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        u |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        u |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("a \\u escape needs four hex digits");
    }
    return u;
  }

  void string(std::string& out) {
    ++pos_;  // opening quote
    for (;;) {
      if (at_end()) fail("a string is not closed");
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c < 0x20) fail("a control character inside a string must be escaped");
      if (c == '\\') {
        ++pos_;
        if (at_end()) fail("a string is not closed");
        const char e = s_[pos_++];
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            char32_t u = hex4();
            if (u >= 0xD800 && u <= 0xDBFF) {
              if (s_.substr(pos_, 2) != "\\u") fail("a high surrogate escape without its pair");
              pos_ += 2;
              const unsigned lo = hex4();
              if (lo < 0xDC00 || lo > 0xDFFF) fail("a high surrogate escape without its pair");
              u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
              fail("a low surrogate escape without its pair");
            }
            append_utf8(out, u);
            break;
          }
          default:
            --pos_;
            fail("an unknown escape in a string");
        }
        continue;
      }
      // a run of plain bytes, checked as UTF-8 below
      std::size_t end = pos_;
      while (end < s_.size() && s_[end] != '"' && s_[end] != '\\' &&
             static_cast<unsigned char>(s_[end]) >= 0x20)
        ++end;
      const std::string_view run = s_.substr(pos_, end - pos_);
      try {
        (void)decode_utf8(run);
      } catch (const Error&) {
        fail("a string is not valid UTF-8");
      }
      out.append(run);
      pos_ = end;
    }
  }

  void number(Value& v) {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("a number needs digits");
    }
    if (peek() == '.') {
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("a number needs digits after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("a number needs digits in its exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    v.kind_ = Kind::number;
    v.text_.assign(s_.substr(start, pos_ - start));
    // strtod reads the C locale's form here: JSON's grammar is a subset of it
    v.number_ = std::strtod(v.text_.c_str(), nullptr);
    if (!std::isfinite(v.number_)) fail("a number too large for a double");
  }
};

Value parse(std::string_view text, std::string_view file, const Limits& limits) {
  return Parser(text, file, limits).document();
}

}  // namespace ap::json
