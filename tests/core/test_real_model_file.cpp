// test_real_model_file.cpp: a Hugging Face fixture folder (tests/fixtures/hf) packed into a
// version 5 .apm file and read back (real_model_file.hpp): f32 keeps every weight and every
// trace exactly, f16 and int8 change each matrix exactly as the format says; the reference is the
// folder's own model. Truncated, crafted and corrupt files are refused before anything is
// allocated, with the part at fault named.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "hf_model.hpp"
#include "hf_tokenizer.hpp"
#include "model_file.hpp"
#include "real_model_file.hpp"
#include "test_util.hpp"

namespace {

const char* const kFolders[] = {"gpt2_f32",          "gpt2_f16_prefixed",  "gpt2_bf16",
                                "bert_f32_prefixed", "bert_f16_old_names", "bert_bf16"};
const char* const kSentence = "The animal didn't cross the street because it was too tired.";

std::string dir_of(const std::string& folder) {
  return std::string(AP_FIXTURES_DIR) + "/hf/" + folder + "/";
}

// A folder's files, read whole.
struct Folder {
  std::string config;
  std::map<std::string, std::string> tokenizer;
  ap::HfModel model;
  ap::hf::Files files() const {
    ap::hf::Files f;
    for (const auto& [name, text] : tokenizer) f.emplace(name, text);
    return f;
  }
};

Folder read_folder(const std::string& folder) {
  Folder f;
  const std::string dir = dir_of(folder);
  f.config = ap_test::read_file(dir + "config.json");
  for (const std::string& name : ap::hf::tokenizer_file_names()) {
    std::ifstream in(dir + name, std::ios::binary);
    if (in) f.tokenizer[name] = ap_test::read_file(dir + name);
  }
  const std::string st = ap_test::read_file(dir + "model.safetensors");
  f.model = ap::load_hf_model(ap::parse_hf_config(f.config),
                              reinterpret_cast<const unsigned char*>(st.data()), st.size());
  return f;
}

ap::ConvertedModel load(const std::string& bytes) {
  return ap::load_real_model(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

std::string code_of(const std::string& bytes) {
  return ap_test::code_of([&] { load(bytes); });
}

std::vector<int> ids_of(const ap::hf::Tokenizer& t, int positions) {
  const ap::hf::Encoding e = t.encode(kSentence);
  std::vector<int> ids(e.ids.begin(), e.ids.end());
  if (ids.size() > static_cast<std::size_t>(positions)) ids.resize(positions);
  return ids;
}

bool same(const ap::Matrix& a, const ap::Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

}  // namespace

TEST_CASE("real model file: f32 keeps every weight, the config, the tokenizer and every trace") {
  for (const std::string folder : kFolders) {
    CAPTURE(folder);
    Folder f = read_folder(folder);
    const std::string bytes = ap::save_real_model(f.model, f.config, f.files(), ap::RealDtype::f32,
                                                  {{ap::kInfoSourceDtype, f.model.dtype}});
    ap::ConvertedModel c = load(bytes);
    CHECK(c.model.dtype == "F32");
    CHECK(c.model.file_bytes == bytes.size());
    CHECK(c.model.parameters == f.model.parameters);
    CHECK(c.model.config.name == f.model.config.name);
    CHECK(c.model.config.eps == f.model.config.eps);
    REQUIRE(c.info.size() == 1);
    CHECK(c.info[0].second == f.model.dtype);
    const auto want = ap::real_parameters(f.model);
    const auto got = ap::real_parameters(c.model);
    REQUIRE(want.size() == got.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      CAPTURE(want[k].name);
      CHECK(same(*got[k].value, *want[k].value));
    }
    const ap::hf::Tokenizer t = ap::hf::Tokenizer::from_files(f.files());
    CHECK(c.tokenizer->encode(kSentence).ids == t.encode(kSentence).ids);
    const std::vector<int> ids = ids_of(t, f.model.config.positions);
    for (int layer : {0, -1}) {
      const ap::TextTrace a = ap::hf_forward(f.model, ids, layer);
      const ap::TextTrace b = ap::hf_forward(c.model, ids, layer);
      CHECK(ap::max_weight_change(a, b).value == 0.0);
      CHECK(same(a.network.norm_out.y, b.network.norm_out.y));
      for (std::size_t h = 0; h < a.trace.head.size(); ++h) {
        CHECK(same(a.trace.head[h].Q, b.trace.head[h].Q));
        CHECK(same(a.trace.head[h].output, b.trace.head[h].output));
      }
    }
  }
}

TEST_CASE("real model file: f16 and int8 round each matrix as the format says; vectors stay f32") {
  for (const std::string folder : {"gpt2_f32", "bert_f32_prefixed"}) {
    CAPTURE(folder);
    Folder f = read_folder(folder);
    std::size_t last_size = 0;
    for (ap::RealDtype d : {ap::RealDtype::f32, ap::RealDtype::f16, ap::RealDtype::int8}) {
      CAPTURE(ap::real_dtype_name(d));
      const std::string bytes = ap::save_real_model(f.model, f.config, f.files(), d);
      if (last_size) CHECK(bytes.size() < last_size);
      last_size = bytes.size();
      ap::ConvertedModel c = load(bytes);
      const auto want = ap::real_parameters(f.model);
      const auto got = ap::real_parameters(c.model);
      for (std::size_t k = 0; k < want.size(); ++k) {
        CAPTURE(want[k].name);
        const ap::Matrix& w = *want[k].value;
        const ap::Matrix expect = w.rows() == 1 || d == ap::RealDtype::f32 ? w
                                  : d == ap::RealDtype::f16                ? ap::round_to_half(w)
                                                                           : ap::round_to_int8(w);
        CHECK(same(*got[k].value, expect));
      }
      // the fixtures' weights are large (their attention is sharp), so rounding moves weights
      // visibly; the CLI test checks that qkv convert prints exactly this change
      const ap::hf::Tokenizer t = ap::hf::Tokenizer::from_files(f.files());
      const std::vector<int> ids = ids_of(t, f.model.config.positions);
      const ap::WeightChange w =
          ap::max_weight_change(ap::hf_forward(f.model, ids), ap::hf_forward(c.model, ids));
      if (d == ap::RealDtype::f32) CHECK(w.value == 0.0);
      CHECK(w.value < (d == ap::RealDtype::int8 ? 0.5 : 0.02));
    }
    CHECK(ap::parse_real_dtype("int8") == ap::RealDtype::int8);
    CHECK(ap_test::code_of([] { ap::parse_real_dtype("bf16"); }) == "bad_setting");
  }
}

TEST_CASE("real model file: every truncation, a flipped byte and trailing bytes are refused") {
  Folder f = read_folder("bert_bf16");
  const std::string bytes = ap::save_real_model(f.model, f.config, f.files(), ap::RealDtype::int8);
  REQUIRE(code_of(bytes) == "no error");
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    CAPTURE(n);
    const std::string code = code_of(bytes.substr(0, n));
    // a cut inside the magic is not recognisable as a model file; any later cut is named
    CHECK((code == "model_truncated" || (n < 8 && n > 0 && code == "model_bad_magic")));
  }
  CHECK_THROWS_WITH_AS(load(bytes.substr(0, bytes.size() - 100)),
                       doctest::Contains("layer 1 W_2 (40 x 16 int8)"), ap::Error);
  CHECK(code_of(bytes + "x") == "model_corrupt");
  std::string flipped = bytes;
  flipped[flipped.size() - 50] ^= 0x01;
  CHECK_THROWS_WITH_AS(load(flipped), doctest::Contains("checksum"), ap::Error);
  std::string dtype = bytes;
  dtype[12] = 7;
  CHECK(code_of(dtype) == "model_invalid");
  std::string magic = bytes;
  magic[0] = 'X';
  CHECK(code_of(magic) == "model_bad_magic");
  // an info entry that is not UTF-8 (a writer other than save_real_model's callers)
  const std::string info = ap::save_real_model(f.model, f.config, f.files(), ap::RealDtype::int8,
                                               {{"note", std::string("\xff")}});
  CHECK_THROWS_WITH_AS(load(info), doctest::Contains("info entry is not UTF-8"), ap::Error);
}

TEST_CASE("real model file: the other kind of .apm is refused by each reader, naming the kind") {
  Folder f = read_folder("gpt2_f32");
  const std::string real = ap::save_real_model(f.model, f.config, f.files(), ap::RealDtype::f16);
  CHECK_THROWS_WITH_AS(ap::load_model(real), doctest::Contains("converted GPT-2 or BERT"),
                       ap::Error);
  const std::string trained =
      ap_test::read_file(std::string(AP_FUZZ_CORPUS_DIR) + "/model_file/small-v4");
  CHECK_THROWS_WITH_AS(load(trained), doctest::Contains("trained playground model"), ap::Error);
  CHECK(ap::apm_version(reinterpret_cast<const unsigned char*>(real.data()), real.size()) == 5);
  CHECK(ap::apm_version(reinterpret_cast<const unsigned char*>(trained.data()), trained.size()) ==
        4);
  CHECK(ap::apm_version(reinterpret_cast<const unsigned char*>("APMODEL"), 7) == 0);
}

TEST_CASE("real model file: a header claiming more than the file holds is refused first") {
  // scripts/gen_crafted_models.py: a config of GPT-2 small's shape and no weights, under 1 KB;
  // refused from the config, before the tokenizer or any weight is made (the fuzzer's malloc
  // limit and the CLI test's peak memory hold it to that)
  const std::string dir = std::string(AP_FUZZ_CORPUS_DIR) + "/real_model_file/";
  const std::string crafted = ap_test::read_file(dir + "regress-header-claims-gpt2-small");
  CHECK(crafted.size() < 1024);
  CHECK_THROWS_WITH_AS(load(crafted), doctest::Contains("the token rows (50257 x 768 f32)"),
                       ap::Error);
  CHECK(code_of(crafted) == "model_truncated");
  // the fuzzer's starting file, written by the script from the format's description, is good
  const ap::ConvertedModel small = load(ap_test::read_file(dir + "small-bert-int8"));
  CHECK(small.model.dtype == "INT8");
  CHECK(small.model.config.model_type == "bert");
  CHECK(ap::hf_forward(small.model, {2, 6, 3}).network.layers.size() == 1);
}

TEST_CASE("save_real_model refuses what the format cannot hold") {
  Folder f = read_folder("gpt2_f32");
  ap::HfModel wide = f.model;
  wide.layers[0].attn.W_Q(0, 0) = 1e6f;  // past float16's 65504
  CHECK_THROWS_WITH_AS(ap::save_real_model(wide, f.config, f.files(), ap::RealDtype::f16),
                       doctest::Contains("layer 0 W_Q"), ap::Error);
  CHECK(ap_test::code_of([&] {
          ap::save_real_model(wide, f.config, f.files(), ap::RealDtype::int8);
        }) == "no error");
  ap::HfModel shaped = f.model;
  shaped.layers[1].W_1.resize(2, 2);
  CHECK(ap_test::code_of([&] {
          ap::save_real_model(shaped, f.config, f.files(), ap::RealDtype::f32);
        }) == "model_invalid");
}
