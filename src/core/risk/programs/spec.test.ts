import { describe, expect, it } from "vitest";
import { literalArg } from "../words.ts";
import { PROGRAMS, programTableSize, tableSignals } from "./index.ts";
import { compileOptions, compileProgram, parseProgram, type ProgramSpec } from "./spec.ts";

const words = (line: string) => line.split(" ").filter(Boolean).map(literalArg);
const read = (spec: ProgramSpec, line: string) => parseProgram(compileProgram("t", spec), words(line));
const flag = (p: ReturnType<typeof read>, name: string) => p.flags.get(name)?.map((v) => v?.text ?? null);

describe("program option tables", () => {
  const SORT: ProgramSpec = { options: "-o|--output=W -k|--key= -u|--unique -r|--reverse --compress-program=P --color=? --colour=?" };

  it("reads separate, attached, packed and long values", () => {
    expect(flag(read(SORT, "-o out x"), "--output")).toEqual(["out"]);
    expect(flag(read(SORT, "-oout x"), "--output")).toEqual(["out"]);
    expect(flag(read(SORT, "-uroout x"), "--output")).toEqual(["out"]);
    expect(flag(read(SORT, "--output=out x"), "--output")).toEqual(["out"]);
    expect(flag(read(SORT, "--output out x"), "--output")).toEqual(["out"]);
    expect(read(SORT, "-k 2 -u x").operands.map((a) => a.text)).toEqual(["x"]);
  });

  it("resolves unambiguous abbreviations and treats ambiguous ones as unknown with every candidate's effect", () => {
    expect(flag(read(SORT, "--compress-prog=sh x"), "--compress-program")).toEqual(["sh"]);
    expect(flag(read(SORT, "--out f x"), "--output")).toEqual(["f"]);
    const amb = read(SORT, "--col=auto x");
    expect(amb.unknown).toEqual(["--col"]);
    expect(amb.uses.map((u) => u.def.canonical).sort()).toEqual(["--color", "--colour"]);
  });

  it("reports options a complete table does not know, and a value given to a flag", () => {
    expect(read(SORT, "--frob x").unknown).toEqual(["--frob"]);
    expect(read(SORT, "-z x").unknown).toEqual(["-z"]);
    expect(read(SORT, "--unique=1 x").unknown).toEqual(["--unique=1"]);
    expect(read({ ...SORT, complete: false }, "--frob -z x").unknown).toEqual([]);
  });

  it("takes an optional value only when attached", () => {
    const p = read(SORT, "--color always");
    expect(flag(p, "--color")).toEqual([null]);
    expect(p.operands.map((a) => a.text)).toEqual(["always"]);
  });

  it("ends options at -- and, for posix programs, at the first operand; verbs get their own options", () => {
    expect(read(SORT, "-- -o x").operands.map((a) => a.text)).toEqual(["-o", "x"]);
    const git: ProgramSpec = { options: "-C= -p", posix: true, verbs: { show: "--output=W" } };
    const p = read(git, "-C /srv -p show --outp=/etc/x HEAD");
    expect(p.operands.map((a) => a.text)).toEqual(["show", "HEAD"]);
    expect(flag(p, "--output")).toEqual(["/etc/x"]);
    expect(flag(read(git, "-C /srv log --output=/etc/x"), "--output")).toBeUndefined();
    const any: ProgramSpec = { options: "-p", posix: true, verbs: { "*": "-out=W" } };
    expect(read(any, "").operands).toEqual([]);
    expect(read(any, "-p").operands).toEqual([]);
    expect(flag(read(any, "x509 -out /etc/x"), "-out")).toEqual(["/etc/x"]);
  });

  it("reads BSD option words, -NUM and single-dash long words", () => {
    const ps = PROGRAMS.get("ps")!;
    expect(parseProgram(ps, words("auxe")).uses.some((u) => u.def.signal === "secret_read")).toBe(true);
    expect(parseProgram(ps, words("-e -o pid,comm")).uses.some((u) => u.def.signal === "secret_read")).toBe(false);
    expect(parseProgram(PROGRAMS.get("head")!, words("-5 f")).unknown).toEqual([]);
    const xxd = parseProgram(PROGRAMS.get("xxd")!, words("-c 16 -revert in out"));
    expect(xxd.operands.map((a) => a.text)).toEqual(["in", "out"]);
  });

  it("marks a word that starts with an unknown variable as a possible option in an effectful program", () => {
    const dyn = { ...literalArg(""), dynamic: true, display: "${OPTS}" };
    expect(parseProgram(PROGRAMS.get("sort")!, [dyn, literalArg("x")]).unknown).toEqual(["${OPTS}"]);
    expect(parseProgram(PROGRAMS.get("cat")!, [dyn]).unknown).toEqual([]);
  });

  it("refuses malformed tables when they load", () => {
    expect(() => compileOptions("bad", "-o|--output=X", true)).toThrow(/program table "bad": malformed option entry "-o\|--output=X"/);
    expect(() => compileOptions("bad", "-o --out -o", true)).toThrow(/option -o listed twice/);
    expect(() => compileOptions("bad", "o", true)).toThrow(/bad spelling "o"/);
    expect(() => compileOptions("bad", "-x!Bad-Id", true)).toThrow(/malformed/);
  });

  it("every table loads, names only signals that are rules, and has a size", () => {
    expect(tableSignals()).toEqual(new Set(["options_from_file", "network_upload", "secret_read", "kills_connections", "kernel_change", "host_state_change", "evaluates_code"]));
    const size = programTableSize();
    expect(size.programs).toBe(PROGRAMS.size);
    expect(size.options).toBeGreaterThan(1000);
  });
});
