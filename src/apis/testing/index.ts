export { sampleObjects } from './samples.js';
