export { followExamples, readToolExamples, updateToolExamples } from "./examples-bucket.js";
export {
  addExamples,
  decodeToolExamples,
  EXAMPLE_MAX_CHARS,
  emptyExamples,
  encodeToolExamples,
  exampleKey,
  exampleTexts,
  learnExample,
  MAX_ADDED_EXAMPLES_PER_TOOL,
  MAX_REJECTED_PER_TOOL,
  rejectExample,
  tidyExample,
  withExamples,
} from "./tool-examples.js";
export type { StoredExample, ToolExamples } from "./tool-examples.js";
