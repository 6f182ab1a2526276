// test_hf_model.cpp: Hugging Face GPT-2 and BERT folders (hf_model.hpp). The forward pass is
// compared with a PyTorch reference written from the published architectures
// (scripts/gen_hf_fixtures.py writes tests/fixtures/hf/: random models in F32, F16 and BF16, with
// and without the name prefixes, and every layer's every head's weights and hidden states). Bad
// config.json files are refused with one sentence.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench.hpp"
#include "hf_model.hpp"
#include "test_util.hpp"

using nlohmann::json;

namespace {

const char* const kFolders[] = {"gpt2_f32",          "gpt2_f16_prefixed",  "gpt2_bf16",
                                "bert_f32_prefixed", "bert_f16_old_names", "bert_bf16"};

std::string fixture(const std::string& folder, const char* file) {
  return ap_test::read_file(std::string(AP_FIXTURES_DIR) + "/hf/" + folder + "/" + file);
}

ap::HfModel load(const std::string& folder) {
  const ap::HfConfig c = ap::parse_hf_config(fixture(folder, "config.json"));
  const std::string st = fixture(folder, "model.safetensors");
  return ap::load_hf_model(c, reinterpret_cast<const unsigned char*>(st.data()), st.size());
}

// The largest |a - b| / max(1, |b|) over a matrix and its reference (a list of rows): absolute
// for numbers up to 1 (attention weights, LayerNorm outputs), relative for the residual stream,
// which grows layer by layer and is float32 in the C++.
double worst(const ap::Matrix& m, const json& want) {
  REQUIRE(want.size() == static_cast<std::size_t>(m.rows()));
  double w = 0;
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    REQUIRE(want[r].size() == static_cast<std::size_t>(m.cols()));
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      w = std::max(w, std::fabs(static_cast<double>(m(r, c)) - want[r][c].get<double>()) /
                          std::max(1.0, std::fabs(want[r][c].get<double>())));
  }
  return w;
}

}  // namespace

TEST_CASE("hf_forward: every head's weights and every hidden state match the PyTorch reference") {
  for (const std::string folder : kFolders) {
    CAPTURE(folder);
    const ap::HfModel m = load(folder);
    const json ref = json::parse(fixture(folder, "reference.json"));
    REQUIRE(ref.at("format_version") == 1);
    CHECK(m.dtype == ref.at("dtype").get<std::string>());
    REQUIRE(ref.at("cases").size() >= 3);
    for (const json& c : ref.at("cases")) {
      const std::vector<int> ids = c.at("ids").get<std::vector<int>>();
      CAPTURE(ids.size());
      const int L = m.config.layers;
      for (int chosen : {0, L - 1}) {
        const ap::TextTrace t = ap::hf_forward(m, ids, chosen);
        REQUIRE(static_cast<int>(t.network.layers.size()) == L);
        REQUIRE(c.at("weights").size() == static_cast<std::size_t>(L));
        REQUIRE(c.at("hidden").size() == static_cast<std::size_t>(L + 1));
        double w_err = 0, h_err = 0;
        for (int l = 0; l < L; ++l) {
          const auto& heads = t.network.layers[l].attn.head;
          REQUIRE(static_cast<int>(heads.size()) == m.config.heads);
          for (int h = 0; h < m.config.heads; ++h)
            w_err = std::max(w_err, worst(heads[h].weights, c.at("weights")[l][h]));
          h_err = std::max(h_err, worst(t.network.layers[l].input, c.at("hidden")[l]));
        }
        h_err = std::max(h_err, worst(t.network.layers.back().output, c.at("hidden")[L]));
        h_err = std::max(h_err, worst(t.network.norm_out.y, c.at("readout")));
        CHECK(w_err < 1e-5);
        CHECK(h_err < 1e-5);
        // the chosen layer's full detail is the same attention as its weights-only summary
        REQUIRE(t.layer == chosen);
        for (int h = 0; h < m.config.heads; ++h) {
          const ap::HeadTrace& H = t.trace.head[h];
          CHECK(worst(H.weights, c.at("weights")[chosen][h]) < 1e-5);
          CHECK(H.b_Q.cols() == m.config.d_k);
          CHECK(H.W_Q.rows() == m.config.d_model);
        }
        CHECK(t.trace.options.causal == (m.config.model_type == "gpt2"));
      }
    }
  }
}

