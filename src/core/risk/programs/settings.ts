import type { Cmd } from "../command.ts";
import type { Arg } from "../words.ts";
import { optionValues } from "./index.ts";

/**
 * Settings given as option values (`ssh -o Key=Value`, `apt-get -o Key=Value`) whose key names a command or a
 * library the program runs or loads. Sources: ssh_config(5) (ProxyCommand, LocalCommand, KnownHostsCommand,
 * RemoteCommand, PKCS11Provider, SecurityKeyProvider, Include, Match exec), apt.conf(5) (DPkg::Pre-Invoke,
 * DPkg::Post-Invoke, APT::Update::Pre-Invoke, DPkg::Pre-Install-Pkgs, Dir::Bin::*, Acquire::*::Proxy-Auto-Detect).
 */
const EXEC_SETTING: Readonly<Record<string, RegExp>> = {
  ssh: /^(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand|PKCS11Provider|SecurityKeyProvider|Include|Match)$/i,
  scp: /^(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand|PKCS11Provider|SecurityKeyProvider|Include|Match)$/i,
  sftp: /^(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand|PKCS11Provider|SecurityKeyProvider|Include|Match)$/i,
  apt: /Invoke|Pre-Install-Pkgs|Post-Install|^Dir(::|$)|Proxy-Auto-Detect|::Pager$|Binary::/i,
  "apt-get": /Invoke|Pre-Install-Pkgs|Post-Install|^Dir(::|$)|Proxy-Auto-Detect|::Pager$|Binary::/i,
};

/** `Key=Value` or `Key Value` split at the first `=` or blank. */
function splitSetting(text: string): { key: string; value: string } {
  const m = /^\s*([^=\s]+)\s*(?:=\s*|\s+)(.*)$/s.exec(text);
  return m ? { key: m[1]!, value: m[2]! } : { key: text.trim(), value: "" };
}

/** Settings of `cmd` whose key makes the program run or load something; each with its value as a word. */
export function execSettings(cmd: Cmd): Arg[] {
  const keys = Object.hasOwn(EXEC_SETTING, cmd.name) ? EXEC_SETTING[cmd.name]! : null;
  if (!keys) return [];
  const out: Arg[] = [];
  for (const a of optionValues(cmd, "setting")) {
    const { key, value } = splitSetting(a.text);
    if (keys.test(key) || a.dynamic) out.push({ ...a, text: value, display: value });
  }
  return out;
}
