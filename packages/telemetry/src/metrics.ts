/**
 * The process's Prometheus metrics (prom-client), served on `GET /metrics`: one registry per
 * process, with Node's default metrics and every series labelled with the service. Labels
 * take values from small fixed sets only (stage names, packet states, configured tools and
 * models, failure kinds), never a packet id or text.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** A stage consumer's backlog, as JetStream reports it. */
export interface ConsumerBacklog {
  /** Messages on the stage's subject not yet delivered to any replica. */
  pending: number;
  /** Messages delivered and not yet acknowledged: packets being worked on. */
  ackPending: number;
  /** Pull requests of running replicas the consumer holds (JetStream's num_waiting): 0 while no replica asks for work. */
  pullRequests: number;
}

/** Packets stopped for a person, as the packets bucket shows them at a scrape. */
export interface WaitingPackets {
  /** By state name: AWAITING_APPROVAL, AWAITING_USER. */
  byState: ReadonlyMap<string, number>;
  /** Waiting approvals whose time ran out since the last read, nobody having answered. */
  newlyExpired: number;
}

/** How a packet ended, as the packets-finished counter and the end-of-packet histograms see it. */
export interface FinishedPacket {
  /** Packet state name: COMPLETED, FAILED, AWAITING_APPROVAL, AWAITING_USER. */
  state: string;
  /** Execution status name: EXECUTED, SKIPPED, FAILED, …. */
  executionStatus: string;
  /** The selected tool's selection confidence; undefined when no tool was selected. */
  selectionConfidence: number | undefined;
  reinjectionRounds: number;
}

// Stages run from milliseconds (routing) to tens of seconds (a model, a slow tool).
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const CONFIDENCE_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const ROUND_BUCKETS = [0, 1, 2, 3, 4, 5, 10];
/**
 * How often the event-loop lag histogram samples, in ms. prom-client's default, 10, is
 * a timer firing a hundred times a second in every process, busy or idle (about 190
 * system calls and 95 context switches a second in an idle service); ten samples a
 * second still give each scrape's lag percentiles over a hundred and more.
 */
const EVENT_LOOP_SAMPLE_MS = 100;
const ACTIVE_TOTAL_GAUGES = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];

/** The metrics; a process uses one, `processMetrics()` (tests may make their own). */
export class Metrics {
  readonly registry = new Registry();
  private readonly consumers = new Map<string, () => Promise<ConsumerBacklog>>();
  /** One JetStream read per scrape, shared by the backlog gauges. */
  private readonly readBacklogs = oncePerScrape(async () => {
    const entries = await Promise.all([...this.consumers].map(async ([stage, read]) => [stage, await read().catch(() => undefined)] as const));
    return new Map(entries.filter((entry): entry is [string, ConsumerBacklog] => entry[1] !== undefined));
  });
  private waitingRead: (() => WaitingPackets) | undefined;
  /** One read of the waiting packets per scrape, shared by their gauge and the expiry counter. */
  private readonly readWaiting = oncePerScrape(async () => this.waitingRead?.());

