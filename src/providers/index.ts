export * from './spi.js';
export * from './local/index.js';
