import type { Rule } from "../rule.ts";
import { assignedNames } from "./code-exec.ts";

/**
 * Environment variables that point a client at another endpoint, socket or configuration than its default: the
 * command then talks to what the variable names, which the line's words do not show (red team, issue 19:
 * `DOCKER_HOST=unix:///x docker ps` was low while `docker -H unix:///x ps` is not). Sources, each client's manual
 * "ENVIRONMENT" section: docker(1) / the Docker CLI reference "Environment variables" (DOCKER_HOST, DOCKER_CONFIG,
 * DOCKER_CERT_PATH, DOCKER_TLS_VERIFY); podman(1) and containers.conf(5) (CONTAINER_HOST, CONTAINER_SSHKEY,
 * CONTAINERS_CONF); ctr (CONTAINERD_ADDRESS); crictl (CONTAINER_RUNTIME_ENDPOINT, IMAGE_SERVICE_ENDPOINT); buildctl
 * (BUILDKIT_HOST); kubectl, "Organizing Cluster Access Using kubeconfig Files" (KUBECONFIG, whose `exec` credential
 * plugins also run programs); ssh(1) and ssh-add(1) (SSH_AUTH_SOCK); the D-Bus specification, "Well-known Message Bus
 * Instances" and sd_bus_open_system(3) (DBUS_SYSTEM_BUS_ADDRESS, DBUS_SESSION_BUS_ADDRESS); systemctl --user and
 * rootless podman find their sockets under XDG_RUNTIME_DIR (XDG Base Directory specification); virsh(1)
 * (LIBVIRT_DEFAULT_URI). Context selectors that pick among the user's own configured endpoints (DOCKER_CONTEXT,
 * CONTAINER_CONNECTION, like `--context` on the allow-lists) and HTTP proxies (like `curl -x`: the sandbox's network
 * grant decides where a request may go) are not listed.
 */
export const ENDPOINT_ENV = /^(DOCKER_HOST|DOCKER_CONFIG|DOCKER_CERT_PATH|DOCKER_TLS_VERIFY|CONTAINER_HOST|CONTAINER_SSHKEY|CONTAINERS_CONF|CONTAINERD_ADDRESS|CONTAINER_RUNTIME_ENDPOINT|IMAGE_SERVICE_ENDPOINT|BUILDKIT_HOST|KUBECONFIG|SSH_AUTH_SOCK|DBUS_SYSTEM_BUS_ADDRESS|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR|LIBVIRT_DEFAULT_URI)$/;

/** Assignments that redirect a client (see ENDPOINT_ENV). */
export const ENDPOINT_RULES: readonly Rule[] = [
  {
    id: "client_endpoint_env", severity: "medium",
    reason: "sets an environment variable that points a client at another endpoint, socket or configuration (DOCKER_HOST, CONTAINER_HOST, KUBECONFIG, SSH_AUTH_SOCK, DBUS_SYSTEM_BUS_ADDRESS…): the command talks to what it names, not what the line shows, so it is not low",
    commands: ["*"],
    test: (cmd) => assignedNames(cmd).some((n) => ENDPOINT_ENV.test(n)),
    examples: {
      match: ["DOCKER_HOST=unix:///x docker ps", "CONTAINER_HOST=unix:///run/podman/podman.sock podman ps", "KUBECONFIG=/tmp/k kubectl get pods", "SSH_AUTH_SOCK=/tmp/a.sock ssh-add -l",
        "export DOCKER_HOST=tcp://10.0.0.5:2375; docker ps", "DOCKER_HOST=unix:///x; docker ps", "env DOCKER_HOST=unix:///x docker ps", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/b systemctl status x",
        "CONTAINER_RUNTIME_ENDPOINT=unix:///x crictl ps", "read -r KUBECONFIG < /tmp/f", "XDG_RUNTIME_DIR=/run/user/0 systemctl --user status", "declare -x DOCKER_CONFIG=/tmp/d"],
      noMatch: ["docker ps", "LANG=C docker ps", "DOCKER_CONTEXT=prod docker ps", "kubectl get pods", "export FOO=1; docker ps", "echo $DOCKER_HOST", "printenv KUBECONFIG"],
    },
  },
];
