// A TypeScript-SDK client for the interoperability tests beyond tools: lists and
// reads resources and templates, lists and gets prompts, completes arguments
// (examples/notes.py), then calls Context tools (examples/context_demo.py) with
// handlers for elicitation, sampling and roots, recording the notifications.
//   node ts_everything_client.mjs PYTHON NOTES.py CONTEXT_DEMO.py
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [python, notes, demo] = process.argv.slice(2);

async function connect(script, capabilities) {
  const transport = new StdioClientTransport({ command: python, args: [script], stderr: "inherit" });
  const client = new Client({ name: "mcp-ref-interop", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return client;
}

const out = {};
const a = await connect(notes, {});
out.resources = (await a.listResources()).resources;
out.templates = (await a.listResourceTemplates()).resourceTemplates;
out.index = await a.readResource({ uri: "notes://index" });
out.note = await a.readResource({ uri: "notes://shopping" });
out.prompts = (await a.listPrompts()).prompts;
out.prompt = await a.getPrompt({ name: "summarize", arguments: { title: "ideas", style: "detailed" } });
out.completion = await a.complete({ ref: { type: "ref/prompt", name: "summarize" },
                                    argument: { name: "title", value: "s" } });
await a.close();

const b = await connect(demo, { elicitation: {}, sampling: {}, roots: {} });
const logs = [];
b.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
b.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { day: "friday", minutes: 45 } }));
b.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant", content: { type: "text", text: "an old pond" }, model: "test", stopReason: "endTurn" }));
b.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
const progress = [];
out.count = await b.callTool({ name: "count", arguments: { to: 3 } }, undefined,
                             { onprogress: (p) => { progress.push(p); } });
out.schedule = await b.callTool({ name: "schedule", arguments: {} });
out.haiku = await b.callTool({ name: "haiku", arguments: { topic: "frogs" } });
out.workspace = await b.callTool({ name: "workspace", arguments: {} });
out.logs = logs;
out.progress = progress;
await b.close();
console.log(JSON.stringify(out));
