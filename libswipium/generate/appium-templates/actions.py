# actions.py: what a recorded step does, in Appium and Selenium calls (written by swipium qa_generate; edit freely).
import os
import re
import time

from appium.webdriver.common.appiumby import AppiumBy
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from swipium_support.capabilities import app_id, platform

WAIT_S = float(os.environ.get("SWIPIUM_WAIT_MS", "10000")) / 1000.0
STRATEGIES = ("id", "accessibility_id", "text", "coordinates")


class Locator:
    """A locator a screen object holds: its value is data, turned into a selector only here."""

    __slots__ = ("strategy", "value", "x", "y")

    def __init__(self, strategy, value, x=0, y=0):
        if strategy not in STRATEGIES:
            raise ValueError("unknown locator strategy %r" % strategy)
        self.strategy = strategy
        self.value = value
        self.x = x
        self.y = y

    def __repr__(self):
        return "Locator(%r, %r)" % (self.strategy, self.value)


def _quoted(text):
    """A double-quoted string for a UiSelector or an iOS predicate, so the text stays a value there too."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def by(loc):
    """The (strategy, selector) pair Appium finds `loc` with on the current platform."""
    ios = platform() == "ios"
    if loc.strategy == "accessibility_id":
        return (AppiumBy.ACCESSIBILITY_ID, loc.value)
    if loc.strategy == "id":
        return (AppiumBy.ACCESSIBILITY_ID, loc.value) if ios else (AppiumBy.ID, loc.value)
    if loc.strategy == "text":
        q = _quoted(loc.value)
        if ios:
            return (AppiumBy.IOS_PREDICATE, "label == %s OR name == %s OR value == %s" % (q, q, q))
        return (AppiumBy.ANDROID_UIAUTOMATOR, "new UiSelector().text(%s)" % q)
    raise ValueError("a screen coordinate is not an element: tap it with tap()")


def find(driver, loc, timeout=None):
    wait = WebDriverWait(driver, WAIT_S if timeout is None else timeout)
    return wait.until(expected_conditions.visibility_of_element_located(by(loc)))


def _touch_path(driver, x1, y1, x2, y2, move_s):
    actions = ActionChains(driver)
    actions.w3c_actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    finger = actions.w3c_actions.pointer_action
    finger.move_to_location(int(x1), int(y1))
    finger.pointer_down()
    finger.pause(0.08)
    if move_s > 0:
        finger.pause(move_s)
    finger.move_to_location(int(x2), int(y2))
    finger.release()
    actions.perform()


def _center(driver, loc):
    if loc.strategy == "coordinates":
        return loc.x, loc.y
    rect = find(driver, loc).rect
    return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2


def tap(driver, loc):
    if loc.strategy == "coordinates":
        _touch_path(driver, loc.x, loc.y, loc.x, loc.y, 0)
        return
    find(driver, loc).click()


def type_into(driver, loc, text):
    """Replaces the field's text with `text`; without a field, types into whatever has the focus."""
    if loc is None:
        driver.switch_to.active_element.send_keys(text)
        return
    if loc.strategy == "coordinates":
        tap(driver, loc)
        driver.switch_to.active_element.send_keys(text)
        return
    field = find(driver, loc)
    field.clear()
    field.send_keys(text)


def clear(driver, loc):
    find(driver, loc).clear()


def swipe(driver, direction, start=None):
    """A finger moved in `direction` over 40 % of the screen, from `start` (an element or a point) or the middle."""
    size = driver.get_window_size()
    width, height = size["width"], size["height"]
    x, y = (width / 2, height / 2) if start is None else _center(driver, start)
    dx = {"left": -0.4 * width, "right": 0.4 * width}.get(direction, 0)
    dy = {"up": -0.4 * height, "down": 0.4 * height}.get(direction, 0)

    def clamp(v, top):
        return min(max(v, top * 0.05), top * 0.95)

    _touch_path(driver, x, y, clamp(x + dx, width), clamp(y + dy, height), 0.3)


