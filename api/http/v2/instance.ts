import { currentInstanceView, instanceLimits } from '../../core/instance/info.js';
import { toMastodonInstanceV2, type InstanceView } from '../../serializers/instance.js';
import { JsonText, type Routes } from '../routes.js';

// Rendered once per loaded instance view (see currentInstanceView).
const rendered = new WeakMap<InstanceView, JsonText>();

/** `GET /api/v2/instance`: the current instance entity. Public; a given token must be valid. */
export function register(r: Routes): void {
  r.get('/api/v2/instance', 'public', [], (ctx) => {
    const view = currentInstanceView(ctx.deps);
    let body = rendered.get(view);
    if (!body) {
      body = new JsonText(JSON.stringify(toMastodonInstanceV2(view, instanceLimits(), ctx.deps.uris)));
      rendered.set(view, body);
    }
    return body;
  });
}
