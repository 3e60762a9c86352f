#!/usr/bin/env python3
"""Drives a Conductor server with the official Kubernetes Python client (Debian python3-kubernetes).

Usage: conductor_client_check.py <kubeconfig> <step> [arguments...]

Each step prints one JSON document per line on stdout (what it observed) and exits 0; an
unexpected answer raises, so the step exits non-zero with the traceback on stderr. The test
test/e2e/python-client.test.ts runs the steps and asserts on what they print.

Steps:
  version                          the client library's version
  typed <ns>                       list, create, read, replace with a stale resourceVersion (409),
                                   patch json (the typed client's own patch content type), merge
                                   and strategic (content type set as a default header, the usual
                                   work-around of this client generation), delete
  watch-from <ns> <rv> <count>     watch from a resourceVersion and print the first <count> events
  relist-after-expired <ns> <rv> <name>
                                   watch from a compacted resourceVersion (410 Expired), re-list,
                                   watch from the list's resourceVersion until <name> is ADDED
  dynamic <ns> <group>             the dynamic client on the CRD kind Widget of <group>/v1: discovery,
                                   create, get, list, merge patch, server-side apply (a conflict,
                                   then force), an invalid object (422), delete
"""
import json
import sys
import tempfile

import kubernetes
from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException


def emit(doc):
    print(json.dumps(doc), flush=True)


def new_api_client(kubeconfig, content_type=None):
    api = config.new_client_from_config(config_file=kubeconfig)
    if content_type:
        # Default headers win over the per-call header in this client generation, whose typed
        # patch methods always send application/json-patch+json.
        api.set_default_header('Content-Type', content_type)
    return api


def step_version(_kubeconfig):
    emit({'version': kubernetes.__version__})


def step_typed(kubeconfig, ns):
    core = client.CoreV1Api(new_api_client(kubeconfig))
    merge = client.CoreV1Api(new_api_client(kubeconfig, 'application/merge-patch+json'))
    strategic = client.CoreV1Api(new_api_client(kubeconfig, 'application/strategic-merge-patch+json'))

    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    namespaces = [n.metadata.name for n in core.list_namespace().items]

    created = core.create_namespaced_config_map(
        ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='settings', labels={'app': 'py'}), data={'color': 'blue'})
    )
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='other'), data={}))
    selected = [c.metadata.name for c in core.list_namespaced_config_map(ns, label_selector='app=py').items]
    page = core.list_namespaced_config_map(ns, limit=1)

    # Optimistic concurrency: a replace carrying an old resourceVersion is refused with 409.
    current = core.read_namespaced_config_map('settings', ns)
    current.data = {'color': 'green'}
    core.replace_namespaced_config_map('settings', ns, current)
    stale = client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name='settings', resource_version=created.metadata.resource_version), data={'color': 'red'}
    )
    try:
        core.replace_namespaced_config_map('settings', ns, stale)
        conflict = None
    except ApiException as e:
        body = json.loads(e.body)
        conflict = {'status': e.status, 'reason': body.get('reason'), 'message': body.get('message')}

    core.patch_namespaced_config_map('settings', ns, [{'op': 'add', 'path': '/data/shape', 'value': 'round'}])
    merge.patch_namespaced_config_map('settings', ns, {'data': {'color': None, 'size': 'L'}})
    after_patches = core.read_namespaced_config_map('settings', ns).data

    # Strategic merge patch merges ServiceAccount.secrets by name; a merge patch replaces the list.
    core.create_namespaced_service_account(ns, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name='robot'), secrets=[{'name': 'a'}]))
    strategic.patch_namespaced_service_account('robot', ns, {'secrets': [{'name': 'b'}]})
    strategic_secrets = [s.name for s in core.read_namespaced_service_account('robot', ns).secrets]
    merge.patch_namespaced_service_account('robot', ns, {'secrets': [{'name': 'c'}]})
    merge_secrets = [s.name for s in core.read_namespaced_service_account('robot', ns).secrets]

    core.delete_namespaced_config_map('other', ns)
    try:
        core.read_namespaced_config_map('other', ns)
        gone = None
    except ApiException as e:
        gone = e.status

    emit(
        {
            'namespaceListed': ns in namespaces,
            'resourceVersionType': type(created.metadata.resource_version).__name__,
            'selected': selected,
            'pageItems': len(page.items),
            'pageContinue': bool(page.metadata._continue),
            'conflict': conflict,
            'afterPatches': after_patches,
            'strategicSecrets': strategic_secrets,
            'mergeSecrets': merge_secrets,
            'readAfterDelete': gone,
        }
    )


