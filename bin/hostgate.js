#!/usr/bin/env node
// Thin launcher: registers the TypeScript loader, then runs the CLI entry point.
import { register } from "tsx/esm/api";
register();
await import("../src/bin/hostgate.ts");
