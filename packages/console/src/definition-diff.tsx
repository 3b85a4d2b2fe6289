import { formatTime } from "./format.js";
import { definitionText, sideBySide } from "./line-pairs.js";
import type { ToolDefinition } from "./types.js";
import { Table } from "./ui.js";

/** A quarantined tool's pinned definition beside the one its server serves now. */
export function DefinitionDiff({ tool }: { tool: ToolDefinition }) {
  if (!tool.pinned) {
    return (
      <>
        <p>No pinned definition is recorded for this tool (it was quarantined when first seen). It serves:</p>
        <pre class="code">{definitionText(tool.description, tool.inputSchema)}</pre>
      </>
    );
  }
  const rows = sideBySide(definitionText(tool.pinned.description, tool.pinned.inputSchema), definitionText(tool.description, tool.inputSchema));
  return (
    <Table
      class="diff"
      caption={`Pinned and served definitions of ${tool.name}, line by line; changed lines are marked removed and added`}
      headers={[`Pinned ${tool.pinned.pinnedAt ? `(${formatTime(tool.pinned.pinnedAt)})` : ""}`, "Served now"]}
    >
      {rows.map((row, i) => (
        <tr key={i}>
          <td class={row.changed && row.pinned !== undefined ? "removed" : undefined}>{row.changed && row.pinned !== undefined ? <del>{row.pinned}</del> : row.pinned}</td>
          <td class={row.changed && row.served !== undefined ? "added" : undefined}>{row.changed && row.served !== undefined ? <ins>{row.served}</ins> : row.served}</td>
        </tr>
      ))}
    </Table>
  );
}
