export { ConfigError, defaultsOf, parseList, readConfig } from "./read-config.js";
