/**
 * The dashboard's pages. Every one reads through live lists (live.ts), so what the server
 * changes shows without reloading; what the user may not list shows as "Not allowed".
 * Tenants' text (names, messages) is rendered as text by preact, never as markup.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { builtinRefs, type ResourceRef } from '../../client/types.js';
import { ApiError } from '../../machinery/errors.js';
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { Quantity } from '../../machinery/quantity/index.js';
import { IS_DEFAULT_CLASS_ANNOTATION } from '../../apis/well-known.js';
import { traceClaim, traceRefs, type TraceNode, type TraceReader } from '../../trace/trace-tree.js';
import { describeFailure, type Api } from './api.js';
import { qualifiedName, type Served } from './discovery.js';
import { addressKey, conditionOf, conditionsOf, phaseOf, useLive, useLiveObjects, type Condition, type Followed, type ObjectAddress } from './live.js';

/** ResourceClass annotation: the monthly price of one resource from the class (apis/quota/usage.ts, MONTHLY_COST_ANNOTATION). */
const MONTHLY_COST_ANNOTATION = 'conductor.io/monthly-cost';

function age(timestamp: string | undefined): string {
  if (!timestamp) return '';
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(timestamp)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isPlainObject(v) ? v[k] : undefined), o);
const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
const quantities = (v: unknown): string =>
  isPlainObject(v)
    ? Object.entries(v)
        .map(([k, q]) => `${k}: ${text(q)}`)
        .join(', ')
    : '';

/** What the bound claims use of each capacity: capacity minus allocatable, where both are known. */
function used(capacity: unknown, allocatable: unknown): string {
  if (!isPlainObject(capacity) || !isPlainObject(allocatable)) return '';
  const out: string[] = [];
  for (const [k, total] of Object.entries(capacity)) {
    const left = allocatable[k];
    if ((typeof total !== 'string' && typeof total !== 'number') || (typeof left !== 'string' && typeof left !== 'number')) continue;
    try {
      out.push(`${k}: ${Quantity.parse(total).sub(Quantity.parse(left)).toString()}`);
    } catch {
      // A quantity the server would not have accepted: show nothing rather than a guess.
    }
  }
  return out.join(', ');
}

function Status(props: { value: string | undefined }) {
  const v = props.value ?? '-';
  return <span class={`status status-${v.toLowerCase()}`}>{v}</span>;
}

/** Why lists could not be read: the kinds this user may not list on one line, other failures each on their own. */
function Failures(props: { errors: Map<string, unknown>; namespace: string | undefined }) {
  if (props.errors.size === 0) return null;
  const forbidden = [...props.errors]
    .filter(([, err]) => err instanceof ApiError && err.code === 403)
    .map(([kind]) => kind)
    .sort();
  const others = [...props.errors].filter(([kind]) => !forbidden.includes(kind));
  const where = props.namespace ? `in namespace ${props.namespace}` : 'in all namespaces (choose a namespace above)';
  return (
    <ul class="failures">
      {forbidden.length > 0 && (
        <li class="error" role="alert">
          Not allowed: you may not list {forbidden.join(', ')} {where}.
        </li>
      )}
      {others.map(([kind, err]) => (
        <li key={kind} class="error" role="alert">
          {describeFailure(err, kind)}
        </li>
      ))}
    </ul>
  );
}