FINGER_FOR_SCROLL = {"down": "up", "up": "down", "left": "right", "right": "left"}


def scroll(driver, direction):
    """Scrolls the content in `direction` (down: the finger moves up) once."""
    swipe(driver, FINGER_FOR_SCROLL[direction])


def _displayed(driver, loc):
    try:
        return any(el.is_displayed() for el in driver.find_elements(*by(loc)))
    except WebDriverException:
        return False


def scroll_until_visible(driver, target, direction, max_scrolls):
    """Scrolls in `direction` until `target` is displayed, at most `max_scrolls` times; fails when it never shows."""
    for i in range(max_scrolls + 1):
        if _displayed(driver, target):
            return
        if i < max_scrolls:
            scroll(driver, direction)
    raise AssertionError("not visible after %d scrolls %s: %r" % (max_scrolls, direction, target))


ANDROID_KEYCODES = {
    "back": 4, "home": 3, "enter": 66, "tab": 61, "delete": 67, "backspace": 67, "search": 84, "menu": 82,
    "escape": 111, "space": 62, "volume_up": 24, "volume_down": 25, "app_switch": 187,
}


def press_key(driver, key):
    if platform() == "android":
        driver.execute_script("mobile: pressKey", {"keycode": ANDROID_KEYCODES[key]})
    elif key == "back":
        driver.back()
    elif key == "enter":
        driver.switch_to.active_element.send_keys("\n")
    elif key in ("home", "volume_up", "volume_down"):
        driver.execute_script("mobile: pressButton", {"name": key.replace("_", "")})
    else:
        raise AssertionError("iOS has no button for %r" % key)


def back(driver):
    driver.back()


def launch_app(driver):
    key = "bundleId" if platform() == "ios" else "appId"
    driver.execute_script("mobile: activateApp", {key: app_id()})


def open_url(driver, url):
    """Opens a deep link in the app under test (mobile: deepLink, UiAutomator2 and XCUITest)."""
    key = "bundleId" if platform() == "ios" else "package"
    driver.execute_script("mobile: deepLink", {"url": url, key: app_id()})

def wait_for(driver, loc, timeout_ms):
    find(driver, loc, max(timeout_ms / 1000.0, WAIT_S))


def pause(ms):
    time.sleep(ms / 1000.0)


def _literal_regex(text):
    """`text` as a Java regular expression that matches it literally (every ASCII punctuation escaped)."""
    return re.sub(r"[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]", lambda m: "\\" + m.group(0), text)


def _text_contains(text):
    """The (strategy, selector) pair of an element whose text contains `text`, ignoring case as the flow runner does."""
    if platform() == "ios":
        q = _quoted(text)
        return (AppiumBy.IOS_PREDICATE,
                "label CONTAINS[c] %s OR name CONTAINS[c] %s OR value CONTAINS[c] %s" % (q, q, q))
    return (AppiumBy.ANDROID_UIAUTOMATOR,
            "new UiSelector().textMatches(%s)" % _quoted("(?is).*" + _literal_regex(text) + ".*"))


def assert_text_visible(driver, expected):
    """Fails unless an element whose text contains `expected` is displayed."""
    try:
        wait = WebDriverWait(driver, WAIT_S)
        el = wait.until(expected_conditions.visibility_of_element_located(_text_contains(expected)))
    except TimeoutException:
        raise AssertionError("expected text not visible: %r" % expected) from None
    if not el.is_displayed():
        raise AssertionError("expected text not displayed: %r" % expected)


def assert_element_text(driver, loc, expected):
    """Fails unless `loc`'s element shows a text containing `expected` (case ignored, as the flow runner does)."""
    text = find(driver, loc).text or ""
    if expected.lower() not in text.lower():
        raise AssertionError("expected %r in %r" % (expected, text))
