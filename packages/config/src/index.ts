export { ConfigError, defaultsOf, parseList, readConfig } from "./read-config.js";
export { resolvedServerUrlProblem, serverUrlConfigProperties, serverUrlPolicy, serverUrlProblem } from "./server-url.js";
export type { LookupAll, ServerUrlContext, ServerUrlPolicy } from "./server-url.js";
export { settingsReference } from "./settings-reference.js";
export type { SettingsSection } from "./settings-reference.js";