function Table(props: { head: string[]; children: ComponentChildren; empty: boolean; loading: boolean }) {
  return (
    <table>
      <thead>
        <tr>
          {props.head.map((h) => (
            <th key={h}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.children}
        {props.empty && (
          <tr>
            <td colSpan={props.head.length} class="empty">
              {props.loading ? 'Loading…' : 'None'}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** The condition a reader needs first: the failing one (why it waits), else Ready's. */
function headline(o: KObject): Condition | undefined {
  const failing = ['Synced', 'Scheduled', 'Bound', 'Ready'].map((t) => conditionOf(o, t)).find((c) => c && c.status === 'False');
  return failing ?? conditionOf(o, 'Ready');
}
const said = (c: Condition | undefined) => (c ? [c.reason, c.message].filter(Boolean).join(': ') : '');

export function ClaimsPage(props: { api: Api; served: Served; namespace: string | undefined }) {
  const live = useLive(props.api, props.served.claims, props.namespace);
  const refOf = (o: KObject) => props.served.claims.find((r) => r.kind === o.kind);
  return (
    <section>
      <h2>Claims</h2>
      <Failures errors={live.errors} namespace={props.namespace} />
      <Table head={['Namespace', 'Kind', 'Name', 'Phase', 'Ready', 'Message', 'Age']} empty={live.items.length === 0} loading={live.loading}>
        {live.items.map((o) => {
          const ref = refOf(o);
          const ns = o.metadata.namespace ?? '';
          return (
            <tr key={`${o.kind}/${ns}/${o.metadata.name}`} data-claim={`${ns}/${o.metadata.name}`}>
              <td>{ns}</td>
              <td>{o.kind}</td>
              <td>
                {ref ? (
                  <a href={`#/claim/${encodeURIComponent(ns)}/${encodeURIComponent(qualifiedName(ref))}/${encodeURIComponent(o.metadata.name ?? '')}`}>
                    {o.metadata.name}
                  </a>
                ) : (
                  o.metadata.name
                )}
              </td>
              <td class="phase">{phaseOf(o)}</td>
              <td class="ready">
                <Status value={conditionOf(o, 'Ready')?.status} />
              </td>
              <td class="message">{said(headline(o))}</td>
              <td>{age(o.metadata.creationTimestamp)}</td>
            </tr>
          );
        })}
      </Table>
    </section>
  );
}

function TraceTree(props: { node: TraceNode }) {
  const n = props.node;
  return (
    <li>
      <div class="node">
        <span class="node-name">{n.name}</span>
        {n.namespace && <span class="node-ns">{n.namespace}</span>}
        <span class="node-flag">
          Ready <Status value={n.ready} />
        </span>
        <span class="node-flag">
          Synced <Status value={n.synced} />
        </span>
        <span class="node-status">{n.status}</span>
        <span class="node-age">{age(n.createdAt)}</span>
      </div>
      {n.children.length > 0 && (
        <ul>
          {n.children.map((c) => (
            <TraceTree key={c.name} node={c} />
          ))}
        </ul>
      )}
    </li>
  );
}

function Conditions(props: { object: KObject }) {
  const conditions = conditionsOf(props.object);
  return (
    <Table head={['Type', 'Status', 'Reason', 'Message', 'Since']} empty={conditions.length === 0} loading={false}>
      {conditions.map((c) => (
        <tr key={c.type}>
          <td>{c.type}</td>
          <td>
            <Status value={c.status} />
          </td>
          <td>{c.reason}</td>
          <td class="message">{c.message}</td>
          <td>{age(c.lastTransitionTime)}</td>
        </tr>
      ))}
    </Table>
  );
}

/**
 * A TraceReader that answers from the objects followed live: an object not followed yet (or
 * whose list has not answered) reads as not found and marks the tree incomplete; `asked` is
 * every object the tree wanted, for the page to follow.
 */
function liveReader(objects: ReadonlyMap<string, Followed>): { reader: TraceReader; asked: () => ObjectAddress[]; complete: () => boolean } {
  const asked = new Map<string, ObjectAddress>();
  let complete = true;
  const reader: TraceReader = {
    get<T extends KObject = KObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
      const address: ObjectAddress = { ref, name, ...(namespace === undefined ? {} : { namespace }) };
      const key = addressKey(address);
      asked.set(key, address);
      const followed = objects.get(key);
      if (followed?.state === 'found') return Promise.resolve(followed.object as T);
      if (followed?.state === 'failed') return Promise.reject(followed.error);
      if (!followed || followed.state === 'pending') complete = false;
      return Promise.reject(new ApiError(404, 'NotFound', `${ref.resource} "${name}" not found`));
    },
  };
  return { reader, asked: () => [...asked.values()], complete: () => complete };
}

export function ClaimPage(props: { api: Api; served: Served; ref_: ResourceRef; namespace: string; name: string }) {
  const { api, served, ref_, namespace, name } = props;
  const live = useLive(api, [ref_], namespace);
  const events = useLive(api, [builtinRefs.events], namespace);
  const claim = live.items.find((o) => o.metadata.name === name);
  const [trace, setTrace] = useState<{ tree?: TraceNode; error?: string }>({});
  // What the tree reads below the claim (class, resource, Provider, Secret), each followed live
  // by name: a change to any of them redraws the tree, with no polling.
  const [below, setBelow] = useState<ObjectAddress[]>([]);
  const objects = useLiveObjects(api, below);

  useEffect(() => {
    if (!claim) return;
    let current = true;
    const { reader, asked, complete } = liveReader(objects);
    traceClaim(reader, claim, served.lookup).then(
      (tree) => {
        if (!current) return;
        // Follow what this tree read and nothing else; a tree drawn from objects not answered yet is not shown.
        const wanted = asked();
        if (wanted.map(addressKey).sort().join('\n') !== below.map(addressKey).sort().join('\n')) setBelow(wanted);
        if (complete()) setTrace({ tree });
      },
      (err: unknown) => current && setTrace({ error: describeFailure(err, 'you may not read everything that serves this claim') }),
    );
    return () => {
      current = false;
    };
  }, [served, claim, objects, below]);

  if (!claim) {
    return (
      <section>
        <h2>
          {ref_.kind} {namespace}/{name}
        </h2>
        <Failures errors={live.errors} namespace={namespace} />
        {!live.loading && live.errors.size === 0 && <p>Not found (deleted?).</p>}
      </section>
    );
  }
  const scheduled = conditionOf(claim, 'Scheduled');
  const mine = events.items
    .filter(
      (e) =>
        field(e, 'involvedObject', 'uid') === claim.metadata.uid ||
        (field(e, 'involvedObject', 'name') === name && field(e, 'involvedObject', 'kind') === claim.kind),
    )
    .sort((a, b) =>
      text(field(b, 'lastTimestamp') ?? b.metadata.creationTimestamp).localeCompare(text(field(a, 'lastTimestamp') ?? a.metadata.creationTimestamp)),
    );
  return (
    <section class="claim">
      <h2>
        {claim.kind} {namespace}/{name} <span class="phase">{phaseOf(claim)}</span> <Status value={conditionOf(claim, 'Ready')?.status} />
      </h2>
      <h3>What the scheduler says</h3>
      <div class="explanation" data-testid="explanation">
        {scheduled ? (
          <>
            <p>
              <Status value={scheduled.status} /> {scheduled.reason}
            </p>
            <p class="message">{scheduled.message}</p>
          </>
        ) : (
          <p>The claim has not been scheduled yet.</p>
        )}
      </div>
      <h3>Trace</h3>
      {trace.error && <p class="error">{trace.error}</p>}
      {trace.tree && (
        <ul class="trace" data-testid="trace">
          <TraceTree node={trace.tree} />
        </ul>
      )}
      <h3>Conditions</h3>
      <Conditions object={claim} />
      <h3>Events</h3>
      <Failures errors={events.errors} namespace={namespace} />
      <Table head={['Type', 'Reason', 'Message', 'Count', 'Last seen']} empty={mine.length === 0} loading={events.loading}>
        {mine.map((e) => (
          <tr key={e.metadata.name}>
            <td>{text(field(e, 'type'))}</td>
            <td>{text(field(e, 'reason'))}</td>
            <td class="message">{text(field(e, 'message'))}</td>
            <td>{text(field(e, 'count'))}</td>
            <td>{age(text(field(e, 'lastTimestamp')) || e.metadata.creationTimestamp)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

export function ClassesPage(props: { api: Api; namespace: string | undefined }) {
  const live = useLive(props.api, [traceRefs.resourceclasses], props.namespace);
  return (
    <section>
      <h2>Resource classes</h2>
      <Failures errors={live.errors} namespace={props.namespace} />
      <Table
        head={['Namespace', 'Name', 'Profile', 'Provisions', 'Capacity', 'Region', 'Cost tier', 'Performance', 'Monthly price', 'Default']}
        empty={live.items.length === 0}
        loading={live.loading}
      >
        {live.items.map((c) => (
          <tr key={`${c.metadata.namespace}/${c.metadata.name}`}>
            <td>{c.metadata.namespace}</td>
            <td>{c.metadata.name}</td>
            <td>{text(c.resourceClass) || c.metadata.name}</td>
            <td>{text(field(c, 'template', 'kind'))}</td>
            <td>{quantities(field(c, 'capabilities', 'capacity'))}</td>
            <td>{text(field(c, 'capabilities', 'region'))}</td>
            <td>{text(field(c, 'capabilities', 'cost'))}</td>
            <td>{text(field(c, 'capabilities', 'performance'))}</td>
            <td>{c.metadata.annotations?.[MONTHLY_COST_ANNOTATION] ?? ''}</td>
            <td>{c.metadata.annotations?.[IS_DEFAULT_CLASS_ANNOTATION] === 'true' ? 'yes' : ''}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

export function ResourcesPage(props: { api: Api; served: Served; namespace: string | undefined }) {
  const live = useLive(props.api, props.served.managed, props.namespace);
  return (
    <section>
      <h2>Concrete resources</h2>
      <Failures errors={live.errors} namespace={props.namespace} />
      <Table
        head={['Namespace', 'Kind', 'Name', 'Phase', 'Ready', 'Synced', 'Claim', 'Capacity', 'Used', 'Allocatable', 'Provider', 'Age']}
        empty={live.items.length === 0}
        loading={live.loading}
      >
        {live.items.map((r) => (
          <tr key={`${r.kind}/${r.metadata.namespace}/${r.metadata.name}`}>
            <td>{r.metadata.namespace}</td>
            <td>{r.kind}</td>
            <td>{r.metadata.name}</td>
            <td class="phase">{phaseOf(r)}</td>
            <td>
              <Status value={conditionOf(r, 'Ready')?.status} />
            </td>
            <td>
              <Status value={conditionOf(r, 'Synced')?.status} />
            </td>
            <td>{text(field(r, 'status', 'claim'))}</td>
            <td>{quantities(field(r, 'spec', 'capabilities', 'capacity'))}</td>
            <td class="used">{used(field(r, 'spec', 'capabilities', 'capacity'), field(r, 'status', 'allocatable'))}</td>
            <td>{quantities(field(r, 'status', 'allocatable'))}</td>
            <td>{text(field(r, 'spec', 'providerRef', 'name'))}</td>
            <td>{age(r.metadata.creationTimestamp)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

export function ProvidersPage(props: { api: Api; namespace: string | undefined }) {
  const live = useLive(props.api, [traceRefs.providers], props.namespace);
  return (
    <section>
      <h2>Providers</h2>
      <Failures errors={live.errors} namespace={props.namespace} />
      <Table head={['Namespace', 'Name', 'Type', 'Ready', 'Message', 'Age']} empty={live.items.length === 0} loading={live.loading}>
        {live.items.map((p) => (
          <tr key={`${p.metadata.namespace}/${p.metadata.name}`}>
            <td>{p.metadata.namespace}</td>
            <td>{p.metadata.name}</td>
            <td>{text(field(p, 'spec', 'type'))}</td>
            <td>
              <Status value={conditionOf(p, 'Ready')?.status} />
            </td>
            <td class="message">{said(headline(p))}</td>
            <td>{age(p.metadata.creationTimestamp)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
