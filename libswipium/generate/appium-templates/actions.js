// actions.js: what a recorded step does, in WebdriverIO calls (written by swipium qa_generate; edit freely).
import { $, browser } from '@wdio/globals';
import { appId, platform } from './capabilities.js';
const WAIT_MS = Number(process.env.SWIPIUM_WAIT_MS ?? '10000');
export function locator(strategy, value, x = 0, y = 0) {
    return Object.freeze({ strategy, value, x, y });
}
/** A double-quoted string for a UiSelector or an iOS predicate, so the text stays a value there too. */
function quoted(text) {
    return '"' + text.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}
export function selectorFor(loc) {
    const ios = platform() === 'ios';
    switch (loc.strategy) {
        case 'accessibility_id':
            return '~' + loc.value;
        case 'id':
            return ios ? '~' + loc.value : 'android=new UiSelector().resourceId(' + quoted(loc.value) + ')';
        case 'text':
            return ios
                ? '-ios predicate string:label == ' + quoted(loc.value) + ' OR name == ' + quoted(loc.value) +
                    ' OR value == ' + quoted(loc.value)
                : 'android=new UiSelector().text(' + quoted(loc.value) + ')';
        default:
            throw new Error('a screen coordinate is not an element: tap it with tap()');
    }
}
export async function find(loc, timeout = WAIT_MS) {
    const el = $(selectorFor(loc));
    await el.waitForDisplayed({ timeout });
    return el;
}
async function touchPath(x1, y1, x2, y2, moveMs) {
    await browser
        .action('pointer', { parameters: { pointerType: 'touch' } })
        .move({ x: Math.round(x1), y: Math.round(y1) })
        .down()
        .pause(80)
        .move({ x: Math.round(x2), y: Math.round(y2), duration: moveMs })
        .up()
        .perform();
}
async function centerOf(loc) {
    if (loc.strategy === 'coordinates') {
        return { x: loc.x, y: loc.y };
    }
    const el = await find(loc);
    const at = await el.getLocation();
    const size = await el.getSize();
    return { x: at.x + size.width / 2, y: at.y + size.height / 2 };
}
export async function tap(loc) {
    if (loc.strategy === 'coordinates') {
        await touchPath(loc.x, loc.y, loc.x, loc.y, 0);
        return;
    }
    await (await find(loc)).click();
}
/** Replaces the field's text with @text; without a field, types into whatever has the focus. */
export async function typeInto(loc, text) {
    if (loc === null) {
        await browser.keys(text);
        return;
    }
    if (loc.strategy === 'coordinates') {
        await tap(loc);
        await browser.keys(text);
        return;
    }
    await (await find(loc)).setValue(text);
}
export async function clear(loc) {
    await (await find(loc)).clearValue();
}
/** A finger moved in @direction over 40 % of the screen, from @from (an element or a point) or the middle. */
export async function swipe(direction, from = null) {
    const { width, height } = await browser.getWindowSize();
    const start = from === null ? { x: width / 2, y: height / 2 } : await centerOf(from);
    const dx = direction === 'left' ? -0.4 * width : direction === 'right' ? 0.4 * width : 0;
    const dy = direction === 'up' ? -0.4 * height : direction === 'down' ? 0.4 * height : 0;
    const clamp = (v, max) => Math.min(Math.max(v, max * 0.05), max * 0.95);
    await touchPath(start.x, start.y, clamp(start.x + dx, width), clamp(start.y + dy, height), 300);
}
const FINGER_FOR_SCROLL = { down: 'up', up: 'down', left: 'right', right: 'left' };
/** Scrolls the content in @direction (down: the finger moves up) once. */
export async function scroll(direction) {
    await swipe(FINGER_FOR_SCROLL[direction]);
}
/** Scrolls in @direction until @target is displayed, at most @maxScrolls times; fails when it never shows. */
export async function scrollUntilVisible(target, direction, maxScrolls) {
    for (let i = 0;; i++) {
        if (await $(selectorFor(target)).isDisplayed()) {
            return;
        }
        if (i >= maxScrolls) {
            throw new Error(`not visible after ${maxScrolls} scrolls ${direction}: ${target.strategy} ${JSON.stringify(target.value)}`);
        }
        await scroll(direction);
    }
}
const ANDROID_KEYCODES = {
    back: 4, home: 3, enter: 66, tab: 61, delete: 67, backspace: 67, search: 84, menu: 82, escape: 111, space: 62,
    volume_up: 24, volume_down: 25, app_switch: 187,
};
export async function pressKey(key) {
    if (platform() === 'android') {
        const keycode = ANDROID_KEYCODES[key];
        if (keycode === undefined) {
            throw new Error(`no Android key code for ${JSON.stringify(key)}`);
        }
        await browser.execute('mobile: pressKey', { keycode });
        return;
    }
    if (key === 'back') {
        await browser.back();
    }
    else if (key === 'enter') {
        await browser.keys('\n');
    }
    else if (key === 'home' || key === 'volume_up' || key === 'volume_down') {
        await browser.execute('mobile: pressButton', { name: key.replace('_', '') });
    }
    else {
        throw new Error(`iOS has no button for ${JSON.stringify(key)}`);
    }
}
export async function back() {
    await browser.back();
}
export async function launchApp() {
    const id = appId();
    await browser.execute('mobile: activateApp', platform() === 'ios' ? { bundleId: id } : { appId: id });
}
/** Opens a deep link in the app under test (mobile: deepLink, UiAutomator2 and XCUITest). */
export async function openUrl(url) {
    const id = appId();
    await browser.execute('mobile: deepLink', platform() === 'ios' ? { url, bundleId: id } : { url, package: id });
}
export async function waitFor(loc, timeout) {
    await find(loc, Math.max(timeout, WAIT_MS));
}
export async function pause(ms) {
    await browser.pause(ms);
}
/** @text as a Java regular expression that matches it literally (every ASCII punctuation escaped). */
function literalRegex(text) {
    return text.replace(/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/g, '\\$&');
}
/** The selector of an element whose text contains @text, ignoring case as the flow runner does. */
function textContains(text) {
    return platform() === 'ios'
        ? '-ios predicate string:label CONTAINS[c] ' + quoted(text) + ' OR name CONTAINS[c] ' + quoted(text) +
            ' OR value CONTAINS[c] ' + quoted(text)
        : 'android=new UiSelector().textMatches(' + quoted('(?is).*' + literalRegex(text) + '.*') + ')';
}
/** Fails unless an element whose text contains @expected is displayed. */
export async function assertTextVisible(expected) {
    const el = $(textContains(expected));
    try {
        await el.waitForDisplayed({ timeout: WAIT_MS });
    }
    catch {
        throw new Error(`expected text not visible: ${JSON.stringify(expected)}`);
    }
    if (!(await el.isDisplayed())) {
        throw new Error(`expected text not displayed: ${JSON.stringify(expected)}`);
    }
}
/** Fails unless @loc's element shows a text containing @expected (case ignored, as the flow runner does). */
export async function assertElementText(loc, expected) {
    const text = await (await find(loc)).getText();
    if (!text.toLowerCase().includes(expected.toLowerCase())) {
        throw new Error(`expected ${JSON.stringify(expected)} in ${JSON.stringify(text)}`);
    }
}
