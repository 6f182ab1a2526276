// json_reader.hpp: a small strict JSON (RFC 8259) reader for the files of a model folder
// (config.json, tokenizer.json, tokenizer_config.json, a safetensors header), with bounded memory.
// Not a writer and not a general JSON library: the CLI's JSON in and out is src/cli/json_io.
//
// Every error is ap::Error naming the file (as the caller calls it), the line and the column.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ap::json {

// What parse() accepts. A document past any of these is refused (json_too_large) before more is
// read: memory is at most about max_values nodes (each about a hundred bytes) plus max_bytes of
// string text.
struct Limits {
  std::size_t max_bytes = std::size_t{64} << 20;  // the document's length
  std::size_t max_depth = 64;                     // arrays and objects nested in each other
  std::size_t max_values = std::size_t{4} << 20;  // values of any kind, keys not counted
};

enum class Kind : std::uint8_t { null, boolean, number, string, array, object };

// One JSON value. Objects keep their members in file order; a key given twice is refused.
class Value {
 public:
  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_bool() const { return kind_ == Kind::boolean; }
  bool is_number() const { return kind_ == Kind::number; }
  bool is_string() const { return kind_ == Kind::string; }
  bool is_array() const { return kind_ == Kind::array; }
  bool is_object() const { return kind_ == Kind::object; }

  // The value itself; each throws json_type (naming `what`, e.g. "config.json: n_layer") when
  // the kind differs.
  bool as_bool(std::string_view what) const;
  double as_number(std::string_view what) const;
  // A number that is a whole number within [lo, hi] (json_type otherwise).
  std::int64_t as_int(std::string_view what, std::int64_t lo, std::int64_t hi) const;
  const std::string& as_string(std::string_view what) const;     // UTF-8, escapes decoded
  const std::vector<Value>& items(std::string_view what) const;  // an array's elements

  // An object's members in file order (json_type when this is not an object).
  std::size_t size() const { return children_.size(); }
  const std::vector<std::string>& keys(std::string_view what) const;
  const std::vector<Value>& values(std::string_view what) const;
  // The member named `key`, or nullptr when absent or when this is not an object.
  const Value* find(std::string_view key) const;

  // The number's text as written in the file (e.g. "1e-05"), for messages.
  const std::string& text() const { return text_; }

 private:
  friend class Parser;
  Kind kind_ = Kind::null;
  bool boolean_ = false;
  double number_ = 0.0;
  std::string text_;               // a string's decoded bytes, or a number's source text
  std::vector<Value> children_;    // an array's elements or an object's values
  std::vector<std::string> keys_;  // an object's keys, parallel to children_
};

// Parses one JSON document (optionally after a UTF-8 byte-order mark) followed by nothing but
// whitespace. `file` names the document in messages. Strings must be valid UTF-8; \u escapes
// must pair surrogates. Throws ap::Error json_invalid (syntax, with line and column) or
// json_too_large (a limit above).
Value parse(std::string_view text, std::string_view file, const Limits& limits = {});

}  // namespace ap::json
