// Stands in for zod's locales index in the bundle (scripts/build.mjs): English only.
export { default as en } from "zod/v4/locales/en.js";
