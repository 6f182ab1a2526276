// test_safetensors.cpp: the safetensors reader (safetensors.hpp) on hostile and broken files:
// each is refused with one line naming the file (and the tensor at fault), before anything is
// allocated for the tensors; and the weights read from a good file against the config.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hf_model.hpp"
#include "safetensors.hpp"
#include "test_util.hpp"

namespace st = ap::safetensors;

namespace {

// A file: the 8-byte length, the header text, then `data` bytes of zeros.
std::string file_of(const std::string& header, std::size_t data, std::uint64_t length) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out + header + std::string(data, '\0');
}
std::string file_of(const std::string& header, std::size_t data) {
  return file_of(header, data, header.size());
}

// "code: message" of what parse throws, or "no error".
std::string parse_error(const std::string& bytes, std::size_t size) {
  try {
    st::parse(reinterpret_cast<const unsigned char*>(bytes.data()), size, "model.safetensors");
  } catch (const ap::Error& e) {
    return e.code() + ": " + e.what();
  }
  return "no error";
}
std::string parse_error(const std::string& bytes) { return parse_error(bytes, bytes.size()); }

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string fixture(const char* folder, const char* file) {
  return ap_test::read_file(std::string(AP_FIXTURES_DIR) + "/hf/" + folder + "/" + file);
}

// "code: message" of loading `bytes` as gpt2_f32's weights with its config (possibly edited).
std::string load_error(const std::string& bytes, const std::string& config) {
  try {
    ap::load_hf_model(ap::parse_hf_config(config),
                      reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  } catch (const ap::Error& e) {
    return e.code() + ": " + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("safetensors: a good file's layout") {
  const std::string f = file_of(
      R"({"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [2, 3],
          "data_offsets": [0, 24]}, "b": {"dtype": "BF16", "shape": [4], "data_offsets": [24, 32]},
          "empty": {"dtype": "F16", "shape": [0, 5], "data_offsets": [32, 32]}}   )",
      32);
  const st::File file =
      st::parse(reinterpret_cast<const unsigned char*>(f.data()), f.size(), "x.safetensors");
  REQUIRE(file.tensors().size() == 3);
  CHECK(file.find("a")->elements() == 6);
  CHECK(file.find("b")->dtype == "BF16");
  CHECK(file.find("__metadata__") == nullptr);
  CHECK(file.matrix(*file.find("a"), 2, 3).isZero());
  CHECK(file.matrix(*file.find("b"), 1, 4).isZero());
}

TEST_CASE("safetensors: F16 and BF16 bit patterns") {
  CHECK(st::f16_to_f32(0x3c00) == 1.0f);
  CHECK(st::f16_to_f32(0xc000) == -2.0f);
  CHECK(st::f16_to_f32(0x7bff) == 65504.0f);
  CHECK(st::f16_to_f32(0x0001) == std::ldexp(1.0f, -24));  // the smallest subnormal
  CHECK(std::isinf(st::f16_to_f32(0x7c00)));
  CHECK(std::isnan(st::f16_to_f32(0x7e00)));
  CHECK(st::bf16_to_f32(0x3f80) == 1.0f);
  CHECK(st::bf16_to_f32(0xc0a0) == -5.0f);
}

