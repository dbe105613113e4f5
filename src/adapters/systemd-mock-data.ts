/**
 * Seed data for the mock unit manager: realistic units of mixed types and states on a Debian-like host,
 * with unit files. Deterministic: timestamps are fixed microsecond values.
 */

/** One mock unit as stored by the mock manager. */
export interface MockUnitSeed {
  unit: string;
  description: string;
  load_state: string;
  active_state: string;
  sub_state: string;
  unit_file_state: string;
  main_pid: number | null;
  /** StateChangeTimestamp in µs since the epoch (0 = never). */
  since_usec: bigint;
  fragment_path: string | null;
  drop_ins?: Record<string, string>;
  text?: string;
  service_type?: string;
  result?: string;
  n_restarts?: number;
  exec_main_status?: number;
  exec_start?: string[];
  memory_bytes?: number | null;
  /** Whether a reload is supported (ExecReload= present). */
  can_reload?: boolean;
}

const T0 = 1_764_460_800_000_000n; // 2025-11-30T00:00:00Z in µs

function svc(name: string, description: string, exec: string[], extra: Partial<MockUnitSeed> = {}): MockUnitSeed {
  const fragment = `/lib/systemd/system/${name}`;
  return {
    unit: name, description, load_state: "loaded", active_state: "active", sub_state: "running", unit_file_state: "enabled",
    main_pid: null, since_usec: T0, fragment_path: fragment, service_type: "simple", result: "success", n_restarts: 0,
    exec_main_status: 0, exec_start: exec, memory_bytes: 12_582_912,
    text: `[Unit]\nDescription=${description}\nAfter=network.target\n\n[Service]\nExecStart=${exec.join(" ")}\n\n[Install]\nWantedBy=multi-user.target\n`,
    ...extra,
  };
}

function timer(name: string, description: string, body: string, ufs: string, active = "active", sub = "waiting"): MockUnitSeed {
  return {
    unit: name, description, load_state: "loaded", active_state: active, sub_state: sub, unit_file_state: ufs, main_pid: null,
    since_usec: T0 + 3_000_000n, fragment_path: `/lib/systemd/system/${name}`,
    text: `[Unit]\nDescription=${description}\n\n[Timer]\n${body}\n\n[Install]\nWantedBy=timers.target\n`,
  };
}

function other(name: string, description: string, active: string, sub: string, ufs: string, text: string, fragment: string | null = `/lib/systemd/system/${name}`): MockUnitSeed {
  return {
    unit: name, description, load_state: "loaded", active_state: active, sub_state: sub, unit_file_state: ufs, main_pid: null,
    since_usec: T0 + 2_000_000n, fragment_path: fragment, text,
  };
}

/** The system manager's units. */
export function systemSeed(): MockUnitSeed[] {
  return [
    svc("ssh.service", "OpenBSD Secure Shell server", ["/usr/sbin/sshd", "-D"], { main_pid: 612, since_usec: T0 + 5_000_000n, can_reload: true }),
    svc("nginx.service", "A high performance web server and a reverse proxy server", ["/usr/sbin/nginx", "-g", "daemon on; master_process on;"], {
      main_pid: 1034, since_usec: T0 + 7_000_000n, service_type: "forking", can_reload: true,
      drop_ins: { "/etc/systemd/system/nginx.service.d/override.conf": "[Service]\nLimitNOFILE=65536\nEnvironment=NGINX_API_TOKEN=abc123 WORKERS=4\n" },
    }),
    svc("cron.service", "Regular background program processing daemon", ["/usr/sbin/cron", "-f"], { main_pid: 540 }),
    svc("postgresql@15-main.service", "PostgreSQL Cluster 15-main", ["/usr/bin/pg_ctlcluster", "--skip-systemctl-redirect", "15-main", "start"], {
      main_pid: 801, service_type: "forking", fragment_path: "/lib/systemd/system/postgresql@.service", unit_file_state: "enabled-runtime",
    }),
    svc("backup.service", "Nightly backup to object storage", ["/usr/local/bin/backup", "--all"], {
      active_state: "inactive", sub_state: "dead", unit_file_state: "static", service_type: "oneshot", memory_bytes: null,
      fragment_path: "/etc/systemd/system/backup.service", since_usec: T0 - 3_600_000_000n,
    }),
    svc("myapp.service", "My application API", ["/opt/myapp/bin/server", "--port", "8080"], {
      active_state: "failed", sub_state: "failed", result: "exit-code", n_restarts: 5, exec_main_status: 1, memory_bytes: null,
      fragment_path: "/etc/systemd/system/myapp.service", since_usec: T0 + 60_000_000n,
    }),
    svc("getty@tty1.service", "Getty on tty1", ["/sbin/agetty", "-o", "-p -- \\u", "--noclear", "-", "$TERM"], {
      main_pid: 700, fragment_path: "/lib/systemd/system/getty@.service", service_type: "idle",
    }),
    svc("systemd-fsck@dev-disk-by\\x2duuid-1234\\x2dABCD.service", "File System Check on /dev/disk/by-uuid/1234-ABCD", ["/lib/systemd/systemd-fsck"], {
      active_state: "active", sub_state: "exited", unit_file_state: "static", service_type: "oneshot", memory_bytes: null,
      fragment_path: "/lib/systemd/system/systemd-fsck@.service",
    }),
    {
      unit: "nfs-server.service", description: "nfs-server.service", load_state: "not-found", active_state: "inactive", sub_state: "dead",
      unit_file_state: "", main_pid: null, since_usec: 0n, fragment_path: null, service_type: "simple", result: "success",
    },
    timer("backup.timer", "Nightly backup timer", "OnCalendar=*-*-* 02:00:00\nPersistent=true", "enabled"),
    timer("apt-daily.timer", "Daily apt download activities", "OnCalendar=*-*-* 6,18:00\nRandomizedDelaySec=12h", "enabled"),
    other("docker.socket", "Docker Socket for the API", "active", "listening", "enabled", "[Unit]\nDescription=Docker Socket for the API\n\n[Socket]\nListenStream=/run/docker.sock\nSocketMode=0660\n"),
    other("multi-user.target", "Multi-User System", "active", "active", "static", "[Unit]\nDescription=Multi-User System\nRequires=basic.target\n"),
    other("-.mount", "Root Mount", "active", "mounted", "generated", "", null),
    other("srv-data.mount", "/srv/data", "active", "mounted", "generated", "", null),
    other("cups.path", "CUPS Scheduler", "active", "waiting", "enabled", "[Unit]\nDescription=CUPS Scheduler\n\n[Path]\nPathExists=/var/cache/cups/org.cups.cupsd\n"),
    other("dev-sda.device", "QEMU_HARDDISK", "active", "plugged", "", "", null),
  ];
}

/** The user manager's units for the mock user `alice`. */
export function userSeed(): MockUnitSeed[] {
  return [
    svc("syncthing.service", "Syncthing - Open Source Continuous File Synchronization", ["/usr/bin/syncthing", "serve", "--no-browser"], {
      main_pid: 2101, fragment_path: "/usr/lib/systemd/user/syncthing.service",
    }),
    timer("podman-auto-update.timer", "Podman auto-update timer", "OnCalendar=daily", "disabled", "inactive", "dead"),
    other("default.target", "Main User Target", "active", "active", "static", "[Unit]\nDescription=Main User Target\n"),
  ];
}
