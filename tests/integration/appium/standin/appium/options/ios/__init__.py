"""appium.options.ios (stand-in; see PROVENANCE.md)."""
from appium.options.common.base import AppiumOptions


class XCUITestOptions(AppiumOptions):
    def __init__(self):
        super().__init__()
        self.set_capability("platformName", "iOS")
        self.set_capability("appium:automationName", "XCUITest")


__all__ = ["XCUITestOptions"]
