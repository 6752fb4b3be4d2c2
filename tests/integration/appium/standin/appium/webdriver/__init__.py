"""appium.webdriver: Remote, as the real client re-exports it (stand-in; see PROVENANCE.md).

The real client's Remote is Selenium's remote WebDriver plus Appium's extension commands, and it sends a
locator's strategy as given (Selenium alone would turn "id" into a CSS selector). The generated suites call
only Selenium's own commands (and `execute_script("mobile: ...")`), so the stand-in is Selenium's WebDriver
with those two finders: it speaks real W3C WebDriver to whatever server APPIUM_HOST names.
"""
from selenium.webdriver.remote.command import Command
from selenium.webdriver.remote.webdriver import WebDriver as _SeleniumWebDriver


class Remote(_SeleniumWebDriver):
    def __init__(self, command_executor="http://127.0.0.1:4723", options=None, **kwargs):
        super().__init__(command_executor=command_executor, options=options, **kwargs)

    def find_element(self, by="id", value=None):
        return self.execute(Command.FIND_ELEMENT, {"using": by, "value": value})["value"]

    def find_elements(self, by="id", value=None):
        return self.execute(Command.FIND_ELEMENTS, {"using": by, "value": value})["value"] or []


__all__ = ["Remote"]
