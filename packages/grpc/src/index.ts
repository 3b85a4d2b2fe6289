export { createRouterClient } from "./router-client.js";
export type { RouterClient } from "./router-client.js";
export { addReflection } from "./reflection.js";
export { grpcServiceDefinition } from "./service-definition.js";
export type { GrpcDecodeOptions } from "./service-definition.js";
