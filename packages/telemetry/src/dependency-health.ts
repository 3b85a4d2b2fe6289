/**
 * The dependencies a service is configured with (a chat model, the embeddings endpoint) and
 * whether each answers. A dependency is down once a request to it (or the check at start)
 * got no answer it could use, and up again with its next answer. Each change is one `info`
 * log line that says what failed and why, never a stack trace: a dead endpoint is an
 * operator's concern, not a bug, and the stage goes on with its built-in fallback.
 * `/readyz` reads `down()`; the process's NATS micro service carries it as metadata.
 */
import type { Logger } from "./logger.js";
import { processMetrics } from "./metrics.js";
import type { Metrics } from "./metrics.js";

/**
 * Why a dependency gave no usable answer: a metric label from a small fixed set. The last two
 * are about one request (HTTP 400/422, an answer without the JSON asked for), not the
 * dependency: they do not make it down.
 */
export type OutageCause = "connection_refused" | "unreachable" | "timeout" | "http_5xx" | "http_429" | "http_4xx" | "bad_request" | "invalid_answer";

export interface Outage {
  cause: OutageCause;
  /** What happened, after the dependency's name: "did not answer (connection refused)", "answered HTTP 503 (…)". */
  text: string;
}

export interface Dependency {
  /** What it is, as `/readyz` names it: "selection model", "embeddings endpoint". */
  name: string;
  /** The model asked for there. */
  model: string;
  /** Where: host and port of its base URL. */
  endpoint: string;
}

/** The outage in one sentence: "the selection model qwen2.5 at localhost:11434 did not answer (connection refused)". */
export function outageSentence(dependency: Dependency, outage: Outage): string {
  return `the ${dependency.name} ${dependency.model} at ${dependency.endpoint} ${outage.text}`;
}

/** The fields of a packet's Fallback record: the outage, and what the stage did instead ("… did not answer (…), so the built-in selector chose …"). */
export function fallbackOf(stage: string, failed: { dependency: Dependency; outage: Outage }, instead: string) {
  return { stage, dependency: failed.dependency.name, cause: failed.outage.cause, detail: `${outageSentence(failed.dependency, failed.outage)}, so ${instead}` };
}

/** Whether an outage means the dependency is down (see OutageCause), rather than one request it could not serve. */
export function isDown(outage: Outage): boolean {
  return outage.cause !== "bad_request" && outage.cause !== "invalid_answer";
}

/** What a client of one dependency reports after each request. */
export interface DependencyReporter {
  readonly dependency: Dependency;
  answered(): void;
  failed(outage: Outage): void;
  /** The outage it is down with; undefined while it answers. */
  outage(): Outage | undefined;
}

/** Asks a dependency whether it answers, without spending anything: undefined when it does. */
export type DependencyCheck = () => Promise<Outage | undefined>;

/** The service's dependencies and which of them are down (see the module comment). */
export class DependencyHealth {
  private readonly outages = new Map<Dependency, Outage | undefined>();
  private readonly checks = new Map<Dependency, DependencyCheck>();
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly logger: Pick<Logger, "info">,
    private readonly metrics: Metrics = processMetrics(),
  ) {}

  /**
   * Registers a dependency, up until a request or `check` says otherwise, and returns what its
   * client reports to. `check` is run by `checkAll`, at start.
   */
  watch(dependency: Dependency, check?: DependencyCheck): DependencyReporter {
    this.outages.set(dependency, undefined);
    if (check) this.checks.set(dependency, check);
    this.metrics.dependencyState(dependency.name, true);
    return {
      dependency,
      answered: () => this.change(dependency, undefined),
      failed: (outage) => this.change(dependency, isDown(outage) ? outage : undefined),
      outage: () => this.outages.get(dependency),
    };
  }

  /** Runs every registered check at once; those that find no answer mark their dependency down. */
  async checkAll(): Promise<void> {
    await Promise.all(
      [...this.checks].map(async ([dependency, check]) => {
        const outage = await check();
        if (outage) this.change(dependency, outage);
      }),
    );
  }

  /** The names of the dependencies that are down, sorted. */
  down(): string[] {
    return [...new Set([...this.outages].filter(([, outage]) => outage).map(([dependency]) => dependency.name))].sort();
  }

  /** Calls `listener` after every change between up and down. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private change(dependency: Dependency, outage: Outage | undefined): void {
    const before = this.outages.get(dependency);
    this.outages.set(dependency, outage);
    if (Boolean(before) === Boolean(outage)) return;
    this.metrics.dependencyState(dependency.name, !outage);
    const { name, model, endpoint } = dependency;
    if (outage) {
      this.logger.info({ dependency: name, model, endpoint, cause: outage.cause }, `${outageSentence(dependency, outage)}; the stage uses its built-in fallback until it answers`);
    } else {
      this.logger.info({ dependency: name, model, endpoint }, `the ${name} ${model} at ${endpoint} answers again`);
    }
    for (const listener of this.listeners) listener();
  }
}
