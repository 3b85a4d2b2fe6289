export { ConfigError, parseList, readConfig } from "./read-config.js";
export type { ConfigSchema } from "./read-config.js";
