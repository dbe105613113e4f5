import { describe, expect, it } from "vitest";
import { AWK_VALUE, scanAwk } from "./awk.ts";

const cmds = (prog: string, vars?: Map<string, string>) => scanAwk(prog, vars).commands.map((c) => [c.how, c.text, c.dynamic]);

describe("scanAwk", () => {
  it("reads system(), | getline and print | with literal strings", () => {
    expect(cmds('BEGIN{system("rm -rf /")}')).toEqual([["system", "rm -rf /", false]]);
    expect(cmds('BEGIN { "id -u" | getline x }')).toEqual([["getline", "id -u", false]]);
    expect(cmds('{print $1 | "sort -u"}')).toEqual([["pipe", "sort -u", false]]);
    expect(cmds('{print |& "nc h 1"}')).toEqual([["pipe", "nc h 1", false]]);
  });
  it("decodes string escapes and follows literal variables (program and -v)", () => {
    expect(cmds('BEGIN{system("echo \\"x\\"; rm -f y")}')).toEqual([["system", 'echo "x"; rm -f y', false]]);
    expect(cmds('BEGIN{c = "uptime"; system(c)}')).toEqual([["system", "uptime", false]]);
    expect(cmds("BEGIN{system(c)}", new Map([["c", "date"]]))).toEqual([["system", "date", false]]);
  });
  it("marks parts only known at run time", () => {
    expect(cmds('{system("rm -rf " $1)}')).toEqual([["system", `rm -rf ${AWK_VALUE}`, true]]);
    expect(cmds('{ "cat " $2 | getline x }')).toEqual([["getline", `cat ${AWK_VALUE}`, true]]);
    // a variable assigned twice, or from input, is not a literal
    expect(cmds('BEGIN{c = "date"} {c = $1; system(c)}')[0]![2]).toBe(true);
    expect(cmds('{getline c; system(c)}')[0]![2]).toBe(true);
  });
  it("does not read regexes, strings, comments or || as pipes", () => {
    expect(cmds("$0 ~ /a|b/ {print}")).toEqual([]);
    expect(cmds("/error|warn/")).toEqual([]);
    expect(cmds('{print "a|b"} # x | "sh"')).toEqual([]);
    expect(cmds("{ if (a || b) print }")).toEqual([]);
  });
  it("division is not a regex: code between two slashes is still read", () => {
    expect(cmds('BEGIN{x = 1 / 2; system("rm -rf /"); y = 3 / 4}')).toEqual([["system", "rm -rf /", false]]);
    expect(cmds('BEGIN{x++ / 2; system("id"); y = 3 / 4}')).toEqual([["system", "id", false]]);
  });
  it("reports code it cannot follow", () => {
    expect(scanAwk('BEGIN{print "x').unreadable).toBe(true);
    expect(scanAwk('@load "x"').loadsCode).toBe(true);
    expect(scanAwk('BEGIN{f = "system"; @f("id")}').loadsCode).toBe(true);
  });
});
