// DO NOT EDIT. Generated from packages/retrieval/src/scatter.wat by `pnpm gen`.
/** The WebAssembly module of ../scatter.wat, as bytes. */
export const SCATTER_WASM = Buffer.from("AGFzbQEAAAABCAFgBHx/f38AAhYBB3NlZ21lbnQGbWVtb3J5AgMBgIAEAwIBAAcHAQNhZGQAAApLAUkBAn8gASADQQF0aiEEAkADQCABIARPDQEgAS8BAEEDdCEFIAUgBSsDACAAIAIqAgC7oqA5AwAgAUECaiEBIAJBBGohAgwACwsL", "base64");
