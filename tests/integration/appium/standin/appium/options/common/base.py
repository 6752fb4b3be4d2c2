"""appium.options.common.base (stand-in; see PROVENANCE.md)."""
from selenium.webdriver.common.options import ArgOptions


class AppiumOptions(ArgOptions):
    def to_capabilities(self):
        return dict(self._caps)

    @property
    def default_capabilities(self):
        return {}
