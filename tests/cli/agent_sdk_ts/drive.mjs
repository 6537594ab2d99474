// Drives a CLI with the TypeScript Agent SDK (@anthropic-ai/claude-agent-sdk): a plain query, a query whose tool
// call canUseTool allows, one it denies. Prints one JSON line per scenario for tests/cli/test_agent_sdk_ts.py.
// Usage: node drive.mjs <sdk module path> <cli path> <project dir>
const [sdkPath, cli, cwd] = process.argv.slice(2);
const { query } = await import(sdkPath);

async function run(name, prompt, extra = {}) {
  const messages = [];
  const asked = [];
  const options = {
    pathToClaudeCodeExecutable: cli, cwd, env: process.env, ...extra,
  };
  if (extra.decide) {
    const decide = extra.decide;
    delete options.decide;
    options.canUseTool = async (toolName, input) => {
      asked.push(toolName);
      return decide === "allow"
        ? { behavior: "allow", updatedInput: input }
        : { behavior: "deny", message: "not today" };
    };
  }
  try {
    for await (const message of query({ prompt, options })) messages.push(message);
  } catch (error) {
    console.log(JSON.stringify({ name, error: String(error) }));
    return;
  }
  const result = messages.find((m) => m.type === "result") || {};
  const init = messages.find((m) => m.type === "system" && m.subtype === "init") || {};
  console.log(JSON.stringify({
    name, asked, subtype: result.subtype, result: result.result, denials: result.permission_denials,
    tools: init.tools, session: result.session_id,
  }));
}

await run("plain", "hi");
await run("allowed", "make a file", { decide: "allow" });
await run("denied", "make another", { decide: "deny" });
