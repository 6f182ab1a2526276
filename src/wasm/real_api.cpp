// real_api.cpp: the operations of attention-real, the module the page fetches only when a learner
// loads a real model (Embind): a Hugging Face GPT-2 or BERT folder's files read by JS
// (hf_model.hpp, hf_tokenizer.hpp), or one .apm file qkv convert wrote (real_model_file.hpp),
// become a RealModel, whose traces have the shape of the page's
// own (schema.hpp write_hf_trace). Converts (convert.hpp) and computes nothing itself; keeps no
// state outside a RealModel. Not the page's API (page_api.cpp), which this module does not carry.
//
// A folder's weights cross in slices: beginRealModel takes the small files and gives a
// RealModelReader, JS hands it model.safetensors' bytes slice by slice (web/real-model.js:
// progress and cancel between them) and finish() makes the RealModel; each tensor goes straight
// to its place in the model (HfWeightsReader), so the file itself is never held. loadRealModel
// (the whole file at once) and loadConvertedModel (an .apm file) take bytes JS copied into this
// module's heap: JS calls _malloc(size), fills HEAPU8 in slices, then the call, which owns the
// buffer from then on and frees it as soon as the tensors are converted, or on any refusal.
#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "error.hpp"
#include "guards.hpp"
#include "hf_model.hpp"
#include "hf_tokenizer.hpp"
#include "real_model_file.hpp"
#include "schema.hpp"

namespace ap::wasm {
namespace {

// A loaded model and its tokenizer. JS holds it as module.RealModel and calls .delete() to free
// its weights.
class RealModel {
 public:
  RealModel(HfModel m, std::shared_ptr<const hf::Tokenizer> tokenizer)
      : model_(std::move(m), std::move(tokenizer)),
        card_(schema::hf_model_card(JsWriter{}, model_.model())) {}

  // The model card (schema.hpp hf_model_card), converted once: every trace carries this object.
  val info() const { return card_; }

  // options: {layer (-1 or absent: the last), head (absent: 0), layers (absent: true: every
  // layer's every head's weights, "layers", in the result)}. -> {ok, ...the trace} (write_hf_trace)
  val trace_text(const val& text, const val& options);
  val trace_text_defaults(const val& text) { return trace_text(text, val::undefined()); }

  // ids: an Int32Array of token ids (1 to the model's positions). -> {ok, hidden: {rows: n, cols:
  // d_model, data}}: the read-out Y of the full forward (hf_readout), the model's last hidden
  // state, with no trace kept: what another engine computes from the same ids.
  val readout(const val& ids);

