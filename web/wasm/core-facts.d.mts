// core-facts.d.mts: the types of core-facts.mjs, which scripts/gen-core-facts.mjs writes from the
// built module (web/wasm/ is generated and not in the repository; this one file is, so that the
// type checker runs on a fresh checkout). The fields are the module's defaults() and limits();
// tests/node/module.test.mjs checks that the generated file has exactly these.

/** The settings a trace uses for every field left out (the core's Settings), and its model. */
export declare const DEFAULTS: Readonly<{
  d_model: number;
  heads: number;
  d_k: number;
  causal: boolean;
  scale: boolean;
  temperature: number;
  tie_qk: boolean;
  positions: boolean;
  /** a decimal string: a JS number cannot hold every 64-bit seed */
  seed: string;
  max_tokens: number;
  model: string;
}>;

/** The core's limits (limits()). */
export declare const LIMITS: Readonly<{
  max_tokens: number;
  default_max_tokens: number;
  max_d_model: number;
  max_heads: number;
  max_layers: number;
  max_temperature: number;
  max_text_bytes: number;
  max_head_width: number;
  max_scores: number;
  max_vector_length: number;
  max_model_bytes: number;
  max_matrix_side: number;
  /** a decimal string: a JS number cannot hold every 64-bit seed */
  max_seed: string;
  models: readonly string[];
}>;

/** The project's version (CMake's project() VERSION). */
export declare const VERSION: string;
