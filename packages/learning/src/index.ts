export { examplesKey, followExamples, isOwnedExamplesKey, readToolExamples, updateToolExamples } from "./examples-bucket.js";
export type { FollowedExamples } from "./examples-bucket.js";
export { SHARED } from "./owners.js";
export {
  addExamples,
  decodeToolExamples,
  EXAMPLE_MAX_CHARS,
  emptyExamples,
  encodeToolExamples,
  EXAMPLE_ID_CHARS,
  exampleId,
  exampleKey,
  examplesFor,
  exampleTexts,
  learnExample,
  listedExamples,
  MAX_ADDED_EXAMPLES_PER_TOOL,
  MAX_REJECTED_PER_TOOL,
  rejectExample,
  removeExample,
  tidyExample,
  withExamples,
  withIndexedExamples,
} from "./tool-examples.js";
export type { StoredExample, ToolExamples } from "./tool-examples.js";
