/**
 * How the host mounts cgroups, for scripts/build-image.ts's advice when a build fails (issue 25 re-trial 5): crun,
 * podman's default runtime, refuses "hybrid" hosts — cgroup v1 controllers under /sys/fs/cgroup with the v2
 * hierarchy at /sys/fs/cgroup/unified (systemd's hybrid layout) — with "cgroups in hybrid mode not supported".
 * `fsType`: the filesystem type of /sys/fs/cgroup (`stat -fc %T`: cgroup2fs on a v2-only host, tmpfs otherwise);
 * `unified`: whether /sys/fs/cgroup/unified exists. Pure.
 */
export function cgroupMode(fsType: string, unified: boolean): "v2" | "hybrid" | "v1" {
  if (fsType === "cgroup2fs") return "v2";
  return unified ? "hybrid" : "v1";
}

/**
 * What to do on a hybrid host: boot cgroup v2 only, or build where the v2 mount is hidden and podman creates no
 * cgroups (what test/peers/podman-session.ts does for the image test). `rerun`: the command to run again.
 */
export function hybridAdvice(rerun: string): string {
  return [
    "this host mounts cgroups in hybrid mode (v1 controllers under /sys/fs/cgroup, v2 at /sys/fs/cgroup/unified), which crun, podman's runtime, refuses (\"cgroups in hybrid mode not supported\"). Either:",
    "  - boot with cgroup v2 only: add systemd.unified_cgroup_hierarchy=1 to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, update-grub, reboot); or",
    "  - build with cgroups off, in a mount namespace of its own without the v2 mount (nothing changes outside it):",
    "    printf '[containers]\\ncgroups = \"disabled\"\\n[engine]\\ncgroup_manager = \"cgroupfs\"\\n' > /tmp/hostgate-containers.conf",
    `    sudo CONTAINERS_CONF=/tmp/hostgate-containers.conf unshare --mount --propagation private sh -c 'umount /sys/fs/cgroup/unified; ${rerun}'`,
  ].join("\n");
}
