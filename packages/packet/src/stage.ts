/** The stages a packet passes through on the bus, in order; each is a JetStream consumer. */
export const STAGES = ["intent", "route", "select", "review", "execute"] as const;
export type Stage = (typeof STAGES)[number];

/**
 * What a stage decided: hand the packet on to another stage, or end it (the
 * packet's state says how it ended). Stage functions mutate the packet they are
 * given and return one of these; they never touch NATS.
 */
export type StageOutcome = { next: Stage } | { done: true };
