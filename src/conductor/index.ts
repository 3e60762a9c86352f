/** Conductor's composition root (see start.ts and README.md). */
export { startConductor, type ConductorOptions, type RunningConductor } from './start.js';
