"""appium.webdriver.common.appiumby (stand-in; see PROVENANCE.md)."""
from selenium.webdriver.common.by import By


class AppiumBy(By):
    IOS_PREDICATE = "-ios predicate string"
    IOS_CLASS_CHAIN = "-ios class chain"
    ANDROID_UIAUTOMATOR = "-android uiautomator"
    ACCESSIBILITY_ID = "accessibility id"
