"""appium.webdriver: Remote, as the real client re-exports it (stand-in; see PROVENANCE.md)."""
from selenium.webdriver.remote.webdriver import WebDriver as _SeleniumWebDriver


class Remote(_SeleniumWebDriver):
    def __init__(self, command_executor="http://127.0.0.1:4723", options=None, **kwargs):
        raise RuntimeError("stand-in Appium client: no session can be started here (see PROVENANCE.md)")


__all__ = ["Remote"]
