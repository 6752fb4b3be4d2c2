# conftest.py: the pytest fixture that gives each test its own Appium session.
import pytest

from swipium_support.session import start_driver


@pytest.fixture
def driver():
    drv = start_driver()
    try:
        yield drv
    finally:
        drv.quit()