 private:
  HfTextModel model_;
  val card_;
};

// A whole number option (Embind would read "x" and NaN as 0); its range is checked by its user.
int whole_option(const val& options, const char* key, int fallback) {
  if (absent(options)) return fallback;
  const val v = options[key];
  return absent(v) ? fallback : static_cast<int>(int_arg(v, key, INT_MIN, INT_MAX));
}

val RealModel::trace_text(const val& text_v, const val& options) {
  return guarded([&] {
    const std::string text = text_arg(text_v);
    require_object(options, "options");
    const HfConfig& c = model_.model().config;
    const int layer = whole_option(options, "layer", -1);  // hf_forward checks its range
    const int head = whole_option(options, "head", 0);
    if (head < 0 || head >= c.heads)
      throw Error("bad_head", "the head must be between 0 and " + std::to_string(c.heads - 1) +
                                  ", got " + std::to_string(head));
    schema::TraceParts parts;
    parts.layers = absent(options) || bool_field(options, "layers", true);
    TextTrace t = model_.trace(text, Settings{}, layer);
    t.head = head;
    val o = ok();
    schema::write_hf_trace(
        JsWriter{}, o, t, parts, [&] { return card_; }, &model_.model());
    return o;
  });
}

val RealModel::readout(const val& ids_v) {
  return guarded([&] {
    const HfConfig& c = model_.model().config;
    const std::size_t n = typed_length(ids_v, "Int32Array", "ids",
                                       static_cast<std::size_t>(c.positions), "too_many_tokens");
    std::vector<int> ids(n);
    if (n) val(emscripten::typed_memory_view(n, ids.data())).call<void>("set", ids_v);
    val o = ok();
    o.set(js_name("hidden"), mat(hf_readout(model_.model(), ids)));  // hf_readout checks the ids
    return o;
  });
}

// {ok, config: "config.json", weights: "model.safetensors", converted_suffix: ".apm" (how a file
// qkv convert wrote is named), tokenizer: [names], max_config_bytes,
// max_tokenizer_file_bytes, max_weights_bytes}: the files a model folder is read from (the page's
// file picker matches them by name) and the most bytes each may have, so that JS refuses a larger
// file before reading it (the weights' bound is this module's largest memory: a file near it
// leaves no room for the converted weights, which loadRealModel then refuses).
val js_real_model_file_names() {
  val o = ok();
  o.set(js_name("config"), val(kHfConfigFile));
  o.set(js_name("weights"), val(kHfWeightsFile));
  o.set(js_name("converted_suffix"), val(kModelFileSuffix));
  val tokenizer = val::array();
  for (const std::string& name : hf::tokenizer_file_names())
    tokenizer.call<void>("push", val(name));
  o.set(js_name("tokenizer"), tokenizer);
  o.set(js_name("max_config_bytes"), static_cast<double>(kMaxHfConfigBytes));
  o.set(js_name("max_tokenizer_file_bytes"), static_cast<double>(hf::kMaxTokenizerFileBytes));
  o.set(js_name("max_weights_bytes"), static_cast<double>(emscripten_get_heap_max()));
  return o;
}

// The weight buffer JS filled: freed when the object goes, whatever happened in between.
struct FreeBytes {
  void operator()(unsigned char* p) const { std::free(p); }
};
using HeapBytes = std::unique_ptr<unsigned char, FreeBytes>;

// Takes the buffer at o[ptr_key] (from _malloc) into `owner` and returns o[size_key], checked to
// lie within the heap.
std::size_t take_bytes(const val& o, const char* ptr_key, const char* size_key, HeapBytes& owner) {
  const auto heap = static_cast<long long>(emscripten_get_heap_size());
  owner.reset(reinterpret_cast<unsigned char*>(
      static_cast<std::uintptr_t>(int_arg(o[ptr_key], ptr_key, 0, heap))));
  const auto at = reinterpret_cast<std::uintptr_t>(owner.get());
  return static_cast<std::size_t>(
      int_arg(o[size_key], size_key, 0, heap - static_cast<long long>(at)));
}

[[noreturn]] void too_large(const std::string& file) {
  throw Error("real_too_large", file +
                                    ": the converted weights do not fit in this page's memory "
                                    "beside the file (at most " +
                                    std::to_string(emscripten_get_heap_max()) + " bytes)");
}

// A folder's small files, read and checked before any weight.
struct SmallFiles {
  HfConfig config;
  std::shared_ptr<const hf::Tokenizer> tokenizer;
};

// files: {config: config.json's text, tokenizer: {file name: text} (tokenizer_file_names();
// others ignored)}: the config parsed and the tokenizer made, and checked against each other.
SmallFiles small_files(const val& files) {
  SmallFiles out;
  out.config = parse_hf_config(
      string_arg(files["config"], kHfConfigFile, kMaxHfConfigBytes, "hf_file_too_large"),
      kHfConfigFile);
  const val given = files["tokenizer"];
  require_object(given, "tokenizer");
  std::map<std::string, std::string, std::less<>> texts;
  if (!absent(given)) {
    for (const std::string& name : hf::tokenizer_file_names()) {
      const val v = given[name];
      if (!absent(v))
        texts[name] = string_arg(v, name.c_str(), hf::kMaxTokenizerFileBytes, "hf_file_too_large");
    }
  }
  hf::Files views;
  for (const auto& [name, text] : texts) views.emplace(name, text);
  out.tokenizer = std::make_shared<const hf::Tokenizer>(hf::Tokenizer::from_files(views));
  check_tokenizer(out.config, *out.tokenizer);
  return out;
}

// files: {config, tokenizer (as small_files), weightsPtr: a pointer from _malloc holding
// model.safetensors' bytes, weightsSize: their count}. -> {ok, model: RealModel} or {ok: false,
// error}. The buffer at weightsPtr is this call's: freed once the tensors are converted, and on
// every refusal.
val js_load_real_model(const val& files) {
  HeapBytes weights;
  return guarded([&] {
    if (absent(files))
      bad_setting("files must be an object {config, tokenizer, weightsPtr, weightsSize}");
    require_object(files, "files");
    const std::size_t size = take_bytes(files, "weightsPtr", "weightsSize", weights);
    // the small files first: a wrong folder is refused before any weight is converted
    SmallFiles small = small_files(files);
    HfModel m;
    try {
      m = load_hf_model(small.config, weights.get(), size, kHfWeightsFile);
    } catch (const std::bad_alloc&) {
      too_large(kHfWeightsFile);
    }
    weights.reset();  // the file's bytes are no longer needed: its memory serves the model's
    val o = ok();
    o.set(js_name("model"),
          val(std::make_unique<RealModel>(std::move(m), std::move(small.tokenizer))));
    return o;
  });
}

// model.safetensors read slice by slice into a model (beginRealModel makes one; JS deletes it).
// The first refusal while reading is kept, the bytes after it ignored, and finish() gives it: a
// file is refused when it has been read whole, as loadRealModel refuses it, so that cancel and
// progress behave the same for a good file and a bad one.
class RealModelReader {
 public:
  RealModelReader(SmallFiles small, std::uint64_t size)
      : small_(std::move(small)),
        reader_(std::make_unique<HfWeightsReader>(small_.config, size, kHfWeightsFile)) {}

