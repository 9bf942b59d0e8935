// An app written with the Vercel AI SDK (`ai`, `@ai-sdk/openai-compatible` and
// `@ai-sdk/openai` from npm), pointed at `toolrouter proxy`. Usage:
//   node vercel_client.mjs SCENARIO BASE_URL
// with NODE_MODULES the node_modules directory the packages are installed in.
// Prints one JSON line: what the SDK gave the app. Scenarios:
//   stream  streamText: the part types in order, the text, the tool calls
//           with their input-delta counts, the finish reason;
//   loop    generateText with an `execute`d tool and two steps: the SDK runs
//           the call itself and sends its result back;
//   responses-stream, responses-loop
//           the same through `@ai-sdk/openai`'s Responses model
//           (`openai.responses(...)`, POST /v1/responses).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [scenario, baseURL] = process.argv.slice(2);
const modules = process.env.NODE_MODULES;
if (!scenario || !baseURL || !modules) {
  console.error('usage: NODE_MODULES=DIR node vercel_client.mjs SCENARIO BASE_URL');
  process.exit(2);
}
const require = createRequire(join(modules, 'package.json'));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);
const { streamText, generateText, jsonSchema, tool, isStepCount } = await load('ai');
const { createOpenAICompatible } = await load('@ai-sdk/openai-compatible');

const responses = scenario.startsWith('responses-');
let model;
if (responses) {
  const { createOpenAI } = await load('@ai-sdk/openai');
  model = createOpenAI({ baseURL, apiKey: 'unused' }).responses('m');
} else {
  model = createOpenAICompatible({ name: 'toolrouter', baseURL, apiKey: 'unused' })('m');
}
const kind = responses ? scenario.slice('responses-'.length) : scenario;
const prompt = 'What is the weather in Paris?';
const weatherSchema = jsonSchema({
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
  },
  required: ['city'],
});

let out;
if (kind === 'stream') {
  const tools = { get_weather: tool({ description: 'The current weather in a city', inputSchema: weatherSchema }) };
  const result = streamText({ model, prompt, tools });
  const parts = [];
  const deltas = {};
  const calls = [];
  let text = '';
  let finishReason = null;
  for await (const part of result.fullStream) {
    if (parts[parts.length - 1] !== part.type) parts.push(part.type);
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'tool-input-delta') deltas[part.id] = (deltas[part.id] ?? 0) + 1;
    if (part.type === 'tool-call') calls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
    if (part.type === 'finish') finishReason = part.finishReason;
    if (part.type === 'error') throw part.error;
  }
  out = { parts, text, calls: calls.map((c) => ({ ...c, deltas: deltas[c.id] ?? 0 })), finishReason };
} else if (kind === 'loop') {
  const executed = [];
  const tools = {
    get_weather: tool({
      description: 'The current weather in a city',
      inputSchema: weatherSchema,
      execute: async ({ city, unit }) => {
        executed.push({ city, unit });
        return `18 °C and sunny`;
      },
    }),
  };
  const result = await generateText({ model, prompt, tools, stopWhen: isStepCount(2) });
  out = {
    executed,
    steps: result.steps.map((s) => ({
      text: s.text,
      finishReason: s.finishReason,
      toolCalls: s.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input })),
    })),
    text: result.text,
  };
} else {
  console.error(`unknown scenario ${scenario}`);
  process.exit(2);
}
console.log(JSON.stringify(out));