def step_watch_from(kubeconfig, ns, rv, count):
    core = client.CoreV1Api(new_api_client(kubeconfig))
    w = watch.Watch()
    events = []
    for e in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=60):
        meta = e['object'].metadata
        events.append([e['type'], meta.name, meta.resource_version])
        if len(events) >= int(count):
            w.stop()
            break
    emit({'events': events})


def step_relist_after_expired(kubeconfig, ns, rv, name):
    core = client.CoreV1Api(new_api_client(kubeconfig))
    expired = None
    try:
        # With timeout_seconds the client does not retry by itself: the 410 reaches us.
        for e in watch.Watch().stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=60):
            emit({'unexpectedEvent': e['type']})
    except ApiException as e:
        expired = {'status': e.status, 'reason': e.reason}
    listed = core.list_namespaced_config_map(ns)
    list_rv = listed.metadata.resource_version
    emit({'expired': expired, 'relisted': sorted(c.metadata.name for c in listed.items), 'listResourceVersion': list_rv})
    w = watch.Watch()
    seen = []
    for e in w.stream(core.list_namespaced_config_map, ns, resource_version=list_rv, timeout_seconds=60):
        seen.append([e['type'], e['object'].metadata.name])
        if e['type'] == 'ADDED' and e['object'].metadata.name == name:
            w.stop()
            break
    emit({'events': seen})


def step_dynamic(kubeconfig, ns, group):
    cache = tempfile.TemporaryDirectory(prefix='conductor-dynamic-discovery-')
    dyn = dynamic.DynamicClient(new_api_client(kubeconfig), cache_file=f'{cache.name}/discovery.json')
    widgets = dyn.resources.get(api_version=f'{group}/v1', kind='Widget')
    body = {'apiVersion': f'{group}/v1', 'kind': 'Widget', 'metadata': {'name': 'w1'}, 'spec': {'size': 1, 'color': 'red'}}
    created = widgets.create(body=body, namespace=ns)
    got = widgets.get(name='w1', namespace=ns)
    patched = widgets.patch(name='w1', namespace=ns, body={'spec': {'size': 3}}, content_type='application/merge-patch+json')
    # Server-side apply. This client generation's server_side_apply() cannot send a dict as
    # application/apply-patch+yaml (its REST layer only encodes JSON content types), so the
    # manifest goes through the same call already serialized (JSON is YAML).
    manifest = {'apiVersion': f'{group}/v1', 'kind': 'Widget', 'metadata': {'name': 'w1', 'namespace': ns}, 'spec': {'color': 'blue'}}

    def apply(**options):
        return dyn.request(
            'patch',
            widgets.path(name='w1', namespace=ns),
            body=json.dumps(manifest),
            content_type='application/apply-patch+yaml',
            field_manager='python-apply',
            **options,
        )

    # spec.color belongs to the manager that created the object (this client's user agent).
    try:
        apply()
        apply_conflict = None
    except ApiException as e:
        apply_conflict = {'status': e.status, **{k: v for k, v in json.loads(e.body).items() if k in ('reason', 'message', 'details')}}
    applied = apply(force_conflicts=True)
    listed = widgets.get(namespace=ns)
    try:
        widgets.create(body={**body, 'metadata': {'name': 'w2'}, 'spec': {'size': 0}}, namespace=ns)
        invalid = None
    except ApiException as e:
        invalid = {'status': e.status, 'reason': json.loads(e.body).get('reason')}
    widgets.delete(name='w1', namespace=ns)
    emit(
        {
            'namespaced': widgets.namespaced,
            'createdUid': bool(created.metadata.uid),
            'gotSpec': got.to_dict()['spec'],
            'patchedSpec': patched.to_dict()['spec'],
            'appliedSpec': applied.to_dict()['spec'],
            'managers': sorted(m['manager'] for m in applied.to_dict()['metadata']['managedFields']),
            'listed': [i.metadata.name for i in listed.items],
            'invalid': invalid,
            'applyConflict': apply_conflict,
        }
    )


STEPS = {
    'version': step_version,
    'typed': step_typed,
    'watch-from': step_watch_from,
    'relist-after-expired': step_relist_after_expired,
    'dynamic': step_dynamic,
}

if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[2] not in STEPS:
        sys.exit(__doc__)
    STEPS[sys.argv[2]](sys.argv[1], *sys.argv[3:])
