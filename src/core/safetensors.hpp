// safetensors.hpp: reads the safetensors format (Hugging Face's weight files) from bytes in
// memory: an 8-byte little-endian header length N, N bytes of JSON {name: {dtype, shape,
// data_offsets: [begin, end]}, "__metadata__": {...}}, then the tensors' bytes, offsets counted
// from the end of the header. Every offset, shape and size is checked before anything is read or
// allocated for a tensor; a tensor's numbers are converted to float32 (F32, F16, BF16) only when
// asked for, and checked finite. Not a writer, and not the model built from the tensors
// (hf_model.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "matrix.hpp"

namespace ap::safetensors {

// The longest header read. The reference implementation refuses headers over 100 MB; a GPT-2
// header is tens of kilobytes. A length past this (or past the file) is refused before any of
// the header is parsed.
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{100} << 20;
// The most tensors and dimensions one file may list (GPT-2 small lists about 150 tensors).
constexpr std::size_t kMaxTensors = 1 << 16;
constexpr std::size_t kMaxRank = 8;

struct TensorInfo {
  std::string name;
  std::string dtype;                 // as written: F32, F16, BF16, I64, BOOL, ...
  std::vector<std::int64_t> shape;   // each >= 0
  std::uint64_t begin = 0, end = 0;  // byte range within the data section
  std::uint64_t elements() const;
};

// A parsed file: the header's tensors and a view of the caller's bytes, which must outlive it.
class File {
 public:
  const std::string& file_name() const { return file_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // in the header's order
  // The tensor called `name`, or nullptr.
  const TensorInfo* find(std::string_view name) const;

  // The tensor's numbers as float32, row-major: `rows` x `cols` must be its shape (a 1-D tensor
  // of cols entries reads as 1 x cols). Throws ap::Error("model_weights") naming the file and
  // the tensor when the shape differs, the dtype is not F32, F16 or BF16, or an entry is NaN or
  // infinite.
  Matrix matrix(const TensorInfo& t, Eigen::Index rows, Eigen::Index cols) const;

  // matrix()'s checks alone, before any byte of the tensor is read: the shape `rows` x `cols`
  // and a dtype of F32, F16 or BF16 (the same ap::Error model_weights).
  void check(const TensorInfo& t, Eigen::Index rows, Eigen::Index cols) const;
  // `count` numbers of t (checked) from its bytes at p, entries first..first+count of it, to
  // float32 at out. Throws matrix()'s model_weights naming the entry that is NaN or infinite.
  void convert(const TensorInfo& t, std::uint64_t first, const unsigned char* p, std::size_t count,
               float* out) const;
  // Where the data section begins in the file: 8 + the header's length.
  std::uint64_t data_offset() const { return data_offset_; }

 private:
  friend File parse_header(const unsigned char* bytes, std::size_t available,
                           std::uint64_t file_size, std::string_view file_name);
  friend File parse(const unsigned char* bytes, std::size_t size, std::string_view file_name);

  // The header's length from a file's first 8 bytes (the caller has them).
  std::uint64_t header_length(const unsigned char* first8);

  // parse() of a file of file_size bytes from its first `available` bytes alone: at least 8 and,
  // when the header's length is within the file and within kMaxHeaderBytes, 8 + that length (a
  // reader of the file in slices: the same checks and errors, no tensor's bytes). The File has no
  // data: matrix() must not be called on it (check() and convert() take the bytes).
  File parse_header(const unsigned char* bytes, std::size_t available, std::uint64_t file_size,
                    std::string_view file_name);
  std::string file_;
  std::uint64_t data_offset_ = 0;
  std::vector<TensorInfo> tensors_;
  const unsigned char* data_ = nullptr;  // the data section
  std::uint64_t data_size_ = 0;
};

// Bytes per element of a dtype the format defines (F64 8, F32 4, F16 2, BF16 2, I64 8, ...), or 0
// for a name it does not define.
int dtype_size(std::string_view dtype);

// Checks the whole layout: a header length within the file and within kMaxHeaderBytes, a JSON
// object whose entries each have a known dtype, a shape of at most kMaxRank non-negative sizes,
// and data_offsets [begin, end] within the data section whose length is the shape's elements
// times the dtype's size, no two tensors overlapping. Throws ap::Error("safetensors_invalid")
// with one line naming `file_name` (and the tensor, when one is at fault).
File parse(const unsigned char* bytes, std::size_t size, std::string_view file_name);

// The header's length from a file's first 8 bytes (the caller has them).
std::uint64_t header_length(const unsigned char* first8);

// parse() of a file of file_size bytes from its first `available` bytes alone: at least 8 and,
// when the header's length is within the file and within kMaxHeaderBytes, 8 + that length (a
// reader of the file in slices: the same checks and errors, no tensor's bytes). The File has no
// data: matrix() must not be called on it (check() and convert() take the bytes).
File parse_header(const unsigned char* bytes, std::size_t available, std::uint64_t file_size,
                  std::string_view file_name);

// float16 and bfloat16 bit patterns to float32 (exact: every such value is a float32).
float f16_to_f32(std::uint16_t h);
float bf16_to_f32(std::uint16_t b);

}  // namespace ap::safetensors
