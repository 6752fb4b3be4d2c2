// sdk-client.test.mjs: swipium-mcp driven by the official MCP TypeScript SDK client and the MCP Inspector CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const SERVER = process.env.SWIPIUM_MCP;
assert.ok(SERVER, 'SWIPIUM_MCP must name the swipium-mcp binary');
const here = dirname(fileURLToPath(import.meta.url));

function sandbox() {
	const home = mkdtempSync(join(tmpdir(), 'swipium-sdk-'));
	const app = join(home, 'app');
	mkdirSync(app);
	writeFileSync(join(app, 'package.json'), '{"name":"demo-app"}');
	return { home, app };
}

async function connect(home, capabilities = {}) {
	const transport = new StdioClientTransport({
		command: SERVER,
		args: [],
		env: { HOME: home, PATH: process.env.PATH, SWIPIUM_LOG_LEVEL: 'warn' },
		stderr: 'pipe',
	});
	const client = new Client({ name: 'swipium-sdk-test', version: '1.0.0' }, { capabilities });
	await client.connect(transport);
	return client;
}

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

test('lists tools and prompts with schemas the SDK accepts', async () => {
	const { home } = sandbox();
	const client = await connect(home);
	try {
		assert.equal(client.getServerVersion().name, 'swipium');
		assert.ok(client.getInstructions().length <= 2048);
		const { tools } = await client.listTools();
		const names = tools.map((t) => t.name);
		for (const n of ['qa_status', 'qa_doctor', 'qa_start_session', 'qa_note', 'qa_get_artifact',
			'qa_job_status', 'qa_job_cancel', 'qa_explain_blocker', 'qa_continue_from_blocker', 'qa_issue_log',
			'qa_report']) {
			assert.ok(names.includes(n), `${n} listed`);
		}
		for (const t of tools) {
			assert.equal(t.inputSchema.type, 'object');
			assert.equal(t.inputSchema.additionalProperties, false);
		}
		const { prompts } = await client.listPrompts();
		assert.equal(prompts.length, 5);
		const p = await client.getPrompt({ name: 'swipium_setup_check', arguments: { projectRoot: '/x' } });
		assert.match(p.messages[0].content.text, /\/x/);
		const { resourceTemplates } = await client.listResourceTemplates();
		assert.equal(resourceTemplates.length, 3);
	} finally {
		await client.close();
		rmSync(home, { recursive: true, force: true });
	}
});

