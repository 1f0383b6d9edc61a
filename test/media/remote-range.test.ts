import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertRemoteAccount } from '../../api/core/federation/remote-accounts.js';
import type { AccountRow } from '../../api/db/repos/accounts.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { mp4 } from './helpers.js';
import { fetchRange, RangeServer } from './range-helpers.js';
import { attachment, remoteActor, remoteStatus, type Status } from './remote-helpers.js';

/**
 * Byte ranges through the media proxy (`remoteMedia: 'proxy'`): a real instance, and a file
 * server on loopback playing a remote server with range support and one without.
 */

const server = new RangeServer();
let video: Buffer;
let inst: TestInstance;
let author: AccountRow;

/** The proxy URL of a remote video attachment served from `path` on the remote server. */
async function proxiedVideo(path: string): Promise<string> {
  const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url(path), 'video/mp4')]);
  const media = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
  expect(media?.url).toBe(`${inst.url}/media_proxy/${media?.id}/original`);
  return media?.url ?? '';
}

beforeAll(async () => {
  video = mp4({ seconds: 2 });
  server.files.set('/clip.mp4', { body: video, type: 'video/mp4' });
  await server.start();
  inst = await startInstance({ federationAllowLoopback: true, remoteMedia: 'proxy' });
  author = upsertRemoteAccount(inst.deps, remoteActor(server, 'ranger'));
});

afterAll(async () => {
  await inst?.close();
  await server.stop();
});

describe('media proxy: a remote server with range support', () => {
  let url: string;
  beforeAll(async () => {
    url = await proxiedVideo('/ranged/clip.mp4');
  });

  it('answers a whole-file request with 200 and advertises Accept-Ranges, as the remote does', async () => {
    const res = await fetchRange(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(video.length));
    expect(res.headers.get('etag')).toBe(server.etagOf(video));
    expect(res.body.equals(video)).toBe(true);
  });

  it('forwards a range and passes the 206 on with Content-Range and Content-Length', async () => {
    const res = await fetchRange(url, { range: 'bytes=100-1123' });
    expect(server.requests.get('/ranged/clip.mp4')?.range).toBe('bytes=100-1123');
    // Asked unencoded: the bytes counted are the file's.
    expect(server.requests.get('/ranged/clip.mp4')?.['accept-encoding']).toBe('identity');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 100-1123/${video.length}`);
    expect(res.headers.get('content-length')).toBe('1024');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.body.equals(video.subarray(100, 1124))).toBe(true);
  });

  it('passes on open-ended and suffix ranges', async () => {
    const tail = await fetchRange(url, { range: `bytes=${video.length - 300}-` });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${video.length - 300}-${video.length - 1}/${video.length}`);
    expect(tail.body.equals(video.subarray(video.length - 300))).toBe(true);
    const suffix = await fetchRange(url, { range: 'bytes=-50' });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-length')).toBe('50');
    expect(suffix.body.equals(video.subarray(video.length - 50))).toBe(true);
  });

  it('answers HEAD with a range with the 206 headers and no body', async () => {
    const res = await fetchRange(url, { range: 'bytes=0-9' }, 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-9/${video.length}`);
    expect(res.headers.get('content-length')).toBe('10');
    expect(res.body.length).toBe(0);
  });

  it('passes a 416 on for a range beyond the file, with the size and no remote body (a JSON error of its own)', async () => {
    const res = await fetchRange(url, { range: `bytes=${video.length + 10}-` });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${video.length}`);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ error: 'Range Not Satisfiable' });
  });

  it('forwards If-Range: a current ETag gets the range, a stale one the whole file', async () => {
    const current = await fetchRange(url, { range: 'bytes=0-99', 'if-range': server.etagOf(video) });
    expect(server.requests.get('/ranged/clip.mp4')?.['if-range']).toBe(server.etagOf(video));
    expect(current.status).toBe(206);
    expect(current.body.equals(video.subarray(0, 100))).toBe(true);
    const stale = await fetchRange(url, { range: 'bytes=0-99', 'if-range': '"v0-old"' });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(video)).toBe(true);
  });

  it('does not forward several ranges, another unit or an odd If-Range: the whole file comes', async () => {
    const cases: Record<string, string>[] = [{ range: 'bytes=0-1,5-6' }, { range: 'items=0-1' }, { range: 'bytes=0-9', 'if-range': 'W/"weak"' }];
    for (const headers of cases) {
      const res = await fetchRange(url, headers);
      expect(server.requests.get('/ranged/clip.mp4')?.range).toBeUndefined();
      expect(server.requests.get('/ranged/clip.mp4')?.['if-range']).toBeUndefined();
      expect(res.status).toBe(200);
      expect(res.body.equals(video)).toBe(true);
    }
  });

  it('keeps the size limit for ranges: a part of a file over the limit is refused (502)', async () => {
    const lying = await proxiedVideo('/lying/clip.mp4');
    expect((await fetchRange(lying, { range: 'bytes=0-9' })).status).toBe(502);
    // Asked whole, the same file is within the limit and comes through.
    expect((await fetchRange(lying)).status).toBe(200);
  });
});

describe('media proxy: a remote server without range support', () => {
  it('answers a range request with 200 and the whole file, without Accept-Ranges', async () => {
    const url = await proxiedVideo('/plain/clip.mp4');
    const res = await fetchRange(url, { range: 'bytes=100-199' });
    // The range went out; the remote server ignored it.
    expect(server.requests.get('/plain/clip.mp4')?.range).toBe('bytes=100-199');
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBeNull();
    expect(res.headers.get('content-range')).toBeNull();
    expect(res.headers.get('content-length')).toBe(String(video.length));
    expect(res.body.equals(video)).toBe(true);
    const plain = await fetchRange(url);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('accept-ranges')).toBeNull();
  });
});
