// wdio.conf.ts: the WebdriverIO test runner for this suite (npx wdio run wdio.conf.ts).
import { appiumServer, capabilities } from './support/capabilities.js';

const server = appiumServer();

export const config: WebdriverIO.Config = {
  runner: 'local',
  protocol: server.protocol,
  hostname: server.hostname,
  port: server.port,
  path: server.path,
  specs: ['./specs/**/*.e2e.ts'],
  maxInstances: 1,
  capabilities: [capabilities()],
  logLevel: 'warn',
  waitforTimeout: 10000,
  connectionRetryCount: 2,
  framework: 'mocha',
  reporters: ['spec'],
  mochaOpts: { ui: 'bdd', timeout: 5 * 60 * 1000 },
};
