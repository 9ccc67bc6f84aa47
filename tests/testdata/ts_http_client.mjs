// A TypeScript-SDK client for the interoperability test over Streamable HTTP:
// connects to URL, lists the tools, calls each (name, arguments) pair, ends
// the session, and prints one JSON object.
//   node ts_http_client.mjs URL '[["tool", {"arg": 1}], ...]'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, callsJson] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "mcp-ref-interop", version: "1.0.0" });
await client.connect(transport);
const sessionId = transport.sessionId;
const listed = await client.listTools();
const results = [];
for (const [name, args] of JSON.parse(callsJson)) {
  results.push(await client.callTool({ name, arguments: args }));
}
await transport.terminateSession();
console.log(JSON.stringify({
  server: client.getServerVersion(),
  protocolVersion: transport.protocolVersion,
  sessionId,
  tools: listed.tools,
  results,
}));
await client.close();
