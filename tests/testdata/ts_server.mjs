// A TypeScript-SDK server for test_client.py: mcp_ref.Client against it, over
// stdio or Streamable HTTP (sessions).
//   node ts_server.mjs                 (stdio)
//   node ts_server.mjs --http PORT     (http://127.0.0.1:PORT/mcp)
import { randomUUID } from "node:crypto";
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CreateMessageResultSchema, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

function makeServer() {
  const server = new McpServer({ name: "ts-server", version: "1.0.0" });
  server.registerTool("add", {
    description: "Add two numbers",
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { result: z.number() },
  }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { result: a + b } }));
  server.registerTool("ask", { description: "Elicits a name", inputSchema: {} }, async (_args, extra) => {
    const answer = await extra.sendRequest({ method: "elicitation/create", params: {
      message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
      ElicitResultSchema);
    return { content: [{ type: "text", text: `${answer.action} ${answer.content?.name}` }] };
  });
  server.registerTool("sample", { description: "Samples", inputSchema: {} }, async (_args, extra) => {
    const answer = await extra.sendRequest({ method: "sampling/createMessage", params: {
      messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }], maxTokens: 10 } },
      CreateMessageResultSchema);
    return { content: [{ type: "text", text: answer.content.text }] };
  });
  return server;
}

if (process.argv[2] === "--http") {
  const sessions = {};
  http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const parsed = body ? JSON.parse(body) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = id ? sessions[id] : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => { sessions[sid] = transport; },
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  }).listen(Number(process.argv[3]), "127.0.0.1", () => console.error("listening"));
} else {
  await makeServer().connect(new StdioServerTransport());
}
