#!/usr/bin/env node
// `pnpm eval`: routing quality of the offline default on the public benchmarks (bench/README.md).
import { runEval } from "./run-eval.js";

process.exitCode = await runEval(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
