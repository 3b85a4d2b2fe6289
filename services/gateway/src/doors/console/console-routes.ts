/**
 * The console at /console: its built files (packages/console's dist) served by the gateway
 * itself, index.html for every other path (the app routes in the browser), and the sign-in
 * (console-session.ts). Every answer here carries @fastify/helmet's headers with a
 * Content-Security-Policy that lets only this origin's scripts and styles run; helmet is
 * registered in this context alone, so the API's JSON and Swagger UI at /docs keep theirs.
 */
import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import helmet from "@fastify/helmet";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { consoleSessionRoutes } from "./console-session.js";
import type { ConsoleSessionOptions } from "./console-session.js";
import { errorBody } from "../../shared/errors.js";

export interface ConsoleOptions extends ConsoleSessionOptions {
  /** The built console (index.html, assets/); @switchyard/console's consoleAssetsDir. Unset or unbuilt: /console says so. */
  assetsDir?: string;
}

/** The console's policy: nothing inline, nothing from elsewhere, never in a frame. */
export const CONSOLE_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
};

/** Hashed file names never change content: a year, immutable. */
const ASSET_CACHE = "public, max-age=31536000, immutable";

/** Register with `{ prefix: "/console" }`. */
export function consoleRoutes(options: ConsoleOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(helmet, { global: true, contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_CSP } });
    await app.register(consoleSessionRoutes(options));

    const root = options.assetsDir;
    if (root === undefined || !existsSync(join(root, "index.html"))) {
      const notBuilt = async (_request: unknown, reply: FastifyReply) =>
        reply.code(503).send(errorBody(503, "the console is not built: run pnpm build (it builds packages/console)"));
      app.get("/", { schema: { hide: true } }, notBuilt);
      app.get("/*", { schema: { hide: true } }, notBuilt);
      return;
    }
    const assets = join(root, "assets") + sep;
    await app.register(fastifyStatic, {
      root,
      prefix: "/",
      index: false,
      cacheControl: false,
      setHeaders: (reply, path) => void reply.header("cache-control", path.startsWith(assets) ? ASSET_CACHE : "no-cache"),
    });
    const page = async (_request: unknown, reply: FastifyReply) => reply.sendFile("index.html");
    app.get("/", { schema: { hide: true } }, page);
    // A path that is no file is one of the app's pages; a missing asset is a 404.
    app.setNotFoundHandler(async (request, reply) => {
      if ((request.method === "GET" || request.method === "HEAD") && !request.url.startsWith("/console/assets/")) return page(request, reply);
      return reply.code(404).send(errorBody(404, `Route ${request.method}:${request.url} not found`));
    });
  };
}
