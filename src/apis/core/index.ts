export * from './kinds.js';
export * from './default-scheduler-profile.js';
