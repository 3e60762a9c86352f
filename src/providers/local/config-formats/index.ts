export { haproxyAddress, haproxyComment, haproxyPort } from './haproxy.js';
export { redisInteger, redisMemory, redisString, redisWord } from './redis-conf.js';
export { natsInteger, natsSecret, natsToken } from './nats-conf.js';
