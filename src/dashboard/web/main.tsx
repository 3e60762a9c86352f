/**
 * The Conductor dashboard: sign in (a bearer token kept in sessionStorage, or the browser's
 * client certificate), then claims, a claim's trace, classes, resources and providers, kept
 * live by watches. Addresses are hash routes (`#/claims`, `#/claim/<ns>/<plural.group>/<name>`)
 * so the server serves one static shell.
 */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, describeFailure } from './api.js';
import { discover, type Served } from './discovery.js';
import { ClaimPage, ClaimsPage, ClassesPage, ProvidersPage, ResourcesPage } from './pages.js';
import './styles.css';

const TOKEN_KEY = 'conductor.token';
const MODE_KEY = 'conductor.auth';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function Login(props: { onSignIn: (token: string | undefined) => void; error?: string }) {
  const [token, setToken] = useState('');
  return (
    <main class="login">
      <h1>Conductor</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onSignIn(token.trim());
        }}
      >
        <label for="token">Bearer token</label>
        <textarea id="token" name="token" rows={4} value={token} onInput={(e) => setToken(e.currentTarget.value)} placeholder="the token of your kubeconfig" />
        <button type="submit" disabled={token.trim() === ''}>
          Sign in
        </button>
        <button type="button" class="secondary" onClick={() => props.onSignIn(undefined)}>
          Use my client certificate
        </button>
      </form>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <p class="hint">
        The token is the <code>token:</code> of your kubeconfig's user (<code>kubectl config view --raw</code>), or one from <code>kubectl create token</code>.
        It is kept in this tab only. You see what RBAC lets you list, as with kubectl.
      </p>
    </main>
  );
}

function Nav(props: { hash: string; user: string; onSignOut: () => void }) {
  const at = (p: string) => (props.hash.startsWith(`#/${p}`) || (p === 'claims' && props.hash.startsWith('#/claim/')) ? 'active' : '');
  return (
    <header>
      <strong>Conductor</strong>
      <nav>
        <a href="#/claims" class={at('claims')}>
          Claims
        </a>
        <a href="#/classes" class={at('classes')}>
          Classes
        </a>
        <a href="#/resources" class={at('resources')}>
          Resources
        </a>
        <a href="#/providers" class={at('providers')}>
          Providers
        </a>
      </nav>
      <span class="user">
        {props.user}{' '}
        <button type="button" class="link" onClick={props.onSignOut}>
          Sign out
        </button>
      </span>
    </header>
  );
}

/** The namespace a ServiceAccount lives in: where its user most likely may list. */
function homeNamespace(username: string): string | undefined {
  const m = /^system:serviceaccount:([^:]+):/.exec(username);
  return m?.[1];
}

function App() {
  const [session, setSession] = useState<{ api: Api; user: string; served: Served } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [namespace, setNamespace] = useState<string>('');
  const hash = useHash();

  const signIn = async (token: string | undefined) => {
    const api = new Api(token);
    try {
      const who = await api.whoami();
      const served = await discover(api);
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      sessionStorage.setItem(MODE_KEY, token ? 'token' : 'certificate');
      setNamespace(who.groups.includes('system:masters') ? '' : (homeNamespace(who.username) ?? ''));
      setSession({ api, user: who.username, served });
      setError(undefined);
    } catch (err) {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(MODE_KEY);
      setSession(undefined);
      setError(
        token === undefined
          ? `No client certificate was accepted: ${describeFailure(err, 'sign in')}`
          : `The token was not accepted: ${describeFailure(err, 'sign in')}`,
      );
    }
  };

  useEffect(() => {
    const mode = sessionStorage.getItem(MODE_KEY);
    if (mode === 'token') void signIn(sessionStorage.getItem(TOKEN_KEY) ?? '');
    else if (mode === 'certificate') void signIn(undefined);
  }, []);

  const signOut = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(MODE_KEY);
    setSession(undefined);
  };

  const page = useMemo(() => {
    if (!session) return null;
    const { api, served } = session;
    const ns = namespace === '' ? undefined : namespace;
    const claim = /^#\/claim\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(hash);
    if (claim) {
      const ref = served.byResource(decodeURIComponent(claim[2]));
      return ref ? (
        <ClaimPage api={api} served={served} ref_={ref} namespace={decodeURIComponent(claim[1])} name={decodeURIComponent(claim[3])} />
      ) : (
        <p class="error">This kind is not served.</p>
      );
    }
    if (hash.startsWith('#/classes')) return <ClassesPage api={api} namespace={ns} />;
    if (hash.startsWith('#/resources')) return <ResourcesPage api={api} served={served} namespace={ns} />;
    if (hash.startsWith('#/providers')) return <ProvidersPage api={api} namespace={ns} />;
    return <ClaimsPage api={api} served={served} namespace={ns} />;
  }, [session, hash, namespace]);

  if (!session) return <Login onSignIn={(t) => void signIn(t)} error={error} />;
  return (
    <>
      <Nav hash={hash} user={session.user} onSignOut={signOut} />
      <div class="toolbar">
        <label for="namespace">Namespace</label>
        <input id="namespace" value={namespace} placeholder="all namespaces" onChange={(e) => setNamespace(e.currentTarget.value.trim())} />
      </div>
      <main>{page}</main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