TEST_CASE("hf_readout: hf_forward's read-out, and the PyTorch reference's, for each architecture") {
  for (const std::string folder : kFolders) {
    CAPTURE(folder);
    ap::HfModel m = load(folder);
    ap::pack_hf_weights(m);  // natively a no-op: the products stay Eigen's
    const json ref = json::parse(fixture(folder, "reference.json"));
    for (const json& c : ref.at("cases")) {
      const std::vector<int> ids = c.at("ids").get<std::vector<int>>();
      CAPTURE(ids.size());
      const ap::Matrix y = ap::hf_readout(m, ids);
      const ap::Matrix want = ap::hf_forward(m, ids).network.norm_out.y;
      REQUIRE(y.rows() == want.rows());
      REQUIRE(y.cols() == want.cols());
      CHECK((y - want).cwiseAbs().maxCoeff() < 1e-5f);
      CHECK(worst(y, c.at("readout")) < 1e-5);
    }
  }
  const ap::HfModel m = load("gpt2_f32");
  CHECK(ap_test::code_of([&] { ap::hf_readout(m, {}); }) == "empty_text");
  CHECK(ap_test::code_of([&] { ap::hf_readout(m, {1, 100000}); }) == "bad_token_id");
  CHECK(ap_test::code_of([&] { ap::hf_readout(m, std::vector<int>(17, 1)); }) == "too_many_tokens");
}

TEST_CASE("hf_forward: the stages of the chosen head hold together") {
  const ap::HfModel m = load("gpt2_f32");
  const ap::TextTrace t = ap::hf_forward(m, {3, 70, 200, 5, 9}, 1);
  const ap::HeadTrace& H = t.trace.head[2];
  // Q = Z W_Q + b_Q, with Z the LayerNorm of the layer input (pre-LN)
  ap::Matrix Q = t.trace.X * H.W_Q;
  Q.rowwise() += H.b_Q.row(0);
  CHECK((Q - H.Q).cwiseAbs().maxCoeff() < 1e-5);
  CHECK((t.trace.X - t.network.layers[1].norm_attn.y).cwiseAbs().maxCoeff() == 0);
  // causal: nothing above the diagonal
  CHECK(H.weights(0, 1) == 0.0f);
  CHECK(std::fabs(H.weights.row(4).sum() - 1.0f) < 1e-6);
  CHECK(t.ids == std::vector<int>({3, 70, 200, 5, 9}));
  CHECK(t.embeddings.rows() == 5);
  CHECK(t.positions.rows() == 5);
}

TEST_CASE("hf_forward: bad ids, too many tokens and a bad layer are refused") {
  const ap::HfModel m = load("bert_bf16");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, {}); }) == "empty_text");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, {1, 100000}); }) == "bad_token_id");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, {-1}); }) == "bad_token_id");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, std::vector<int>(17, 1)); }) == "too_many_tokens");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, std::vector<int>(16, 1)); }) == "no error");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, {1}, 2); }) == "bad_layer");
  CHECK(ap_test::code_of([&] { ap::hf_forward(m, {1}, -2); }) == "bad_layer");
}

