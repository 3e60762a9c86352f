/** API groups the local provider's engines share: S3Server (s3/) and HostPathPool (hostpath/) are both storage. */
export const LOCAL_STORAGE_GROUP = 'storage.local.conductor.io';
