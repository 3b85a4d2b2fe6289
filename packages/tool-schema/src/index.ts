export { argumentIssues, cachedSchemaCount, describeErrors, requiredProperties, validateArguments } from "./validate-arguments.js";
export type { ArgumentError, ArgumentIssue, ValidationResult } from "./validate-arguments.js";