TEST_CASE("parse_hf_config: the architectures read, and one sentence for the others") {
  const auto message = [](const std::string& text) -> std::string {
    try {
      ap::parse_hf_config(text);
    } catch (const ap::Error& e) {
      return e.code() + ": " + e.what();
    }
    return "no error";
  };
  const std::string llama = message(R"({"model_type": "llama", "hidden_size": 8})");
  CHECK(llama.find("model_unsupported") == 0);
  CHECK(llama.find("llama") != std::string::npos);
  CHECK(llama.find("gpt2 and bert") != std::string::npos);
  CHECK(message(R"({"n_layer": 2})").find("model_unsupported") == 0);
  CHECK(message("[1, 2]").find("model_config") == 0);
  CHECK(message("{").find("json_invalid") == 0);
  const std::string gpt2 =
      R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 16, "n_head": 4, "n_positions": 16,
          "vocab_size": 50)";
  CHECK(message(gpt2 + "}") == "no error");
  CHECK(message(gpt2 + R"(, "n_head": 5})").find("json_invalid") == 0);  // a key given twice
  CHECK(message(R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 16, "n_head": 5,
                    "n_positions": 16, "vocab_size": 50})")
            .find("heads (5) must divide") != std::string::npos);
  CHECK(message(R"({"model_type": "gpt2", "n_embd": 16, "n_head": 4, "n_positions": 16,
                    "vocab_size": 50})")
            .find("n_layer") != std::string::npos);
  CHECK(message(R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 16, "n_head": 4,
                    "n_positions": 1e12, "vocab_size": 50})")
            .find("n_positions") != std::string::npos);
  CHECK(message(gpt2 + R"(, "activation_function": "swish"})").find("model_unsupported") == 0);
  CHECK(message(gpt2 + R"(, "scale_attn_by_inverse_layer_idx": true})").find("model_unsupported") ==
        0);
  const ap::HfConfig c = ap::parse_hf_config(gpt2 + "}");
  CHECK(c.d_k == 4);
  CHECK(c.d_ff == 64);  // n_inner absent: 4 x n_embd
  CHECK(c.causal);
  const ap::HfConfig b = ap::parse_hf_config(R"({"model_type": "bert", "hidden_size": 16,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 32,
      "max_position_embeddings": 8, "vocab_size": 30})");
  CHECK(!b.causal);
  CHECK(b.eps == doctest::Approx(1e-12));
  CHECK(b.activation == "gelu");
  CHECK(message(R"({"model_type": "bert", "hidden_size": 16, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 8,
      "vocab_size": 30, "position_embedding_type": "relative_key"})")
            .find("model_unsupported") == 0);
}

TEST_CASE("bench_hf_forward: scripts/bench's real-model loop runs") {
  const std::vector<double> ms = ap::bench_hf_forward(2, 8, 2, 5, 2);
  REQUIRE(ms.size() == 2);
  CHECK(ms[0] >= 0.0);
}

TEST_CASE("HfTextModel: the folder's tokenizer, then every layer; the kind picked once") {
  for (const std::string folder : {"gpt2_f32", "bert_f16_old_names"}) {
    CAPTURE(folder);
    const bool gpt2 = folder.rfind("gpt2", 0) == 0;
    std::map<std::string, std::string> bytes;
    for (const char* name : {"vocab.json", "merges.txt", "vocab.txt", "tokenizer_config.json"}) {
      std::ifstream f(std::string(AP_FIXTURES_DIR) + "/hf/" + folder + "/" + name);
      if (f)
        bytes[name] =
            ap_test::read_file(std::string(AP_FIXTURES_DIR) + "/hf/" + folder + "/" + name);
    }
    REQUIRE(bytes.size() == 2);
    ap::hf::Files files;
    for (const auto& kv : bytes) files.emplace(kv.first, kv.second);
    auto tok = std::make_shared<const ap::hf::Tokenizer>(ap::hf::Tokenizer::from_files(files));
    const ap::hf::Encoding e = tok->encode("the cat sat, it was tired");
    const ap::HfTextModel model(load(folder), tok);
    const ap::TextModel& kind = model;
    CHECK(kind.kind() == (gpt2 ? "gpt2" : "bert"));
    const ap::TextTrace t = kind.trace("the cat sat, it was tired", ap::Settings{});
    REQUIRE(t.tokens.size() == e.size());
    for (std::size_t i = 0; i < e.size(); ++i) {
      CHECK(t.tokens[i].text == e.pieces[i]);
      CHECK(t.ids[i] == e.ids[i]);
    }
    if (!gpt2) CHECK(t.tokens.front().text == "[CLS]");
    const ap::TextTrace direct = ap::hf_forward(model.model(), t.ids);
    CHECK(direct.trace.head[1].weights == t.trace.head[1].weights);
    CHECK(t.layer == model.model().config.layers - 1);
    CHECK(ap_test::code_of([&] {
            kind.trace(std::string(40, 'a') + " b c d e f g h i j k l m n o p q", {});
          }) == "too_many_tokens");
  }
}

