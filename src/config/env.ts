/**
 * Every environment variable hostgate reads, in one list (docs/configuration.md is generated from it, and a
 * test checks that every `HOSTGATE_*` name in src/ is listed). `key`: the configuration key the variable
 * sets; it overrides the file and drop-ins and is overridden by flags (config/loader.ts). Variables without a
 * key are read where they are used (paths, the approve CLI, tests).
 */
export interface EnvVar {
  name: string;
  /** Dotted config key it sets, e.g. `server.token`. */
  key?: string;
  description: string;
}

export const ENV_VARS: readonly EnvVar[] = [
  { name: "HOSTGATE_CONFIG", description: "Configuration file to read when --config is not given (must exist)." },
  { name: "HOSTGATE_HTTP_TOKEN", key: "server.token", description: "Bearer token HTTP clients must send (at least 16 characters)." },
  { name: "HOSTGATE_SOCKET", key: "daemon.socket", description: "Where the MCP front reaches a daemon: a socket path or tcp://host:port." },
  { name: "HOSTGATE_DAEMON", description: "Pins which daemon the MCP fronts and approve use when no socket is named: `embedded` (this user's) or `system` (`hostgate daemon`); unset, a running embedded daemon, else a running system daemon, else the embedded one. `hostgate setup` writes it into stdio client entries." },
  { name: "HOSTGATE_TOKEN", key: "daemon.token", description: "Token for tcp:// daemon connections (at least 32 characters)." },
  { name: "HOSTGATE_STATE_DIR", key: "state.dir", description: "State directory (transactions, audit database, signing key); absolute path." },
  { name: "HOSTGATE_RUNTIME_DIR", description: "Directory of the daemon's sockets (default /run/hostgate, or $XDG_RUNTIME_DIR/hostgate embedded)." },
  { name: "HOSTGATE_CONFIG_DIR", description: "Moves /etc/hostgate: where the audit public key is pinned outside the state directory (default /etc/hostgate, or $XDG_CONFIG_HOME/hostgate embedded) and where the system config file is looked for (config.yaml in it, after the user's)." },
  { name: "HOSTGATE_ADMIN_SOCKET", description: "Admin socket `hostgate approve` / `reject` use when --socket is not given." },
  { name: "HOSTGATE_CHECKPOINT_COPY", description: "Where the system daemon copies signed audit checkpoints (default /var/log/hostgate/audit-checkpoints.jsonl, append-only where the filesystem allows); tests point it at a temp file." },
  { name: "HOSTGATE_IN_IMAGE", description: "Set by the container image (Containerfile): no daemon runs there, so advice names the host's daemon and approving on the host instead of zero-setup mode and a local admin socket." },
  { name: "HOSTGATE_SOCAT", description: "socat binary used to reach vsock:// daemons (default socat on PATH)." },
  { name: "HOSTGATE_REQUIRE_PEERS", description: "Tests only: 1 turns a missing real peer (sshd, systemd, podman) into a failure instead of a loud skip." },
  { name: "OTEL_EXPORTER_OTLP_ENDPOINT", description: "OpenTelemetry: turns tracing on and sends spans to this OTLP/HTTP base URL + /v1/traces (docs/tracing.md)." },
  { name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", description: "OpenTelemetry: turns tracing on and sends spans to exactly this OTLP/HTTP URL (wins over the one above and tracing.endpoint)." },
  { name: "OTEL_SERVICE_NAME", description: "OpenTelemetry: service.name of the spans (default hostgate-mcp for a front, hostgate-daemon for `hostgate daemon`)." },
  { name: "OTEL_TRACES_EXPORTER", description: "OpenTelemetry: `none` turns tracing off; `otlp` (the default) keeps it; anything else is refused at start." },
  { name: "OTEL_SDK_DISABLED", description: "OpenTelemetry: `true` turns tracing off whatever else is set." },
  { name: "OTEL_EXPORTER_OTLP_PROTOCOL", description: "OpenTelemetry: hostgate sends OTLP/HTTP JSON; `http/json` or `http/protobuf` are accepted (any OTLP/HTTP receiver takes JSON), `grpc` is refused at start (also OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)." },
  { name: "XDG_CONFIG_HOME", description: "Base of the per-user configuration file ($XDG_CONFIG_HOME/hostgate/config.yaml; default ~/.config)." },
  { name: "XDG_STATE_HOME", description: "Base of the embedded daemon's state directory (default ~/.local/state)." },
  { name: "XDG_RUNTIME_DIR", description: "Base of the embedded daemon's sockets." },
];