  // bytes: a Uint8Array, the file's next bytes.
  void read(const val& bytes) {
    if (error_ || !reader_) return;
    try {
      const std::size_t n =
          typed_length(bytes, "Uint8Array", "bytes",
                       static_cast<std::size_t>(emscripten_get_heap_max()), "real_too_large");
      slice_.resize(n);
      if (n) val(emscripten::typed_memory_view(n, slice_.data())).call<void>("set", bytes);
      reader_->read(slice_.data(), n);
    } catch (...) {
      error_ = std::current_exception();
      reader_.reset();  // the weights read so far are freed at once
      slice_ = std::vector<unsigned char>();
    }
  }

  // -> {ok, model: RealModel} or {ok: false, error}: the first refusal, or finish()'s own.
  val finish() {
    return guarded([&] {
      slice_ = std::vector<unsigned char>();
      try {
        if (error_) std::rethrow_exception(error_);
        if (!reader_) throw Error("internal", "this reader has finished");
        HfModel m = reader_->finish();
        reader_.reset();
        val o = ok();
        o.set(js_name("model"),
              val(std::make_unique<RealModel>(std::move(m), std::move(small_.tokenizer))));
        return o;
      } catch (const std::bad_alloc&) {
        reader_.reset();
        too_large(kHfWeightsFile);
      }
    });
  }

 private:
  SmallFiles small_;
  std::unique_ptr<HfWeightsReader> reader_;
  std::exception_ptr error_;
  std::vector<unsigned char> slice_;
};

// files: {config, tokenizer (as loadRealModel's), weightsSize: model.safetensors' length}. ->
// {ok, reader: RealModelReader} or {ok: false, error} (the small files refused before any weight
// is read).
val js_begin_real_model(const val& files) {
  return guarded([&] {
    if (absent(files)) bad_setting("files must be an object {config, tokenizer, weightsSize}");
    require_object(files, "files");
    const auto size = static_cast<std::uint64_t>(int_arg(
        files["weightsSize"], "weightsSize", 0, static_cast<long long>(emscripten_get_heap_max())));
    SmallFiles small = small_files(files);
    val o = ok();
    o.set(js_name("reader"), val(std::make_unique<RealModelReader>(std::move(small), size)));
    return o;
  });
}

// file: {bytesPtr: a pointer from _malloc holding an .apm file qkv convert wrote (format version
// 5), bytesSize: their count}. -> {ok, model: RealModel} or {ok: false, error}. The buffer is
// this call's, as loadRealModel's is.
val js_load_converted_model(const val& file) {
  HeapBytes bytes;
  return guarded([&] {
    if (absent(file)) bad_setting("file must be an object {bytesPtr, bytesSize}");
    require_object(file, "file");
    const std::size_t size = take_bytes(file, "bytesPtr", "bytesSize", bytes);
    ConvertedModel c;
    try {
      c = load_real_model(bytes.get(), size);
    } catch (const std::bad_alloc&) {
      too_large("the model file");
    }
    bytes.reset();
    val o = ok();
    o.set(js_name("model"),
          val(std::make_unique<RealModel>(std::move(c.model), std::move(c.tokenizer))));
    return o;
  });
}

}  // namespace
}  // namespace ap::wasm

EMSCRIPTEN_BINDINGS(real_api) {
  using namespace ap::wasm;
  emscripten::class_<RealModel>("RealModel")
      .function("info", &RealModel::info)
      .function("traceText", &RealModel::trace_text_defaults)  // (text)
      .function("traceText", &RealModel::trace_text)           // (text, options)
      .function("readout", &RealModel::readout);               // (ids: Int32Array)
  emscripten::class_<RealModelReader>("RealModelReader")
      .function("read", &RealModelReader::read)       // (bytes: Uint8Array)
      .function("finish", &RealModelReader::finish);  // () -> {ok, model}
  emscripten::function("realModelFileNames", &js_real_model_file_names);
  emscripten::function("beginRealModel", &js_begin_real_model);
  emscripten::function("loadRealModel", &js_load_real_model);
  emscripten::function("loadConvertedModel", &js_load_converted_model);
}
