// guards.hpp: checks on the JS arguments of the exported functions, made before anything is
// copied into wasm memory. A raw export accepts only what the Core class in web/core.js accepts:
// a wrong type, a size over the core's limit or a bad setting throws ap::Error (code and a message
// naming the argument), which the export returns as {ok: false, error}. Memory never grows for a
// refused call, and nothing is left behind (every string arrives as a val, never as an Embind
// std::string argument, whose buffer would leak when a getter throws).
// Not the conversions of results (convert.hpp) and not the maths (src/core).
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "error.hpp"
#include "matrix.hpp"
#include "tokenizer.hpp"

namespace ap::wasm {

using emscripten::val;

[[noreturn]] inline void bad_setting(const std::string& message) {
  throw ap::Error("bad_setting", message);
}

inline bool absent(const val& v) { return v.isUndefined() || v.isNull(); }

// An options object: undefined or null (the defaults) or a plain object.
inline void require_object(const val& v, const char* name) {
  if (!absent(v) && v.typeOf().as<std::string>() != "object")
    bad_setting(std::string(name) + " must be an object");
}

// A JS string of at most max_bytes bytes of UTF-8, refused before it is copied into wasm memory.
// Every UTF-16 unit is one to three bytes of UTF-8: a string of more units than max_bytes is too
// long, one of at most max_bytes / 3 units fits, and in between the exact length is counted on the
// JS side (TextEncoder, a transient JS copy that the garbage collector frees; wasm memory never
// shrinks, so a CJK text of max_bytes units must not reach it).
inline std::string string_arg(const val& v, const char* name, std::size_t max_bytes,
                              const char* too_long_code) {
  if (!v.isString()) bad_setting(std::string(name) + " must be a string");
  const double units = v["length"].as<double>();
  const double cap = static_cast<double>(max_bytes);
  bool too_long = units > cap;
  if (!too_long && units * 3 > cap)
    too_long =
        val::global("TextEncoder").new_().call<val>("encode", v)["length"].as<double>() > cap;
  if (too_long)
    throw ap::Error(too_long_code,
                    std::string(name) + " is longer than " + std::to_string(max_bytes) + " bytes");
  return v.as<std::string>();
}

// The text of an exported call: a string of at most kMaxTextBytes (checked before the copy).
inline std::string text_arg(const val& text) {
  return string_arg(text, "text", kMaxTextBytes, "text_too_long");
}

// A whole number in [lo, hi] (Embind would turn "abc" and NaN into 0 without a word).
inline long long int_arg(const val& v, const char* name, long long lo, long long hi) {
  if (!v.isNumber()) bad_setting(std::string(name) + " must be a whole number");
  const double d = v.as<double>();
  if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || std::floor(d) != d)
    bad_setting(std::string(name) + " must be a whole number from " + std::to_string(lo) + " to " +
                std::to_string(hi));
  return static_cast<long long>(d);
}

inline long long int_field(const val& o, const char* key, long long lo, long long hi,
                           long long fallback) {
  const val v = o[key];
  return absent(v) ? fallback : int_arg(v, key, lo, hi);
}

inline float float_field(const val& o, const char* key, double lo, double hi, float fallback) {
  const val v = o[key];
  if (absent(v)) return fallback;
  const double d = v.isNumber() ? v.as<double>() : NAN;
  if (!(d >= lo && d <= hi))
    bad_setting(std::string(key) + " must be a number from " + std::to_string(lo) + " to " +
                std::to_string(hi));
  return static_cast<float>(d);
}

inline bool bool_field(const val& o, const char* key, bool fallback) {
  const val v = o[key];
  if (absent(v)) return fallback;
  if (!v.isTrue() && !v.isFalse()) bad_setting(std::string(key) + " must be true or false");
  return v.isTrue();
}

inline std::string string_field(const val& o, const char* key, const std::string& fallback,
                                std::size_t max_bytes = 64) {
  const val v = o[key];
  return absent(v) ? fallback : string_arg(v, key, max_bytes, "bad_setting");
}

// Length of a typed array of the given constructor ("Float32Array", "Uint8Array"), at most max.
inline std::size_t typed_length(const val& v, const char* type, const char* name, std::size_t max,
                                const char* too_long_code) {
  if (!v.instanceof (val::global(type))) bad_setting(std::string(name) + " must be a " + type);
  const double n = v["length"].as<double>();
  if (n > static_cast<double>(max))
    throw ap::Error(too_long_code, std::string(name) + " has " + std::to_string(n) +
                                       " entries; the limit is " + std::to_string(max));
  return static_cast<std::size_t>(n);
}

// A Float32Array of at most max numbers, copied straight into a row vector.
inline RowVector row_arg(const val& v, const char* name, std::size_t max,
                         const char* too_long_code) {
  const std::size_t n = typed_length(v, "Float32Array", name, max, too_long_code);
  RowVector r(static_cast<Eigen::Index>(n));
  if (n) val(emscripten::typed_memory_view(n, r.data())).call<void>("set", v);
  return r;
}

// {rows, cols, data: Float32Array} with 1..max_rows rows and 1..max_cols columns, copied straight
// into a matrix; an absent value gives an empty matrix.
inline Matrix matrix_arg(const val& o, const char* name, int max_rows, int max_cols) {
  if (absent(o)) return Matrix();
  require_object(o, name);
  const std::string n(name);
  const int rows = static_cast<int>(int_arg(o["rows"], (n + ".rows").c_str(), 1, max_rows));
  const int cols = static_cast<int>(int_arg(o["cols"], (n + ".cols").c_str(), 1, max_cols));
  const std::size_t size = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  const val data = o["data"];
  if (typed_length(data, "Float32Array", (n + ".data").c_str(), size, "shape_mismatch") != size)
    throw ap::Error("shape_mismatch", n + ": rows x cols does not match the data length");
  Matrix m(rows, cols);
  val(emscripten::typed_memory_view(size, m.data())).call<void>("set", data);
  return m;
}

// Bytes of a Uint8Array of at most max bytes.
inline std::string bytes_arg(const val& v, const char* name, std::size_t max,
                             const char* too_long_code) {
  const std::size_t n = typed_length(v, "Uint8Array", name, max, too_long_code);
  std::string b(n, '\0');
  if (n)
    val(emscripten::typed_memory_view(n, reinterpret_cast<std::uint8_t*>(&b[0])))
        .call<void>("set", v);
  return b;
}

}  // namespace ap::wasm
