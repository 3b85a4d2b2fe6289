import { useEffect, useRef } from "preact/hooks";
import type { Packet } from "./types.js";

/** The gateway's stream of the tenant's packet changes (server-sent events). */
const EVENTS_PATH = "/v1/packets/events";
const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000];

/**
 * Follows /v1/packets/events: `onPacket` for each changed packet, `onOpen` each time the
 * stream (re)connects, so the page fetches its list then and misses nothing in between.
 * EventSource retries a dropped connection itself but gives up on an error answer
 * (a 401, a gateway restarting); then a new one is opened after a growing pause.
 */
export function usePacketFeed(onPacket: (packet: Packet) => void, onOpen: () => void): void {
  const handlers = useRef({ onPacket, onOpen });
  handlers.current = { onPacket, onOpen };
  useEffect(() => {
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const connect = () => {
      source = new EventSource(EVENTS_PATH);
      source.addEventListener("open", () => {
        failures = 0;
        handlers.current.onOpen();
      });
      source.addEventListener("packet", (event) => {
        try {
          handlers.current.onPacket(JSON.parse((event as MessageEvent<string>).data) as Packet);
        } catch {
          // a malformed event is skipped; the next reconnect's refetch corrects the list
        }
      });
      source.addEventListener("error", () => {
        if (source?.readyState !== EventSource.CLOSED) return;
        timer = setTimeout(connect, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
      });
    };
    connect();
    return () => {
      clearTimeout(timer);
      source?.close();
    };
  }, []);
}
