import { Packet_State } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { defaultConfig } from "../config.js";

/** Links into the console that answers carry (SubmitPacketResponse.approvalUrl, the MCP door's held-call result). */
export interface ConsoleLinks {
  /** The console's page for the packet's approval when it waits for one; "" for any other packet. */
  approvalUrl(packet: Packet): string;
}

/** Links under `publicUrl()`: PUBLIC_URL, or the gateway's own loopback address once it listens. */
export function consoleLinks(publicUrl: () => string): ConsoleLinks {
  return {
    approvalUrl(packet) {
      if (packet.state !== Packet_State.AWAITING_APPROVAL) return "";
      return `${publicUrl().replace(/\/+$/, "")}/console/approvals/${encodeURIComponent(packet.header?.packetId ?? "")}`;
    },
  };
}

/** The links when nothing says where the gateway is: PUBLIC_URL's default on the default HTTP_PORT. */
export const DEFAULT_LINKS = consoleLinks(() => `http://127.0.0.1:${defaultConfig.HTTP_PORT}`);
