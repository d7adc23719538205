// A loopback OTLP/HTTP receiver in its own process (as a collector would be), for the
// lifecycle benchmark: counts the spans of each JSON export and tells its parent, over IPC,
// its port at start and the count when asked.
import { createServer } from 'node:http';

let spans = 0;
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    for (const rs of JSON.parse(body).resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += (ss.spans ?? []).length;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ spans });
  if (m === 'exit') server.close(() => process.exit(0));
});
// A benchmark that dies without saying `exit` must not leave its receiver behind.
process.on('disconnect', () => process.exit(0));
