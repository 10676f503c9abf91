// The official TypeScript MCP SDK under load: node ts_load.mjs NODE_MODULES URL WRITERS READERS
// One note first, then WRITERS concurrent memory_remember calls and, once the first has answered, READERS
// concurrent memory_recall calls, every call on a session of its own (an agent each). Prints one JSON object.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, url, writers, readers] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const call = async (name, args) => {
  const client = new Client({ name: "memdock-ts-load", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 300000 });
    return result.isError ? { error: result.content[0].text } : JSON.parse(result.content[0].text);
  } finally {
    await client.close();
  }
};

await call("memory_remember", { content: "The coffee machine is on floor 3" });
let firstDone;
const first = new Promise((resolve) => (firstDone = resolve));
let answered = 0;
const burst = Array.from({ length: Number(writers) }, (_, n) =>
  call("memory_remember", { content: `standup note ${n}: the build farm queue was long again`, thread: "standups" })
    .finally(() => { answered += 1; firstDone(); }));
await first;
const inFlight = Number(writers) - answered;
const recalls = await Promise.all(
  Array.from({ length: Number(readers) }, () => call("memory_recall", { query: "coffee machine", limit: 3 })));
const remembered = await Promise.all(burst);
console.log(JSON.stringify({ inFlight, recalls, remembered }));
