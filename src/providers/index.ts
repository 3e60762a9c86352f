export * from './spi.js';
export * from './local/index.js';
export * from './memory/index.js';
export * from './sql-claim.js';