TEST_CASE("check_tokenizer: a tokenizer larger than the model's vocabulary is refused") {
  ap::hf::Files files;
  const std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n";
  files.emplace("vocab.txt", vocab);
  const ap::hf::Tokenizer t = ap::hf::Tokenizer::from_files(files);
  ap::HfConfig c;
  c.vocab_size = 5;
  CHECK(ap_test::code_of([&] { ap::check_tokenizer(c, t); }) == "model_config");
  c.vocab_size = 6;
  CHECK(ap_test::code_of([&] { ap::check_tokenizer(c, t); }) == "no error");
}

namespace {

// m's weights read by an HfWeightsReader fed `slice` bytes at a time (0: all at once)
ap::HfModel read_sliced(const std::string& folder, std::size_t slice, bool pack) {
  const ap::HfConfig c = ap::parse_hf_config(fixture(folder, "config.json"));
  const std::string st = fixture(folder, "model.safetensors");
  ap::HfWeightsReader r(c, st.size(), ap::kHfWeightsFile, pack);
  const auto* p = reinterpret_cast<const unsigned char*>(st.data());
  for (std::size_t at = 0; at < st.size(); at += slice ? slice : st.size())
    r.read(p + at, std::min(st.size() - at, slice ? slice : st.size()));
  return r.finish();
}

void check_same_rows(const ap::HfModel& a, const ap::HfModel& b) {
  CHECK(a.token_rows == b.token_rows);
  CHECK(a.position_rows == b.position_rows);
  CHECK(a.type_row == b.type_row);
  CHECK(a.norm_embed.gain == b.norm_embed.gain);
  CHECK(a.norm_out.bias == b.norm_out.bias);
  CHECK(a.parameters == b.parameters);
  CHECK(a.dtype == b.dtype);
  REQUIRE(a.layers.size() == b.layers.size());
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    const ap::HfLayer &x = a.layers[l], &y = b.layers[l];
    CHECK(x.norm_attn.gain == y.norm_attn.gain);
    CHECK(x.norm_ffn.bias == y.norm_ffn.bias);
    CHECK(x.attn.b_Q == y.attn.b_Q);
    CHECK(x.attn.b_V == y.attn.b_V);
    CHECK(x.attn.b_O == y.attn.b_O);
    CHECK(x.b_1 == y.b_1);
    CHECK(x.b_2 == y.b_2);
  }
}

}  // namespace

