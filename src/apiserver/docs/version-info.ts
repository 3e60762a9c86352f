/**
 * The `/version` document. Conductor reports the Kubernetes version whose API it speaks,
 * with its own version as semver build metadata (`v1.32.0+conductor.0.1.0`): kubectl warns
 * only when the server's minor version is more than one away from its own, and build
 * metadata does not change how the version compares (a pre-release suffix would make it
 * sort below v1.32.0).
 */

/** The Kubernetes API version Conductor implements. */
export const KUBERNETES_COMPAT_VERSION = '1.32.0';

/** conductorGitVersion is the gitVersion to report for a Conductor release: `v1.32.0+conductor.0.1.0`. */
export function conductorGitVersion(conductorVersion: string): string {
  const meta = conductorVersion.replace(/[^0-9A-Za-z.-]/g, '-').replace(/^\.+|\.+$/g, '') || 'dev';
  return `v${KUBERNETES_COMPAT_VERSION}+conductor.${meta}`;
}

/** The fields client-go's version.Info has; @kubernetes/client-node requires them all. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface VersionOptions {
  gitVersion: string;
  gitCommit?: string;
  gitTreeState?: string;
  buildDate?: string;
}

const SEMVER = /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function goArch(arch: string): string {
  switch (arch) {
    case 'x64':
      return 'amd64';
    case 'ia32':
      return '386';
    default:
      return arch;
  }
}

/** buildVersionInfo makes the `/version` answer; it throws when gitVersion is not `vMAJOR.MINOR.PATCH[...]`. */
export function buildVersionInfo(opts: VersionOptions): VersionInfo {
  const m = SEMVER.exec(opts.gitVersion);
  if (!m) {
    throw new Error(`gitVersion ${JSON.stringify(opts.gitVersion)} is not a semantic version: expected e.g. v1.32.0+conductor.0.1.0`);
  }
  return {
    major: m[1],
    minor: m[2],
    gitVersion: opts.gitVersion,
    gitCommit: opts.gitCommit ?? '',
    gitTreeState: opts.gitTreeState ?? (opts.gitCommit ? 'clean' : ''),
    buildDate: opts.buildDate ?? '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'node',
    platform: `${process.platform}/${goArch(process.arch)}`,
  };
}
