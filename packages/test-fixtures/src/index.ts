export {
  candidate,
  candidates,
  catalogTool,
  filesystemTools,
  mcpTool,
  mcpTools,
  schemaOf,
  toolDefinition,
  toolDefinitions,
} from "./mcp-tools.js";
export type { McpTool, Server } from "./mcp-tools.js";
export { suiteNats } from "./suite-nats.js";
export type { SuiteNats } from "./suite-nats.js";
export { startScriptedOpenAIServer } from "./scripted-openai-server.js";
export type {
  ChatAnswer,
  ChatScript,
  RecordedChatRequest,
  RecordedRequest,
  Script,
  ScriptedOpenAIServer,
  ScriptedOpenAIServerOptions,
} from "./scripted-openai-server.js";
export type { RecordedResponsesRequest, ResponsesAnswer, ResponsesScript } from "./scripted-responses.js";
export { startScriptedAnthropicServer } from "./scripted-anthropic-server.js";
export type { MessagesAnswer, MessagesScript, RecordedMessagesRequest, ScriptedAnthropicServer } from "./scripted-anthropic-server.js";
export { promSample } from "./prometheus.js";
export { recordSpans } from "./recorded-spans.js";