TEST_CASE("HfWeightsReader: any slicing reads load_hf_model's model; packed, the same weights") {
  for (const std::string folder : kFolders) {
    CAPTURE(folder);
    const ap::HfModel whole = load(folder);
    const int d = whole.config.d_model;
    for (const std::size_t slice : {std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
      CAPTURE(slice);
      const ap::HfModel plain = read_sliced(folder, slice, false);
      check_same_rows(plain, whole);
      for (std::size_t l = 0; l < whole.layers.size(); ++l) {
        const ap::HfLayer &x = plain.layers[l], &y = whole.layers[l];
        CHECK(x.attn.W_Q == y.attn.W_Q);
        CHECK(x.attn.W_K == y.attn.W_K);
        CHECK(x.attn.W_V == y.attn.W_V);
        CHECK(x.attn.W_O == y.attn.W_O);
        CHECK(x.W_1 == y.W_1);
        CHECK(x.W_2 == y.W_2);
        CHECK(x.packed_qkv.empty());
      }
      // packed as read: the panels hold the plain matrices' numbers, and no plain copy is kept
      const ap::HfModel packed = read_sliced(folder, slice, true);
      check_same_rows(packed, whole);
      for (std::size_t l = 0; l < whole.layers.size(); ++l) {
        const ap::HfLayer &x = packed.layers[l], &y = whole.layers[l];
        CHECK(x.packed_qkv.columns(0, d) == y.attn.W_Q);
        CHECK(x.packed_qkv.columns(d, d) == y.attn.W_K);
        CHECK(x.packed_qkv.columns(2 * d, d) == y.attn.W_V);
        CHECK(x.packed_W_O.columns(0, d) == y.attn.W_O);
        CHECK(x.packed_W_1.columns(0, x.packed_W_1.cols()) == y.W_1);
        CHECK(x.packed_W_2.columns(0, x.packed_W_2.cols()) == y.W_2);
        CHECK(x.attn.W_Q.size() + x.attn.W_K.size() + x.attn.W_V.size() + x.attn.W_O.size() +
                  x.W_1.size() + x.W_2.size() ==
              0);
      }
    }
  }
}

TEST_CASE("hf_forward and hf_readout on packed weights: the PyTorch reference's numbers") {
  for (const std::string folder : kFolders) {
    CAPTURE(folder);
    const ap::HfModel plain = load(folder);
    const ap::HfModel packed = read_sliced(folder, 0, true);
    const json ref = json::parse(fixture(folder, "reference.json"));
    for (const json& c : ref.at("cases")) {
      const std::vector<int> ids = c.at("ids").get<std::vector<int>>();
      CAPTURE(ids.size());
      for (int layer = 0; layer < plain.config.layers; ++layer) {
        CAPTURE(layer);
        const ap::TextTrace a = ap::hf_forward(plain, ids, layer);
        const ap::TextTrace b = ap::hf_forward(packed, ids, layer);
        // the traced layer whole: its weights read back from the panels, every stage
        for (int h = 0; h < plain.config.heads; ++h) {
          const ap::HeadTrace &x = a.trace.head[h], &y = b.trace.head[h];
          CHECK(x.W_Q == y.W_Q);
          CHECK(x.W_V == y.W_V);
          CHECK((x.Q - y.Q).cwiseAbs().maxCoeff() < 1e-5f);
          CHECK((x.weights - y.weights).cwiseAbs().maxCoeff() < 1e-5f);
        }
        CHECK(a.trace.W_O == b.trace.W_O);
        // every other layer: each head's weights and the output
        for (std::size_t l = 0; l < a.network.layers.size(); ++l) {
          const ap::Trace &x = a.network.layers[l].attn, &y = b.network.layers[l].attn;
          for (int h = 0; h < plain.config.heads; ++h)
            CHECK((x.head[h].weights - y.head[h].weights).cwiseAbs().maxCoeff() < 1e-5f);
          CHECK((x.output - y.output).cwiseAbs().maxCoeff() < 1e-4f);
        }
        CHECK(worst(b.network.norm_out.y, c.at("readout")) < 1e-5);
      }
      CHECK(worst(ap::hf_readout(packed, ids), c.at("readout")) < 1e-5);
    }
  }
}

TEST_CASE("HfWeightsReader: a short or long file is refused as load_hf_model refuses it") {
  const ap::HfConfig c = ap::parse_hf_config(fixture("gpt2_f32", "config.json"));
  const std::string st = fixture("gpt2_f32", "model.safetensors");
  const auto* p = reinterpret_cast<const unsigned char*>(st.data());
  // the first 3000 bytes: tensors past the end, in slices as at once
  CHECK(ap_test::code_of([&] { ap::load_hf_model(c, p, 3000); }) == "safetensors_invalid");
  CHECK(ap_test::code_of([&] {
          ap::HfWeightsReader r(c, 3000);
          for (std::size_t at = 0; at < 3000; at += 7)
            r.read(p + at, std::min<std::size_t>(7, 3000 - at));
          r.finish();
        }) == "safetensors_invalid");
  // fewer than 8 bytes in all
  CHECK(ap_test::code_of([&] {
          ap::HfWeightsReader r(c, 5);
          r.read(p, 5);
          r.finish();
        }) == "safetensors_invalid");
  // more bytes than the size given, and fewer
  CHECK(ap_test::code_of([&] {
          ap::HfWeightsReader r(c, 100);
          r.read(p, 101);
        }) == "safetensors_invalid");
  CHECK(ap_test::code_of([&] {
          ap::HfWeightsReader r(c, st.size());
          r.read(p, st.size() - 1);
          r.finish();
        }) == "safetensors_invalid");
}
