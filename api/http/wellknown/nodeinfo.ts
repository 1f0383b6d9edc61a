import { loadInstanceView } from '../../core/instance/info.js';
import { toNodeInfo, type NodeInfoVersion } from '../../serializers/instance.js';
import type { Routes } from '../routes.js';

const SCHEMA = 'http://nodeinfo.diaspora.software/ns/schema/';
const VERSIONS: readonly NodeInfoVersion[] = ['2.0', '2.1'];

/**
 * NodeInfo (https://nodeinfo.diaspora.software): `/.well-known/nodeinfo` links to the 2.0 and 2.1
 * documents, each served with its schema as the Content-Type profile. Documents for everyone:
 * tokens are not looked at.
 */
export function register(r: Routes): void {
  r.get('/.well-known/nodeinfo', 'none', [], (ctx) => ({
    links: VERSIONS.map((v) => ({ rel: `${SCHEMA}${v}`, href: ctx.deps.uris.url(`/nodeinfo/${v}`) })),
  }));

  for (const version of VERSIONS) {
    r.get(`/nodeinfo/${version}`, 'none', [], (ctx) => {
      // Sent as bytes so that Express keeps the Content-Type exactly as the NodeInfo spec writes it.
      const body = Buffer.from(JSON.stringify(toNodeInfo(loadInstanceView(ctx.deps), version)), 'utf8');
      ctx.res.status(200).set('Content-Type', `application/json; profile="${SCHEMA}${version}#"`).send(body);
    });
  }
}
