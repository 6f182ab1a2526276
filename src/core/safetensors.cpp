// safetensors.cpp: the layout checks, then per-tensor conversion to float32.
#include "safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "error.hpp"
#include "json_reader.hpp"

namespace ap::safetensors {

namespace {

[[noreturn]] void bad(std::string_view file, const std::string& what) {
  throw Error("safetensors_invalid", std::string(file) + ": " + what);
}

std::string quoted(std::string_view name) { return "tensor \"" + printable(name, 120) + "\""; }

std::uint64_t read_u64_le(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint16_t read_u16_le(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

}  // namespace

int dtype_size(std::string_view d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (const std::int64_t s : shape) n *= static_cast<std::uint64_t>(s);  // checked in parse
  return n;
}

float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(frac), -24);  // subnormal (or zero)
  } else if (exp == 31) {
    v = frac ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(frac | 0x400u), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

float bf16_to_f32(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

const TensorInfo* File::find(std::string_view name) const {
  for (const TensorInfo& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

std::uint64_t header_length(const unsigned char* first8) { return read_u64_le(first8); }

File parse(const unsigned char* bytes, std::size_t size, std::string_view file_name) {
  File f = parse_header(bytes, size, size, file_name);
  f.data_ = bytes + f.data_offset_;
  return f;
}

File parse_header(const unsigned char* bytes, std::size_t available, std::uint64_t size,
                  std::string_view file_name) {
  File f;
  f.file_ = std::string(file_name);
  if (size < 8)
    bad(file_name, "the file has " + std::to_string(size) +
                       " bytes, fewer than the 8 that give the header's length: it is truncated "
                       "or not a safetensors file");
  const std::uint64_t n = read_u64_le(bytes);
  const std::uint64_t rest = size - 8;
  if (n > rest)
    bad(file_name, "the header says it is " + std::to_string(n) +
                       " bytes long, past the end of "
                       "the file (" +
                       std::to_string(rest) +
                       " bytes follow the length): the file is truncated or not safetensors");
  if (n > kMaxHeaderBytes)
    bad(file_name, "the header is " + std::to_string(n) + " bytes long; the limit is " +
                       std::to_string(kMaxHeaderBytes));
  if (n < 2) bad(file_name, "the header is not a JSON object: not a safetensors file");
  if (available < 8 + n)
    throw Error("internal", std::string(file_name) + ": the header was not read whole");
  if (bytes[8] != '{') bad(file_name, "the header is not a JSON object: not a safetensors file");
  json::Limits lim;
  lim.max_bytes = static_cast<std::size_t>(n);
  lim.max_depth = 4;
  lim.max_values = kMaxTensors * (kMaxRank + 8);
  json::Value header;
  try {
    header = json::parse(
        std::string_view(reinterpret_cast<const char*>(bytes + 8), static_cast<std::size_t>(n)),
        std::string(file_name) + " (header)", lim);
  } catch (const Error& e) {
    bad(file_name, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) bad(file_name, "the header is not a JSON object");
  f.data_offset_ = 8 + n;
  f.data_size_ = rest - n;

  const std::vector<std::string>& keys = header.keys("header");
  const std::vector<json::Value>& values = header.values("header");
  if (keys.size() > kMaxTensors + 1)
    bad(file_name, "the header lists " + std::to_string(keys.size()) + " tensors; the limit is " +
                       std::to_string(kMaxTensors));
  for (std::size_t i = 0; i < keys.size(); ++i) try {
      const std::string& name = keys[i];
      const json::Value& v = values[i];
      if (name == "__metadata__") {
        if (!v.is_object()) bad(file_name, "__metadata__ is not an object");
        continue;
      }
      const std::string who = quoted(name);
      if (!v.is_object()) bad(file_name, who + " is not described by an object");
      const json::Value* dtype = v.find("dtype");
      const json::Value* shape = v.find("shape");
      const json::Value* offsets = v.find("data_offsets");
      if (!dtype || !dtype->is_string() || !shape || !shape->is_array() || !offsets ||
          !offsets->is_array())
        bad(file_name,
            who + " needs \"dtype\" (a string), \"shape\" and \"data_offsets\" (arrays)");
      TensorInfo t;
      t.name = name;
      t.dtype = dtype->as_string("dtype");
      const int esize = dtype_size(t.dtype);
      if (esize == 0)
        bad(file_name, who + " has an unknown dtype \"" + printable(t.dtype, 20) + "\"");
      const std::vector<json::Value>& dims = shape->items("shape");
      if (dims.size() > kMaxRank)
        bad(file_name, who + " has " + std::to_string(dims.size()) + " dimensions; the limit is " +
                           std::to_string(kMaxRank));
      for (const json::Value& d : dims) {
        if (!d.is_number()) bad(file_name, who + ": a shape entry is not a number");
        t.shape.push_back(d.as_int(who + " shape", 0, std::int64_t{1} << 53));
      }
      // elements * size, compared with the data section's size without overflowing
      std::uint64_t bytes_needed = static_cast<std::uint64_t>(esize);
      bool too_big = false;
      if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) {
        bytes_needed = 0;
      } else {
        for (const std::int64_t d : t.shape) {
          const auto u = static_cast<std::uint64_t>(d);
          if (bytes_needed > f.data_size_ / u) {
            too_big = true;
            break;
          }
          bytes_needed *= u;
        }
      }
      const std::vector<json::Value>& off = offsets->items("data_offsets");
      if (off.size() != 2) bad(file_name, who + ": data_offsets must be [begin, end]");
      for (const json::Value& o : off)
        if (!o.is_number()) bad(file_name, who + ": data_offsets must be two whole numbers");
      t.begin = static_cast<std::uint64_t>(off[0].as_int(who + " begin", 0, std::int64_t{1} << 53));
      t.end = static_cast<std::uint64_t>(off[1].as_int(who + " end", 0, std::int64_t{1} << 53));
      if (t.begin > t.end)
        bad(file_name, who + " ends (" + std::to_string(t.end) + ") before it begins (" +
                           std::to_string(t.begin) + ")");
      if (t.end > f.data_size_)
        bad(file_name, who + " ends at byte " + std::to_string(t.end) +
                           " of the data, past its end (" + std::to_string(f.data_size_) +
                           " bytes): the file is truncated or the offsets are wrong");
      if (too_big || bytes_needed != t.end - t.begin)
        bad(file_name, who + " has shape and dtype " + t.dtype + " needing " +
                           (too_big ? std::string("more bytes than the file has")
                                    : std::to_string(bytes_needed) + " bytes") +
                           ", but its offsets give " + std::to_string(t.end - t.begin));
      f.tensors_.push_back(std::move(t));
    } catch (const Error& e) {
      if (e.code() != "json_type") throw;
      bad(file_name, e.what());  // a number of the wrong kind, named by the reader
    }
  // no two tensors share a byte
  std::vector<const TensorInfo*> by_offset;
  by_offset.reserve(f.tensors_.size());
  for (const TensorInfo& t : f.tensors_)
    if (t.end > t.begin) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      bad(file_name, quoted(by_offset[i]->name) + " overlaps " + quoted(by_offset[i - 1]->name) +
                         " (bytes " + std::to_string(by_offset[i]->begin) + " and " +
                         std::to_string(by_offset[i - 1]->end) + ")");
  return f;
}

namespace {
std::string shape_text(const TensorInfo& t) {
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  return shape + (t.shape.size() == 1 ? ",)" : ")");
}
}  // namespace

void File::check(const TensorInfo& t, Eigen::Index rows, Eigen::Index cols) const {
  const auto fail = [&](const std::string& what) -> Error {
    return Error("model_weights", file_ + ": " + quoted(t.name) + " " + what);
  };
  const bool as_2d = t.shape.size() == 2 && t.shape[0] == rows && t.shape[1] == cols;
  const bool as_1d = t.shape.size() == 1 && rows == 1 && t.shape[0] == cols;
  if (!as_2d && !as_1d)
    throw fail("has shape " + shape_text(t) + "; the config asks for " +
               (rows == 1 ? "(" + std::to_string(cols) + ",)"
                          : "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")"));
  if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16")
    throw fail("is " + t.dtype + "; the weights must be F32, F16 or BF16");
}

void File::convert(const TensorInfo& t, std::uint64_t first, const unsigned char* p,
                   std::size_t count, float* out) const {
  // one loop per dtype: a GPT-2 file is some 10^8 numbers, so the test stays out of the loop
  if (t.dtype == "F32") {
    for (std::size_t i = 0; i < count; ++i, p += 4) {
      const std::uint32_t bits =
          static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
          (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
      std::memcpy(&out[i], &bits, sizeof bits);
    }
  } else if (t.dtype == "F16") {
    for (std::size_t i = 0; i < count; ++i, p += 2) out[i] = f16_to_f32(read_u16_le(p));
  } else {
    for (std::size_t i = 0; i < count; ++i, p += 2) out[i] = bf16_to_f32(read_u16_le(p));
  }
  if (!Eigen::Map<const Eigen::ArrayXf>(out, static_cast<Eigen::Index>(count)).allFinite()) {
    std::size_t i = 0;
    while (std::isfinite(out[i])) ++i;
    throw Error("model_weights", file_ + ": " + quoted(t.name) + " has " +
                                     (std::isnan(out[i]) ? "NaN" : "an infinite value") +
                                     " at entry " + std::to_string(first + i) +
                                     ": the weights must be finite numbers");
  }
}

Matrix File::matrix(const TensorInfo& t, Eigen::Index rows, Eigen::Index cols) const {
  check(t, rows, cols);
  Matrix m(rows, cols);
  convert(t, 0, data_ + t.begin, static_cast<std::size_t>(rows * cols), m.data());
  return m;
}

}  // namespace ap::safetensors
