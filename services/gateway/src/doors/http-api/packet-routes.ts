import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { FeedbackRequestSchema, FeedbackResponseSchema, PacketSchema, SubmitCallRequestSchema, SubmitPacketRequestSchema, SubmitPacketResponseSchema } from "@switchyard/packet";
import type { ConsoleLinks } from "../../shared/console-links.js";
import { GatewayError } from "../../shared/deps.js";
import type { GatewayDeps, Submitted } from "../../shared/deps.js";
import { acceptedJson, messageJson, packetJson } from "../../shared/json.js";
import { protoRequest, requestSchemas } from "../../shared/requests.js";
import type { GatewayLimits } from "../../shared/requests.js";
import { withExample } from "../../shared/openapi.js";
import { errorResponse, protoResponse } from "../../shared/response-schemas.js";

/** The packet flow over HTTP: submit a request or a call, read a packet, approve or deny its call, say whether its tool was right. */
export function packetRoutes(deps: GatewayDeps, limits: GatewayLimits, links: ConsoleLinks): FastifyPluginAsyncTypebox {
  const schemas = requestSchemas(limits);
  const notFound = (packetId: string) => new GatewayError("not_found", `packet ${packetId} not found`);
  return async (app) => {
    app.post(
      "/v1/packets",
      {
        schema: {
          operationId: "submitPacket",
          summary: "Run a request through the full packet flow",
          description:
            "Answers 200 with the finished packet (completed, failed, or waiting for approval or the user), " +
            "or 202 with the packet id when it is still running after the wait timeout or `wait` is false. " +
            "A packet waiting for approval comes with `Link: <PUBLIC_URL/console/approvals/{packetId}>; rel=\"approval\"`.",
          tags: ["packets"],
          body: withExample(schemas.submitPacket, { message: "please read the file notes/todo.md" }),
          response: {
            200: protoResponse(PacketSchema, "The finished packet"),
            202: protoResponse(SubmitPacketResponseSchema, "Still running; poll the Location header"),
            400: errorResponse("The request is invalid"),
            413: errorResponse("The body is larger than the limit"),
            415: errorResponse("The body is not JSON"),
            503: errorResponse("The fleet cannot take requests now"),
          },
        },
      },
      async (request, reply) => submitted(reply, await deps.submitPacket(request.tenant, protoRequest(SubmitPacketRequestSchema, request.body)), links),
    );

    app.post(
      "/v1/calls",
      {
        schema: {
          operationId: "submitCall",
          summary: "Review and run a tool call the caller chose",
          description:
            "The call starts a packet at the review stage: the tool's schema, side-effect policy and approvals apply as to any " +
            "packet (a write answers AWAITING_APPROVAL, with `Link: <PUBLIC_URL/console/approvals/{packetId}>; rel=\"approval\"`; approve " +
            "it there or with POST /v1/packets/{id}/approve). 200 with the finished " +
            "packet, or 202 with its id when it is still running.",
          tags: ["packets"],
          body: withExample(schemas.submitCall, { tool: "filesystem.list_directory", arguments: { path: "notes" }, message: "list the files in notes" }),
          response: {
            200: protoResponse(PacketSchema, "The finished packet"),
            202: protoResponse(SubmitPacketResponseSchema, "Still running; poll the Location header"),
            400: errorResponse("The request is invalid, or a bare tool name two servers share"),
            404: errorResponse("No tool of yours has this name"),
            503: errorResponse("The fleet cannot take requests now"),
          },
        },
      },
      async (request, reply) => submitted(reply, await deps.submitCall(request.tenant, protoRequest(SubmitCallRequestSchema, request.body)), links),
    );

    app.get(
      "/v1/packets/:packetId",
      {
        schema: {
          operationId: "getPacket",
          summary: "A packet, finished or in flight",
          tags: ["packets"],
          params: schemas.packetRef,
          response: { 200: protoResponse(PacketSchema, "The packet"), 404: errorResponse("No packet of yours has this id") },
        },
      },
      async (request) => {
        const packet = await deps.getPacket(request.tenant, request.params.packetId);
        if (!packet) throw notFound(request.params.packetId);
        return packetJson(packet);
      },
    );

    app.post(
      "/v1/packets/:packetId/approve",
      {
        schema: {
          operationId: "approvePacket",
          summary: "Approve the tool call a packet is waiting on; the packet resumes",
          description:
            "The approval is bound to the exact call (tool and arguments) it was asked for: it is refused (409) when it has expired " +
            "(the packet then ends), when the packet's call changed since, or when `callHash` names another call.",
          tags: ["packets"],
          params: schemas.packetRef,
          body: withExample(schemas.approve, { callHash: "b2067453bd423ae3517f329db90aef4a557b6509e4cbebdb15bab00dc030b1a6" }),
          response: {
            200: protoResponse(PacketSchema, "The packet after approval"),
            404: errorResponse("No packet has this id"),
            409: errorResponse("The packet is not awaiting approval, or the approval cannot be given"),
          },
        },
        // The body is optional: a bare POST approves the pending call.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => packetJson(await deps.approvePacket(request.tenant, request.params.packetId, request.body.callHash)),
    );

    app.post(
      "/v1/packets/:packetId/deny",
      {
        schema: {
          operationId: "denyPacket",
          summary: "Deny the tool call a packet is waiting on; the packet ends",
          tags: ["packets"],
          params: schemas.packetRef,
          body: withExample(schemas.deny, { reason: "not now" }),
          response: {
            200: protoResponse(PacketSchema, "The packet after the denial"),
            404: errorResponse("No packet has this id"),
            409: errorResponse("The packet is not awaiting approval"),
          },
        },
        // The body is optional: a bare POST denies without a reason.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => packetJson(await deps.denyPacket(request.tenant, request.params.packetId, request.body.reason ?? "")),
    );

    app.post(
      "/v1/packets/:packetId/feedback",
      {
        schema: {
          operationId: "feedback",
          summary: "Say whether a finished packet's tool was the right one; the router learns from it",
          description:
            "With `correct: false` the packet's query stops being an example of the packet's tool (and is not learned " +
            "for it again); with `tool` it becomes an example of that tool. `correct: true` changes nothing.",
          tags: ["packets"],
          params: schemas.packetRef,
          body: withExample(schemas.feedback, { correct: false, tool: "filesystem.list_directory" }),
          response: {
            200: protoResponse(FeedbackResponseSchema, "What changed"),
            400: errorResponse("The request is invalid"),
            404: errorResponse("No packet has this id, or no tool that name"),
            409: errorResponse("The packet is still running"),
            503: errorResponse("No embedding-router answered"),
          },
        },
      },
      async (request) =>
        messageJson(FeedbackResponseSchema, await deps.feedback(request.tenant, protoRequest(FeedbackRequestSchema, { ...request.body, packetId: request.params.packetId }))),
    );
  };
}

/**
 * The finished packet, or 202 with its id and where to poll it. A packet held for approval
 * names the console's page for it in a Link header (rel="approval"): the body stays the packet.
 */
function submitted(reply: FastifyReply, { packet, finished }: Submitted, links: ConsoleLinks) {
  const approvalUrl = links.approvalUrl(packet);
  if (approvalUrl) void reply.header("link", `<${approvalUrl}>; rel="approval"`);
  if (finished) return packetJson(packet);
  const packetId = packet.header?.packetId ?? "";
  return reply.code(202).header("location", `/v1/packets/${encodeURIComponent(packetId)}`).send(acceptedJson(packetId));
}
