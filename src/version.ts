/** Conductor's version, shown by `conductor version` and in /version. */
export const VERSION = '0.1.0';
