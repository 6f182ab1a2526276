// core-facts.d.mts: the types of core-facts.mjs, which scripts/gen-core-facts.mjs writes from the
// built module (web/wasm/ is generated and not in the repository; this one file is, so that the
// type checker runs on a fresh checkout). The fields are the module's defaults() and limits(),
// declared once in the package's types (types/index.d.ts: Settings, Limits);
// tests/node/module.test.mjs checks that the generated file has exactly those.
import type { Limits, Settings } from '../../types/index.js';

/** The settings a trace uses for every field left out (the core's Settings), and its model. */
export declare const DEFAULTS: Readonly<Settings>;

/** The core's limits (limits()). */
export declare const LIMITS: Readonly<Limits>;

/** The project's version (CMake's project() VERSION). */
export declare const VERSION: string;
