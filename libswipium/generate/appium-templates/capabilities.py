# capabilities.py: the Appium session this suite asks for, from the environment.
# Uses only what Appium-Python-Client has had since 2.0: appium.webdriver and the options classes.
import os
from urllib.parse import urlsplit

from appium.options.android import UiAutomator2Options
from appium.options.ios import XCUITestOptions

from swipium_support.env import env_flag, env_or
from swipium_support.recorded import DEFAULT_PLATFORM, RECORDED_APP_ID, RECORDED_PLATFORM


def platform():
    """SWIPIUM_PLATFORM (android or ios), else the platform swipium chose when it wrote the suite."""
    raw = env_or("SWIPIUM_PLATFORM", DEFAULT_PLATFORM).strip().lower()
    if raw not in ("android", "ios"):
        raise RuntimeError("SWIPIUM_PLATFORM must be android or ios, not %r" % raw)
    return raw


def app_id():
    """IOS_BUNDLE_ID or ANDROID_APP_PACKAGE, else the recorded app on its own platform."""
    name = "IOS_BUNDLE_ID" if platform() == "ios" else "ANDROID_APP_PACKAGE"
    value = env_or(name, RECORDED_APP_ID if RECORDED_PLATFORM == platform() else "")
    if value == "":
        raise RuntimeError("Set %s: the run was recorded on %s, so its app id does not apply here." % (name, RECORDED_PLATFORM))
    return value


def options():
    """UiAutomator2 on Android, XCUITest on iOS; ANDROID_* / IOS_* fill in the device and the app."""
    ios = platform() == "ios"
    prefix = "IOS_" if ios else "ANDROID_"
    opts = XCUITestOptions() if ios else UiAutomator2Options()
    opts.set_capability("appium:noReset", env_flag("SWIPIUM_NO_RESET"))
    opts.set_capability("appium:newCommandTimeout", 240)
    opts.set_capability("appium:deviceName", env_or(prefix + "DEVICE_NAME", "iPhone Simulator" if ios else "Android Emulator"))
    for capability, name in (("appium:udid", prefix + "UDID"), ("appium:platformVersion", prefix + "PLATFORM_VERSION")):
        if os.environ.get(name):
            opts.set_capability(capability, os.environ[name])
    app = os.environ.get(prefix + "APP", "")
    if app:
        opts.set_capability("appium:app", app)
    elif ios:
        opts.set_capability("appium:bundleId", app_id())
    else:
        opts.set_capability("appium:appPackage", app_id())
        if os.environ.get("ANDROID_APP_ACTIVITY"):
            opts.set_capability("appium:appActivity", os.environ["ANDROID_APP_ACTIVITY"])
    return opts


def server_url():
    """APPIUM_HOST: a host name or a URL (http://host:4723/base); APPIUM_PORT and APPIUM_BASE_PATH fill the rest."""
    raw = env_or("APPIUM_HOST", "127.0.0.1").strip()
    parts = urlsplit(raw if "://" in raw else "http://" + raw)
    port = parts.port or int(env_or("APPIUM_PORT", "4723"))
    path = parts.path if parts.path not in ("", "/") else env_or("APPIUM_BASE_PATH", "/")
    return "%s://%s:%d%s" % (parts.scheme or "http", parts.hostname or "127.0.0.1", port, path)
