// convert.hpp: conversions between JS values and the core's types, shared by the Embind files of
// src/wasm. Computes nothing. Matrices go out as {rows, cols, data: Float32Array} copies owned by
// JS (row-major), so the page never holds a view into wasm memory; errors go out as
// {ok: false, error: {code, message}} rather than as C++ exceptions. Field names are
// src/core/schema.hpp's, written through JsWriter.
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <new>
#include <string>

#include "error.hpp"
#include "matrix.hpp"
#include "model.hpp"
#include "schema.hpp"

namespace ap::wasm {

using emscripten::val;

// A JS string for a property name, made once. `name` must have static storage (a literal): it is
// keyed by address. A trace is ~50 matrices made on every keystroke; making the names from C
// strings each time would make garbage on every keystroke.
const val& js_name(const char* name);

val mat(const Matrix& m);            // {rows, cols, data: Float32Array}
val row(const RowVector& v);         // Float32Array
val bytes_js(const std::string& b);  // bytes -> Uint8Array copy
// JS arguments in (rows, matrices, bytes, strings) go through guards.hpp, which checks their type
// and size against the core's limits before anything is copied.

val ok();                                                        // {ok: true}
val error(const std::string& code, const std::string& message);  // {ok: false, error}

// f() or, when it throws, error(code, message).
template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    return error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return error("out_of_memory", "out of memory: use a shorter text or smaller sizes");
  } catch (const std::exception& e) {
    return error("internal", e.what());
  }
}

// {d_model, heads, ...}: schema::settings_fields names; absent fields keep their defaults. The
// seed travels as a decimal string (a JS number cannot hold every 64-bit value). Every field is
// checked for its type (bad_setting / bad_seed naming it; Embind would turn "abc" and NaN into 0);
// the core's validate() then checks the ranges.
Settings settings_from(const val& o);

// schema.hpp's writer for JS values.
struct JsWriter {
  using Node = val;
  Node object() const { return val::object(); }
  Node array() const { return val::array(); }
  Node value(bool v) const { return val(v); }
  Node value(int v) const { return val(v); }
  Node value(std::int64_t v) const { return val(static_cast<double>(v)); }
  Node value(float v) const { return val(v); }
  Node value(double v) const { return val(v); }
  Node value(const std::string& v) const { return val(v); }
  Node value(const char* v) const { return js_name(v); }  // static strings (token kinds)
  Node value(schema::Uint64 v) const { return val(std::to_string(v.value)); }
  Node matrix(const Matrix& m) const { return mat(m); }
  Node row(const RowVector& r) const { return wasm::row(r); }
  void set(Node& o, const char* key, const Node& v) const { o.set(js_name(key), v); }
  void set_dynamic(Node& o, const std::string& key, const Node& v) const { o.set(key, v); }
  void push(Node& a, const Node& v) const { a.call<void>("push", v); }
};

}  // namespace ap::wasm
