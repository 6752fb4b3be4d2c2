"""appium.options.android (stand-in; see PROVENANCE.md)."""
from appium.options.common.base import AppiumOptions


class UiAutomator2Options(AppiumOptions):
    def __init__(self):
        super().__init__()
        self.set_capability("platformName", "Android")
        self.set_capability("appium:automationName", "UiAutomator2")


__all__ = ["UiAutomator2Options"]
