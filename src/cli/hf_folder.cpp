// hf_folder.cpp: reading a model folder's files (POSIX mmap for the weights).
#include "hf_folder.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "error.hpp"
#include "io.hpp"

namespace ap {

namespace {
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

std::string join(const std::string& dir, const char* name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}
}  // namespace

MappedFile::MappedFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    throw Error("model_folder", "cannot open " + printable(path, 200) +
                                    ": the folder needs config.json and model.safetensors");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("model_folder", printable(path, 200) + " is not a regular file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw Error("model_folder", "cannot read " + printable(path, 200));
    }
    data_ = static_cast<const unsigned char*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

HfModel load_hf_folder(const std::string& dir) {
  const std::string config_path = join(dir, "config.json");
  std::ifstream f(config_path, std::ios::binary);
  if (!f)
    throw Error("model_folder", "cannot open " + printable(config_path, 200) +
                                    ": the folder needs config.json and model.safetensors");
  const std::string text = read_at_most(f, kMaxConfigBytes);
  if (text.size() > kMaxConfigBytes)
    throw Error("model_config", "config.json is over " + std::to_string(kMaxConfigBytes >> 20) +
                                    " MiB: it is not a model's config");
  const HfConfig config = parse_hf_config(text, "config.json");
  const MappedFile weights(join(dir, "model.safetensors"));
  return load_hf_model(config, weights.data(), weights.size(), "model.safetensors");
}

}  // namespace ap
