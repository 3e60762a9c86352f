// Printed by `npm install` before anything is installed (package.json "preinstall"): the
// embedded store, better-sqlite3, is a native module. Its own install downloads a prebuilt
// binary, and where none can be had (an unusual platform or libc, no network) it compiles from
// source — minutes with no output, and it needs a C/C++ toolchain and python3. npm hides a
// dependency's install output, so this says it beforehand. Only on a fresh install (nothing
// built yet); it never fails the install.
import { existsSync } from 'node:fs';

try {
  const root = process.env.npm_config_local_prefix ?? process.cwd();
  const built = existsSync(`${root}/node_modules/better-sqlite3/build/Release/better_sqlite3.node`);
  if (!built) {
    const target = `${process.platform}-${process.arch}, Node ${process.versions.node} (ABI ${process.versions.modules})`;
    const common = ['linux', 'darwin', 'win32'].includes(process.platform) && ['x64', 'arm64'].includes(process.arch);
    const lines = common
      ? [
          `note: better-sqlite3 (Conductor's embedded store) downloads a prebuilt binary for ${target}.`,
          'If it cannot (no network, an unusual libc), it compiles from source: a few minutes with no output,',
          'needing python3, make and a C++ compiler (Debian/Ubuntu: apt-get install build-essential python3).',
        ]
      : [
          `note: better-sqlite3 (Conductor's embedded store) has no prebuilt binary for ${target}:`,
          'it compiles from source now — a few minutes with no output — and needs python3, make and a',
          'C++ compiler (Debian/Ubuntu: apt-get install build-essential python3).',
        ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
} catch {
  // A note, never a reason to fail the install.
}
