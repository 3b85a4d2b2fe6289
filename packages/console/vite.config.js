import { defineConfig } from "vite";

// Served by the gateway under /console; the JSX is Preact's, compiled without a plugin.
export default defineConfig({
  base: "/console/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
});
