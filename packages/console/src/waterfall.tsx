import { formatDuration, formatTime } from "./format.js";
import { placeHops } from "./hop-timeline.js";
import type { Hop } from "./types.js";
import { Table } from "./ui.js";

const WIDTH = 1000;

/** The hops as a table with a bar per hop on one time axis (bars are SVG: no inline styles under the CSP). */
export function Waterfall({ hops }: { hops: Hop[] }) {
  if (!hops.length) return <p>No hops recorded.</p>;
  const { placed, totalMs } = placeHops(hops);
  return (
    <Table
      class="waterfall"
      caption={`Each stage the packet went through, in order, on one time axis of ${formatDuration(totalMs)}`}
      headers={["#", "Service", "Started", "At", "Duration", `Timeline (${formatDuration(totalMs)})`]}
    >
      {placed.map(({ hop, offsetMs, durationMs }, i) => (
        <tr key={i}>
          <td>{hop.hop ?? i}</td>
          <td>
            {hop.service}
            {hop.instance ? <span class="muted"> {hop.instance}</span> : null}
          </td>
          <td>{formatTime(hop.startedAt)}</td>
          <td>+{formatDuration(offsetMs)}</td>
          <td>{formatDuration(durationMs)}</td>
          <td class="bar-col">
            <svg class="bar" viewBox={`0 0 ${WIDTH} 10`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
              <rect x={(offsetMs / totalMs) * WIDTH} y="0" width={Math.max(3, (durationMs / totalMs) * WIDTH)} height="10" />
            </svg>
          </td>
        </tr>
      ))}
    </Table>
  );
}
