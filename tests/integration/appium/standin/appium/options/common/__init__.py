from .base import AppiumOptions

__all__ = ["AppiumOptions"]
