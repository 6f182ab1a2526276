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

std::string read_hf_config(const std::string& dir) {
  const std::string config_path = join(dir, kHfConfigFile);
  std::ifstream f(config_path, std::ios::binary);
  if (!f)
    throw Error("model_folder", "cannot open " + printable(config_path, 200) +
                                    ": the folder needs config.json and model.safetensors");
  std::string text = read_at_most(f, kMaxHfConfigBytes);
  if (text.size() > kMaxHfConfigBytes)
    throw Error("model_config", "config.json is over " + std::to_string(kMaxHfConfigBytes >> 20) +
                                    " MiB: it is not a model's config");
  return text;
}

HfModel load_hf_folder(const std::string& dir) {
  const HfConfig config = parse_hf_config(read_hf_config(dir), kHfConfigFile);
  const MappedFile weights(join(dir, kHfWeightsFile));
  return load_hf_model(config, weights.data(), weights.size(), kHfWeightsFile);
}

}  // namespace ap
