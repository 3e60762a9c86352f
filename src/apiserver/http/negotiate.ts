/**
 * Content negotiation for responses: plain JSON, meta.k8s.io Table (kubectl get), or
 * PartialObjectMetadata (metadata-only clients), decided from the Accept header.
 */
export type ResponseShape = { as: 'object' } | { as: 'table'; version: 'v1' | 'v1beta1' } | { as: 'metadata'; version: 'v1' | 'v1beta1' };

interface AcceptEntry {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(accept: string | undefined): AcceptEntry[] {
  if (!accept) return [];
  return accept.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).toLowerCase()] = p.slice(eq + 1).replace(/^"|"$/g, '');
    }
    return { type: (type ?? '').toLowerCase(), params };
  });
}

export function responseShape(accept: string | undefined): ResponseShape {
  for (const e of parseAccept(accept)) {
    if (e.type !== 'application/json' && e.type !== '*/*') continue;
    const { as, g, v } = e.params;
    if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) {
      if (!as) return { as: 'object' };
      continue;
    }
    if (as === 'Table') return { as: 'table', version: v };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as: 'metadata', version: v };
  }
  return { as: 'object' };
}

/** True when the client accepts JSON (or anything). */
export function acceptsJson(accept: string | undefined): boolean {
  const entries = parseAccept(accept);
  if (entries.length === 0) return true;
  return entries.some((e) => e.type === 'application/json' || e.type === '*/*' || e.type === 'application/*' || e.type === 'application/yaml');
}
