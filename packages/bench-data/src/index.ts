export { benchDir, readBench, readBenchFiles } from "./bench-data.js";
export type { BenchCase, BenchDataset } from "./bench-data.js";
