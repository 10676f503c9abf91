// The official TypeScript MCP SDK against `memdock mcp --http`: node ts_client.mjs NODE_MODULES URL
// Prints one JSON object with what each call answered (the Python test checks it).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, url] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const client = new Client({ name: "memdock-ts-test", version: "0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const call = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  return result.isError ? { error: result.content[0].text } : JSON.parse(result.content[0].text);
};
const out = {};
out.capabilities = client.getServerCapabilities();
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
out.remembered = await call("memory_remember", { content: "The office coffee machine is on floor 3", metadata: { team: "ops" } });
out.many = await call("memory_remember_many", { items: ["the tea is in the cupboard", "the milk is in the fridge"] });
out.recall = await call("memory_recall", { query: "coffee", where: { team: "ops" } });
out.updated = await call("memory_update", { id: out.remembered.id, metadata: { team: "facilities" } });
out.after = await call("memory_recall", { query: "coffee", where: { team: ["facilities"] } });
out.big = await call("memory_recall", { query: "the", limit: 200 });
out.bad = await call("memory_recall", { query: "coffee", where: { team: { $gt: 1 } } });
out.prefs = await call("memory_remember", { content: "Fire drill on Thursday", thread: "prefs" });
out.counted = await call("memory_count", {});
out.listed = await call("memory_list", { limit: 100 });
out.forgot = await call("memory_forget", { ids: ["prefs"] });
out.left = await call("memory_count", {});
await client.close();
console.log(JSON.stringify(out));
