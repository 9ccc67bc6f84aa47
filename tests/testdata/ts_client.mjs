// A TypeScript-SDK client for the interoperability test: connects over stdio,
// lists the tools, calls each (name, arguments) pair and prints one JSON object.
//   node ts_client.mjs PYTHON SERVER.py '[["tool", {"arg": 1}], ...]'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, script, callsJson] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args: [script], stderr: "inherit" });
const client = new Client({ name: "mcp-ref-interop", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const results = [];
for (const [name, args] of JSON.parse(callsJson)) {
  results.push(await client.callTool({ name, arguments: args }));
}
console.log(JSON.stringify({
  server: client.getServerVersion(),
  tools: listed.tools,
  results,
}));
await client.close();
