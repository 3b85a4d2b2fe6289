/**
 * The route every model-API door is (/v1/chat/completions, /v1/messages, /v1/responses): its
 * OpenAPI entry pointing at the protocol it speaks, errors in that API's shape, a 503 naming the
 * setting when no upstream is configured, then the door's trimming of the request's tools and
 * the upstream's answer passed back as it came (model-upstream.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "@fastify/type-provider-typebox";
import type { TSchema } from "@fastify/type-provider-typebox";
import type { JsonObject } from "@bufbuild/protobuf";
import type { ErrorBody } from "../errors.js";
import { withExample } from "../openapi.js";
import { configuredUpstream, forwardAnswer, modelApiErrors } from "./model-upstream.js";
import type { AnswerReader, Upstream } from "./model-upstream.js";

/** The tools a door sends upstream for one request, and how it reads the answer. */
export interface TrimmedTools {
  /** The request's `tools` as they go upstream (the trimmed list, in the caller's order). */
  sent: unknown[];
  /** The names of the tools the model is offered among them. */
  offered: ReadonlySet<string>;
  reader: AnswerReader;
}

/** What makes one model door. */
export interface ModelDoor {
  path: string;
  operationId: string;
  /** The API it speaks, linked from the OpenAPI document. */
  protocol: { name: string; url: string };
  /** The setting that names its upstream, said in the OpenAPI document. */
  setting: string;
  /** Whose error shape its errors take ("OpenAI's"), and how. */
  errors: { name: string; shape: (body: ErrorBody) => object };
  /** What the door reads of a request; the rest goes upstream untouched. */
  body: TSchema;
  /** A request in the API's shape, shown in the OpenAPI document. */
  example: JsonObject;
  timeoutMs: number;
  upstream(request: FastifyRequest): Upstream;
  /** The request's tools, trimmed for the turn (after the body's validation). */
  trim(request: FastifyRequest, body: Record<string, unknown>): Promise<TrimmedTools>;
}

/** The door's route; register it inside the guarded API context (app.ts), so keys, tenants and limits apply. */
export function modelDoor(door: ModelDoor): FastifyPluginAsync {
  return async (app) => {
    modelApiErrors(app, door.errors.shape);
    app.post(
      door.path,
      {
        schema: {
          operationId: door.operationId,
          summary: `${door.protocol.name}: the request's tools trimmed to the turn's best, then the upstream model's answer as is`,
          description:
            "Send all your tools: past PROXY_TOP_K of them, the model is offered only the turn's best, the catalog's core tools, the one " +
            `\`tool_choice\` names and those used earlier. The answer comes back as the upstream model (${door.setting}) sent it, streaming ` +
            "included; your Switchyard key never goes upstream.",
          externalDocs: { description: door.protocol.name, url: door.protocol.url },
          tags: ["agent doors"],
          body: withExample(door.body, door.example),
          response: {
            200: Type.Unsafe({ description: "The upstream model's answer as it was sent: JSON, or server-sent events with stream: true" }),
            400: Type.Unsafe({ description: `The request is invalid (${door.errors.name} error shape)` }),
            502: Type.Unsafe({ description: "The upstream model did not answer" }),
            503: Type.Unsafe({ description: `No upstream model is configured (${door.setting})` }),
          },
        },
      },
      async (request, reply) => {
        const upstream = configuredUpstream(door.upstream(request), door.path);
        const body = request.body as Record<string, unknown>;
        const tools = Array.isArray(body["tools"]) ? body["tools"] : [];
        const { sent, offered, reader } = await door.trim(request, body);
        // The upstream's status goes back as it is, whichever it is: the schema above only documents the usual ones.
        return forwardAnswer(request, reply as FastifyReply, {
          upstream,
          body: tools.length === 0 ? body : { ...body, tools: sent },
          stream: body["stream"] === true,
          timeoutMs: door.timeoutMs,
          trimmed: { from: tools.length, to: sent.length },
          offered,
          reader,
        });
      },
    );
  };
}
