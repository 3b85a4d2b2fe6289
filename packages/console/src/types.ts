// The proto3 JSON (camelCase, enums by name, unset fields absent) of the API's messages in
// proto/switchyard/v1/*.proto, as far as the pages read them. The generated types of
// @switchyard/packet describe the decoded messages, not their JSON, so these stay local.

/** GET /console/session. */
export interface Session {
  tenant: string;
  admin: boolean;
  keysRequired: boolean;
  jaegerUiUrl?: string;
}

export type PacketState =
  | "RECEIVED"
  | "DETECTING_INTENT"
  | "ROUTING"
  | "SELECTING"
  | "REVIEWING"
  | "EXECUTING"
  | "REINJECTED"
  | "COMPLETED"
  | "AWAITING_APPROVAL"
  | "AWAITING_USER"
  | "FAILED";

/** Every packet state, in the proto's order. */
export const PACKET_STATES: readonly PacketState[] = [
  "RECEIVED",
  "DETECTING_INTENT",
  "ROUTING",
  "SELECTING",
  "REVIEWING",
  "EXECUTING",
  "REINJECTED",
  "COMPLETED",
  "AWAITING_APPROVAL",
  "AWAITING_USER",
  "FAILED",
];

export interface Approval {
  callHash?: string;
  requestedAt?: string;
  expiresAt?: string;
  grantedAt?: string;
}

export interface SelectedTool {
  toolName?: string;
  params?: Record<string, unknown>;
  selectionReasoning?: string;
  selectionConfidence?: number;
}

export interface PinnedDefinition {
  description?: string;
  inputSchema?: Record<string, unknown>;
  pinnedAt?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  sideEffect?: "READ" | "WRITE" | string;
  server?: string;
  serverToolName?: string;
  core?: boolean;
  examples?: string[];
  pool?: string;
  domains?: string[];
  pinHash?: string;
  quarantined?: boolean;
  flags?: string[];
  tenants?: string[];
  pinned?: PinnedDefinition;
}

export interface RoutingCandidate {
  tool?: ToolDefinition;
  score?: number;
  source?: "SEMANTIC" | "CORE" | "PINNED" | string;
  exampleId?: string;
  matchedWords?: string[];
  example?: string;
}

export interface ToolNeedVerdict {
  needed?: boolean;
  probability?: number;
  threshold?: number;
  reason?: string;
  unreadLanguage?: string;
}

export interface ToolCall {
  toolName?: string;
  callHash?: string;
  hop?: number;
  success?: boolean;
  dryRun?: boolean;
}

export interface Hop {
  service?: string;
  instance?: string;
  hop?: number;
  startedAt?: string;
  durationMs?: number;
}

export interface ReflectionLogEntry {
  step?: string;
  summary?: string;
  confidence?: number;
  at?: string;
  durationMs?: number;
}

export interface DataField {
  key: string;
  value?: unknown;
  type?: string;
  source?: string;
}

export interface Turn {
  role?: string;
  content?: string;
}

export interface Packet {
  header: {
    packetId: string;
    sessionId?: string;
    createdAt?: string;
    updatedAt?: string;
    traceparent?: string;
    tenant?: string;
    deadline?: string;
    preview?: boolean;
  };
  content?: { originalPrompt?: string; history?: Turn[]; dataFields?: DataField[] };
  intent?: { userIntent?: string; query?: string; steps?: string[]; domains?: string[]; detectedBy?: string };
  toolRouting?: {
    needsTool?: boolean;
    candidates?: RoutingCandidate[];
    selectedTool?: SelectedTool;
    alternativeTools?: SelectedTool[];
    reviewConfidence?: number;
    reviewReasoning?: string;
    executionStatus?: string;
    executionResult?: { success?: boolean; error?: string; executionTimeMs?: number };
    dryRun?: boolean;
    approval?: Approval;
    calls?: ToolCall[];
    toolNeed?: ToolNeedVerdict;
  };
  reasoning?: { reflectionLog?: ReflectionLogEntry[] };
  hops?: Hop[];
  state?: PacketState;
  stateReason?: string;
  fallbacks?: { stage?: string; dependency?: string; cause?: string; detail?: string }[];
}

export interface RouteResponse {
  candidates?: RoutingCandidate[];
  warnings?: string[];
  need?: ToolNeedVerdict;
}

export interface ToolExample {
  id: string;
  text?: string;
  source?: string;
  at?: string;
  shared?: boolean;
}

export interface RegisteredServer {
  name: string;
  url?: string;
  pool?: string;
  domains?: string[];
  tenants?: string[];
  trust?: string;
  registeredBy?: string;
  registeredAt?: string;
  core?: string[];
}

export interface FleetStatus {
  status?: string;
  services?: { name: string; instances?: number; ready?: boolean; down?: string[] }[];
  packetsInFlight?: number;
  approvalsWaiting?: number;
  fallbacks?: { stage?: string; dependency?: string; cause?: string; count?: number }[];
}
