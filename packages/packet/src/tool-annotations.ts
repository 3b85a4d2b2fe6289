/** The MCP tool annotations the catalog keeps (ToolAnnotations), under MCP's own names. */
export interface AnnotationFields {
  title?: string | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

const FIELDS = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/**
 * The annotations that were given, and only those: the same names in an MCP tool and in
 * ToolAnnotations, so the executor stores a server's annotations and the MCP door lists them
 * again with this one copy.
 */
export function givenAnnotations(from: AnnotationFields): AnnotationFields {
  const out: Record<string, string | boolean> = {};
  for (const field of FIELDS) if (from[field] !== undefined) out[field] = from[field];
  return out as AnnotationFields;
}