TEST_CASE("safetensors: hostile and broken files are refused with the file and tensor named") {
  SUBCASE("shorter than the length field") {
    const std::string e = parse_error(std::string(5, '\0'));
    CHECK(has(e, "safetensors_invalid: model.safetensors: the file has 5 bytes"));
  }
  SUBCASE("a header length past the end of the file") {
    const std::string e = parse_error(file_of("{}", 0, 1000));
    CHECK(has(e, "safetensors_invalid"));
    CHECK(has(e, "past the end of the file"));
  }
  SUBCASE("a 4 GB header length") {
    const std::string e = parse_error(file_of("{}", 0, std::uint64_t{4} << 30));
    CHECK(has(e, "4294967296 bytes long, past the end"));
  }
  SUBCASE("a header longer than the limit, in a file long enough to hold it") {
    // the size claimed is never read past the first 8 bytes: the length is refused first
    const std::string f = file_of("{}", 0, st::kMaxHeaderBytes + 1);
    const std::string e = parse_error(f, static_cast<std::size_t>(st::kMaxHeaderBytes) + 100);
    CHECK(has(e, "the limit is"));
  }
  SUBCASE("a header of all-ones length") {
    CHECK(has(parse_error(file_of("{}", 0, ~std::uint64_t{0})), "past the end"));
  }
  SUBCASE("not JSON") {
    CHECK(has(parse_error(file_of("{\"a\": ", 0)), "not valid JSON"));
    CHECK(has(parse_error(file_of("[1, 2]", 0)), "not a JSON object"));
    CHECK(has(parse_error(file_of("", 0)), "not a JSON object"));
  }
  SUBCASE("overlapping tensors") {
    const std::string e =
        parse_error(file_of(R"({"w1": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                    "w2": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})",
                            24));
    CHECK(has(e, "tensor \"w2\" overlaps tensor \"w1\""));
  }
  SUBCASE("offsets past the data") {
    const std::string e =
        parse_error(file_of(R"({"h.0.attn.c_attn.weight": {"dtype": "F32", "shape": [4],
                    "data_offsets": [0, 16]}})",
                            8));
    CHECK(has(e, "model.safetensors: tensor \"h.0.attn.c_attn.weight\" ends at byte 16"));
  }
  SUBCASE("offsets backwards") {
    CHECK(has(
        parse_error(file_of(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})", 8)),
        "before it begins"));
  }
  SUBCASE("offsets that disagree with shape and dtype") {
    const std::string e = parse_error(
        file_of(R"({"w": {"dtype": "F16", "shape": [4], "data_offsets": [0, 16]}})", 16));
    CHECK(has(e, "tensor \"w\" has shape and dtype F16 needing 8 bytes, but its offsets give 16"));
  }
  SUBCASE("a shape whose size overflows") {
    const std::string e = parse_error(file_of(
        R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 4294967296],
                  "data_offsets": [0, 16]}})",
        16));
    CHECK(has(e, "more bytes than the file has"));
  }
  SUBCASE("negative or fractional numbers") {
    CHECK(has(parse_error(file_of(
                  R"({"w": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}})", 16)),
              "safetensors_invalid"));
    CHECK(has(parse_error(file_of(
                  R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0.5, 16]}})", 16)),
              "safetensors_invalid"));
  }
  SUBCASE("an unknown dtype, missing fields") {
    CHECK(has(parse_error(
                  file_of(R"({"w": {"dtype": "F33", "shape": [4], "data_offsets": [0, 16]}})", 16)),
              "tensor \"w\" has an unknown dtype \"F33\""));
    CHECK(has(parse_error(file_of(R"({"w": {"dtype": "F32", "shape": [4]}})", 16)),
              "needs \"dtype\""));
    CHECK(has(parse_error(file_of(R"({"w": 3})", 16)), "not described by an object"));
  }
  SUBCASE("too many dimensions") {
    CHECK(has(parse_error(file_of(R"({"w": {"dtype": "F32", "shape": [1,1,1,1,1,1,1,1,1],
                                      "data_offsets": [0, 4]}})",
                                  4)),
              "dimensions; the limit is 8"));
  }
}

TEST_CASE("load_hf_model: the config and the file must agree, and weights must be finite") {
  const std::string config = fixture("gpt2_f32", "config.json");
  const std::string good = fixture("gpt2_f32", "model.safetensors");
  CHECK(load_error(good, config) == "no error");

  SUBCASE("a truncated file") {
    const std::string e = load_error(good.substr(0, good.size() / 2), config);
    CHECK(has(e, "safetensors_invalid: model.safetensors: tensor \""));
    CHECK(has(e, "past its end"));
  }
  SUBCASE("a vocabulary size that disagrees with the embedding") {
    std::string c = config;
    const std::size_t p = c.find("\"vocab_size\": 268");
    REQUIRE(p != std::string::npos);
    c.replace(p, 17, "\"vocab_size\": 300");
    const std::string e = load_error(good, c);
    CHECK(has(e,
              "model_weights: model.safetensors: tensor \"wte.weight\" has shape (268, 16); "
              "the config asks for (300, 16)"));
  }
  SUBCASE("more layers than the file has") {
    std::string c = config;
    const std::size_t p = c.find("\"n_layer\": 2");
    REQUIRE(p != std::string::npos);
    c.replace(p, 12, "\"n_layer\": 3");
    CHECK(has(load_error(good, c), "has no tensor \"h.2.ln_1.weight\""));
  }
  SUBCASE("a NaN weight") {
    // the first F32 of wte.weight, after the 8-byte length and the header
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[i]);
    std::string bad = good;
    const std::uint32_t nan_bits = 0x7fc00000u;
    std::memcpy(&bad[8 + n + 4 * 5], &nan_bits, 4);  // entry 5 of the first tensor (wte)
    CHECK(has(load_error(bad, config),
              "model_weights: model.safetensors: tensor \"wte.weight\" has NaN at entry 5"));
  }
  SUBCASE("a weight stored as integers") {
    const std::string e = load_error(file_of(R"({"wte.weight": {"dtype": "I32", "shape": [268, 16],
                    "data_offsets": [0, 17152]}})",
                                             17152),
                                     config);
    CHECK(has(e, "tensor \"wte.weight\" is I32; the weights must be F32, F16 or BF16"));
  }
}
