// hf_folder.hpp: a Hugging Face model folder on disk for the native CLI: config.json read whole
// (it is small), model.safetensors mapped into memory so that its bytes are not copied before the
// core converts the tensors it needs. Not the format checks (safetensors.hpp, hf_model.hpp),
// which work on bytes and serve the page as well.
#pragma once
#include <cstddef>
#include <string>

#include "hf_model.hpp"

namespace ap {

// A file's bytes, read-only, mapped for as long as the object lives.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // ap::Error model_folder naming the path
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

// DIR/config.json's text (at most kMaxHfConfigBytes). Throws ap::Error model_folder (missing or
// unreadable) or model_config (too large).
std::string read_hf_config(const std::string& dir);

// DIR/config.json and DIR/model.safetensors. Throws ap::Error: model_folder (a file missing or
// unreadable, named), and parse_hf_config's and load_hf_model's errors.
HfModel load_hf_folder(const std::string& dir);

}  // namespace ap