test('runs a session from qa_start_session through qa_note, with every no-device tool', async () => {
	const { home, app } = sandbox();
	const client = await connect(home);
	try {
		let r = await client.callTool({ name: 'qa_status', arguments: {} });
		assert.equal(r.structuredContent.orientation, true);

		r = await client.callTool({ name: 'qa_doctor', arguments: { client: 'codex', expectedToolCount: 1 } });
		assert.ok(!r.isError, text(r));
		assert.match(r.structuredContent.schemaHash, /^[0-9a-f]{16}$/);
		assert.ok(r.structuredContent.checks.some((c) => c.id === 'client-freshness' && c.status === 'warn'));
		assert.ok(r.structuredContent.codex.envVarsLine.startsWith('env_vars = ["SWIPIUM_TEST_EMAIL"'));

		r = await client.callTool({ name: 'qa_explain_blocker', arguments: { failureCode: 'WDA_UNREACHABLE' } });
		assert.equal(r.structuredContent.bucket, 'environment');

		r = await client.callTool({ name: 'qa_start_session', arguments: { projectRoot: app } });
		assert.ok(!r.isError, text(r));
		const sessionId = r.structuredContent.sessionId;
		assert.match(sessionId, /^[0-9a-f]{8}$/);

		r = await client.callTool({ name: 'qa_note', arguments: { sessionId, workflow: 'sign in', outcome: 'fail', reason: 'spinner never ends' } });
		assert.equal(r.structuredContent.category, 'app_bug');
		const issueId = r.structuredContent.issueId;
		assert.match(issueId, /^[0-9a-f]{8}$/, 'a failed app_bug note goes to the issue ledger');

		r = await client.callTool({ name: 'qa_issue_log', arguments: { sessionId } });
		assert.equal(r.structuredContent.count, 1);
		assert.equal(r.structuredContent.issues[0].title, 'sign in: spinner never ends');
		r = await client.callTool({ name: 'qa_issue_log', arguments: { sessionId, mode: 'mark_fixed', issueId, fixedInCommit: 'c0ffee1', howFixed: 'timeout on the auth call' } });
		assert.equal(r.structuredContent.issue.state, 'fixed');
		r = await client.callTool({ name: 'qa_note', arguments: { sessionId, workflow: 'sign in', outcome: 'fail', reason: 'spinner never ends' } });
		assert.equal(r.structuredContent.issueState, 'reopened');
		r = await client.callTool({ name: 'qa_issue_log', arguments: { projectRoot: app, mode: 'log', title: '###' } });
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.failureCode, 'ISSUE_LOG_TOO_VAGUE');
		r = await client.callTool({ name: 'qa_issue_log', arguments: { projectRoot: app, mode: 'metrics', groupBy: 'day' } });
		assert.equal(r.structuredContent.issues, 1);

		r = await client.callTool({ name: 'qa_continue_from_blocker', arguments: { sessionId, kind: 'credentials', values: { password: 'correct-horse-battery', username: 'demo' } } });
		assert.ok(!r.isError, text(r));
		assert.ok(!JSON.stringify(r).includes('correct-horse-battery'), 'secret never echoed');

		r = await client.callTool({ name: 'qa_status', arguments: { sessionId } });
		assert.equal(r.structuredContent.notes, 2);
		assert.equal(r.structuredContent.nextBestAction.args.sessionId, sessionId);

		r = await client.callTool({ name: 'qa_job_cancel', arguments: { sessionId, jobId: 'ffffffff' } });
		assert.equal(r.structuredContent.cancelled, false);

		r = await client.callTool({ name: 'qa_job_status', arguments: { sessionId, jobId: 'ffffffff' } });
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.failureCode, 'INVALID_ARGUMENT');

		r = await client.callTool({ name: 'qa_get_artifact', arguments: { uri: `swipium://session/${sessionId}/report/report-1.json` } });
		assert.equal(r.isError, true);

		r = await client.callTool({ name: 'qa_note', arguments: { sessionId, workflow: 'x', outcome: 'maybe' } });
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.invalidArguments[0].path, 'outcome');

		const names = (await client.listTools()).tools.map((t) => t.name);
		assert.ok(names.includes('qa_report'), 'qa_report is listed');
		{
			r = await client.callTool({ name: 'qa_report', arguments: { sessionId, format: 'junit' } });
			assert.ok(!r.isError, text(r));
			const uri = r.structuredContent.reportUri;
			assert.match(uri, /^swipium:\/\/session\/[0-9a-f]{8}\/report\/report-\d+\.json$/);
			const art = await client.callTool({ name: 'qa_get_artifact', arguments: { uri } });
			assert.ok(!art.isError, text(art));
			const read = await client.readResource({ uri });
			assert.equal(JSON.parse(read.contents[0].text).testOutcomes.length, 2);
			assert.match(r.structuredContent.exportUri, /\/report\/report-\d+\.xml$/);
			const junit = await client.callTool({ name: 'qa_get_artifact', arguments: { uri: r.structuredContent.exportUri } });
			assert.match(text(junit), /<testsuites/);
		}

		await assert.rejects(client.readResource({ uri: `swipium://session/${sessionId}/report/nothing.json` }),
			(e) => e instanceof McpError && e.code === -32602);
	} finally {
		await client.close();
		rmSync(home, { recursive: true, force: true });
	}
});

test('answers roots/list from an SDK client that declares roots', async () => {
	const { home, app } = sandbox();
	const client = await connect(home, { roots: { listChanged: true }, elicitation: {} });
	let asked = 0;
	client.setRequestHandler(ListRootsRequestSchema, async () => {
		asked++;
		return { roots: [{ uri: `file://${app}`, name: 'app' }] };
	});
	// No tool of this issue asks for consent; the handler is here so a consent prompt would not hang the test.
	client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
	try {
		const r = await client.callTool({ name: 'qa_start_session', arguments: {} });
		assert.ok(!r.isError, text(r));
		assert.equal(r.structuredContent.projectRoot, app);
		assert.equal(r.structuredContent.rootSource, 'mcp-roots');
		assert.equal(asked, 1);
	} finally {
		await client.close();
		rmSync(home, { recursive: true, force: true });
	}
});

test('the MCP Inspector CLI lists the tools', async () => {
	const bin = join(here, '..', 'node_modules', '.bin', 'mcp-inspector');
	if (!existsSync(bin)) {
		assert.fail('MCP Inspector is not installed (run scripts/install-node-deps.sh)');
	}
	const { home } = sandbox();
	try {
		const { stdout } = await promisify(execFile)(bin, ['--cli', SERVER, '--method', 'tools/list'], {
			env: { ...process.env, HOME: home, SWIPIUM_LOG_LEVEL: 'error' },
			timeout: 120000,
		});
		const listed = JSON.parse(stdout);
		assert.ok(listed.tools.some((t) => t.name === 'qa_doctor'));
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
});