  private readonly stageDuration = new Histogram({
    name: "switchyard_stage_duration_seconds",
    help: "Time a stage spent on one packet, by where the packet went next (a stage, or the state it ended in)",
    labelNames: ["stage", "outcome"] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly packetsFinished = new Counter({
    name: "switchyard_packets_finished_total",
    help: "Packets that ended (or stopped to wait) here, by state and tool execution status",
    labelNames: ["state", "execution_status"] as const,
    registers: [this.registry],
  });

  private readonly packetsReconciled = new Counter({
    name: "switchyard_packets_reconciled_total",
    help: "Packets JetStream stopped delivering that the reconciler found, by the stage they were lost at and what it did: resumed (published again) or failed (ended past the deadline or the resumes allowed)",
    labelNames: ["stage", "action"] as const,
    registers: [this.registry],
  });

  private readonly selectionConfidence = new Histogram({
    name: "switchyard_selection_confidence",
    help: "Selection confidence of the tool chosen for packets that ended with one",
    buckets: CONFIDENCE_BUCKETS,
    registers: [this.registry],
  });

  private readonly reinjectionRounds = new Histogram({
    name: "switchyard_reinjection_rounds",
    help: "Reinjection rounds a packet went through, at its end",
    buckets: ROUND_BUCKETS,
    registers: [this.registry],
  });

  private readonly mcpDuration = new Histogram({
    name: "switchyard_mcp_call_duration_seconds",
    help: "MCP tools/call latency, failed calls included",
    labelNames: ["server", "tool"] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly mcpErrors = new Counter({
    name: "switchyard_mcp_call_errors_total",
    help: "MCP tools/call failures by kind: tool_error, timeout, server_lost, protocol_error, transport_error",
    labelNames: ["server", "tool", "kind"] as const,
    registers: [this.registry],
  });

  private readonly modelDuration = new Histogram({
    name: "switchyard_model_call_duration_seconds",
    help: "Chat completion request latency, failed requests included",
    labelNames: ["model"] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly modelErrors = new Counter({
    name: "switchyard_model_call_errors_total",
    help: "Failed chat completion requests by kind: timeout, unavailable (connection, 429, 5xx), refused (other 4xx)",
    labelNames: ["model", "kind"] as const,
    registers: [this.registry],
  });

  private readonly fallbacks = new Counter({
    name: "switchyard_fallbacks_total",
    help: "Packets a stage decided without a dependency it is configured with (a model, the embeddings endpoint), by stage, dependency and cause",
    labelNames: ["stage", "dependency", "cause"] as const,
    registers: [this.registry],
  });

  private readonly dependencyUp = new Gauge({
    name: "switchyard_dependency_up",
    help: "1 while a configured dependency (a model, the embeddings endpoint) answers, 0 while it is down and the stage uses its built-in fallback",
    labelNames: ["dependency"] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // prom-client names these three gauges with `_total`, a suffix Prometheus keeps for
    // counters (`promtool check metrics` fails on them). Each is the sum of the gauge of the
    // same name without the suffix, labelled by type, so nothing is lost: sum() gives it.
    for (const name of ACTIVE_TOTAL_GAUGES) this.registry.removeSingleMetric(name);
    const backlogGauge = (name: string, help: string, value: (backlog: ConsumerBacklog) => number) => {
      const gauge: Gauge<"stage"> = new Gauge({
        name,
        help,
        labelNames: ["stage"] as const,
        registers: [this.registry],
        collect: async () => {
          const backlogs = await this.readBacklogs();
          gauge.reset();
          for (const [stage, backlog] of backlogs) gauge.set({ stage }, value(backlog));
        },
      });
    };
    backlogGauge("switchyard_consumer_pending_messages", "Packets waiting on the stage's JetStream consumer, not yet delivered", (b) => b.pending);
    backlogGauge(
      "switchyard_consumer_ack_pending_messages",
      "Packets delivered by the stage's JetStream consumer and not yet acknowledged (in work)",
      (b) => b.ackPending,
    );
    backlogGauge(
      "switchyard_consumer_pull_requests_waiting",
      "Pull requests from running replicas the stage's JetStream consumer holds: 0 while no replica asks for work",
      (b) => b.pullRequests,
    );
    const waitingGauge: Gauge<"state"> = new Gauge({
      name: "switchyard_packets_waiting",
      help: "Packets stopped for a person, by state: AWAITING_APPROVAL, AWAITING_USER (the gateway, from the packets bucket)",
      labelNames: ["state"] as const,
      registers: [this.registry],
      collect: async () => {
        const waiting = await this.readWaiting();
        waitingGauge.reset();
        for (const [state, count] of waiting?.byState ?? []) waitingGauge.set({ state }, count);
      },
    });
    const expired: Counter = new Counter({
      name: "switchyard_approvals_expired_total",
      help: "Approvals that ran out of time while their packet waited, nobody having answered (the gateway, from the packets bucket)",
      registers: [this.registry],
      collect: async () => {
        const waiting = await this.readWaiting();
        if (waiting) expired.inc(waiting.newlyExpired);
      },
    });
  }

  /** Labels every series of the process with `service`. */
  setService(service: string): void {
    this.registry.setDefaultLabels({ service });
  }

  /** Records one run of a stage: its duration and where the packet went (a stage name or an end state). */
  stageRun(stage: string, outcome: string, seconds: number): void {
    this.stageDuration.observe({ stage, outcome }, seconds);
  }

  /** Records a packet that ended (or stopped to wait): its state, and its confidence and rounds. */
  packetFinished(packet: FinishedPacket): void {
    this.packetsFinished.inc({ state: packet.state, execution_status: packet.executionStatus });
    if (packet.selectionConfidence !== undefined) this.selectionConfidence.observe(packet.selectionConfidence);
    this.reinjectionRounds.observe(packet.reinjectionRounds);
  }

  /** Records a packet lost in transit at `stage` that the reconciler resumed or ended. */
  packetReconciled(stage: string, action: "resumed" | "failed"): void {
    this.packetsReconciled.inc({ stage, action });
  }

  /** Records one MCP tools/call; `failure` is its kind when it failed. */
  mcpCall(server: string, tool: string, seconds: number, failure?: string): void {
    this.mcpDuration.observe({ server, tool }, seconds);
    if (failure !== undefined) this.mcpErrors.inc({ server, tool, kind: failure });
  }

  /** Records one chat completion request; `failure` is its kind when it failed. */
  modelCall(model: string, seconds: number, failure?: string): void {
    this.modelDuration.observe({ model }, seconds);
    if (failure !== undefined) this.modelErrors.inc({ model, kind: failure });
  }

  /** Records one packet a stage decided by its fallback because `dependency` failed with `cause`. */
  fellBack(stage: string, dependency: string, cause: string): void {
    this.fallbacks.inc({ stage, dependency, cause });
  }

  /** Records whether a configured dependency answers. */
  dependencyState(dependency: string, up: boolean): void {
    this.dependencyUp.set({ dependency }, up ? 1 : 0);
  }

  /**
   * Reports a stage consumer's backlog on every scrape, read by `read`; returns the function
   * that stops it. A read that fails (NATS away) leaves the stage out of that scrape.
   */
  watchConsumer(stage: string, read: () => Promise<ConsumerBacklog>): () => void {
    this.consumers.set(stage, read);
    return () => {
      if (this.consumers.get(stage) === read) this.consumers.delete(stage);
    };
  }

  /** Reports the packets waiting for a person on every scrape, read by `read` (the gateway's watch of the packets bucket). */
  watchWaitingPackets(read: () => WaitingPackets): void {
    this.waitingRead = read;
  }

  /** The exposition for `GET /metrics`: Prometheus text format and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** `read`, called at most once at a time: the gauges collected in one scrape share its answer. */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

let current: Metrics | undefined;

/** The process's metrics, created on first use. */
export function processMetrics(): Metrics {
  current ??= new Metrics();
  return current;
}
