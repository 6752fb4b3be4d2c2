// capabilities.ts: the Appium session this suite asks for, from the environment.
import { envFlag, envOr } from './env.js';
import { DEFAULT_PLATFORM, RECORDED_APP_ID, RECORDED_PLATFORM } from './recorded.js';

export type Platform = 'android' | 'ios';

/** SWIPIUM_PLATFORM (android or ios), else the platform swipium chose when it wrote the suite. */
export function platform(): Platform {
  const raw = envOr('SWIPIUM_PLATFORM', DEFAULT_PLATFORM).trim().toLowerCase();
  if (raw !== 'android' && raw !== 'ios') {
    throw new Error(`SWIPIUM_PLATFORM must be android or ios, not ${JSON.stringify(raw)}`);
  }
  return raw;
}

/** The app under test: IOS_BUNDLE_ID or ANDROID_APP_PACKAGE, else the recorded app on its own platform. */
export function appId(): string {
  const ios = platform() === 'ios';
  const name = ios ? 'IOS_BUNDLE_ID' : 'ANDROID_APP_PACKAGE';
  const id = envOr(name, RECORDED_PLATFORM === platform() ? RECORDED_APP_ID : '');
  if (id === '') {
    throw new Error(`Set ${name}: the run was recorded on ${RECORDED_PLATFORM}, so its app id does not apply here.`);
  }
  return id;
}

function copyEnv(caps: Record<string, unknown>, capability: string, name: string): void {
  const value = process.env[name];
  if (value !== undefined && value !== '') {
    caps[capability] = value;
  }
}

/** UiAutomator2 on Android, XCUITest on iOS; ANDROID_* / IOS_* fill in the device and the app. */
export function capabilities(): WebdriverIO.Capabilities {
  const ios = platform() === 'ios';
  const prefix = ios ? 'IOS_' : 'ANDROID_';
  const caps: Record<string, unknown> = {
    platformName: ios ? 'iOS' : 'Android',
    'appium:automationName': ios ? 'XCUITest' : 'UiAutomator2',
    'appium:noReset': envFlag('SWIPIUM_NO_RESET'),
    'appium:newCommandTimeout': 240,
    'appium:deviceName': envOr(prefix + 'DEVICE_NAME', ios ? 'iPhone Simulator' : 'Android Emulator'),
  };
  copyEnv(caps, 'appium:udid', prefix + 'UDID');
  copyEnv(caps, 'appium:platformVersion', prefix + 'PLATFORM_VERSION');
  const app = process.env[prefix + 'APP'];
  if (app !== undefined && app !== '') {
    caps['appium:app'] = app;
  } else if (ios) {
    caps['appium:bundleId'] = appId();
  } else {
    caps['appium:appPackage'] = appId();
    copyEnv(caps, 'appium:appActivity', 'ANDROID_APP_ACTIVITY');
  }
  return caps as WebdriverIO.Capabilities;
}

export interface AppiumServer {
  protocol: string;
  hostname: string;
  port: number;
  path: string;
}

/** APPIUM_HOST: a host name or a URL (http://host:4723/base); APPIUM_PORT and APPIUM_BASE_PATH fill the rest. */
export function appiumServer(): AppiumServer {
  const raw = envOr('APPIUM_HOST', '127.0.0.1').trim();
  const url = new URL(raw.includes('://') ? raw : `http://${raw}`);
  const port = url.port !== '' ? Number(url.port) : Number(envOr('APPIUM_PORT', '4723'));
  const path = url.pathname !== '' && url.pathname !== '/' ? url.pathname : envOr('APPIUM_BASE_PATH', '/');
  return { protocol: url.protocol.replace(':', ''), hostname: url.hostname, port, path };
}
