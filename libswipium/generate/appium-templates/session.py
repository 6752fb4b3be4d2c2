# session.py: one Appium session for a test.
from appium import webdriver

from swipium_support.capabilities import options, server_url


def start_driver():
    """A new Appium session on the server APPIUM_HOST names, with the capabilities from the environment."""
    driver = webdriver.Remote(command_executor=server_url(), options=options())
    driver.implicitly_wait(0)
    return driver
