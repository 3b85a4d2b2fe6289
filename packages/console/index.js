import { fileURLToPath } from "node:url";

/** The absolute path of the built console (index.html and assets/), which the gateway serves at /console. */
export const consoleAssetsDir = fileURLToPath(new URL("dist", import.meta.url));
