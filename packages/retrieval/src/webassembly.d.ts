/**
 * The parts of the WebAssembly JavaScript API that segment-dots.ts uses:
 * TypeScript declares the API only in its DOM library, which a Node
 * package does not load (nor does @types/node 20).
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    /** A SharedArrayBuffer: every memory here is made shared. */
    readonly buffer: SharedArrayBuffer;
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, Memory>>);
    readonly exports: Record<string, unknown>;
  }
}
