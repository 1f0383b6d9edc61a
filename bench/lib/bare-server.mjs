// The comparison baseline: a bare Node HTTP server answering fixed bytes with the same content type.
import http from 'node:http';

const body = Buffer.from(process.env.BARE_BODY ?? '{}');
const type = process.env.BARE_TYPE ?? 'application/json; charset=utf-8';
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': type, 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
