/** The console's sign-in (console-cookie.ts): the API key is never in a URL nor in a cookie a script reads. */
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Authenticator, Caller } from "../../shared/auth.js";
import { CONSOLE_COOKIE, CONSOLE_HEADER, consoleCookieKey, forgeryRefusal, overHttps } from "../../shared/console-cookie.js";
import { errorBody } from "../../shared/errors.js";
import { refuseThrottled } from "../../shared/http-guard.js";
import { withExample } from "../../shared/openapi.js";
import { errorResponse } from "../../shared/response-schemas.js";

/** How long a sign-in lasts, in seconds: 12 hours. */
const SESSION_SECONDS = 43_200;
/** Longest API key a sign-in accepts. */
const MAX_KEY_CHARS = 4096;

export interface ConsoleSessionOptions {
  auth: Authenticator;
  /** JAEGER_UI_URL: the console links each packet's trace there; "" for none. */
  jaegerUiUrl: string;
}

/** GET, POST and DELETE /console/session, registered inside the console's context (console-routes.ts). */
export function consoleSessionRoutes({ auth, jaegerUiUrl }: ConsoleSessionOptions): FastifyPluginAsyncTypebox {
  const session = (caller: Caller) => ({ tenant: caller.tenant, admin: caller.admin, keysRequired: auth.required, jaegerUiUrl });
  const sessionBody = Type.Object({
    tenant: Type.String(),
    admin: Type.Boolean(),
    keysRequired: Type.Boolean({ description: "false in local mode: no sign-in" }),
    jaegerUiUrl: Type.String({ description: "JAEGER_UI_URL; \"\" when unset" }),
  });
  return async (app) => {
    // A sign-in or sign-out from another site is refused as any cookie-signed change is.
    app.addHook("onRequest", async (request, reply) => {
      const refusal = forgeryRefusal(request);
      if (refusal) return reply.code(403).send(errorBody(403, refusal, CONSOLE_HEADER));
    });

    app.get(
      "/session",
      {
        schema: {
          operationId: "getConsoleSession",
          summary: "Who the console is signed in as",
          tags: ["console"],
          security: [],
          response: { 200: sessionBody, 401: errorResponse("Keys are required and the request has no valid session cookie") },
        },
      },
      async (request, reply) => {
        const key = consoleCookieKey(request);
        const caller = auth.authenticate(key === undefined ? request.headers.authorization : `Bearer ${key}`, request.ip);
        if (typeof caller === "object") return session(caller);
        if (caller === "throttled") return refuseThrottled(reply, auth, request.ip);
        return reply.code(401).send(errorBody(401, "not signed in: POST /console/session with an API key"));
      },
    );

    app.post(
      "/session",
      {
        schema: {
          operationId: "signIn",
          summary: "Sign the console in with an API key: 204 and an HttpOnly cookie holding it",
          tags: ["console"],
          security: [],
          body: withExample(Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: MAX_KEY_CHARS }) }, { additionalProperties: false }), {
            apiKey: "sk-team-a-4f7d2c91e8b3",
          }),
          response: {
            204: Type.Null({ description: "Signed in: Set-Cookie switchyard_console" }),
            401: errorResponse("The key is not valid"),
            403: errorResponse("Not sent by the console (x-switchyard-console header, origin)"),
            429: errorResponse("Too many wrong keys from this address"),
          },
        },
      },
      async (request, reply) => {
        const caller = auth.authenticate(`Bearer ${request.body.apiKey}`, request.ip);
        if (caller === "throttled") return refuseThrottled(reply, auth, request.ip);
        if (typeof caller !== "object") return reply.code(401).send(errorBody(401, "the API key is not valid"));
        void reply.setCookie(CONSOLE_COOKIE, request.body.apiKey, {
          httpOnly: true,
          sameSite: "strict",
          path: "/",
          maxAge: SESSION_SECONDS,
          secure: overHttps(request),
        });
        return reply.code(204).send(null);
      },
    );

    app.delete(
      "/session",
      {
        schema: {
          operationId: "signOut",
          summary: "Sign the console out: the cookie is cleared",
          tags: ["console"],
          security: [],
          response: { 204: Type.Null({ description: "Signed out" }) },
        },
      },
      async (request, reply) => {
        void reply.clearCookie(CONSOLE_COOKIE, { httpOnly: true, sameSite: "strict", path: "/", secure: overHttps(request) });
        return reply.code(204).send(null);
      },
    );
  };
}
