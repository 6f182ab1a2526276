// convert.cpp: see convert.hpp.
#include "convert.hpp"

#include <emscripten/bind.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <utility>
#include <vector>

#include "guards.hpp"

namespace ap::wasm {

const val& js_name(const char* name) {
  static std::deque<std::pair<const char*, val>> names;  // a deque: references stay valid
  for (const auto& [key, v] : names) {
    if (key == name) return v;
  }
  names.emplace_back(name, val(name));
  return names.back().second;
}

namespace {
val f32_copy(const float* p, std::size_t n) {
  static const val Float32Array = val::global("Float32Array");
  return Float32Array.new_(emscripten::typed_memory_view(n, p));
}
}  // namespace

val mat(const Matrix& m) {
  val o = val::object();
  o.set(js_name("rows"), static_cast<int>(m.rows()));
  o.set(js_name("cols"), static_cast<int>(m.cols()));
  o.set(js_name("data"), f32_copy(m.data(), static_cast<std::size_t>(m.size())));
  return o;
}

val row(const RowVector& v) { return f32_copy(v.data(), static_cast<std::size_t>(v.size())); }

val bytes_js(const std::string& b) {
  return val::global("Uint8Array")
      .new_(
          emscripten::typed_memory_view(b.size(), reinterpret_cast<const std::uint8_t*>(b.data())));
}

val ok() {
  val o = val::object();
  o.set(js_name("ok"), true);
  return o;
}

val error(const std::string& code, const std::string& message) {
  val e = val::object();
  e.set(js_name("code"), code);
  e.set(js_name("message"), message);
  val o = val::object();
  o.set(js_name("ok"), false);
  o.set(js_name("error"), e);
  return o;
}

namespace {
void read_field(const char* key, const val& v, std::uint64_t& field) {
  if (!v.isString())
    throw Error("bad_seed",
                "the seed must be a decimal string (a JS number cannot hold every "
                "64-bit value), e.g. \"42\"");
  field = parse_seed(string_arg(v, key, 32, "bad_seed"));
}
void read_field(const char* key, const val& v, int& field) {
  field = static_cast<int>(int_arg(v, key, INT_MIN, INT_MAX));
}
void read_field(const char* key, const val& v, bool& field) {
  if (!v.isTrue() && !v.isFalse()) bad_setting(std::string(key) + " must be true or false");
  field = v.isTrue();
}
void read_field(const char* key, const val& v, float& field) {
  const double d = v.isNumber() ? v.as<double>() : NAN;
  if (!std::isfinite(d) || std::fabs(d) > 3.4e38)
    bad_setting(std::string(key) + " must be a finite number");
  field = static_cast<float>(d);
}
}  // namespace

Settings settings_from(const val& o) {
  Settings s;
  require_object(o, "settings");
  if (absent(o)) return s;
  schema::settings_fields(s, [&](const char* key, auto& field) {
    const val v = o[key];
    if (!absent(v)) read_field(key, v, field);
  });
  return s;
}

}  // namespace ap::wasm
